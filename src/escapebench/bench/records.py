"""What an episode writes: its step records, the step log and the resume checkpoints.

**The step record** (:func:`step_record`) is the one dict per step that ``steps.jsonl`` holds,
built the same way for agents in the harness and for people playing. It describes the step and
never the agent's memory: the log grows with the number of steps, not with steps x memory.

**The checkpoint.** What a resumed episode needs besides the log (the agent's memory, the hint
system's counters) is kept in two checkpoint slots, ``checkpoint.0.json`` and
``checkpoint.1.json``; step *n* goes to slot *n* mod 2, overwriting step *n - 2*. A slot holds the
step index, the agent state, the hint state and the step's record, wrapped with the SHA-256 of
its content, so a slot torn by a kill or a power cut is recognized and ignored.

**Committing a step** (:meth:`EpisodeLog.commit`)::

    write the step's slot in place + fdatasync   }  at the same time, in worker threads
    fsync steps.jsonl (the lines of earlier steps)  }
    -> append the step's record to steps.jsonl (written; synced with the next step)
    -> only then does the episode go on to the next step (and the next model call)

A step is durable once its slot is: its record is in the slot until the log's sync at the next
step covers it, and a slot is overwritten only two steps later, after that sync. So after a kill
(or a power cut) the newest valid slot is the log's last step or up to two steps ahead of it
(the append not done, or not yet synced). :meth:`EpisodeLog.recover` cuts off a torn last line
of the log, appends the records the slots hold beyond it (nothing finished is lost), and returns
the newest slot for the agent and the hint system to be restored from. A slot torn in the
middle of its write leaves the other slot, which matches the log: that step never finished and
is played again. Writing the slot in place needs no new file per step (no rename, no directory
sync), and the two syncs overlap, so a step waits about as long as for one; the disk still does
two syncs per step, which shows only when dozens of episodes with an instant model share a disk.

When the episode ends, ``result.json`` is written and the checkpoints are removed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from escapebench.agents.base import Decision, Hint, ModelCallRecord
from escapebench.bench.hints import HintOutcome
from escapebench.engine.env import EscapeGame, StepResult

# The files of a result folder (the shared layout; reports and human play use these names).
RUN_FILE = "run.json"
RESULTS_FILE = "results.csv"
SUMMARY_CSV = "summary.csv"
SUMMARY_MD = "summary.md"
EPISODES_DIR = "episodes"
STEPS_FILE = "steps.jsonl"
RESULT_FILE = "result.json"
CHECKPOINT_FILES = ("checkpoint.0.json", "checkpoint.1.json")

CHECKPOINT_VERSION = 1
STATE_HASH_CHARS = 16

_CK_HEAD = b'{"sha256":"'
_CK_MID = b'","checkpoint":'
_CK_TAIL = b"}\n"
_CK_BODY_START = len(_CK_HEAD) + 64 + len(_CK_MID)


class EpisodeLogError(RuntimeError):
    """An episode log that cannot be resumed (damaged, or not of the game it claims to be)."""


# ---------------------------------------------------------------------- the step record
def _hint_dict(hint: Hint | None, forced: bool) -> dict[str, Any] | None:
    if hint is None:
        return None
    return {
        "action": hint.action,
        "scene": hint.scene,
        "index": hint.index,
        "steps_in_help": hint.steps_in_help,
        "forced": forced,
    }


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
    outcome: HintOutcome,
    calls: Sequence[ModelCallRecord] = (),
    details: dict[str, Any] | None = None,
    agent_state_hash: str | None = None,
    wall_s: float = 0.0,
) -> dict[str, Any]:
    """The ``steps.jsonl`` record of one step.

    ``position``, ``scene`` and ``observation`` are as the player saw them before acting;
    ``game`` is read after the step (totals); ``hint`` is the hint in force during the step
    and ``outcome`` what the step did to it. ``calls`` are every model call of the step
    (deciding and follow-ups), ``details`` the agent's own additions (task list, proposals,
    the player's name). ``agent_state_hash`` identifies the agent's memory after the step
    (see :func:`encode_agent_state`; None when no agent keeps one).
    """
    return {
        "step": step,
        "position": position,
        "scene": scene,
        "observation": observation,
        "action": result.action,
        "raw_answer": decision.raw_answer,
        "reasoning": decision.reasoning,
        "feedback": result.feedback,
        "success": result.success,
        "error": result.error,
        "events": [{"kind": e.kind, "name": e.name} for e in result.events],
        "key_steps": game.key_steps,
        "tools_collected": game.tools_collected,
        "progress": game.progress,
        "progressed": result.progressed,
        "game_end": result.game_end,
        "hint": _hint_dict(hint, forced),
        "hint_done": (
            "completed"
            if outcome.completed is not None
            else "skipped"
            if outcome.skipped is not None
            else None
        ),
        "mode": decision.mode,
        "calls": [asdict(c) for c in calls],
        "agent": details or {},
        "agent_state_hash": agent_state_hash,
        "wall_s": wall_s,
    }


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


def write_step_log(path: Path, records: Sequence[dict[str, Any]]) -> None:
    """Write a whole step log at once (a play that was kept in memory, as human play is)."""
    with open(path, "wb") as f:
        f.writelines(_json_bytes(r) + b"\n" for r in records)


# ---------------------------------------------------------------------- checkpoints
@dataclass(frozen=True)
class Checkpoint:
    """The state of an episode after one step: what resuming needs besides the log."""

    step: int
    record: dict[str, Any]
    agent_state: dict[str, Any]
    hint_state: dict[str, Any] | None


def _checkpoint_head(episode_id: str) -> bytes:
    """The start of every checkpoint body of an episode (made once per episode)."""
    return b"".join((
        b'{"v":', str(CHECKPOINT_VERSION).encode(),
        b',"episode_id":', _json_bytes(episode_id),
        b',"step":',
    ))


def _checkpoint_bytes(
    head: bytes, step: int, record_json: bytes, hint_state: dict[str, Any],
    agent_state_json: bytes,
) -> bytes:
    # Built from the pieces already serialized for the log line and the hash: no second dump.
    body = b"".join((
        head, str(step).encode(),
        b',"hint_state":', _json_bytes(hint_state),
        b',"record":', record_json,
        b',"agent_state":', agent_state_json,
        b"}",
    ))
    digest = hashlib.sha256(body).hexdigest().encode()
    return b"".join((_CK_HEAD, digest, _CK_MID, body, _CK_TAIL))


def read_checkpoint(path: Path, episode_id: str) -> Checkpoint | None:
    """The checkpoint in ``path``, or None if there is none or it is torn (an unfinished
    write). A whole checkpoint of another episode is :class:`EpisodeLogError`."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    if not (
        data.startswith(_CK_HEAD)
        and data[_CK_BODY_START - len(_CK_MID) : _CK_BODY_START] == _CK_MID
        and data.endswith(_CK_TAIL)
    ):
        return None
    body = data[_CK_BODY_START : -len(_CK_TAIL)]
    if hashlib.sha256(body).hexdigest().encode() != data[len(_CK_HEAD) : len(_CK_HEAD) + 64]:
        return None
    content = json.loads(body)
    if content.get("v") != CHECKPOINT_VERSION:
        raise EpisodeLogError(f"{path}: unsupported checkpoint version {content.get('v')!r}")
    if content.get("episode_id") != episode_id:
        raise EpisodeLogError(
            f"{path}: a checkpoint of episode {content.get('episode_id')!r}, not {episode_id!r}"
        )
    return Checkpoint(
        int(content["step"]), content["record"], content["agent_state"], content["hint_state"]
    )


