"""Shared fixtures. The original games live outside the repo and are optional."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("ESCAPEBENCH_SHARED", Path(__file__).resolve().parents[2] / "shared"))
UPSTREAM = SHARED / "upstream"


@pytest.fixture(scope="session")
def upstream_dir() -> Path:
    """The folder with the original games and traces; skips the test where it is absent."""
    if not (UPSTREAM / "data").is_dir():
        pytest.skip(f"original games not present at {UPSTREAM}")
    return UPSTREAM
