"""The turn loop: the one object that plays a step, whoever plays (the harness, people, learners).

:class:`EscapeEnv` holds the engine and a protocol session. A step is a :class:`Turn` (what the
player sees: position, screen, the hint in force, the action the hint system plays now) and a
:class:`~escapebench.agents.base.Decision` played on it, which gives a
:class:`~escapebench.bench.records.StepRecord`::

    env = episode_loop(defn, protocol, hints=HintOptions(), max_steps=4000)
    turn = env.reset()
    while not env.ended:
        decision = decide(env.turn)
        record = env.step_now(decision)      # or: await env.step(decision, follow_up=...)

Everything else is a wrapper around it, in Gymnasium's manner (each one overrides what it needs
and passes the rest on): :class:`HintSystem` (the paper's hint system: its teleport and hint
before a step, its counters after), :class:`StepLimit`, :class:`LogSteps` (the crash-safe step
log of the harness), :class:`CountMetrics` (the episode's numbers) and :class:`KeepRecords`
(the steps of a play kept in memory). ``escapebench run`` (``bench.episode``), terminal and
browser play (``play.session``), the Gymnasium environments, the verifiers environment and the
Inspect task all drive this loop, so a step is played in one place:
:meth:`EscapeEnv.step` is the only caller of the engine's ``step`` for a turn: the protocol's
session reads the answer (once: an agent's decision carries the call it read) and says what the
engine plays (``Session.prepare``), and says the result in its words (``Session.render``).

**Resuming** replays the logged records through the same :meth:`step` (``logged=``): the
record is checked against the replay instead of being made, and the wrappers see it as they
saw it live (the hint system counts it, the metrics add it; the log does not write it again).

A step is a coroutine because the harness's follow-ups (an agent's reflection, the log's
sync) wait; a loop without them never waits, and :meth:`TurnLoop.step_now` plays its step at
once (terminal and browser play, Gymnasium).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from escapebench.agents.base import Decision, Hint, ModelCallRecord
from escapebench.bench.hints import HintOptions, HintPolicy, HintUpdate, ReferenceEffect
from escapebench.bench.metrics import EpisodeMetrics
from escapebench.bench.records import (
    EpisodeLog,
    EpisodeLogError,
    StepRecord,
    encode_agent_state,
    step_record,
)
from escapebench.engine.actions import Call
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.engine.outcome import OUTCOME_KINDS, Outcome
from escapebench.protocols.base import HintView, Play, PromptProtocol, Reading, Session

__all__ = [
    "AgentNotes",
    "CountMetrics",
    "EscapeEnv",
    "HintSystem",
    "KeepRecords",
    "LogSteps",
    "StepLimit",
    "Turn",
    "TurnLoop",
    "Wrapper",
    "episode_loop",
    "run_now",
]

T = TypeVar("T")
W = TypeVar("W", bound="TurnLoop")


@dataclass(frozen=True)
class Turn:
    """A step about to be played: what the player sees and what the hint system does."""

    step: int  # 0-based index of the step
    position: str  # "first scene -> ... -> current scene", as the protocol shows it
    scene: str  # where the action is made
    observation: str  # the screen, as the protocol renders it
    hint: Hint | None = None  # the hint in force
    hint_view: HintView | None = None  # the hint as the protocol shows it
    forced: str | None = None  # the action the hint system plays for the player this step


@dataclass(frozen=True)
class AgentNotes:
    """What a player adds to its step once it is played (the harness's agents): its notes for
    the record, every model call of the step, and its memory after it (None: it keeps none)."""

    notes: dict[str, Any] = field(default_factory=dict)
    calls: tuple[ModelCallRecord, ...] = ()
    state: dict[str, Any] | None = None


FollowUp = Callable[[StepResult], Awaitable[AgentNotes]]
"""Called with the step's result after the engine played it (an agent's observe and
follow-ups); returns the notes the record keeps."""
WallTime = float | Callable[[], float]
"""The step's wall time for its record, or a function that reads it when the record is made."""


def run_now(step: Coroutine[Any, Any, T]) -> T:
    """The result of a step of a loop that never waits (no follow-up, no synced log)."""
    try:
        step.send(None)
    except StopIteration as done:
        return done.value
    step.close()
    raise RuntimeError("this step waits on something: await it in an event loop")