def read_checkpoints(folder: Path, episode_id: str) -> list[Checkpoint]:
    """The episode's valid checkpoints, oldest first."""
    found = [read_checkpoint(folder / name, episode_id) for name in CHECKPOINT_FILES]
    return sorted((c for c in found if c is not None), key=lambda c: c.step)


def read_episode_steps(folder: Path) -> list[dict[str, Any]]:
    """Every finished step of an episode folder, read-only (nothing is truncated): the log's
    records, plus the record of a checkpoint one step ahead of the log (a run killed between
    the two writes of a step). Raises :class:`EpisodeLogError` for a damaged log."""
    path = folder / STEPS_FILE
    records = parse_step_log(path.read_bytes(), str(path))[0] if path.is_file() else []
    checkpoints = []
    for name in CHECKPOINT_FILES:
        with contextlib.suppress(EpisodeLogError):  # not this episode's: none of its steps
            checkpoints.append(read_checkpoint(folder / name, folder.name))
    for checkpoint in sorted((c for c in checkpoints if c), key=lambda c: c.step):
        if checkpoint.step == len(records):
            records.append(checkpoint.record)
    return records


# ---------------------------------------------------------------------- writing
# fsync waits on the disk, not the interpreter: enough threads that many concurrent
# episodes sync in parallel, two jobs each (the default executor has only cpu_count + 4;
# with 32 threads, 36 episodes ran 40% slower on a disk-bound benchmark, with 64 about 14%).
_FSYNC_THREADS = 64
_fsync_pool: concurrent.futures.ThreadPoolExecutor | None = None
_fdatasync = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync


def _fsync_executor() -> concurrent.futures.ThreadPoolExecutor:
    global _fsync_pool
    if _fsync_pool is None:
        _fsync_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=_FSYNC_THREADS, thread_name_prefix="escapebench-fsync"
        )
    return _fsync_pool


def _write_all(fd: int, data: bytes, offset: int | None = None) -> None:
    """Write all of ``data`` to ``fd`` (at ``offset``, or appending)."""
    view = memoryview(data)
    done = 0
    while done < len(view):
        if offset is None:
            done += os.write(fd, view[done:])
        else:
            done += os.pwrite(fd, view[done:], offset + done)


