"""Reading the generator's data files (the affordance table and the themes)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

DATA_DIR = Path(__file__).parent / "data"

__all__ = ["DATA_DIR", "affordances", "themes", "words"]


@lru_cache(maxsize=1)
def affordances() -> dict[str, Any]:
    """The affordance table (``data/affordances.yaml``), read once."""
    return yaml.safe_load((DATA_DIR / "affordances.yaml").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def themes() -> list[dict[str, Any]]:
    """Every theme in ``data/themes/``, sorted by file name (a stable order for the seed)."""
    return [
        yaml.safe_load(p.read_text(encoding="utf-8"))
        for p in sorted((DATA_DIR / "themes").glob("*.yaml"))
    ]


@lru_cache(maxsize=1)
def words() -> dict[str, Any]:
    """The sentence variants and details (``data/words.yaml``), read once."""
    return yaml.safe_load((DATA_DIR / "words.yaml").read_text(encoding="utf-8"))
