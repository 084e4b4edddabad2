"""The model-driven agents through the real harness: hints, resume, and what the modules buy."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from escapebench.agents.base import Agent
from escapebench.agents.base_agent import BaseAgent
from escapebench.agents.escape_agent import EscapeAgent
from escapebench.bench.episode import EpisodeSpec, play_episode
from escapebench.bench.metrics import EpisodeResult
from escapebench.engine.model import GameDefinition
from escapebench.games.loading import load_games
from escapebench.llm.base import Message, ModelUnavailableError
from tests.agents.conftest import RoutedModel, act, kind_of
from tests.agents.oracle import exploring_actions, foresight_oracle

NONE = "- Action: none()"


def _records(folder: Path) -> list[dict]:
    lines = (folder / "steps.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


async def _play(defn: GameDefinition, agent: Agent, folder: Path, label: str) -> EpisodeResult:
    spec = EpisodeSpec(f"{defn.setting}__{label}", defn, label, "scripted")
    return await play_episode(spec, agent, folder, fsync=False)


async def test_hint_system_takes_over_when_escape_agent_is_stuck(
    workshop: GameDefinition, tmp_path: Path
) -> None:
    # A model that never makes progress and ignores hints; foresight finds nothing.
    model = RoutedModel(action=act("click(poster)"), reflection=NONE, foresight_tool="- Actions:")
    result = await _play(workshop, EscapeAgent(model), tmp_path, "escape")
    # As the original harness: help after step 50 (no progress since step 0); the 10th step in
    # help (60) is the forced action; then help after each further 50 steps: 60 per hint.
    assert result.escaped and result.hints_used == 7 and result.forced_steps == 7
    assert result.hint_steps == [51 + 60 * k for k in range(7)]
    assert result.total_steps == 421
    records = _records(tmp_path)
    assert records[50]["hint"] is None and records[50]["mode"] != "help"
    assert records[51]["hint"]["action"] == "click(crowbar)" and records[51]["mode"] == "help"
    assert records[51]["scene"] == "storeroom"  # put at the target position
    assert records[60]["hint"]["forced"] and records[60]["action"] == "click(crowbar)"
    # the agent's own record rides along in every step: the task list, the queue, the calls
    assert {"task_list", "try_queue"} <= set(records[10]["agent"])
    assert any(c["kind"] == "foresight_tool" for r in records for c in r["calls"])


async def test_escape_agent_resumes_through_the_harness_as_if_never_stopped(
    workshop: GameDefinition, tmp_path: Path
) -> None:
    def make_model(fail_at: int | None) -> RoutedModel:
        counter = {"n": 0}
        oracle = foresight_oracle(workshop)
        explore = exploring_actions(seed=3)

        def answer(messages: Sequence[Message]) -> str:
            counter["n"] += 1
            if counter["n"] == fail_at:
                raise ModelUnavailableError("the server went away")
            kind = kind_of(messages)
            return explore(messages) if kind == "action" else oracle[kind](messages)

        return RoutedModel(
            action=answer, reflection=answer, foresight_tool=answer, foresight_task=answer
        )

    straight = await _play(workshop, EscapeAgent(make_model(None)), tmp_path / "a", "escape")
    for fail_at in (7, 23, 41):
        folder = tmp_path / f"b{fail_at}"
        with pytest.raises(ModelUnavailableError):
            await _play(workshop, EscapeAgent(make_model(fail_at)), folder, "escape")
        resumed = await _play(workshop, EscapeAgent(make_model(None)), folder, "escape")
        assert resumed.total_steps == straight.total_steps
        assert resumed.hint_steps == straight.hint_steps
        drop = ("wall_s", "calls")
        assert [{k: v for k, v in r.items() if k not in drop} for r in _records(folder)] == [
            {k: v for k, v in r.items() if k not in drop} for r in _records(tmp_path / "a")
        ]


SHARED_SETTINGS = ["game1-1", "game1-2", "game2-1"]


async def test_escape_agent_needs_fewer_steps_than_base_agent_on_shared_games(
    upstream_dir: Path, tmp_path: Path
) -> None:
    """Same scripted exploration for both; foresight answered with the right tool."""
    defns = load_games([str(upstream_dir / "data" / f"{s}.yaml") for s in SHARED_SETTINGS])
    rows = []
    for defn in defns:
        results = {}
        for label in ("base", "escape"):
            model = RoutedModel(action=exploring_actions(seed=0), **foresight_oracle(defn))
            agent = BaseAgent(model) if label == "base" else EscapeAgent(model)
            results[label] = await _play(defn, agent, tmp_path / defn.setting / label, label)
        base, escape = results["base"], results["escape"]
        assert base.escaped and escape.escaped
        assert escape.total_steps < base.total_steps
        assert escape.hints_used < base.hints_used
        assert escape.tool_hints + escape.key_step_hints == escape.hints_used
        rows.append(
            f"{defn.setting}: base {base.total_steps} steps / {base.hints_used} hints, "
            f"escape {escape.total_steps} steps / {escape.hints_used} hints "
            f"({escape.model_calls} model calls)"
        )
    print("\n" + "\n".join(rows))  # the figures, with pytest -s
