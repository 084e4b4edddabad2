"""The pure rules of EscapeBench: definitions, play state, step, action parsing.

No I/O, no printing, no module-level mutable state, and no sentence meant for a player: load
definitions with ``escapebench.games.loading`` and play them with :class:`EscapeGame`. What a
step did is reported as data (:class:`StepResult`: success, error, events, counts, and its
:class:`Outcome`: the kind of thing that happened and the names involved); the texts a model or
a person reads (the screen, the feedback) are a protocol's (``escapebench.protocols``). A view
of the state keeps itself current through the game's :class:`StateWatcher`.
"""

from escapebench.engine.actions import Action, Call, extract_call, parse_call
from escapebench.engine.env import EscapeGame, Event, StepResult, clear_memos
from escapebench.engine.model import BrokenGameError, GameDefinition, GeneratedFrom, ReferenceStep
from escapebench.engine.outcome import OUTCOME_KINDS, Outcome
from escapebench.engine.watch import StateWatcher

__all__ = [
    "OUTCOME_KINDS",
    "Action",
    "BrokenGameError",
    "Call",
    "EscapeGame",
    "Event",
    "GameDefinition",
    "GeneratedFrom",
    "Outcome",
    "ReferenceStep",
    "StateWatcher",
    "StepResult",
    "clear_memos",
    "extract_call",
    "parse_call",
]