class TurnLoop:
    """What every driver calls; :class:`EscapeEnv` does it, a :class:`Wrapper` adds to it."""

    @property
    def unwrapped(self) -> EscapeEnv:
        raise NotImplementedError

    @property
    def turn(self) -> Turn:
        """The step about to be played."""
        raise NotImplementedError

    @property
    def ended(self) -> bool:
        """No step is left to play."""
        raise NotImplementedError

    @property
    def steps(self) -> int:
        """Steps played."""
        return self.unwrapped.steps

    game: EscapeGame
    """The engine (the one of :class:`EscapeEnv` inside)."""

    def reset(self) -> Turn:
        """Start the play-through again; the first turn."""
        raise NotImplementedError

    def move(self, scene: str | None = None) -> Turn:
        """Put the player in ``scene`` before the action of this turn is played (a player's
        own move: trying an action where it belongs, exploring); None: the player was moved
        already, look again. The position shown stays the turn's."""
        raise NotImplementedError

    async def step(
        self,
        decision: Decision,
        *,
        follow_up: FollowUp | None = None,
        wall_s: WallTime = 0.0,
        forced: bool | None = None,
        logged: StepRecord | None = None,
    ) -> StepRecord:
        """Play ``decision`` on the current turn and return the step's record.

        ``forced``: whether the hint system's action is what is played (None: whenever the
        turn has one). ``logged``: replay this record of the step log instead (resuming): it
        is checked against the engine and returned; ``decision`` is not used.
        """
        raise NotImplementedError

    def step_now(self, decision: Decision, **kwargs: Any) -> StepRecord:
        """:meth:`step` for a loop that never waits."""
        return run_now(self.step(decision, **kwargs))

    def find(self, kind: type[W]) -> W | None:
        """The layer of this loop of type ``kind`` (this one, a wrapper inside it), or None."""
        loop: TurnLoop | None = self
        while loop is not None:
            if isinstance(loop, kind):
                return loop
            loop = getattr(loop, "env", None)
        return None


