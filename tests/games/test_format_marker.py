"""The format marker is the number 1: ``escapebench: yes`` (YAML's true, equal to 1 in
Python) or ``escapebench: "1"`` is a file of an unknown version, named with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.games.loading import GameFileError, load_file
from tests.games.shed import write_shed


@pytest.mark.parametrize("marker", ["yes", "true", '"1"', "1.5"])
def test_a_marker_that_is_not_the_number_1_is_refused(tmp_path: Path, marker: str) -> None:
    path = write_shed(tmp_path, "escapebench: 1\n", f"escapebench: {marker}\n")
    with pytest.raises(GameFileError, match=r"shed\.yaml:1:\d+: expected 'escapebench: 1'"):
        load_file(path)


def test_the_marker_1_loads(tmp_path: Path) -> None:
    assert [d.setting for d in load_file(write_shed(tmp_path))] == ["shed"]
