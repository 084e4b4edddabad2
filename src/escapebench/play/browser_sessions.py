"""Human games played in the browser: the sessions behind ``escapebench serve``'s play API.

Each game is a :class:`~escapebench.play.session.PlaySession` (the same engine, hint system and
metrics as agents, shared with terminal play). The data folder holds:

* ``DATA/sessions/<id>.json``: every game's save, rewritten (atomically) after every request
  that changes it, so an unfinished game can be resumed after a restart;
* the finished games as an ordinary result folder (``run.json``, ``results.csv``,
  ``episodes/<setting>__human__none__r<n>/``), written by ``PlaySession.write_result``, so
  ``escapebench report DATA`` shows the human row.

Session ids are random tokens made here; anything else is refused before the disk is touched.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import re
import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from escapebench.bench import EPISODES_DIR, HintOptions
from escapebench.catalog import load_games, load_playable, split_specs
from escapebench.engine.model import GameDefinition
from escapebench.play.errors import PlayError as CommandError
from escapebench.play.session import PlaySession, player_name_problem

SESSION_PATTERN = re.compile(r"^[0-9a-f]{32}$")
SESSIONS_DIR = "sessions"
LOG_LENGTH = 40  # recent steps sent to the page
SAVE_WRAPPER = "escapebench-serve-session"


class PlayRequestError(Exception):
    """A request the play API refuses: the HTTP status and a message for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class _Open:
    """A session in memory, with the lock that serializes its requests."""

    session: PlaySession
    episode: str | None = None  # the result's episode folder name, once finished
    browser: str | None = None  # a hash of the token of the browser that started it
    lock: threading.Lock = field(default_factory=threading.Lock)


def _browser_hash(token: str | None) -> str | None:
    """What a save keeps of a browser's token: a hash (the save does not let a reader of the
    data folder pass for that browser)."""
    if token is None:
        return None
    return hashlib.sha256(f"escapebench-browser:{token}".encode()).hexdigest()[:32]


class DataFolderError(ValueError):
    """A data folder that cannot take human results (one holding a model run's results)."""


DEFAULT_MAX_SESSIONS = 200
"""Play sessions kept in memory by default (``serve --max-sessions``); each is on disk too."""


