"""Generated escape-room games (issue 22).

Placeholder until the generator lands: for now it only names where its data files live
(``data/affordances.yaml`` and ``data/themes/*.yaml``; see docs/generator-data.md).
"""

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
"""The folder holding the affordance table and the theme files."""

__all__ = ["DATA"]
