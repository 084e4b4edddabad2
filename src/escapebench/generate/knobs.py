"""The generator's knobs and the tier presets over them."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

__all__ = ["KNOB_NAMES", "KNOB_RANGES", "MAX_COUNT", "MAX_SEED", "TIERS", "Knobs",
           "allow_large", "count_problem", "knob_range", "knobs_for"]


@dataclass(frozen=True)
class Knobs:
    """What a generated game is made of (see docs/generator.md)."""

    scenes: int = 3          # scenes the player walks through (close-ups come on top)
    steps: int = 6           # puzzle units on the way to the exit (depth)
    breadth: int = 2         # chains per scene that can be done in any order
    crafts: int = 1          # units solved by a crafted tool
    inputs: int = 1          # code locks whose answer is spread over clues
    creative: float = 0.3    # share of property steps whose tool is not what its name suggests
    distractors: int = 2     # useless tools and items with their own failure texts
    indirection: int = 1     # 0: clues say which digit they are plainly; 2: only by a mark
    closeups: int = 1        # close-ups per scene (with vary, a game draws 0 to 4 times this)
    clicks: int = 1          # boxes that only need opening (click key steps)
    held: int = 3            # tools in the bag (keys aside) at every creative step, at least
    vary: float = 0.0        # each game draws scenes and steps within this share around them


TIERS: dict[int, Knobs] = {
    1: Knobs(scenes=1, steps=4, breadth=2, crafts=1, inputs=1, creative=0.0, distractors=1,
             indirection=0, closeups=1, clicks=1, held=0, vary=0.0),
    2: Knobs(scenes=3, steps=8, breadth=2, crafts=1, inputs=2, creative=0.3, distractors=4,
             indirection=1, closeups=1, clicks=2, held=3, vary=0.3),
    3: Knobs(scenes=5, steps=16, breadth=2, crafts=2, inputs=4, creative=0.5, distractors=10,
             indirection=1, closeups=1, clicks=6, held=6, vary=0.6),
    4: Knobs(scenes=9, steps=26, breadth=2, crafts=4, inputs=6, creative=0.7, distractors=14,
             indirection=2, closeups=1, clicks=8, held=8, vary=0.5),
    5: Knobs(scenes=13, steps=36, breadth=2, crafts=5, inputs=8, creative=0.9, distractors=18,
             indirection=2, closeups=1, clicks=11, held=10, vary=0.5),
}

KNOB_NAMES = tuple(f.name for f in fields(Knobs))

KNOB_RANGES: dict[str, tuple[float, float]] = {
    "scenes": (1, 30),
    "steps": (1, 60),
    "breadth": (1, 6),
    "crafts": (0, 10),
    "inputs": (0, 10),
    "creative": (0.0, 1.0),
    "distractors": (0, 40),
    "indirection": (0, 2),
    "closeups": (0, 4),
    "clicks": (0, 20),
    "held": (0, 20),
    "vary": (0.0, 0.8),
}
"""The values each knob may take (both ends included; docs/generator.md lists them): past
them the generator runs out of words and places, or takes hours for one game."""
_DEFAULT_RANGES = {int: (0, 100), float: (0.0, 1.0)}  # a knob not in the table above

MAX_COUNT = 10_000
"""Games one ``gen:`` spec (or ``generate --count``) may ask for unless large counts are
allowed (``--allow-large``): at about a second a game, 10,000 is hours of generation."""
MAX_SEED = 2**63 - 1
_large = {"allowed": False}


def allow_large(allowed: bool = True) -> None:
    """Let ``gen:`` specs and ``generate`` ask for more than :data:`MAX_COUNT` games (the
    verbs' ``--allow-large``; for this process)."""
    _large["allowed"] = allowed


def count_problem(count: int, *, what: str = "count") -> str | None:
    """Why ``count`` games cannot be asked for (None: they can)."""
    if count < 1:
        return f"{what} must be at least 1"
    if count > MAX_COUNT and not _large["allowed"]:
        return (f"{what}={count} is more than {MAX_COUNT:,} games (hours of generation); "
                "pass --allow-large to generate them all the same")
    return None


def knob_range(name: str) -> tuple[float, float]:
    """The values knob ``name`` may take (both ends included)."""
    kind = type(getattr(Knobs(), name))
    return KNOB_RANGES.get(name, _DEFAULT_RANGES[kind])


def knobs_for(tier: int, overrides: dict[str, str] | None = None) -> Knobs:
    """The preset of ``tier`` with ``overrides`` (``name -> text``) applied.

    Raises ValueError naming an unknown tier or knob, or a value that is not a number or is
    out of its range (:data:`KNOB_RANGES`; infinity and NaN are out of every range).
    """
    if tier not in TIERS:
        raise ValueError(f"tier must be 1-5, not {tier}")
    k = TIERS[tier]
    for name, text in (overrides or {}).items():
        if name not in KNOB_NAMES:
            raise ValueError(f"unknown knob {name!r} (knobs: {', '.join(KNOB_NAMES)})")
        is_float = isinstance(getattr(Knobs(), name), float)
        try:
            value: float | int = float(text) if is_float else int(text)
        except ValueError:
            kind = "a number" if is_float else "a whole number"
            raise ValueError(f"knob {name}={text!r} is not {kind}") from None
        low, high = knob_range(name)
        if not math.isfinite(value) or not low <= value <= high:
            shown = f"{low:g} to {high:g}" if is_float else f"{int(low)} to {int(high)}"
            raise ValueError(f"knob {name}={text!r} is out of range ({name} takes {shown})")
        k = replace(k, **{name: value})
    return k
