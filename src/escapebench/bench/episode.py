"""Play one episode: agent, engine and hint system, with a crash-safe step log.

One step::

    hint system (may start a hint and teleport) -> agent.decide (or the forced action)
    -> engine step -> agent.observe -> agent.after_step -> hint system update
    -> the step is committed (:class:`~escapebench.bench.records.EpisodeLog`): its checkpoint
       line (agent state, hint state, record) appended to checkpoint.jsonl and synced, then its
       record appended to steps.jsonl
    -> the next step (and so the next model call) starts only then

Resuming: when the episode folder holds a log, :meth:`EpisodeLog.recover` returns its finished
steps (a torn last line cut off, steps only the checkpoint journal holds appended) and the
checkpoint of the last one. The engine and the hint system are rebuilt by replaying the logged
actions through the same code path as live play (teleports included), every replayed step is
checked against the log and the hint system against the checkpoint, and the agent's memory is
restored from the checkpoint. The episode then continues with the next step, so nothing is lost
or repeated and, with a deterministic model (temperature 0, or the response cache), the results
are those of an uninterrupted run. ``result.json`` is written atomically when the episode ends;
its presence marks the episode finished (the checkpoint journal is removed then).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from escapebench.agents.base import Agent, Decision, TurnContext
from escapebench.bench.hints import HintOptions, HintPolicy, ReferenceEffect
from escapebench.bench.loop import AgentNotes, HintSystem, LogSteps, episode_loop
from escapebench.bench.metrics import EpisodeResult, read_result_json, write_result_json
from escapebench.bench.records import (
    RESULT_FILE,
    STEPS_FILE,
    Checkpoint,
    EpisodeLog,
    EpisodeLogError,
    StepRecord,
    read_step_log,
)
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.protocols.base import PromptProtocol, Session
from escapebench.protocols.escapebench import EscapebenchProtocol, position_text

__all__ = [  # the log's names are re-exported: callers know them from here
    "DEFAULT_MAX_STEPS",
    "RESULT_FILE",
    "STEPS_FILE",
    "Episode",
    "EpisodeLogError",
    "EpisodeSpec",
    "ProgressCallback",
    "StepProgress",
    "play_episode",
    "position_text",
    "read_step_log",
]

DEFAULT_MAX_STEPS = 4000
YIELD_EVERY_STEPS = 16
"""An episode lets the event loop run other tasks at least this often (in steps)."""
FORCED_REASONING = "The hint system played the target action (help period over)."


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
    action_format: str = "text"  # how the agent's actions are read: "text" or "tools"
    protocol: str = "escapebench"  # the protocol's name/version, recorded with the result


@dataclass(frozen=True)
class StepProgress:
    """What the live display shows about a running episode after each step."""

    episode_id: str
    step: int  # steps taken so far
    progress: float
    hints: int
    done: bool = False
    escaped: bool = False
    model_calls: int = 0  # model calls of the episode so far
    tokens_in: int = 0  # model tokens so far: in, the server's prefix-cached part, out
    tokens_cached: int = 0
    tokens_out: int = 0
    sent_calls: int = 0  # model calls sent to the model (not answered by the response cache)
    model_wait_s: float = 0.0  # seconds the sent calls took, together


ProgressCallback = Callable[[StepProgress], None]
RecordCallback = Callable[[StepRecord], None]
"""Called with each step's record once it is committed (the Inspect transcript uses it)."""
StepScope = Callable[[int], AbstractAsyncContextManager[Any]]
"""Wraps each step, given its 0-based index (the Inspect task opens a transcript span)."""


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
        on_record: RecordCallback | None = None,
        step_scope: StepScope | None = None,
        fsync: bool = True,
        protocol: PromptProtocol | None = None,
        hint_requests: frozenset[int] = frozenset(),
    ) -> None:
        self.spec = spec
        self.hint_requests = hint_requests
        """Steps (0-based) before which the player asks for a hint, as a person may (a
        person's play replayed by ``escapebench verify``); agents never ask."""
        self.protocol = protocol or EscapebenchProtocol()
        self.agent = agent
        self.folder = folder
        self.on_step = on_step
        self.on_record = on_record
        self.step_scope = step_scope
        self.fsync = fsync
        self.env = episode_loop(spec.defn, self.protocol, hints=spec.hints,
                                max_steps=spec.max_steps, effects=effects, log=True)
        """The turn loop the episode drives (:mod:`escapebench.bench.loop`)."""
        hints = self.env.find(HintSystem)
        assert hints is not None
        self.hints = hints
        self.metrics = self.env.metrics

    @property
    def game(self) -> EscapeGame:
        return self.env.game

    @property
    def policy(self) -> HintPolicy:
        return self.hints.policy

    @property
    def session(self) -> Session:
        return self.env.unwrapped.session

    @property
    def step(self) -> int:
        """Steps played so far."""
        return self.env.steps

    @property
    def steps_path(self) -> Path:
        return self.folder / STEPS_FILE

    @property
    def result_path(self) -> Path:
        return self.folder / RESULT_FILE

    # ------------------------------------------------------------------ resume
    async def _resume(self, records: list[StepRecord], state: Checkpoint | None) -> None:
        """Rebuild the engine, hint system and metrics by replaying ``records`` through the
        loop's step, and the agent from ``state``, the checkpoint of the last of them."""
        where = f"{self.steps_path}"
        for k, rec in enumerate(records):
            if rec.step != k:
                raise EpisodeLogError(f"{where}: record {k + 1} is step {rec.step!r}")
            teleported = rec.agent.get("teleported_to")
            try:
                if teleported:
                    self.env.move(str(teleported))  # the agent's own move (Try Action, exploring)
                await self.env.step(Decision(rec.action), logged=rec)
            except EpisodeLogError as exc:
                raise EpisodeLogError(f"{where}: {exc}") from None
        if state is not None:
            if state.hint_state is not None and state.hint_state != self.hints.checkpoint:
                raise EpisodeLogError(f"{where}: the hint system does not replay as logged")
            self.agent.restore(state.agent_state)

    # ------------------------------------------------------------------ play
    async def run(self) -> EpisodeResult:
        """Play (or finish) the episode and return its result."""
        if self.result_path.exists():
            return read_result_json(self.result_path)
        log = EpisodeLog(self.folder, self.spec.episode_id, fsync=self.fsync)
        logger = self.env.find(LogSteps)
        assert logger is not None
        try:
            self.agent.reset(self.game)
            await self._resume(*log.recover())
            logger.log = log
            while not self.env.ended:
                if self.step_scope is None:
                    await self._play_step()
                else:
                    async with self.step_scope(self.step):
                        await self._play_step()
                if self.step % YIELD_EVERY_STEPS == 0:
                    # An agent without a model and a log without fsync never wait, so
                    # nothing else would run until the episode ends: not the other
                    # episodes, and not the cancellation of a Ctrl-C.
                    await asyncio.sleep(0)
        finally:
            logger.log = None
            log.close()
        result = self.metrics.result(
            episode_id=self.spec.episode_id,
            agent=self.spec.agent,
            model=self.spec.model,
            repeat=self.spec.repeat,
            prompt_version=self.spec.prompt_version,
            max_steps=self.spec.max_steps,
            player=self.spec.player,
            action_format=self.spec.action_format,
            protocol=self.protocol.name,
            protocol_version=self.protocol.version,
            patience=self.spec.hints.patience,
            help_steps=self.spec.hints.help_steps,
        )
        write_result_json(self.result_path, result)
        log.remove_checkpoints()
        self._report(done=True)
        return result

    async def _play_step(self) -> None:
        started = time.perf_counter()
        env, agent, game = self.env, self.agent, self.game
        if self.step in self.hint_requests:
            self.hints.request()
        turn = env.turn
        ctx = TurnContext(
            game, turn.step, turn.position, turn.hint,
            protocol=self.protocol, observation=turn.observation, hint_view=turn.hint_view,
        )
        if turn.forced is not None:
            decision = await agent.forced_turn(ctx, turn.forced) or Decision(
                turn.forced, reasoning=FORCED_REASONING, mode="help"
            )
        else:
            decision = await agent.decide(ctx)
        if decision.teleport_to is not None:
            env.move(decision.teleport_to)  # the agent's move (Try Action, exploring)
            decision.notes.setdefault("teleported_to", self.game.scene_name)  # logged

        async def follow_up(result: StepResult) -> AgentNotes:
            details = dict(decision.notes)
            details.update(agent.observe(ctx, decision, result, position_text(game)) or {})
            calls = await agent.after_step(ctx, decision, result)
            for key, value in decision.notes.items():  # what the follow-ups added
                details.setdefault(key, value)
            return AgentNotes(details, (*decision.calls, *calls), agent.snapshot())

        record = await env.step(
            decision, follow_up=follow_up,
            wall_s=lambda: round(time.perf_counter() - started, 6),
        )
        if self.on_record is not None:
            self.on_record(record)
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
                    model_calls=self.metrics.model_calls,
                    tokens_in=self.metrics.tokens_in,
                    tokens_cached=self.metrics.tokens_cached,
                    tokens_out=self.metrics.tokens_out,
                    sent_calls=self.metrics.sent_calls,
                    model_wait_s=self.metrics.model_wait_s,
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
    protocol: PromptProtocol | None = None,
) -> EpisodeResult:
    """Play ``spec`` with ``agent``, logging to ``folder``; resume if a log is there."""
    episode = Episode(
        spec, agent, folder, effects=effects, on_step=on_step, fsync=fsync, protocol=protocol
    )
    return await episode.run()