class EscapeEnv(TurnLoop):
    """The engine and a protocol session: a turn is the protocol's view of the state, a step
    is the protocol's play of the decision's answer and the record of what it did."""

    def __init__(self, defn: GameDefinition, protocol: PromptProtocol) -> None:
        self.defn = defn
        self.protocol = protocol
        self.game = EscapeGame(defn)
        self.session: Session = protocol.session(defn)
        self.last_result: StepResult | None = None
        self.last_play: Play | None = None  # what the session made of the last answer
        self.agent_state = b"{}"  # the agent's memory after the last step, as JSON
        self._steps = 0
        self._hint: Hint | None = None
        self._forced: str | None = None
        self._turn: Turn | None = None

    @property
    def unwrapped(self) -> EscapeEnv:
        return self

    @property
    def steps(self) -> int:
        return self._steps

    @property
    def ended(self) -> bool:
        return self.game.ended

    @property
    def turn(self) -> Turn:
        if self._turn is None:
            self._turn = self._begin()
        return self._turn

    def _begin(self) -> Turn:
        """The protocol's start of the step (after the hint system's teleport)."""
        hint = self._hint
        view = None if hint is None else self.session.reference_hint(hint.index,
                                                                     hint.steps_in_help)
        position = self.session.begin_step(self.game, view)
        return Turn(self._steps, position, self.game.scene_name,
                    self.session.observation(self.game), hint, view, self._forced)

    def set_hint(self, hint: Hint | None, forced: str | None = None) -> None:
        """The hint in force for the current turn, and the action played for the player
        (the hint system's; it has already put the player where the hint is)."""
        self._hint, self._forced = hint, forced
        self._turn = None

    def reset(self) -> Turn:
        self.game.reset()
        self.session = self.protocol.session(self.defn)
        self.last_result = None
        self._steps = 0
        self.set_hint(None)
        return self.turn

    def restore(self, engine: dict[str, Any], protocol_state: dict[str, Any],
                steps: int) -> None:
        """Continue from a snapshot of the engine and the protocol session after ``steps``."""
        self.game.restore(engine)
        self.session = self.protocol.session(self.defn)
        self.session.restore(protocol_state)
        self._steps = steps
        self._turn = None

    def move(self, scene: str | None = None) -> Turn:
        if scene is not None:
            self.game.teleport(scene)
        turn = self.turn
        self._turn = dataclasses.replace(
            turn, scene=self.game.scene_name, observation=self.session.observation(self.game)
        )
        return self._turn

    async def step(
        self,
        decision: Decision,
        *,
        follow_up: FollowUp | None = None,
        wall_s: WallTime = 0.0,
        forced: bool | None = None,
        logged: StepRecord | None = None,
    ) -> StepRecord:
        turn, game = self.turn, self.game
        if logged is not None:
            self._check_scene(logged, turn)
        self.last_play = None
        if logged is not None and logged.error:
            # An error changes nothing in the engine: it is not played again. (Its kind is
            # what the log kept; a log older than outcomes says "malformed".)
            kind = logged.outcome if logged.outcome in OUTCOME_KINDS else "malformed"
            result = StepResult(logged.action, False, True, "", (), 0, 0, False, Outcome(kind))
        else:
            result = self._play(logged.action if logged is not None
                                else decision.reading or decision.action)
        self.last_result = result
        self._steps += 1
        self._turn = None
        if logged is not None:
            if (game.key_steps, game.tools_collected, result.error) != (
                logged.key_steps, logged.tools_collected, logged.error
            ):
                raise EpisodeLogError(
                    f"step {logged.step} ({logged.action!r}) does not replay as logged; the "
                    "game file or the engine has changed since this log was written"
                )
            return logged
        if follow_up is not None:
            notes = await follow_up(result)
        else:
            notes = AgentNotes(decision.notes, tuple(decision.calls))
        state_hash = None
        if notes.state is not None:
            self.agent_state, state_hash = encode_agent_state(notes.state)
        return step_record(
            step=turn.step,
            position=decision.position or turn.position,  # an agent's own, if it keeps one
            # (the original EscapeAgent keeps its own scene stack)
            scene=turn.scene,
            observation=turn.observation,
            decision=decision,
            result=result,
            game=game,
            hint=turn.hint,
            forced=turn.forced is not None if forced is None else forced,
            hint_update=HintUpdate(),
            calls=notes.calls,
            notes=notes.notes,
            agent_state_hash=state_hash,
            wall_s=wall_s() if callable(wall_s) else wall_s,
            call=self._played_call(),
        )

    def _play(self, answer: Reading | str) -> StepResult:
        """The one place a turn's action is played: the protocol says what the engine plays
        (an answer it read once, or an action string it reads now), the engine steps, the
        protocol says the result in its words."""
        play = self.last_play = self.session.prepare(self.game, answer)
        if play.result is not None:  # nothing to play (a refusal, an answer without action)
            return play.result
        assert play.action is not None
        return self.session.render(self.game, play, self.game.step(play.action))

    def _played_call(self) -> Call | None:
        """The call the last answer held, as the session read it (for the record)."""
        play = self.last_play
        if play is None:
            return None
        return play.call if play.call is not None else (
            play.action if isinstance(play.action, Call) else None)

    def _check_scene(self, logged: StepRecord, turn: Turn) -> None:
        if logged.scene != turn.scene:
            raise EpisodeLogError(
                f"step {logged.step} was taken in {logged.scene!r} but replays in "
                f"{turn.scene!r}; the game file has changed since this log was written"
            )


class Wrapper(TurnLoop):
    """A layer around a loop: passes everything on; subclasses override what they change."""

    def __init__(self, env: TurnLoop) -> None:
        self.env = env

    @property
    def unwrapped(self) -> EscapeEnv:
        return self.env.unwrapped

    @property
    def game(self) -> EscapeGame:  # type: ignore[override]
        return self.env.unwrapped.game

    @property
    def turn(self) -> Turn:
        return self.env.turn

    @property
    def ended(self) -> bool:
        return self.env.ended

    def reset(self) -> Turn:
        return self.env.reset()

    def move(self, scene: str | None = None) -> Turn:
        return self.env.move(scene)

    async def step(self, decision: Decision, **kwargs: Any) -> StepRecord:
        return await self.env.step(decision, **kwargs)


class StepLimit(Wrapper):
    """The play ends after ``max_steps`` steps, escaped or not."""

    def __init__(self, env: TurnLoop, max_steps: int) -> None:
        super().__init__(env)
        self.max_steps = max_steps

    @property
    def ended(self) -> bool:
        return self.env.ended or self.steps >= self.max_steps


