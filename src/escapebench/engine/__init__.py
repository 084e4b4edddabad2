"""The pure rules of EscapeBench: definitions, play state, step, observations, parsing.

No I/O, no printing, no module-level mutable state: load definitions with
``escapebench.games.loading`` and play them with :class:`EscapeGame`. What a step did is
reported as data (:class:`StepResult`: success, error, events, counts); the texts a model reads
are a protocol's (``escapebench.protocols``).
"""

from escapebench.engine.actions import Action, Call, extract_call, parse_call
from escapebench.engine.env import EscapeGame, Event, StepResult, clear_memos
from escapebench.engine.model import BrokenGameError, GameDefinition, ReferenceStep

__all__ = [
    "Action",
    "BrokenGameError",
    "Call",
    "EscapeGame",
    "Event",
    "GameDefinition",
    "ReferenceStep",
    "StepResult",
    "clear_memos",
    "extract_call",
    "parse_call",
]
