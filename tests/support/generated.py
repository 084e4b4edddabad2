"""Candidate games as the generator's proof sees them, for tests of the builder and the proof."""

from __future__ import annotations

from typing import Any

from escapebench.generate.build import build_design
from escapebench.generate.knobs import knobs_for
from escapebench.generate.make import _sub_rng

BUILD_ATTEMPTS = 5


def first_design(
    tier: int, seed: int, index: int, name: str, overrides: dict[str, str] | None = None
) -> Any:
    """The first candidate of game ``index`` of ``(tier, seed)`` the builder finishes: one it
    gives up on (a ValueError, or the other errors ``generate`` counts as a candidate the
    data cannot fill) is replaced by the next sub-seed before any proof, as in
    ``generate``. None if the first :data:`BUILD_ATTEMPTS` all give up."""
    for attempt in range(BUILD_ATTEMPTS):
        try:
            return build_design(
                knobs_for(tier, overrides), _sub_rng(seed, tier, index, attempt), name
            )
        except (ValueError, KeyError, IndexError, StopIteration):  # as generate does
            continue
    return None
