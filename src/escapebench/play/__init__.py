"""escapebench.play: people playing the games, in the terminal and in the browser.

A front end standing above the harness (it uses the hint system, metrics and result folders of
:mod:`escapebench.bench`), not an agent.

* :mod:`.session`: :class:`PlaySession`, one person's game (the same engine, hint system and
  step counting as agents), shared by the terminal and the browser;
* :mod:`.commands`: typed commands with numbers or names, turned into action strings;
* :mod:`.saves`: save files (format, writing, reading, checking that a save fits its game);
* :mod:`.human_result`: a finished play written as a "human" episode of a result folder;
* :mod:`.browser_sessions`: :class:`PlayStore`, the games behind ``escapebench serve``'s play
  API (served by :mod:`escapebench.web`);
* :mod:`.command_play` (with :mod:`.terminal` and :mod:`.terminal_saves`): ``escapebench play``.
"""

from escapebench.play.browser_sessions import DataFolderError, PlayRequestError, PlayStore
from escapebench.play.errors import PlayError
from escapebench.play.human_result import HUMAN_AGENT, HUMAN_MODEL
from escapebench.play.saves import SAVE_FORMAT, read_save_file
from escapebench.play.session import (
    MAX_PLAYER_LENGTH,
    PlaySession,
    Score,
    Turn,
    player_name_problem,
)

__all__ = [
    "HUMAN_AGENT",
    "HUMAN_MODEL",
    "MAX_PLAYER_LENGTH",
    "SAVE_FORMAT",
    "DataFolderError",
    "PlayError",
    "PlayRequestError",
    "PlaySession",
    "PlayStore",
    "Score",
    "Turn",
    "player_name_problem",
    "read_save_file",
]
