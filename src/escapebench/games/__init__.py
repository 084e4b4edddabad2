"""escapebench.games

Re-exported for the packages above (import these from ``escapebench.games``):
:func:`load_playable`, :func:`require_playable`, :class:`BrokenGamesError` and
:class:`UnplayableGamesError` (today in :mod:`.checking`), :func:`add_protocol_arguments`
(today in :mod:`.command_replay`).
"""

from escapebench.games.checking import (
    BrokenGamesError,
    UnplayableGamesError,
    load_playable,
    require_playable,
)
from escapebench.games.command_replay import add_protocol_arguments

__all__ = [
    "BrokenGamesError",
    "UnplayableGamesError",
    "add_protocol_arguments",
    "load_playable",
    "require_playable",
]
