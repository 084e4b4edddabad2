"""Play one episode: agent, engine and hint system, with a crash-safe step log.

One step::

    hint system (may start a hint and teleport) -> agent.decide (or the forced action)
    -> engine step -> agent.observe -> agent.after_step -> hint system update
    -> the step record is appended to steps.jsonl, flushed and fsynced
    -> the next step (and so the next model call) starts only then

Resuming: when ``steps.jsonl`` exists, its records are read (a torn last line, left by a kill in
the middle of a write, is cut off), the engine and the hint system are rebuilt by replaying the
logged actions through the same code path as live play (teleports included), every replayed
step is checked against the log, and the agent's memory is restored from the last record's
``agent_state``. The episode then continues with the next step, so nothing is lost or repeated
and, with a deterministic model (temperature 0, or the response cache), the results are those of
an uninterrupted run. ``result.json`` is written atomically when the episode ends; its presence
marks the episode finished.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from escapebench.agents.base import Agent, Decision, TurnContext
from escapebench.bench.hints import HintOptions, HintPolicy, ReferenceEffect
from escapebench.bench.metrics import (
    EpisodeMetrics,
    EpisodeResult,
    read_result_json,
    write_result_json,
)
from escapebench.engine.actions import extract_call, parse_call
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition

STEPS_FILE = "steps.jsonl"
RESULT_FILE = "result.json"
DEFAULT_MAX_STEPS = 4000
FORCED_REASONING = "The hint system played the target action (help period over)."


class EpisodeLogError(RuntimeError):
    """An episode log that cannot be resumed (it does not match the game it claims to be)."""


@dataclass(frozen=True)
class EpisodeSpec:
    """Everything that identifies one episode and decides its results."""

    episode_id: str
    defn: GameDefinition
    agent: str  # agent label in results ("base", "escape", "escape-no-foresight", ...)
    model: str  # model name in results ("none" when no model plays)
    repeat: int = 0
    max_steps: int = DEFAULT_MAX_STEPS
    hints: HintOptions = HintOptions()
    prompt_version: str = ""
    player: str = "agent"


@dataclass(frozen=True)
class StepProgress:
    """What the live display shows about a running episode after each step."""

    episode_id: str
    step: int  # steps taken so far
    progress: float
    hints: int
    done: bool = False
    escaped: bool = False


ProgressCallback = Callable[[StepProgress], None]


def position_text(game: EscapeGame) -> str:
    """The player's position as the paper shows it: the path of scenes from the first one."""
    scene = game.scene_name
    path = game.path_to(scene) or game.path_to(scene, only_visible=False) or [scene]
    return " -> ".join(path)


def read_step_log(path: Path) -> list[dict[str, Any]]:
    """The records of a step log, cutting off a torn last line (the file is truncated to it).

    A line that is not valid JSON anywhere but at the end is an error: that is damage, not a
    crash in the middle of a write.
    """
    if not path.exists():
        return []
    data = path.read_bytes()
    records: list[dict[str, Any]] = []
    good_end = 0
    pos = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl == -1:
            break  # no newline: the last write was cut short
        line = data[pos:nl]
        try:
            record = json.loads(line)
        except ValueError:
            if data[nl + 1 :].strip():
                raise EpisodeLogError(
                    f"{path}: line {len(records) + 1} is not valid JSON (the log is damaged)"
                ) from None
            break
        if not isinstance(record, dict):
            raise EpisodeLogError(f"{path}: line {len(records) + 1} is not a JSON object")
        records.append(record)
        pos = nl + 1
        good_end = pos
    if good_end < len(data):
        with open(path, "r+b") as f:
            f.truncate(good_end)
            f.flush()
            os.fsync(f.fileno())
    return records


# fsync waits on the disk, not the interpreter: enough threads that many concurrent
# episodes fsync in parallel (the default executor has only cpu_count + 4).
_FSYNC_THREADS = 32
_fsync_pool: concurrent.futures.ThreadPoolExecutor | None = None


def _fsync_executor() -> concurrent.futures.ThreadPoolExecutor:
    global _fsync_pool
    if _fsync_pool is None:
        _fsync_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=_FSYNC_THREADS, thread_name_prefix="escapebench-fsync"
        )
    return _fsync_pool


class StepLog:
    """Appends step records to ``steps.jsonl``; each one is on disk before ``append`` returns."""

    def __init__(self, path: Path, *, fsync: bool = True) -> None:
        self.path = path
        self.fsync = fsync
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(path, "ab")  # noqa: SIM115 - kept open for the whole episode

    def _write(self, data: bytes) -> None:
        self._file.write(data)
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())

    async def append(self, record: dict[str, Any]) -> None:
        """Write one record as a line. With fsync, the write and the fsync happen in a worker
        thread while other episodes keep playing; the call returns once the record is on
        disk."""
        data = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        if self.fsync:
            await asyncio.get_running_loop().run_in_executor(_fsync_executor(), self._write, data)
        else:
            self._write(data)

    def close(self) -> None:
        self._file.close()


def _play_action(game: EscapeGame, text: str) -> StepResult:
    """Play an agent's action: a canonical call, or free text holding one (the last one)."""
    call = parse_call(text) or extract_call(text)
    if call is None:
        # Not an action at all: the engine's error result is the feedback the agent gets.
        result = game.step(text)
        return StepResult("", result.success, result.error, result.feedback)
    return game.step(call)


def _hint_dict(hint: Any, forced: bool) -> dict[str, Any] | None:
    if hint is None:
        return None
    return {
        "action": hint.action,
        "scene": hint.scene,
        "index": hint.index,
        "steps_in_help": hint.steps_in_help,
        "forced": forced,
    }


