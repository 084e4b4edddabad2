"""Result folders: the folder lock."""

from __future__ import annotations

import pytest

from escapebench.bench.folders import folder_lock
from escapebench.bench.settings import RunConfigError


def test_a_folder_in_use_is_refused(tmp_path):
    with (
        folder_lock(tmp_path),
        pytest.raises(RunConfigError, match="in use by another"),
        folder_lock(tmp_path),
    ):
        pass
    with folder_lock(tmp_path):  # released
        pass