def _sync_dir(path: Path) -> None:
    """Make the creation of files in ``path`` durable."""
    with contextlib.suppress(OSError):  # not every system can open a folder
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class EpisodeLog:
    """An episode's ``steps.jsonl`` and checkpoint slots (see the module docstring).

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
        paths = [folder / STEPS_FILE, *(folder / n for n in CHECKPOINT_FILES)]
        created = created or not all(p.exists() for p in paths)
        # Kept open for the whole episode (one open per episode, not one per step), unbuffered:
        # each write is one system call.
        self._log = os.open(paths[0], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        self._slots = [os.open(p, os.O_RDWR | os.O_CREAT, 0o666) for p in paths[1:]]
        self._slot_sizes = [os.fstat(fd).st_size for fd in self._slots]
        self._head = _checkpoint_head(episode_id)
        if created and fsync:
            _sync_dir(folder)
            _sync_dir(folder.parent)

    @property
    def steps_path(self) -> Path:
        return self.folder / STEPS_FILE

    def recover(self) -> tuple[list[dict[str, Any]], Checkpoint | None]:
        """The finished steps and the state after the last of them (None before any step).

        Cuts off a torn last line, appends the record of a checkpoint one step ahead of the
        log, and checks that the newest checkpoint is the log's last step. A log written
        before checkpoints existed (each record with its ``agent_state``) resumes from its
        last record.
        """
        records = read_step_log(self.steps_path)
        checkpoints = read_checkpoints(self.folder, self.episode_id)
        for checkpoint in checkpoints:
            if checkpoint.step == len(records):
                self._append(_json_bytes(checkpoint.record) + b"\n")
                records.append(checkpoint.record)
            elif checkpoint.step > len(records):
                raise EpisodeLogError(
                    f"{self.steps_path}: the checkpoint of step {checkpoint.step} is ahead of "
                    f"the log's {len(records)} steps (the log has lost records)"
                )
        if not records:
            return records, None
        last = records[-1]
        newest = checkpoints[-1] if checkpoints else None
        if newest is None or newest.step < len(records) - 1:
            if "agent_state" in last:  # a log of an earlier escapebench
                return records, Checkpoint(
                    len(records) - 1, last, last["agent_state"] or {}, last.get("hint_state")
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

    def _append(self, line: bytes) -> None:
        """Append to the log and make it durable now (recovery appends)."""
        _write_all(self._log, line)
        self._sync_log()

    def _sync_log(self) -> None:
        if self.fsync:
            os.fsync(self._log)

    def _write_checkpoint(self, slot: int, data: bytes) -> None:
        fd = self._slots[slot]
        _write_all(fd, data, 0)
        if len(data) < self._slot_sizes[slot]:
            os.ftruncate(fd, len(data))  # shorter than the checkpoint it replaces
        self._slot_sizes[slot] = len(data)
        if self.fsync:
            _fdatasync(fd)

    async def commit(
        self,
        record: dict[str, Any],
        agent_state_json: bytes,
        hint_state: dict[str, Any],
    ) -> None:
        """Make a finished step durable: its checkpoint (``agent_state_json`` from
        :func:`encode_agent_state`, the hint system's snapshot, the record), then its line in
        ``steps.jsonl``.

        With ``fsync``, the checkpoint's sync and the log's sync run at the same time: the log
        sync covers the lines up to the previous step, which is all that must be on disk before
        a slot is overwritten (slot *n* mod 2 held step *n - 2*); this step's line is durable
        through its checkpoint now and through the log's sync at the next step (or at
        :meth:`close`).
        """
        step = int(record["step"])
        slot = step % 2
        record_json = _json_bytes(record)
        checkpoint = _checkpoint_bytes(
            self._head, step, record_json, hint_state, agent_state_json
        )
        if self.fsync:
            loop, pool = asyncio.get_running_loop(), _fsync_executor()
            writes = asyncio.gather(
                loop.run_in_executor(pool, self._write_checkpoint, slot, checkpoint),
                loop.run_in_executor(pool, self._sync_log),
            )
            try:
                await asyncio.shield(writes)
            except asyncio.CancelledError:
                # The run is stopping: let the worker threads finish before the files are
                # closed. The step is then whole in its checkpoint; recover() logs it.
                await asyncio.wait({writes})
                raise
        else:
            self._write_checkpoint(slot, checkpoint)
        # Written (not synced) only after the checkpoint: a kill in between leaves the
        # checkpoint one step ahead of the log, which recover() repairs.
        _write_all(self._log, record_json + b"\n")

    def close(self) -> None:
        """Sync and close the files (the checkpoints stay for a later resume)."""
        try:
            self._sync_log()
        finally:
            for fd in (self._log, *self._slots):
                os.close(fd)

    def remove_checkpoints(self) -> None:
        """Delete the checkpoints of a finished episode (its ``result.json`` is written)."""
        for name in CHECKPOINT_FILES:
            with contextlib.suppress(FileNotFoundError):
                (self.folder / name).unlink()