class HintSystem(Wrapper):
    """The hint system (:mod:`escapebench.bench.hints`): before every step it counts the step in
    help and puts the player where the hint is, and the turn shows the hint and the action it
    plays for the player; after every step it updates its counters, and the record says
    whether the step completed the hint. :attr:`checkpoint` is its state after the last step
    (what the harness's checkpoints keep)."""

    def __init__(
        self,
        env: TurnLoop,
        options: HintOptions | None = None,
        *,
        effects: tuple[ReferenceEffect, ...] | None = None,
    ) -> None:
        super().__init__(env)
        self.policy = HintPolicy(self.unwrapped.defn, options, effects=effects)
        self.checkpoint: dict[str, Any] = self.policy.snapshot()
        self.last_update = HintUpdate()
        self._prepare()

    @property
    def effects(self) -> tuple[ReferenceEffect, ...]:
        return self.policy.effects

    def _prepare(self) -> None:
        """The hint system's start of the next step (none when the play is over)."""
        if self.env.ended:
            self.unwrapped.set_hint(None)
            return
        hint = self.policy.before_step(self.game)
        self.unwrapped.set_hint(hint, self.policy.forced_action())

    def reset(self) -> Turn:
        self.policy = HintPolicy(self.unwrapped.defn, self.policy.options,
                                 effects=self.policy.effects)
        self.env.reset()
        self._prepare()
        return self.turn

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from a snapshot of the policy taken between two steps (a save): the next
        step was prepared when it was taken, so it is not counted again."""
        self.policy.restore(state)
        hint = None if self.env.ended else self.policy.hint
        self.unwrapped.set_hint(hint, None if hint is None else self.policy.forced_action())

    def request(self) -> Hint | None:
        """Start help now (a person asking): the hint in force (already in force, or new),
        None when the reference chain is done."""
        if self.turn.hint is None and not self.env.ended:
            hint = self.policy.request(self.game)
            self.unwrapped.set_hint(hint, self.policy.forced_action())
        return self.turn.hint

    def move(self, scene: str | None = None) -> Turn:
        turn = self.env.move(scene)
        self.policy.scene = self.game.scene_name  # the action is made there
        return turn

    async def step(self, decision: Decision, **kwargs: Any) -> StepRecord:
        record = await self.env.step(decision, **kwargs)
        result = self.unwrapped.last_result
        assert result is not None
        outcome = self.last_update = self.policy.after_step(self.game, result)
        done = ("completed" if outcome.completed is not None
                else "skipped" if outcome.skipped is not None else None)
        if kwargs.get("logged") is None and done is not None:
            record = dataclasses.replace(record, hint_done=done)
        self.checkpoint = self.policy.snapshot()
        self._prepare()
        return record


class CountMetrics(Wrapper):
    """The episode's numbers (:class:`~escapebench.bench.metrics.EpisodeMetrics`), from every
    step's record."""

    def __init__(self, env: TurnLoop, effects: tuple[ReferenceEffect, ...]) -> None:
        super().__init__(env)
        self.metrics = EpisodeMetrics(self.unwrapped.defn, effects)

    async def step(self, decision: Decision, **kwargs: Any) -> StepRecord:
        record = await self.env.step(decision, **kwargs)
        self.metrics.add(record)
        return record


class KeepRecords(Wrapper):
    """The play's records, kept in memory (human play writes them when the game ends)."""

    def __init__(self, env: TurnLoop, records: list[StepRecord] | None = None) -> None:
        super().__init__(env)
        self.records: list[StepRecord] = records if records is not None else []

    async def step(self, decision: Decision, **kwargs: Any) -> StepRecord:
        record = await self.env.step(decision, **kwargs)
        self.records.append(record)
        return record


class LogSteps(Wrapper):
    """The harness's crash-safe step log: every step is committed (its checkpoint line, then
    its line in ``steps.jsonl``) before the step returns; a replayed step is not written
    again."""

    def __init__(self, env: TurnLoop, log: EpisodeLog | None = None) -> None:
        super().__init__(env)
        self.log = log  # None: not open yet (nothing is written)

    async def step(self, decision: Decision, **kwargs: Any) -> StepRecord:
        record = await self.env.step(decision, **kwargs)
        if self.log is not None and kwargs.get("logged") is None:
            hints = self.find(HintSystem)
            await self.log.commit(record, self.unwrapped.agent_state,
                                  hints.checkpoint if hints is not None else {})
        return record


def episode_loop(
    defn: GameDefinition,
    protocol: PromptProtocol,
    *,
    hints: HintOptions | None = None,
    max_steps: int,
    effects: tuple[ReferenceEffect, ...] | None = None,
    log: bool = False,
) -> CountMetrics:
    """The loop of an episode as the harness and human play drive it: the engine within the
    step limit, the hint system, (with ``log``) the step log, and the metrics outside."""
    loop: TurnLoop = HintSystem(
        StepLimit(EscapeEnv(defn, protocol), max_steps), hints, effects=effects
    )
    effects = loop.effects  # type: ignore[attr-defined]
    if log:
        loop = LogSteps(loop)
    return CountMetrics(loop, effects)
