"""A persistent response cache, so that re-running a finished command costs no model calls.

Answers are stored in one SQLite file under a SHA-256 of everything that decides the answer:
the model name, which server or weights answer (the backend's ``cache_identity()``: the base
URLs given together for a served model, since a local server's model name is often arbitrary;
the file for a local GGUF), the messages and the sampling settings. Replicas of one model given
together with several base URLs share their entries; another server never answers from this
one's.

SQLite in WAL mode lets several processes (sharded runs) read and write the same file; a
busy timeout makes writers queue instead of failing. Switching a new file to WAL is the one
step the busy timeout does not cover, so it is retried with a bounded backoff (see
:func:`_use_wal`). Within a process, one connection is shared by all asyncio tasks behind a
lock, and concurrent identical requests are collapsed into a single model call ("single
flight"), so even parallel games never pay twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from escapebench.llm.base import (
    ChatModel,
    Completion,
    Message,
    ModelUnavailableError,
    SamplingSettings,
    ToolCall,
    settings_record,
)

CACHE_KEY_VERSION = 2
"""Bumped whenever the key derivation changes, so old entries are simply not found."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key        TEXT PRIMARY KEY,
    model      TEXT NOT NULL,
    text       TEXT NOT NULL,
    tokens_in  INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    latency_s  REAL NOT NULL,
    extra      TEXT NOT NULL,
    created_at REAL NOT NULL
)
"""


def cache_key(
    model: str, messages: Sequence[Message], settings: SamplingSettings, server: str = ""
) -> str:
    """SHA-256 (hex) of a canonical JSON of model name, server identity, messages and
    sampling settings."""
    document = {
        "v": CACHE_KEY_VERSION,
        "model": model,
        "server": server,
        "messages": [dict(m) for m in messages],
        "settings": settings_record(settings),  # with the functions offered, if any
    }
    # sort_keys + fixed separators make the text independent of dict order and whitespace;
    # ensure_ascii=False keeps non-ASCII text as itself rather than as escapes.
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


_TOOL_CALLS = "_tool_calls"
_TOKENS_CACHED = "_tokens_cached"  # the server-side prefix-cached part, kept in extra
"""Where an answer's function calls are kept in the ``extra`` column."""

def _stored_calls(calls: object) -> tuple[ToolCall, ...]:
    """The function calls kept with a stored answer; entries that are not one are left out
    (the file is the user's: it may have been edited or damaged)."""
    if not isinstance(calls, list):
        return ()
    return tuple(
        ToolCall(c["name"], c["arguments"], str(c.get("id", "")))
        for c in calls
        if isinstance(c, dict) and isinstance(c.get("name"), str)
        and isinstance(c.get("arguments"), str)
    )


_WAL_RETRY_FIRST_S = 0.002
_WAL_RETRY_MAX_S = 0.1


