"""The turn loop: one step path for every player, and its wrappers."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from escapebench.agents.base import Agent, Decision, TurnContext
from escapebench.bench.episode import Episode, EpisodeSpec
from escapebench.bench.hints import HintOptions, HintUpdate
from escapebench.bench.loop import (
    AgentNotes,
    EscapeEnv,
    HintSystem,
    StepLimit,
    episode_loop,
    run_now,
)
from escapebench.bench.records import StepRecord, read_step_records
from escapebench.engine.actions import Call
from escapebench.engine.model import GameDefinition
from escapebench.protocols.escapebench import EscapebenchProtocol


def test_the_hint_system_helps_forces_and_completes(mini: GameDefinition) -> None:
    env = episode_loop(mini, EscapebenchProtocol(), hints=HintOptions(2, 2), max_steps=100)
    records = []
    while not env.ended:
        turn = env.turn
        records.append(env.step_now(Decision(turn.forced or "click(nothing here)")))
    assert env.game.ended and len(records) < 100
    forced = [r for r in records if r.hint is not None and r.hint.forced]
    assert forced and all(r.hint_done == "completed" for r in forced)
    assert records[2].hint is None and records[3].hint is not None
    assert records[3].hint.steps_in_help == 0 and not records[3].hint.forced
    assert records[0].hint is None and records[0].error
    assert env.metrics.result(episode_id="x", agent="a", model="m", repeat=0,
                              prompt_version="", max_steps=100).hints_used == len(forced)


def test_the_step_limit_ends_the_play(mini: GameDefinition) -> None:
    env = StepLimit(EscapeEnv(mini, EscapebenchProtocol()), 3)
    while not env.ended:
        env.step_now(Decision("look around"))
    assert env.steps == 3 and not env.game.ended


def test_a_player_that_moves_acts_where_it_moved(mini: GameDefinition) -> None:
    env = HintSystem(EscapeEnv(mini, EscapebenchProtocol()))
    other = next(s.name for s in mini.scenes if s.name != env.turn.scene)
    position = env.turn.position
    turn = env.move(other)
    assert (turn.scene, turn.position) == (other, position)
    assert env.policy.scene == other
    assert env.step_now(Decision("look")).scene == other


def test_a_step_that_waits_needs_an_event_loop(mini: GameDefinition) -> None:
    env = EscapeEnv(mini, EscapebenchProtocol())

    async def thinks(result: object) -> AgentNotes:
        await asyncio.sleep(0)
        return AgentNotes({"thought": "yes"}, (), {"memory": 1})

    with pytest.raises(RuntimeError, match="event loop"):
        env.step_now(Decision("look"), follow_up=thinks)
    record = asyncio.run(env.step(Decision("look"), follow_up=thinks))
    assert record.agent == {"thought": "yes"} and record.agent_state_hash
    assert run_now(env.step(Decision("look"))).agent_state_hash is None


class _Mover(Agent):
    """Moves to ``scene`` on its second step (without touching the game) and fails on its
    third when ``fail``."""

    name = "mover"

    def __init__(self, scene: str, fail: bool) -> None:
        self.scene, self.fail = scene, fail

    async def decide(self, ctx: TurnContext) -> Decision:
        if ctx.step == 1:
            return Decision("look", teleport_to=self.scene)
        if ctx.step == 2 and self.fail:
            raise RuntimeError("the model went away")
        return Decision("look")


def test_a_move_the_agent_asks_for_is_made_logged_and_replayed(
    mini: GameDefinition, tmp_path: Path
) -> None:
    other = next(s.name for s in mini.scenes if s.name != mini.scenes[0].name)
    spec = EpisodeSpec("ep", mini, agent="mover", model="none", max_steps=4)
    with pytest.raises(RuntimeError, match="went away"):
        asyncio.run(Episode(spec, _Mover(other, fail=True), tmp_path, fsync=False).run())
    result = asyncio.run(Episode(spec, _Mover(other, fail=False), tmp_path, fsync=False).run())
    records = read_step_records(tmp_path)
    assert result.total_steps == 4 and [r.step for r in records] == [0, 1, 2, 3]
    assert records[1].scene == other and records[1].agent == {"teleported_to": other}
    assert records[0].scene != other and "teleported_to" not in records[0].agent


def test_the_call_a_decision_carries_is_what_the_engine_plays(mini: GameDefinition) -> None:
    """An answer is read once: the loop plays the decision's call, not its text again, and
    the record keeps the call for what reads it next (tool choice)."""
    env = EscapeEnv(mini, EscapebenchProtocol())
    text = "- Thought: the study.\n- Action: move(study)"
    reading = env.protocol.read_answer(text)
    assert reading.call == Call("move", "study") and reading.text == "move(study)"
    record = env.step_now(Decision("this text is not read again", reading=reading))
    assert record.action == "move(study)" and record.success and not record.error
    assert record.call == reading.call and record.played_call == reading.call
    # a string (a hint's action, a log's) is read by the session, once
    record = env.step_now(Decision("click(drawer)"))
    assert record.success and record.played_call == Call("click", "drawer")
    # a record read back from its log line reads its action when asked
    again = StepRecord.from_json(record.to_json())
    assert again.call is None and again.played_call == Call("click", "drawer")
    # an answer without an action is not played: its feedback says so
    nothing = env.protocol.read_answer("I do not know.")
    assert nothing.call is None
    record = env.step_now(Decision(nothing.text, reading=nothing))
    assert record.error and record.outcome == "malformed" and record.action == ""
    assert record.feedback.startswith("Could not read an action in 'I do not know.'")


def test_the_old_names_still_work_with_a_warning() -> None:
    decision = Decision("click(drawer)", notes={"thought": "x"})
    with pytest.warns(DeprecationWarning, match="Decision.notes"):
        assert decision.details is decision.notes
    with pytest.warns(DeprecationWarning, match="HintUpdate"):
        from escapebench.bench import HintOutcome
    assert HintOutcome is HintUpdate
