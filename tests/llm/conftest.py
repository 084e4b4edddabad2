"""Fixtures of the model-layer tests."""

from __future__ import annotations

import sys
from pathlib import Path

# ``tests.support`` lives at the repository root, which plain ``pytest`` (unlike
# ``python -m pytest``) does not put on sys.path.
_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