def _use_wal(conn: sqlite3.Connection, *, timeout_s: float) -> None:
    """Put the database of ``conn`` in WAL mode, waiting up to ``timeout_s`` for other openers.

    WAL is a property of the file, so this is a no-op (and takes no write lock) once any
    process has switched it. The switch itself rewrites the file header from within a read
    transaction, and SQLite skips the busy handler where waiting could deadlock (documented
    under sqlite3_busy_handler), so when several processes open a new file at once the
    losers get "database is locked" at once however long the busy timeout is. They retry
    with a growing pause; usually the winner has switched the file meanwhile and the next
    look finds it in WAL mode. Errors other than busy/locked, or the same one after
    ``timeout_s``, are raised.
    """
    deadline = time.monotonic() + timeout_s
    pause_s = _WAL_RETRY_FIRST_S
    while True:
        try:
            (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
            if str(mode).lower() != "wal":
                # The answer is ignored on purpose: where SQLite cannot use WAL it keeps the
                # old mode, which still works, only with less concurrency.
                conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as exc:
            remaining_s = deadline - time.monotonic()
            if not _is_busy(exc) or remaining_s <= 0:
                raise
        time.sleep(min(pause_s, remaining_s))
        pause_s = min(pause_s * 2, _WAL_RETRY_MAX_S)


def _is_damage(exc: sqlite3.Error, *, opening: bool = False) -> bool:
    """Whether ``exc`` says the file is no longer a sound SQLite database (when ``opening``,
    a file that is no database at all is not a damaged cache but another file: not this)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return "malformed" in str(exc) or (not opening and "not a database" in str(exc))
    return (code & 0xFF) == sqlite3.SQLITE_CORRUPT or (
        not opening and (code & 0xFF) == sqlite3.SQLITE_NOTADB)


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether ``exc`` is SQLite's "database is locked" (SQLITE_BUSY or SQLITE_LOCKED)."""
    # sqlite_errorcode holds the extended code; its low byte is the primary code.
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:  # Python 3.10 has no codes on exceptions: go by SQLite's message
        return "database is locked" in str(exc) or "database table is locked" in str(exc)
    return (code & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


CHECK_SECONDS = 2.0
"""How long the integrity check of a cache being opened may take; a bigger file is checked as
far as this goes (a damaged page further on is found when it is read)."""


class ResponseCacheError(ModelUnavailableError):
    """The response cache file is damaged or cannot be used: every call would fail the same
    way, so the run stops with one line naming the file and the way on (``--no-cache``, or
    ``--cache`` with a new file)."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        self.problem = problem = " ".join(problem.split())[:200]  # one line
        damaged = any(w in problem for w in ("malformed", "not a database", "corrupt",
                                             "integrity check"))
        what = "is damaged" if damaged else "cannot be used"
        super().__init__(
            f"the response cache {path} {what} ({problem}); run with --no-cache, or with "
            "--cache NEW_FILE to start a new cache"
        )


def _quick_check(conn: sqlite3.Connection, seconds: float) -> str | None:
    """The first problem ``PRAGMA quick_check`` finds, or None (also when the check does not
    finish within ``seconds``: a large file is not made to wait for)."""
    deadline = time.monotonic() + seconds
    conn.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)
    try:
        rows = conn.execute("PRAGMA quick_check(1)").fetchall()
    except sqlite3.OperationalError as exc:
        if "interrupted" in str(exc):
            return None
        raise
    finally:
        conn.set_progress_handler(None, 0)
    first = str(rows[0][0]) if rows else "ok"
    return None if first == "ok" else f"integrity check: {first.replace('*', ' ')}"


class ResponseCache:
    """Completions stored in a SQLite file, keyed by :func:`cache_key`.

    Safe for many asyncio tasks and threads of one process (one connection behind a lock)
    and for several processes on the same file (WAL journal, busy timeout). A forked child
    opens its own connection on first use.
    """

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout_s: float = 60.0,
                 check_s: float = CHECK_SECONDS) -> None:
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self.hits = 0
        self.misses = 0
        conn = self._connect()  # fail early on a bad path, not in the middle of a run
        try:
            problem = _quick_check(conn, check_s)
        except sqlite3.DatabaseError as exc:
            problem = str(exc)
        if problem is not None:
            self.close()
            raise ResponseCacheError(self.path, problem)

    def _connect(self) -> sqlite3.Connection:
        # A connection must not cross a fork; reopen in the child.
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            self.path,
            timeout=self.busy_timeout_s,
            check_same_thread=False,  # guarded by self._lock
            isolation_level=None,  # autocommit; each statement is its own transaction
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
            _use_wal(conn, timeout_s=self.busy_timeout_s)
            # NORMAL is durable against process crashes in WAL mode; only an OS crash may
            # lose the last answers, which would simply be asked again.
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            conn.close()
            if _is_damage(exc, opening=True):
                raise ResponseCacheError(self.path, str(exc)) from None
            raise
        except BaseException:
            conn.close()  # a later use opens a new connection; do not leave this one open
            raise
        self._conn = conn
        self._pid = os.getpid()
        return conn

    def get(self, key: str) -> Completion | None:
        """The stored completion for ``key`` (marked ``cached=True``), or None."""
        started = time.monotonic()
        with self._lock, self._reporting():
            row = (
                self._connect()
                .execute(
                    "SELECT model, text, tokens_in, tokens_out, extra FROM responses WHERE key = ?",
                    (key,),
                )
                .fetchone()
            )
        if row is None:
            return None
        model, text, tokens_in, tokens_out, extra = row
        stored_extra = json.loads(extra)
        calls = stored_extra.pop(_TOOL_CALLS, None) or []
        tokens_cached = int(stored_extra.pop(_TOKENS_CACHED, 0) or 0)
        return Completion(
            text=text,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            tokens_cached=tokens_cached,
            model=model,
            cached=True,
            retries=0,
            latency_s=time.monotonic() - started,
            extra=stored_extra,
            tool_calls=_stored_calls(calls),
        )

    def put(self, key: str, completion: Completion) -> bool:
        """Store ``completion`` under ``key``; False if an entry was already there.

        The first answer stored wins, so two processes racing on the same request still
        leave one answer that every later replay returns.
        """
        stored_extra = dict(completion.extra)
        if completion.tool_calls:
            stored_extra[_TOOL_CALLS] = [asdict(c) for c in completion.tool_calls]
        if completion.tokens_cached:
            stored_extra[_TOKENS_CACHED] = completion.tokens_cached
        extra = json.dumps(stored_extra, sort_keys=True, default=str)
        with self._lock, self._reporting():
            cursor = self._connect().execute(
                "INSERT OR IGNORE INTO responses"
                " (key, model, text, tokens_in, tokens_out, latency_s, extra, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    completion.model,
                    completion.text,
                    completion.tokens_in,
                    completion.tokens_out,
                    completion.latency_s,
                    extra,
                    time.time(),
                ),
            )
            return cursor.rowcount == 1

    @contextlib.contextmanager
    def _reporting(self) -> Iterator[None]:
        """Turn the file going bad during a run (damaged, truncated, the disk full) into one
        :class:`ResponseCacheError` naming it, instead of an error in every episode."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
                raise
            raise ResponseCacheError(self.path, str(exc)) from None

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._connect().execute("SELECT COUNT(*) FROM responses").fetchone()
        return int(count)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        with self._lock:
            row = self._connect().execute("SELECT 1 FROM responses WHERE key = ?", (key,))
            return row.fetchone() is not None

    def close(self) -> None:
        """Close the connection (a later use reopens it)."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r})"


class CachedChatModel:
    """Wraps any :class:`ChatModel` with a :class:`ResponseCache`.

    A hit returns the stored completion with ``cached=True`` and the original token counts
    (in, the server's prefix-cached part, out): results count a replayed call like the call
    it replays, and cost columns leave it out (nothing was sent, so nothing was paid);
    a miss calls the inner model, stores its answer and returns it. ``name`` is the inner
    model's name, so wrapping changes neither results nor cache keys.
    """

    def __init__(self, inner: ChatModel, cache: ResponseCache) -> None:
        self.inner = inner
        self.cache = cache
        self.name = inner.name
        identity = getattr(inner, "cache_identity", None)
        self.server = str(identity()) if callable(identity) else ""
        """The inner model's server identity, part of every key (see :func:`cache_key`)."""
        self.calls = 0
        """Calls that reached the inner model."""
        self._in_flight: dict[str, asyncio.Future[Completion]] = {}

    def describe(self) -> dict[str, object]:
        """Backend settings for result metadata: the inner model's, plus the cache file."""
        describe = getattr(self.inner, "describe", None)
        record: dict[str, object] = dict(describe()) if callable(describe) else {}
        record.setdefault("model", self.name)
        record["cache_path"] = str(self.cache.path)
        record["cache_server"] = self.server
        return record

    async def complete(self, messages: Sequence[Message], settings: SamplingSettings) -> Completion:
        """Answer from the cache, or ask the inner model once and remember the answer."""
        key = cache_key(self.name, messages, settings, self.server)
        while True:
            hit = self.cache.get(key)
            if hit is not None:
                self.cache.hits += 1
                return hit
            pending = self._in_flight.get(key)
            if pending is None or pending.done() or not _same_loop(pending):
                break
            # The same request is already being asked by another task: share its answer.
            try:
                completion = await asyncio.shield(pending)
            except asyncio.CancelledError:
                if pending.cancelled():
                    continue  # the asking task was cancelled, not us: ask again ourselves
                raise
            self.cache.hits += 1
            return _replayed(completion)
        self.cache.misses += 1
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            completion = await self.inner.complete(messages, settings)
            self.calls += 1
            if not self.cache.put(key, completion):
                # Another process stored an answer first; use it so every replay agrees.
                stored = self.cache.get(key)
                if stored is not None:
                    completion = _with_fields(stored, completion)
            future.set_result(completion)
            return completion
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: no "never retrieved" warning without waiters
            raise
        finally:
            if not future.done():  # cancelled (or interrupted): waiters ask for themselves
                future.cancel()
            if self._in_flight.get(key) is future:
                del self._in_flight[key]


def _same_loop(future: asyncio.Future[Any]) -> bool:
    return future.get_loop() is asyncio.get_running_loop()


def _replayed(completion: Completion) -> Completion:
    """The answer another task fetched, as seen by a task that did not pay for it."""
    return Completion(
        text=completion.text,
        tokens_in=completion.tokens_in,
        tokens_out=completion.tokens_out,
        tokens_cached=completion.tokens_cached,
        model=completion.model,
        cached=True,
        retries=0,
        latency_s=completion.latency_s,
        extra=dict(completion.extra),
        tool_calls=completion.tool_calls,
    )


def _with_fields(stored: Completion, fresh: Completion) -> Completion:
    """The stored answer, with the accounting of the call that was actually made."""
    return Completion(
        text=stored.text,
        tokens_in=stored.tokens_in,
        tokens_out=stored.tokens_out,
        tokens_cached=min(fresh.tokens_cached, stored.tokens_in),
        model=stored.model,
        cached=False,
        retries=fresh.retries,
        latency_s=fresh.latency_s,
        extra=stored.extra,
        tool_calls=stored.tool_calls,
    )