class Episode:
    """One episode in progress; :meth:`run` plays it to the end (resuming if logged)."""

    def __init__(
        self,
        spec: EpisodeSpec,
        agent: Agent,
        folder: Path,
        *,
        effects: tuple[ReferenceEffect, ...] | None = None,
        on_step: ProgressCallback | None = None,
        fsync: bool = True,
    ) -> None:
        self.spec = spec
        self.agent = agent
        self.folder = folder
        self.on_step = on_step
        self.fsync = fsync
        self.game = EscapeGame(spec.defn)
        self.policy = HintPolicy(spec.defn, spec.hints, effects=effects)
        self.metrics = EpisodeMetrics(spec.defn, self.policy.effects)
        self.step = 0

    @property
    def steps_path(self) -> Path:
        return self.folder / STEPS_FILE

    @property
    def result_path(self) -> Path:
        return self.folder / RESULT_FILE

    # ------------------------------------------------------------------ resume
    def _resume(self) -> None:
        """Rebuild the engine, hint system, metrics and agent from the step log."""
        records = read_step_log(self.steps_path)
        game, policy = self.game, self.policy
        where = f"{self.steps_path}"
        for k, rec in enumerate(records):
            if rec.get("step") != k:
                raise EpisodeLogError(f"{where}: record {k + 1} is step {rec.get('step')!r}")
            policy.before_step(game)
            if rec.get("scene") != game.scene_name:
                raise EpisodeLogError(
                    f"{where}: step {k} was taken in {rec.get('scene')!r} but replays in "
                    f"{game.scene_name!r}; the game file has changed since this log was written"
                )
            if rec.get("error"):
                # An error changes nothing in the engine; no need to play it again.
                result = StepResult(str(rec.get("action", "")), False, True, "")
            else:
                result = game.step(str(rec["action"]))
            if (game.key_steps, game.tools_collected) != (
                rec.get("key_steps"),
                rec.get("tools_collected"),
            ) or bool(result.error) != bool(rec.get("error")):
                raise EpisodeLogError(
                    f"{where}: step {k} ({rec.get('action')!r}) does not replay as logged; "
                    "the game file or the engine has changed since this log was written"
                )
            policy.after_step(game, result)
            self.metrics.add(rec)
        if records:
            last = records[-1]
            if last.get("hint_state") is not None and last["hint_state"] != policy.snapshot():
                raise EpisodeLogError(f"{where}: the hint system does not replay as logged")
            self.agent.restore(last.get("agent_state") or {})
        self.step = len(records)

    # ------------------------------------------------------------------ play
    async def run(self) -> EpisodeResult:
        """Play (or finish) the episode and return its result."""
        if self.result_path.exists():
            return read_result_json(self.result_path)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.agent.reset(self.game)
        self._resume()
        log = StepLog(self.steps_path, fsync=self.fsync)
        try:
            while self.step < self.spec.max_steps and not self.game.ended:
                await self._play_step(log)
        finally:
            log.close()
        result = self.metrics.result(
            episode_id=self.spec.episode_id,
            agent=self.spec.agent,
            model=self.spec.model,
            repeat=self.spec.repeat,
            prompt_version=self.spec.prompt_version,
            max_steps=self.spec.max_steps,
            player=self.spec.player,
        )
        write_result_json(self.result_path, result)
        self._report(done=True)
        return result

    async def _play_step(self, log: StepLog) -> None:
        started = time.perf_counter()
        game, policy, agent = self.game, self.policy, self.agent
        hint = policy.before_step(game)
        forced = policy.forced_action()
        ctx = TurnContext(game, self.step, position_text(game), hint)
        scene, observation = game.scene_name, game.observation()
        if forced is not None:
            decision = Decision(forced, reasoning=FORCED_REASONING, mode="help")
        else:
            decision = await agent.decide(ctx)
        result = _play_action(game, decision.action)
        details = dict(decision.details)
        details.update(agent.observe(ctx, decision, result, position_text(game)) or {})
        follow_up = await agent.after_step(ctx, decision, result)
        outcome = policy.after_step(game, result)
        calls = [asdict(c) for c in (*decision.calls, *follow_up)]
        record = {
            "step": self.step,
            "position": ctx.position,
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
            "hint": _hint_dict(hint, forced is not None),
            "hint_done": (
                "completed"
                if outcome.completed is not None
                else "skipped"
                if outcome.skipped is not None
                else None
            ),
            "mode": decision.mode,
            "calls": calls,
            "agent": details,
            "agent_state": agent.snapshot(),
            "hint_state": policy.snapshot(),
            "wall_s": round(time.perf_counter() - started, 6),
        }
        await log.append(record)
        self.metrics.add(record)
        self.step += 1
        self._report()

    def _report(self, done: bool = False) -> None:
        if self.on_step is not None:
            self.on_step(
                StepProgress(
                    self.spec.episode_id,
                    self.step,
                    self.game.progress,
                    len(self.metrics.hints),
                    done=done,
                    escaped=self.game.ended,
                )
            )


async def play_episode(
    spec: EpisodeSpec,
    agent: Agent,
    folder: Path,
    *,
    effects: tuple[ReferenceEffect, ...] | None = None,
    on_step: ProgressCallback | None = None,
    fsync: bool = True,
) -> EpisodeResult:
    """Play ``spec`` with ``agent``, logging to ``folder``; resume if a log is there."""
    episode = Episode(spec, agent, folder, effects=effects, on_step=on_step, fsync=fsync)
    return await episode.run()
