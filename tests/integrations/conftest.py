"""Fixtures of the integration tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _keep_recursion_limit() -> Iterator[None]:
    """``inspect_ai.eval`` raises the interpreter's recursion limit (to 3000) and leaves it
    there; put it back, so that later tests (deeply nested JSON must fail to parse) see the
    interpreter as it starts."""
    limit = sys.getrecursionlimit()
    yield
    sys.setrecursionlimit(limit)
