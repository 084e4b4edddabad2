"""Human games played in the browser: the sessions behind ``escapebench serve``'s play API.

A session is one human episode in the data folder, which is a result folder like an agent run's
(``DATA/episodes/<episode_id>/steps.jsonl`` and, once escaped, ``result.json``; ``results.csv``
and the summaries are rewritten when a game ends), so ``escapebench report DATA`` shows the
human row. The session id *is* the episode id; it is checked against the ids the server makes
before it touches the disk, and unfinished games are resumed from their log.

The page sends action strings (``click(note)``); they go through the same engine, hint system
and metrics as an agent's.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from escapebench.agents.screen import read_screen
from escapebench.bench.hints import HintOptions
from escapebench.engine.model import GameDefinition
from escapebench.games.loading import load_games
from escapebench.report.human_play import HumanGame, human_episode_id, write_human_tables
from escapebench.report.runs import EPISODES_DIR, RESULT_FILE, STEPS_FILE, safe_slug

MAX_PLAYER_LENGTH = 40
PLAYER_PATTERN = re.compile(r"^[A-Za-z0-9 _.\-]{1,40}$")
SESSION_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,250}$")
LOG_LENGTH = 40  # log entries sent to the page


class PlayError(Exception):
    """A request the play API refuses, with the HTTP status and a message for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class GameEntry:
    """A game the server offers."""

    defn: GameDefinition
    builtin: bool

    def describe(self) -> dict[str, Any]:
        d = self.defn
        return {
            "setting": d.setting, "game": d.game, "title": d.title,
            "difficulty": d.difficulty, "builtin": self.builtin,
        }


