"""The game generator: fresh, proven EscapeBench-style games in difficulty tiers.

* :mod:`~escapebench.generate.knobs`: the knobs and the tier presets.
* :mod:`~escapebench.generate.build`: one candidate, a dependency graph built backward from
  the exit and rendered in our game format.
* :mod:`~escapebench.generate.proof`: the no-shortcut proof over an abstraction of the states,
  and the check that no text below easy names its solution.
* :mod:`~escapebench.generate.make`: candidates checked and proven, rejects replaced.
* :mod:`~escapebench.generate.data`: the affordance table, themes and words (``data/``).

This package imports only :mod:`escapebench.engine` and :mod:`escapebench.games`;
:mod:`escapebench.catalog` imports it where a ``gen:`` spec is resolved.
"""

from escapebench.generate.knobs import KNOB_NAMES, TIERS, Knobs, knobs_for
from escapebench.generate.make import (
    GENERATOR_VERSION,
    Generated,
    GenSpec,
    generate_games,
    parse_gen_spec,
    prove,
)
from escapebench.generate.proof import abstract_reaches_end, naming_problems

__all__ = [
    "GENERATOR_VERSION",
    "KNOB_NAMES",
    "TIERS",
    "GenSpec",
    "Generated",
    "Knobs",
    "abstract_reaches_end",
    "generate_games",
    "knobs_for",
    "naming_problems",
    "parse_gen_spec",
    "prove",
]
