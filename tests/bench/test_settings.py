"""The run's settings: the --shard syntax."""

from __future__ import annotations

import pytest

from escapebench.bench.settings import RunConfigError, parse_shard


def test_shard_syntax() -> None:
    assert parse_shard("2/4") == (2, 4)
    for bad in ("0/4", "5/4", "1-4", "x"):
        with pytest.raises(RunConfigError):
            parse_shard(bad)