class PlayStore:
    """The games on offer and the browser sessions of one data folder.

    At most ``max_sessions`` sessions stay in memory: past that, the one used longest ago that
    no request is using is closed. Its save is on disk (written after every request), so the
    game continues where it was when its player comes back.
    """

    def __init__(
        self,
        data_dir: Path,
        game_specs: Sequence[str] = (),
        hint_options: HintOptions | None = None,
        report_key: Callable[[str], str] | None = None,
        protocol: str | None = None,
        original_source: Path | None = None,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
    ) -> None:
        from escapebench.protocols import make_protocol

        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        self.max_sessions = max_sessions

        self.data_dir = Path(data_dir)
        # The games given with --games are read under this protocol (by default the original
        # one for games of an original checkout); the built-in games under ours, always.
        game_specs = split_specs(game_specs)
        self.protocol = make_protocol(protocol, game_specs, original_source)
        self._builtin_protocol = make_protocol("escapebench")
        self.hint_options = hint_options or HintOptions()
        self.report_key = report_key
        """The key in the served report of a finished game's episode folder name (for report
        links; None: no link)."""
        self._games: dict[str, GameDefinition] = {}
        self._builtin: set[str] = set()
        for defn in load_games(["builtin"]):
            self._games.setdefault(defn.setting, defn)
            self._builtin.add(defn.setting)
        # every file that does not load and every setting with check errors, listed at once (a
        # game with check errors can stop in the middle of play)
        given = load_playable(game_specs) if game_specs else []
        for defn in given:
            self._games.setdefault(defn.setting, defn)  # never shadows a built-in game
        # A folder of other results (a model's run) cannot take human results: say so now,
        # not when the first person finishes a game.
        probe = next(iter(self._games.values()))
        try:
            PlaySession(probe, hints=self.hint_options).check_out(self.data_dir)
        except CommandError as exc:
            raise DataFolderError(f"--data {exc}") from None
        self.sessions_dir.mkdir(parents=True, exist_ok=True)
        # An episodes folder makes the data folder a result folder from the start, so the
        # report includes it (empty) before the first game ends.
        (self.data_dir / EPISODES_DIR).mkdir(parents=True, exist_ok=True)
        self._open: dict[str, _Open] = {}
        self._lock = threading.Lock()

    @property
    def sessions_dir(self) -> Path:
        return self.data_dir / SESSIONS_DIR

    # ------------------------------------------------------------------ games
    def games(self) -> list[dict[str, Any]]:
        """The games on offer (built-in first, then ``--games``)."""
        return [
            {
                "setting": d.setting, "game": d.game, "title": d.title,
                "difficulty": d.difficulty, "builtin": d.setting in self._builtin,
            }
            for d in self._games.values()
        ]

    def _defn(self, setting: str) -> GameDefinition:
        defn = self._games.get(setting)
        if defn is None:
            raise PlayRequestError(
                404, f"no game named {setting!r}; GET /api/games lists the games"
            )
        return defn

    # ------------------------------------------------------------------ storage
    def _path(self, sid: str) -> Path:
        if not SESSION_PATTERN.match(sid):
            raise PlayRequestError(404, "no such game session")
        return self.sessions_dir / f"{sid}.json"

    def _write(self, sid: str, item: _Open) -> None:
        """Write the session's save (whole: a temporary file renamed); a save that cannot be
        written (the disk full) leaves no temporary file and is a :class:`PlayRequestError`
        507 saying so."""
        data = {"format": SAVE_WRAPPER, "episode": item.episode, "browser": item.browser,
                "save": item.session.save()}
        path = self._path(sid)
        tmp = path.with_name(path.name + ".tmp")
        try:
            tmp.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            full = exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))
            raise PlayRequestError(507, (
                "the disk is full" if full else f"the game cannot be saved ({exc.strerror or exc})"
            ) + ": this step was not saved, so it is undone; free space and try again") from None

    def _saved(self, sid: str, item: _Open) -> Callable[[], None]:
        """A function that writes the session's save, or, when the save cannot be written,
        puts the game back where its save on disk says (what the player saw accepted must be
        what a restart finds) and raises the 507."""

        def write() -> None:
            try:
                self._write(sid, item)
            except PlayRequestError:
                try:
                    save = self._read(sid).get("save") or {}
                    item.session = PlaySession.from_save(item.session.defn, save)
                except (PlayRequestError, CommandError):
                    with self._lock:  # no save to go back to: the game is not kept
                        self._open.pop(sid, None)
                raise

        return write

    def _read(self, sid: str) -> dict[str, Any]:
        path = self._path(sid)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise PlayRequestError(404, "no such game session") from None
        except (OSError, ValueError):
            raise PlayRequestError(409, "this game's save cannot be read") from None
        if not isinstance(data, dict) or data.get("format") != SAVE_WRAPPER:
            raise PlayRequestError(409, "this game's save cannot be read")
        return data

    def _keep(self, sid: str, item: _Open) -> None:
        """Hold ``item`` in memory as the most recently used; close the oldest idle sessions
        past :attr:`max_sessions` (call with ``self._lock`` held)."""
        self._open.pop(sid, None)
        self._open[sid] = item
        for old in list(self._open):
            if len(self._open) <= self.max_sessions:
                break
            other = self._open[old]
            if old != sid and not other.lock.locked():  # idle: its save is on disk
                del self._open[old]

    @property
    def live_sessions(self) -> int:
        """How many sessions are in memory now."""
        return len(self._open)

    def _get(self, sid: str) -> _Open:
        with self._lock:
            item = self._open.get(sid)
            if item is not None:
                self._keep(sid, item)
                return item
            data = self._read(sid)
            save = data.get("save") or {}
            defn = self._defn(str(save.get("setting", "")))
            try:
                session = PlaySession.from_save(defn, save)
            except CommandError as exc:
                raise PlayRequestError(409, f"this game cannot be resumed: {exc}") from None
            browser = data.get("browser")
            item = _Open(session, data.get("episode"),
                         browser=browser if isinstance(browser, str) else None)
            self._keep(sid, item)
            return item

    # ------------------------------------------------------------------ requests
    def start(self, setting: str, player: str, browser: str | None = None) -> dict[str, Any]:
        """Start a new game of ``setting`` for ``player`` in the browser whose token is
        ``browser`` (see :meth:`unfinished`); returns its view."""
        defn = self._defn(setting)
        player = player.strip()
        problem = player_name_problem(player)
        if problem is not None:
            raise PlayRequestError(400, problem)
        sid = secrets.token_hex(16)
        protocol = self._builtin_protocol if defn.setting in self._builtin else self.protocol
        item = _Open(
            PlaySession(defn, player=player, hints=self.hint_options, protocol=protocol),
            browser=_browser_hash(browser),
        )
        try:  # (this game's file may differ from the one of the results in the folder)
            item.session.check_out(self.data_dir)
        except CommandError as exc:
            raise PlayRequestError(409, f"a result of this game cannot be saved: {exc}") from None
        with item.lock:  # (held while kept: not idle until its save is written)
            with self._lock:
                self._keep(sid, item)
            try:
                self._write(sid, item)
            except PlayRequestError:
                with self._lock:  # a game without a save is not started
                    self._open.pop(sid, None)
                raise
            return self._view(sid, item)

    def view(self, sid: str) -> dict[str, Any]:
        """The current view of a session."""
        item = self._get(sid)
        with item.lock:
            return self._view(sid, item)

    def act(self, sid: str, command: str) -> dict[str, Any]:
        """Play a command; one that is not an action (unreadable, a list number out of range)
        is a 422 and costs no step; an action the game rejects is a step, as for a model."""
        item = self._get(sid)
        with item.lock:
            if item.session.ended:
                raise PlayRequestError(409, "this game is over; start a new one")
            try:
                item.session.act(command)
            except CommandError as exc:
                raise PlayRequestError(422, str(exc)) from None
            if item.session.ended and item.episode is None:
                try:
                    item.episode = item.session.write_result(self.data_dir).name
                except CommandError as exc:
                    self._saved(sid, item)()  # the game's last step is kept all the same
                    raise PlayRequestError(409, f"the result cannot be saved: {exc}") from None
            self._saved(sid, item)()
            return self._view(sid, item)

    def hint(self, sid: str) -> dict[str, Any]:
        """Ask for a hint now (counted as a hint used; asking again repeats it)."""
        item = self._get(sid)
        with item.lock:
            if item.session.ended:
                raise PlayRequestError(409, "this game is over; start a new one")
            item.session.request_hint()
            self._saved(sid, item)()
            return self._view(sid, item)

    def unfinished(self, browser: str | None = None) -> list[dict[str, Any]]:
        """Games in the data folder that can be resumed, most recently played first: every
        one, or with ``browser`` those the browser with that token started."""
        owner = _browser_hash(browser)
        out = []
        paths = sorted(self.sessions_dir.glob("*.json"), key=lambda p: p.stat().st_mtime,
                       reverse=True)
        for path in paths:
            sid = path.stem
            if not SESSION_PATTERN.match(sid):
                continue
            try:
                item = self._get(sid)
            except PlayRequestError:
                continue  # a game this server does not offer, or a damaged save
            if owner is not None and item.browser != owner:
                continue
            with item.lock:
                s = item.session
                if s.ended:
                    continue
                out.append({
                    "id": sid, "setting": s.defn.setting, "title": s.defn.title,
                    "player": s.player, "steps": s.step, "progress": s.game.progress,
                })
        return out

    # ------------------------------------------------------------------ the view
    def _view(self, sid: str, item: _Open) -> dict[str, Any]:
        s = item.session
        view = s.view()
        view.pop("observation", None)  # the page shows the same things as buttons
        view["id"] = sid
        view["log"] = [
            {
                "step": r.step, "action": r.action, "command": r.raw_answer,
                "feedback": r.feedback, "success": r.success, "error": r.error,
                "forced": r.hint is not None and r.hint.forced,
            }
            for r in s.records[-LOG_LENGTH:]
        ]
        view["report_key"] = (
            self.report_key(item.episode) if item.episode and self.report_key else None
        )
        return view
