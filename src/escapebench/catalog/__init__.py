"""The catalog of games: what ``--games`` names, resolved for every verb and integration.

Where to start reading: :mod:`~escapebench.catalog.sources` reads a game spec (``builtin``, a
built-in name, a file, a folder, an original checkout, a glob, or a prefixed source such as
``gen:``, registered in :data:`SOURCES`) and comma lists of them (``lab,tutorial``). The game
files themselves are read by :mod:`escapebench.games`, generated games are made by
:mod:`escapebench.generate`; this package sits above both, so neither imports the other for a
spec. ``command_games``, ``command_check`` and ``command_replay`` are the ``games``, ``check``
and ``replay`` verbs, which take specs as ``--games`` does.

This package imports :mod:`escapebench.engine`, :mod:`escapebench.protocols`,
:mod:`escapebench.games` and :mod:`escapebench.generate`.
"""

from escapebench.catalog.sources import (
    SOURCES,
    Source,
    check_specs,
    generated_games,
    load_games,
    load_games_reporting,
    load_playable,
    pick_setting,
    register,
    resolve,
    source_of,
    split_specs,
)

__all__ = [
    "SOURCES",
    "Source",
    "check_specs",
    "generated_games",
    "load_games",
    "load_games_reporting",
    "load_playable",
    "pick_setting",
    "register",
    "resolve",
    "source_of",
    "split_specs",
]
