"""Reading the generator's data files (the affordance table and the themes)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

DATA_DIR = Path(__file__).parent / "data"

# libyaml's safe loader where PyYAML was built with it (the same data, read about 5x faster:
# the table is read once per process, and a report or a CLI call pays for it each time)
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read(path: Path) -> Any:
    """A data file of ours, read with a safe loader."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)  # noqa: S506

__all__ = ["DATA_DIR", "affordances", "themes", "words"]


@lru_cache(maxsize=1)
def affordances() -> dict[str, Any]:
    """The affordance table (``data/affordances.yaml``), read once."""
    return _read(DATA_DIR / "affordances.yaml")


@lru_cache(maxsize=1)
def themes() -> list[dict[str, Any]]:
    """Every theme in ``data/themes/``, sorted by file name (a stable order for the seed)."""
    return [_read(p) for p in sorted((DATA_DIR / "themes").glob("*.yaml"))]


@lru_cache(maxsize=1)
def words() -> dict[str, Any]:
    """The sentence variants and details (``data/words.yaml``), read once."""
    return _read(DATA_DIR / "words.yaml")
