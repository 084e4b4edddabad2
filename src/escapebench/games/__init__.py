"""Games: loading game files, checking them, and refusing the ones that cannot be played.

Where to start reading:

* :mod:`~escapebench.games.loading` reads a game file (the original EscapeBench layout or our
  own format) into an :class:`~escapebench.engine.model.GameDefinition`, and resolves the game
  specs of game files (``lab``, ``lab-hard``, ``builtin``, a file, a folder, a glob);
  the built-in games are in ``builtin/``. Every spec the commands take, ``gen:`` and comma
  lists included, is resolved by :mod:`escapebench.catalog`, above this package. The YAML
  text itself is read by :mod:`~escapebench.games.yaml_reader` (safely: no aliases, no deep
  nesting; fast; cached).
* :mod:`~escapebench.games.validation` is what ``escapebench check`` runs on a setting, one
  :class:`SettingReport` each, from the checks:
  :mod:`~escapebench.games.checks` (static: names, pairings, states, reveals, keys),
  :mod:`~escapebench.games.reference` (the reference chain replayed, the oracle step count) and
  :mod:`~escapebench.games.solver` (a search of the states for any way to ``GAME END``); every
  problem is a :class:`CheckIssue` (:mod:`~escapebench.games.issues`) naming file and line.
* :mod:`~escapebench.games.playable` keeps the commands that play from playing a setting with
  check errors (:func:`require_playable`, :func:`load_playable`).
* :mod:`~escapebench.games.traces` reads and replays a trace of actions.

This package imports only :mod:`escapebench.engine` and :mod:`escapebench.protocols`.
:func:`add_protocol_arguments` is re-exported from :mod:`escapebench.protocols.options` for the
verbs that play.
"""

from escapebench.games.issues import CheckIssue
from escapebench.games.loading import (
    BUILTIN_DIR,
    GameFileError,
    builtin_files,
    game_files,
    load_file,
    load_games,
    load_games_reporting,
    load_original,
    pick_setting,
    resolve_file_spec,
)
from escapebench.games.playable import (
    BrokenGamesError,
    Unplayable,
    UnplayableGamesError,
    load_playable,
    require_playable,
    split_playable,
    unplayable_file,
)
from escapebench.games.reference import ReplayOutcome, replay_reference
from escapebench.games.solver import solve
from escapebench.games.validation import SettingReport, check_definition, check_file, check_paths
from escapebench.protocols.options import add_protocol_arguments

__all__ = [
    "BUILTIN_DIR",
    "BrokenGamesError",
    "CheckIssue",
    "GameFileError",
    "ReplayOutcome",
    "SettingReport",
    "Unplayable",
    "UnplayableGamesError",
    "add_protocol_arguments",
    "builtin_files",
    "check_definition",
    "check_file",
    "check_paths",
    "game_files",
    "load_file",
    "load_games",
    "load_games_reporting",
    "load_original",
    "load_playable",
    "pick_setting",
    "replay_reference",
    "resolve_file_spec",
    "require_playable",
    "solve",
    "split_playable",
    "unplayable_file",
]
