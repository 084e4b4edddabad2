"""What an episode writes: its step records, the step log and the resume checkpoints.

**The step record** (:class:`StepRecord`, made by :func:`step_record`) is what ``steps.jsonl``
holds of each step, one JSON object a line, built the same way for agents in the harness and
for people playing. It describes the step and
never the agent's memory: the log grows with the number of steps, not with steps x memory.

**The checkpoint journal.** What a resumed episode needs besides the log (the agent's memory
and the hint system's counters after a step) goes to ``checkpoint.jsonl``, one line per step
with the step's record as well. Committing a step (:meth:`EpisodeLog.commit`)::

    append the step's checkpoint line to checkpoint.jsonl (+ fdatasync)
    -> append the step's record to steps.jsonl (written; synced when the journal is rotated)
    -> only then does the episode go on to the next step (and the next model call)

One sync per step, on an append-only file, as when the agent state was in the log. The journal
does not grow with the episode: once it holds :data:`JOURNAL_ROTATE_BYTES` it is *rotated*:
steps.jsonl is synced (it then holds every earlier step), and the step's line is written to a
fresh file (+ fsync) that atomically replaces the journal (rename + directory sync). So the
journal always holds every step whose log line may not be on disk, and the log grows with the
number of steps, not with steps x memory.

After a kill (or a power cut) the journal's last step is the log's last step or ahead of it.
:meth:`EpisodeLog.recover` cuts off a torn last line of either file, appends the records the
journal holds beyond the log (nothing finished is lost), and returns the journal's last
checkpoint for the agent and the hint system to be restored from. A step whose journal line is
torn never finished and is played again. When the episode ends, ``result.json`` is written and
the journal is removed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from escapebench.agents.base import Decision, Hint, ModelCallRecord
from escapebench.bench.hints import HintUpdate
from escapebench.engine.actions import Call, extract_call, parse_call
from escapebench.engine.env import EscapeGame, Event, StepResult

# The files of a result folder (the shared layout; reports and human play use these names).
RUN_FILE = "run.json"
RESULTS_FILE = "results.csv"
SUMMARY_CSV = "summary.csv"
SUMMARY_MD = "summary.md"
EPISODES_DIR = "episodes"
STEPS_FILE = "steps.jsonl"
ERROR_FILE = "error.txt"  # why an episode failed (a traceback), next to its step log
RESULT_FILE = "result.json"
CHECKPOINT_FILE = "checkpoint.jsonl"

CHECKPOINT_VERSION = 1
STATE_HASH_CHARS = 16
JOURNAL_ROTATE_BYTES = 1 << 20
"""Rotate the checkpoint journal once it holds this much ..."""
JOURNAL_ROTATE_LINES = 16
"""... and at least this many steps (a huge agent state does not rotate it at every step)."""


class EpisodeLogError(RuntimeError):
    """An episode log that cannot be resumed (damaged, or not of the game it claims to be)."""


# ---------------------------------------------------------------------- the step record
@dataclass(frozen=True)
class StepHint:
    """The hint in force during a step, as the step log keeps it."""

    action: str
    scene: str
    index: int  # position of the action in the reference chain
    steps_in_help: int = 0  # steps taken since the hint started (0 on its first)
    forced: bool = False  # the hint system played its action for the player this step
    requested: bool = False  # the player asked for this hint at this step (written when so)

    def to_json(self) -> dict[str, Any]:
        data = {"action": self.action, "scene": self.scene, "index": self.index,
                "steps_in_help": self.steps_in_help, "forced": self.forced}
        return data | ({"requested": True} if self.requested else {})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StepHint:
        return cls(str(data.get("action", "")), str(data.get("scene", "")), int(data["index"]),
                   int(data.get("steps_in_help", 0)), bool(data.get("forced", False)),
                   bool(data.get("requested", False)))


_CALL_FIELDS = frozenset(f.name for f in fields(ModelCallRecord))


@dataclass(frozen=True)
class StepRecord:
    """One step as ``steps.jsonl`` keeps it, built the same way for agents in the harness and
    for people playing. It describes the step and never the agent's memory (the log grows
    with the number of steps, not with steps x memory).

    ``position``, ``scene`` and ``observation`` are as the player saw them before acting; the
    counts (``key_steps``, ``tools_collected``, ``progress``) are the game's after the step;
    ``hint`` is the hint in force during the step and ``hint_done`` what the step did to it
    ("completed", "skipped" or None). ``calls`` are every model call of the step (deciding and
    follow-ups), ``agent`` the agent's own additions (task list, proposals, the player's name)
    and ``agent_state_hash`` identifies the agent's memory after the step (see
    :func:`encode_agent_state`; None when no agent keeps one).

    :meth:`to_json` is the log line's object (its keys in this order); :meth:`from_json`
    reads one back, from logs of every earlier version too (a key they lack takes its
    default; keys it does not know are left out).
    """

    step: int
    position: str = ""
    scene: str = ""
    observation: str = ""
    action: str = ""
    raw_answer: str = ""
    reasoning: str = ""
    feedback: str = ""
    success: bool = False
    error: bool = False
    outcome: str = ""  # the engine's kind of outcome (engine.outcome.OUTCOME_KINDS)
    events: tuple[Event, ...] = ()
    key_steps: int = 0
    tools_collected: int = 0
    progress: float = 0.0
    progressed: bool = False
    game_end: bool = False
    hint: StepHint | None = None
    hint_done: str | None = None
    mode: str = "free explore"
    calls: tuple[ModelCallRecord, ...] = ()
    agent: Mapping[str, Any] = field(default_factory=dict)
    agent_state_hash: str | None = None
    wall_s: float = 0.0
    call: Call | None = field(default=None, compare=False, repr=False)
    """The call the step played, when it was played live and ``action`` is its text (not in
    the log: :attr:`played_call` reads ``action`` instead)."""

    @property
    def played_call(self) -> Call | None:
        """The step's action as a call: the one played (a live record), else ``action`` read
        (a record from a log; None when it holds none)."""
        if self.call is not None:
            return self.call
        return parse_call(self.action) or extract_call(self.action)

    def to_json(self) -> dict[str, Any]:
        """The record as the log's JSON object."""
        return {
            "step": self.step,
            "position": self.position,
            "scene": self.scene,
            "observation": self.observation,
            "action": self.action,
            "raw_answer": self.raw_answer,
            "reasoning": self.reasoning,
            "feedback": self.feedback,
            "success": self.success,
            "error": self.error,
            "outcome": self.outcome,
            "events": [{"kind": e.kind, "name": e.name} for e in self.events],
            "key_steps": self.key_steps,
            "tools_collected": self.tools_collected,
            "progress": self.progress,
            "progressed": self.progressed,
            "game_end": self.game_end,
            "hint": None if self.hint is None else self.hint.to_json(),
            "hint_done": self.hint_done,
            "mode": self.mode,
            "calls": [asdict(c) for c in self.calls],
            "agent": dict(self.agent),
            "agent_state_hash": self.agent_state_hash,
            "wall_s": self.wall_s,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StepRecord:
        """A record read from a log line (raises KeyError, TypeError or ValueError for an
        object that is not a step record)."""
        hint = data.get("hint")
        return cls(
            step=int(data["step"]),
            position=str(data.get("position") or ""),
            scene=str(data.get("scene") or ""),
            observation=str(data.get("observation") or ""),
            action=str(data.get("action") or ""),
            raw_answer=str(data.get("raw_answer") or ""),
            reasoning=str(data.get("reasoning") or ""),
            feedback=str(data.get("feedback") or ""),
            success=bool(data.get("success")),
            error=bool(data.get("error")),
            outcome=str(data.get("outcome") or ""),
            events=tuple(Event(e["kind"], e.get("name", "")) for e in data.get("events") or ()),
            key_steps=int(data.get("key_steps") or 0),
            tools_collected=int(data.get("tools_collected") or 0),
            progress=float(data.get("progress") or 0.0),
            progressed=bool(data.get("progressed")),
            game_end=bool(data.get("game_end")),
            hint=None if hint is None else StepHint.from_json(hint),
            hint_done=data.get("hint_done"),
            mode=str(data.get("mode") or ""),
            calls=tuple(
                ModelCallRecord(**{"kind": "", **{k: v for k, v in c.items() if k in _CALL_FIELDS}})
                for c in data.get("calls") or ()
            ),
            agent=dict(data.get("agent") or {}),
            agent_state_hash=data.get("agent_state_hash"),
            wall_s=float(data.get("wall_s") or 0.0),
        )

    def json_bytes(self) -> bytes:
        """The record's line in the log, without its newline."""
        return _json_bytes(self.to_json())


def step_record(
    *,
    step: int,
    position: str,
    scene: str,
    observation: str,
    decision: Decision,
    result: StepResult,
    game: EscapeGame,
    hint: Hint | None,
    forced: bool,
    hint_update: HintUpdate,
    calls: Sequence[ModelCallRecord] = (),
    notes: dict[str, Any] | None = None,
    agent_state_hash: str | None = None,
    wall_s: float = 0.0,
    call: Call | None = None,
) -> StepRecord:
    """The :class:`StepRecord` of one step: ``position``, ``scene`` and ``observation`` as the
    player saw them before acting; ``game`` read after the step (totals); ``hint`` the hint
    in force during the step and ``hint_update`` what the step did to it; ``calls`` every model
    call of the step, ``notes`` the agent's own additions; ``call`` the call the engine
    played, kept when the result's action is its text."""
    return StepRecord(
        step=step,
        position=position,
        scene=scene,
        observation=observation,
        action=result.action,
        raw_answer=decision.raw_answer,
        reasoning=decision.reasoning,
        feedback=result.feedback,
        success=result.success,
        error=result.error,
        outcome=result.outcome.kind,
        events=tuple(result.events),
        key_steps=game.key_steps,
        tools_collected=game.tools_collected,
        progress=game.progress,
        progressed=result.progressed,
        game_end=result.game_end,
        hint=None if hint is None else StepHint(
            hint.action, hint.scene, hint.index, hint.steps_in_help, forced, hint.requested
        ),
        hint_done=(
            "completed" if hint_update.completed is not None
            else "skipped" if hint_update.skipped is not None
            else None
        ),
        mode=decision.mode,
        calls=tuple(calls),
        agent=notes or {},
        agent_state_hash=agent_state_hash,
        wall_s=wall_s,
        call=call if call is not None and str(call) == result.action else None,
    )


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def encode_agent_state(state: dict[str, Any]) -> tuple[bytes, str]:
    """An agent snapshot as the checkpoint stores it (canonical JSON, keys sorted), and its
    hash for the step record: two runs whose agents remember the same have the same hash."""
    data = json.dumps(state, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    return data, hashlib.sha256(data).hexdigest()[:STATE_HASH_CHARS]


# ---------------------------------------------------------------------- reading the log
def parse_step_log(data: bytes, where: str) -> tuple[list[dict[str, Any]], int]:
    """The records of a step log's bytes and the length of their good part.

    A last line without its newline, or a last line that is not JSON, is a write cut short by
    a kill: it is left out (and the good part ends before it). A line that is not a JSON
    object anywhere else is damage: :class:`EpisodeLogError`. Blank lines are skipped.
    """
    records: list[dict[str, Any]] = []
    good_end = 0
    pos = 0
    line_no = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl == -1:
            break  # no newline: the last write was cut short
        line_no += 1
        line = data[pos:nl]
        if line.strip():
            try:
                record = json.loads(line)
            except ValueError:
                if data[nl + 1 :].strip():
                    raise EpisodeLogError(
                        f"{where}: line {line_no} is not valid JSON (the log is damaged)"
                    ) from None
                break
            if not isinstance(record, dict):
                raise EpisodeLogError(f"{where}: line {line_no} is not a JSON object")
            records.append(record)
        pos = nl + 1
        good_end = pos
    return records, good_end


def read_step_log(path: Path) -> list[dict[str, Any]]:
    """The records of a step log, cutting off a torn last line (the file is truncated to it)."""
    if not path.exists():
        return []
    data = path.read_bytes()
    records, good_end = parse_step_log(data, str(path))
    if good_end < len(data):
        with open(path, "r+b") as f:
            f.truncate(good_end)
            f.flush()
            os.fsync(f.fileno())
    return records


def write_step_log(path: Path, records: Sequence[StepRecord]) -> None:
    """Write a whole step log at once (a play that was kept in memory, as human play is)."""
    with open(path, "wb") as f:
        f.writelines(r.json_bytes() + b"\n" for r in records)


def step_records(records: Sequence[Mapping[str, Any]], where: str) -> list[StepRecord]:
    """The :class:`StepRecord` of each log object; :class:`EpisodeLogError` (naming ``where``
    and the line) for one that is not a step record."""
    out = []
    for k, data in enumerate(records):
        try:
            out.append(StepRecord.from_json(data))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise EpisodeLogError(f"{where}: record {k + 1} is not a step record ({exc})") from None
    return out


def read_step_records(folder: Path) -> list[StepRecord]:
    """Every finished step of an episode folder as :class:`StepRecord` s, read-only (see
    :func:`read_episode_steps`): what a metric or a check of a result folder reads."""
    return step_records(read_episode_steps(folder), str(folder / STEPS_FILE))


# ---------------------------------------------------------------------- checkpoints
@dataclass(frozen=True)
class Checkpoint:
    """The state of an episode after one step: what resuming needs besides the log."""

    step: int
    record: StepRecord
    agent_state: dict[str, Any]
    hint_state: dict[str, Any] | None


def _checkpoint_head(episode_id: str) -> bytes:
    """The start of every checkpoint line of an episode (made once per episode)."""
    return b"".join((
        b'{"v":', str(CHECKPOINT_VERSION).encode(),
        b',"episode_id":', _json_bytes(episode_id),
        b',"step":',
    ))


def _checkpoint_line(
    head: bytes, step: int, record_json: bytes, hint_state: dict[str, Any],
    agent_state_json: bytes,
) -> bytes:
    # Built from the pieces already serialized for the log line and the hash: no second dump.
    return b"".join((
        head, str(step).encode(),
        b',"hint_state":', _json_bytes(hint_state),
        b',"record":', record_json,
        b',"agent_state":', agent_state_json,
        b"}\n",
    ))


def _checkpoint(entry: dict[str, Any], where: str, episode_id: str) -> Checkpoint:
    if entry.get("v") != CHECKPOINT_VERSION:
        raise EpisodeLogError(f"{where}: unsupported checkpoint version {entry.get('v')!r}")
    if entry.get("episode_id") != episode_id:
        raise EpisodeLogError(
            f"{where}: a checkpoint of episode {entry.get('episode_id')!r}, not {episode_id!r}"
        )
    try:
        record = entry["record"]
        if record.get("step") != entry["step"]:
            raise ValueError("its record is of another step")
        return Checkpoint(int(entry["step"]), StepRecord.from_json(record),
                          entry["agent_state"], entry["hint_state"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise EpisodeLogError(f"{where}: not a checkpoint ({exc})") from None


def read_checkpoints(folder: Path, episode_id: str, *, repair: bool = False) -> list[Checkpoint]:
    """The checkpoints of the episode's journal, oldest first; a torn last line is left out
    (and, with ``repair``, cut off the file). A line of another episode is
    :class:`EpisodeLogError`."""
    path = folder / CHECKPOINT_FILE
    if not path.is_file():
        return []
    entries = (
        read_step_log(path) if repair else parse_step_log(path.read_bytes(), str(path))[0]
    )
    return [_checkpoint(e, str(path), episode_id) for e in entries]


def _missing_records(logged: int, checkpoints: Sequence[Checkpoint]) -> list[StepRecord]:
    """The records the checkpoints hold beyond the log's first ``logged``, in step order."""
    missing: list[StepRecord] = []
    for checkpoint in checkpoints:
        if checkpoint.step == logged + len(missing):
            missing.append(checkpoint.record)
    return missing


def read_episode_steps(folder: Path) -> list[dict[str, Any]]:
    """Every finished step of an episode folder, read-only (nothing is truncated): the log's
    records, plus those only the checkpoint journal holds yet (a run killed before their log
    lines were written or synced). Raises :class:`EpisodeLogError` for a damaged log."""
    path = folder / STEPS_FILE
    records = parse_step_log(path.read_bytes(), str(path))[0] if path.is_file() else []
    try:
        checkpoints = read_checkpoints(folder, folder.name)
    except EpisodeLogError:
        checkpoints = []  # not this episode's journal: none of its steps
    return records + [r.to_json() for r in _missing_records(len(records), checkpoints)]


# ---------------------------------------------------------------------- writing
# fsync waits on the disk, not the interpreter: enough threads that many concurrent
# episodes fsync in parallel (the default executor has only cpu_count + 4).
_FSYNC_THREADS = 32
_fsync_pool: concurrent.futures.ThreadPoolExecutor | None = None
_fdatasync = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync


def _fsync_executor() -> concurrent.futures.ThreadPoolExecutor:
    global _fsync_pool
    if _fsync_pool is None:
        _fsync_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=_FSYNC_THREADS, thread_name_prefix="escapebench-fsync"
        )
    return _fsync_pool


def _open_append(path: Path, *, truncate: bool = False) -> int:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | (os.O_TRUNC if truncate else 0)
    return os.open(path, flags, 0o666)


def _write_all(fd: int, data: bytes) -> None:
    """Append all of ``data`` to ``fd`` (one system call unless the system writes less)."""
    done = os.write(fd, data)
    if done < len(data):
        view = memoryview(data)
        while done < len(view):
            done += os.write(fd, view[done:])


def _naming(exc: OSError, path: Path) -> OSError:
    """``exc`` with ``path`` as its file name if it has none (a write on an open file), so
    that the message of a full disk says which file."""
    if exc.filename is None:
        exc.filename = str(path)
    return exc


def _sync_dir(path: Path) -> None:
    """Make the creation of files in ``path`` durable."""
    with contextlib.suppress(OSError):  # not every system can open a folder
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class EpisodeLog:
    """An episode's ``steps.jsonl`` and checkpoint journal (see the module docstring).

    With ``fsync`` (the default) every committed step is on disk, not only in the operating
    system's cache, before :meth:`commit` returns; the writes then happen in a worker thread
    while other episodes keep playing.
    """

    def __init__(self, folder: Path, episode_id: str, *, fsync: bool = True) -> None:
        self.folder = folder
        self.episode_id = episode_id
        self.fsync = fsync
        created = not folder.exists()
        folder.mkdir(parents=True, exist_ok=True)
        created = created or not (self.steps_path.exists() and self.journal_path.exists())
        # Kept open for the whole episode (one open per episode, not one per step), unbuffered:
        # each write is one system call.
        self._log = _open_append(self.steps_path)
        self._journal = _open_append(self.journal_path)
        self._journal_bytes = os.fstat(self._journal).st_size
        self._journal_lines = 0
        self._head = _checkpoint_head(episode_id)
        if created and fsync:
            _sync_dir(folder)
            _sync_dir(folder.parent)

    @property
    def steps_path(self) -> Path:
        return self.folder / STEPS_FILE

    @property
    def journal_path(self) -> Path:
        return self.folder / CHECKPOINT_FILE

    @property
    def _rotation_path(self) -> Path:
        return self.folder / (CHECKPOINT_FILE + ".new")

    def recover(self) -> tuple[list[StepRecord], Checkpoint | None]:
        """The finished steps and the state after the last of them (None before any step).

        Cuts off torn last lines, appends (and syncs) the records the journal holds beyond the
        log, and checks that the journal's last checkpoint is the log's last step. A log
        written before checkpoints existed (each record with its ``agent_state``) resumes from
        its last record.
        """
        with contextlib.suppress(FileNotFoundError):
            self._rotation_path.unlink()  # a rotation cut short: the journal is still whole
        logged = read_step_log(self.steps_path)
        records = step_records(logged, str(self.steps_path))
        checkpoints = read_checkpoints(self.folder, self.episode_id, repair=True)
        self._journal_bytes = os.fstat(self._journal).st_size
        self._journal_lines = len(checkpoints)
        missing = _missing_records(len(records), checkpoints)
        if missing:
            _write_all(self._log, b"".join(r.json_bytes() + b"\n" for r in missing))
            self._sync_log()
            records += missing
        if checkpoints and checkpoints[-1].step >= len(records):
            raise EpisodeLogError(
                f"{self.steps_path}: the checkpoint of step {checkpoints[-1].step} is ahead of "
                f"the log's {len(records)} steps (the log has lost records)"
            )
        if not records:
            return records, None
        last = records[-1]
        newest = checkpoints[-1] if checkpoints else None
        if newest is None or newest.step < len(records) - 1:
            old = logged[-1] if len(logged) == len(records) else {}
            if "agent_state" in old:  # a log of an earlier escapebench
                return records, Checkpoint(
                    len(records) - 1, last, old["agent_state"] or {}, old.get("hint_state")
                )
            raise EpisodeLogError(
                f"{self.steps_path}: no checkpoint of step {len(records) - 1}, the last one "
                "logged; the agent's memory cannot be restored"
            )
        if newest.record != last:
            raise EpisodeLogError(
                f"{self.steps_path}: step {newest.step} of the checkpoint differs from the log"
            )
        return records, newest

    def _sync_log(self) -> None:
        if self.fsync:
            os.fsync(self._log)

    def _append_checkpoint(self, line: bytes) -> None:
        _write_all(self._journal, line)
        if self.fsync:
            _fdatasync(self._journal)
        self._journal_bytes += len(line)
        self._journal_lines += 1

    def _rotate(self, line: bytes) -> None:
        """Replace the journal by a new one holding only ``line``."""
        self._sync_log()  # from now on the log holds every step before this one
        fd = _open_append(self._rotation_path, truncate=True)
        try:
            _write_all(fd, line)
            if self.fsync:
                os.fsync(fd)
            os.replace(self._rotation_path, self.journal_path)
        except BaseException:
            os.close(fd)
            raise
        if self.fsync:
            _sync_dir(self.folder)
        os.close(self._journal)
        self._journal = fd
        self._journal_bytes, self._journal_lines = len(line), 1

    async def commit(
        self,
        record: StepRecord,
        agent_state_json: bytes,
        hint_state: dict[str, Any],
    ) -> None:
        """Make a finished step durable: its checkpoint line (the record, the hint system's
        snapshot and ``agent_state_json`` from :func:`encode_agent_state`), then its line in
        ``steps.jsonl``. With ``fsync`` the checkpoint line is synced before this returns."""
        step = record.step
        record_json = record.json_bytes()
        line = _checkpoint_line(self._head, step, record_json, hint_state, agent_state_json)
        rotate = (
            self._journal_bytes >= JOURNAL_ROTATE_BYTES
            and self._journal_lines >= JOURNAL_ROTATE_LINES
        )
        write = self._rotate if rotate else self._append_checkpoint
        try:
            if self.fsync:
                loop = asyncio.get_running_loop()
                done = loop.run_in_executor(_fsync_executor(), write, line)
                try:
                    await asyncio.shield(done)
                except asyncio.CancelledError:
                    # The run is stopping: let the worker thread finish before the files are
                    # closed. The step is then whole in the journal; recover() logs it.
                    await asyncio.wait({done})
                    raise
            else:
                write(line)
        except OSError as exc:
            raise _naming(exc, self.journal_path) from None
        # Written only after the checkpoint: a kill in between leaves the journal ahead of the
        # log, which recover() repairs.
        try:
            _write_all(self._log, record_json + b"\n")
        except OSError as exc:
            raise _naming(exc, self.steps_path) from None

    def close(self) -> None:
        """Sync the log and close the files (the journal stays for a later resume)."""
        try:
            self._sync_log()
        except OSError as exc:
            raise _naming(exc, self.steps_path) from None
        finally:
            os.close(self._log)
            os.close(self._journal)

    def remove_checkpoints(self) -> None:
        """Delete the checkpoint journal of a finished episode (its ``result.json`` is
        written)."""
        for path in (self.journal_path, self._rotation_path):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
