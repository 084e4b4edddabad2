"""The turn loop: one step path for every player, and its wrappers."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

from escapebench.agents.base import Agent, Decision, TurnContext
from escapebench.bench.episode import Episode, EpisodeSpec
from escapebench.bench.hints import HintOptions
from escapebench.bench.loop import (
    AgentNotes,
    EscapeEnv,
    HintSystem,
    StepLimit,
    episode_loop,
    run_now,
)
from escapebench.bench.records import read_step_records
from escapebench.engine.model import GameDefinition
from escapebench.protocols.escapebench import EscapebenchProtocol

SRC = Path(__file__).resolve().parents[2] / "src" / "escapebench"


def test_a_turn_is_played_in_one_place_only() -> None:
    """Outside the protocols (which implement ``play``) and the trace replay of the games
    part (below the harness), only the turn loop plays an answer on a protocol session."""
    callers = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("protocols/") or rel == "games/traces.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "play" and len(node.args) == 2):
                callers.append(f"{rel}:{node.lineno}")
    assert [c.split(":")[0] for c in callers] == ["bench/loop.py"], callers


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
