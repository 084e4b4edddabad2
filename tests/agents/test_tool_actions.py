"""The tools action format in the agents: what is offered, what is played, what is recorded."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from escapebench.agents.base_agent import BaseAgent
from escapebench.agents.escape_agent import EscapeAgent
from escapebench.agents.tool_actions import read_tool_answer
from escapebench.bench.episode import EpisodeSpec, play_episode
from escapebench.bench.hints import HintOptions
from escapebench.bench.plan import FINGERPRINT_KEYS, compatible, run_fingerprint
from escapebench.engine import EscapeGame
from escapebench.games.loading import load_games
from escapebench.llm.base import Completion, Message, SamplingSettings, ToolCall
from escapebench.llm.cache import CACHE_KEY_VERSION, cache_key
from escapebench.protocols.escapebench.feedback import feedback_text
from tests.support.tool_calls import reference_calls


class ToolModel:
    """Answers action calls (those offering functions) with the tutorial's solution as function
    calls, and every other call (reflection, foresight) with text."""

    name = "tool-model"

    def __init__(self) -> None:
        self.solution = iter(reference_calls("tutorial"))
        self.offered: list[tuple[str, ...]] = []

    async def complete(self, messages: Sequence[Message], settings: SamplingSettings) -> Completion:
        self.offered.append(tuple(t.name for t in settings.tools))
        if not settings.tools:
            return Completion("- Thought: fine.\n- Action: none()\n- Actions:")
        name, arguments = next(self.solution)
        return Completion("", tool_calls=(ToolCall(name, json.dumps(arguments)),))


def test_escape_agent_acts_through_functions_and_reflects_in_text(tmp_path: Path) -> None:
    [defn] = load_games(["tutorial"], ["normal"])
    model = ToolModel()
    agent = EscapeAgent(model, action_format="tools")
    assert agent.name == "escape-tools"
    spec = EpisodeSpec("t", defn, agent.name, model.name, action_format="tools")
    result = asyncio.run(play_episode(spec, agent, tmp_path, fsync=False))
    assert result.escaped and result.action_format == "tools"
    actions = [o for o in model.offered if o]
    assert actions and all(o == ("move", "click", "apply", "input", "craft") for o in actions)
    assert any(not o for o in model.offered)  # reflection and foresight: no functions
    assert EscapeAgent(model, no_foresight=True, action_format="tools").name == (
        "escape-no-foresight-tools"
    )


def test_text_format_keeps_its_settings_cache_keys_and_folders() -> None:
    model = ToolModel()
    settings = BaseAgent(model).settings()
    assert "action_format" not in settings and "tools" not in settings["sampling"]
    tools = BaseAgent(model, action_format="tools").settings()
    assert tools["action_format"] == "tools" and tools["agent"] == "base-tools"
    # a text call's cache key is what it was before tool calling existed
    import hashlib

    messages = [{"role": "user", "content": "hi"}]
    document = {"v": CACHE_KEY_VERSION, "model": "m", "server": "", "messages": messages,
                "settings": {
        "temperature": 0.0, "top_p": 1.0, "max_tokens": 1024, "seed": None, "stop": []}}
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert cache_key("m", messages, SamplingSettings()) == hashlib.sha256(
        canonical.encode()).hexdigest()
    from escapebench.agents.tool_actions import ACTION_TOOLS

    offered = SamplingSettings(tools=ACTION_TOOLS)
    assert cache_key("m", messages, offered) != cache_key("m", messages, SamplingSettings())
    # a result folder written before the action format existed is a text run
    fingerprint = run_fingerprint(agent="base", agent_settings={}, model="m",
                                  hints=HintOptions(), max_steps=10)
    old = {k: v for k, v in fingerprint.items() if k != "action_format"}
    assert "action_format" in FINGERPRINT_KEYS
    assert compatible(old, fingerprint, []) == []
    tools_run = {**fingerprint, "action_format": "tools"}
    assert compatible(old, tools_run, []) == [
        "action_format: 'text' in the folder, 'tools' now"
    ]


DEEP = "[" * 1000 + "]" * 1000


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        (ToolCall("move", DEEP), "nested too deeply"),  # RecursionError before: exit 1, cached
        (ToolCall("move", '{"scene": ' + DEEP + "}"), "nested too deeply"),
        (ToolCall("click", "[1, 2]"), "not a JSON object"),
        (ToolCall("click", '"door"'), "not a JSON object"),
        (ToolCall("click", "{" * 100_000), "arguments are"),
        (ToolCall("click", '{"item": {"a": [1, 2]}}'), "missing or empty argument(s): item"),
        (ToolCall("", '"move"'), "not a function call"),  # what the client keeps of junk
    ],
    ids=["deep list", "deep value", "list", "string", "unclosed", "object value", "no name"],
)
def test_any_json_in_a_tool_call_is_a_step_the_engine_answers(call: ToolCall, problem: str):
    answer = read_tool_answer((call,))
    assert problem in answer.problem
    result = EscapeGame(load_games(["tutorial"], ["normal"])[0]).step(answer.action)
    assert feedback_text(result.outcome) and not result.success  # a wasted step, said why


def test_deep_arguments_are_refused_under_a_raised_recursion_limit() -> None:
    """A library that raises the recursion limit (OpenEnv's set it to 3000) must not let a
    thousand-level answer through to the engine, nor a 2,500-level one crash it."""
    import sys

    before = sys.getrecursionlimit()
    sys.setrecursionlimit(3000)
    try:
        for depth in (1000, 2500):
            deep = "[" * depth + "]" * depth
            answer = read_tool_answer((ToolCall("move", '{"scene": ' + deep + "}"),))
            assert "nested too deeply" in answer.problem
    finally:
        sys.setrecursionlimit(before)


def test_an_integer_too_long_for_python_is_typed_as_its_digits() -> None:
    code = "4" * 5000
    answer = read_tool_answer((ToolCall("input", '{"text": ' + code + ', "item": "door"}'),))
    assert answer.problem == "" and answer.action == f"input({code}, door)"
