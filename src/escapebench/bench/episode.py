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
from escapebench.bench.metrics import (
    EpisodeMetrics,
    EpisodeResult,
    read_result_json,
    write_result_json,
)
from escapebench.bench.records import (
    RESULT_FILE,
    STEPS_FILE,
    Checkpoint,
    EpisodeLog,
    EpisodeLogError,
    StepRecord,
    encode_agent_state,
    read_step_log,
    step_record,
)
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.engine.outcome import OUTCOME_KINDS, Outcome
from escapebench.protocols.base import HintView, PromptProtocol, Session
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
    ) -> None:
        self.spec = spec
        self.protocol = protocol or EscapebenchProtocol()
        self.session: Session = self.protocol.session(spec.defn)
        self.agent = agent
        self.folder = folder
        self.on_step = on_step
        self.on_record = on_record
        self.step_scope = step_scope
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
    def _resume(self, records: list[StepRecord], state: Checkpoint | None) -> None:
        """Rebuild the engine, hint system and metrics by replaying ``records``, and the agent
        from ``state``, the checkpoint of the last of them."""
        game, policy = self.game, self.policy
        where = f"{self.steps_path}"
        for k, rec in enumerate(records):
            if rec.step != k:
                raise EpisodeLogError(f"{where}: record {k + 1} is step {rec.step!r}")
            hint = policy.before_step(game)
            self.session.begin_step(game, self._hint_view(hint))
            teleported = rec.agent.get("teleported_to")
            if teleported:
                game.teleport(str(teleported))  # the agent's own move (Try Action, exploring)
                policy.scene = game.scene_name
            if rec.scene != game.scene_name:
                raise EpisodeLogError(
                    f"{where}: step {k} was taken in {rec.scene!r} but replays in "
                    f"{game.scene_name!r}; the game file has changed since this log was written"
                )
            if rec.error:
                # An error changes nothing in the engine; no need to play it again. (Its
                # kind is what the log kept; a log older than outcomes says "malformed".)
                logged = Outcome(rec.outcome if rec.outcome in OUTCOME_KINDS else "malformed")
                result = StepResult(rec.action, False, True, "", (), 0, 0, False, logged)
            else:
                result = self.session.play(game, rec.action)
            if (game.key_steps, game.tools_collected) != (
                rec.key_steps, rec.tools_collected
            ) or bool(result.error) != rec.error:
                raise EpisodeLogError(
                    f"{where}: step {k} ({rec.action!r}) does not replay as logged; "
                    "the game file or the engine has changed since this log was written"
                )
            policy.after_step(game, result)
            self.metrics.add(rec)
        if state is not None:
            if state.hint_state is not None and state.hint_state != policy.snapshot():
                raise EpisodeLogError(f"{where}: the hint system does not replay as logged")
            self.agent.restore(state.agent_state)
        self.step = len(records)

    # ------------------------------------------------------------------ play
    async def run(self) -> EpisodeResult:
        """Play (or finish) the episode and return its result."""
        if self.result_path.exists():
            return read_result_json(self.result_path)
        log = EpisodeLog(self.folder, self.spec.episode_id, fsync=self.fsync)
        try:
            self.agent.reset(self.game)
            self._resume(*log.recover())
            while self.step < self.spec.max_steps and not self.game.ended:
                if self.step_scope is None:
                    await self._play_step(log)
                else:
                    async with self.step_scope(self.step):
                        await self._play_step(log)
                if self.step % YIELD_EVERY_STEPS == 0:
                    # An agent without a model and a log without fsync never wait, so
                    # nothing else would run until the episode ends: not the other
                    # episodes, and not the cancellation of a Ctrl-C.
                    await asyncio.sleep(0)
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

    async def _play_step(self, log: EpisodeLog) -> None:
        started = time.perf_counter()
        game, policy, agent, session = self.game, self.policy, self.agent, self.session
        hint = policy.before_step(game)
        forced = policy.forced_action()
        view = self._hint_view(hint)
        position = session.begin_step(game, view)
        scene, observation = game.scene_name, session.observation(game)
        ctx = TurnContext(
            game, self.step, position, hint,
            protocol=self.protocol, observation=observation, hint_view=view,
        )
        if forced is not None:
            decision = await agent.forced_turn(ctx, forced) or Decision(
                forced, reasoning=FORCED_REASONING, mode="help"
            )
        else:
            decision = await agent.decide(ctx)
        if decision.details.get("teleported_to"):
            # The agent moved itself (Try Action, exploring): its action is made there.
            scene, observation = game.scene_name, session.observation(game)
            policy.scene = game.scene_name
        result = session.play(game, decision.action)
        details = dict(decision.details)
        details.update(agent.observe(ctx, decision, result, position_text(game)) or {})
        follow_up = await agent.after_step(ctx, decision, result)
        for key, value in decision.details.items():  # what the follow-ups added (reflection)
            details.setdefault(key, value)
        outcome = policy.after_step(game, result)
        agent_state, agent_state_hash = encode_agent_state(agent.snapshot())
        record = step_record(
            step=self.step,
            position=str(details.get("position") or ctx.position),  # an agent's own, if it has
            # one (the original EscapeAgent keeps its own scene stack)
            scene=scene,
            observation=observation,
            decision=decision,
            result=result,
            game=game,
            hint=hint,
            forced=forced is not None,
            outcome=outcome,
            calls=(*decision.calls, *follow_up),
            details=details,
            agent_state_hash=agent_state_hash,
            wall_s=round(time.perf_counter() - started, 6),
        )
        await log.commit(record, agent_state, policy.snapshot())
        self.metrics.add(record)
        if self.on_record is not None:
            self.on_record(record)
        self.step += 1
        self._report()

    def _hint_view(self, hint: Any) -> HintView | None:
        return None if hint is None else self.session.reference_hint(hint.index, hint.steps_in_help)

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