class PlayStore:
    """The games on offer and the human sessions of one data folder."""

    def __init__(
        self,
        data_dir: Path,
        game_specs: Sequence[str] = (),
        hint_options: HintOptions | None = None,
        report_index: int = 0,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.report_index = report_index
        """Index of the data folder among the report's result folders (for report links)."""
        self.hint_options = hint_options or HintOptions()
        self._games: dict[str, GameEntry] = {}
        for defn in load_games(["builtin"]):
            self._games.setdefault(defn.setting, GameEntry(defn, True))
        for defn in load_games(list(game_specs)) if game_specs else []:
            # a user game never shadows a built-in one of the same name
            self._games.setdefault(defn.setting, GameEntry(defn, False))
        # An episodes folder makes the data folder a result folder from the start, so the
        # report includes it (empty) before the first game ends.
        self.episodes_dir.mkdir(parents=True, exist_ok=True)
        self._open: dict[str, HumanGame] = {}
        self._lock = threading.Lock()  # guards _open; each game has its own lock
        self._game_locks: dict[str, threading.Lock] = {}

    # ------------------------------------------------------------------ games
    def games(self) -> list[dict[str, Any]]:
        """The games on offer (built-in first, then ``--games``), in a stable order."""
        return [g.describe() for g in self._games.values()]

    def _game(self, setting: str) -> GameEntry:
        entry = self._games.get(setting)
        if entry is None:
            raise PlayError(404, f"no game named {setting!r}; GET /api/games lists the games")
        return entry

    # ------------------------------------------------------------------ sessions
    @property
    def episodes_dir(self) -> Path:
        return self.data_dir / EPISODES_DIR

    def _folder(self, sid: str) -> Path:
        """The episode folder of a session id, refusing anything that is not one of ours."""
        if not SESSION_PATTERN.match(sid) or ".." in sid:
            raise PlayError(404, "no such game session")
        folder = self.episodes_dir / sid
        if folder.parent.resolve() != self.episodes_dir.resolve() or not (
            folder / STEPS_FILE
        ).is_file():
            raise PlayError(404, "no such game session")
        return folder

    def _load(self, sid: str) -> tuple[HumanGame, threading.Lock]:
        with self._lock:
            game = self._open.get(sid)
            if game is None:
                folder = self._folder(sid)
                setting = self._setting_of(folder)
                game = HumanGame.resume(self._game(setting).defn, folder, self.hint_options)
                self._open[sid] = game
                self._game_locks[sid] = threading.Lock()
            return game, self._game_locks[sid]

    def _setting_of(self, folder: Path) -> str:
        name = folder.name
        for setting in sorted(self._games, key=len, reverse=True):
            if name.startswith(setting + "__"):
                return setting
        raise PlayError(404, "this session's game is not offered by this server")

    def start(self, setting: str, player: str) -> dict[str, Any]:
        """Start a new game of ``setting`` for ``player``; returns its view."""
        entry = self._game(setting)
        player = player.strip()
        if not PLAYER_PATTERN.match(player):
            raise PlayError(
                400, f"a player name is 1-{MAX_PLAYER_LENGTH} letters, digits, spaces, '_', "
                "'.' or '-'"
            )
        with self._lock:
            repeat = 0
            while (self.episodes_dir / human_episode_id(setting, player, repeat)).exists():
                repeat += 1
            sid = human_episode_id(setting, player, repeat)
            game = HumanGame.start(
                entry.defn, self.episodes_dir / sid, player, repeat, self.hint_options
            )
            self._open[sid] = game
            self._game_locks[sid] = threading.Lock()
        return self._view(sid, game)

    def view(self, sid: str) -> dict[str, Any]:
        """The current view of a session."""
        game, lock = self._load(sid)
        with lock:
            return self._view(sid, game)

    def act(self, sid: str, action: str) -> dict[str, Any]:
        """Play ``action`` in a session; a finished game refuses with 409."""
        game, lock = self._load(sid)
        with lock:
            if game.finished:
                raise PlayError(409, "this game is over; start a new one")
            game.play(action)
            if game.finished:
                write_human_tables(self.data_dir)
            return self._view(sid, game)

    def hint(self, sid: str) -> dict[str, Any]:
        """Ask for a hint now (it counts as a hint used)."""
        game, lock = self._load(sid)
        with lock:
            if game.finished:
                raise PlayError(409, "this game is over; start a new one")
            game.ask_hint()
            return self._view(sid, game)

    def unfinished(self) -> list[dict[str, Any]]:
        """Human games in the data folder that can be resumed, most recent first."""
        out = []
        if not self.episodes_dir.is_dir():
            return out
        folders = [
            f for f in self.episodes_dir.iterdir()
            if f.is_dir() and (f / STEPS_FILE).is_file() and not (f / RESULT_FILE).is_file()
        ]
        folders.sort(key=lambda f: (f / STEPS_FILE).stat().st_mtime, reverse=True)
        for folder in folders:
            try:
                game, lock = self._load(folder.name)
            except PlayError:
                continue  # a game this server does not offer, or not one of ours
            with lock:
                out.append({
                    "id": folder.name, "setting": game.defn.setting, "player": game.player,
                    "steps": game.steps, "progress": game.game.progress,
                })
        return out

    # ------------------------------------------------------------------ the view
    def _view(self, sid: str, game: HumanGame) -> dict[str, Any]:
        screen = read_screen(game.game)
        hint = game.hint
        return {
            "id": sid,
            "setting": game.defn.setting,
            "title": game.defn.title,
            "difficulty": game.defn.difficulty,
            "player": game.player,
            "scene": screen.scene,
            "scene_desc": screen.desc,
            "position": game.position,
            "items": [
                {"name": i.name, "desc": i.desc, "interactable": i.interactable}
                for i in screen.items
            ],
            "scene_tools": [{"name": t.name, "desc": t.desc} for t in screen.scene_tools],
            "bag": [{"name": t.name, "desc": t.desc} for t in screen.bag],
            "exits": [{"label": e.label, "target": e.target} for e in screen.exits],
            "steps": game.steps,
            "hints_used": game.hints_used,
            "progress": game.game.progress,
            "ended": game.finished,
            "escaped": game.game.ended,
            "hint": None if hint is None else {
                "action": hint.action, "scene": hint.scene, "forced_next": game.forced_next,
            },
            "log": game.log[-LOG_LENGTH:],
            "report_key": f"{self._report_index()}-{safe_slug(sid)}",
        }

    def _report_index(self) -> int:
        """Index of the data folder among the report's runs (set by the server)."""
        return getattr(self, "report_index", 0)
