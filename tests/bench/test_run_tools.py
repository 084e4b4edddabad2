"""``escapebench run --action-format tools``: native function calls, end to end against a real
OpenAI-compatible HTTP server on 127.0.0.1 that answers with tool calls."""

from __future__ import annotations

import asyncio
import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from escapebench.agents.tool_actions import ACTION_TOOLS, read_tool_answer
from escapebench.bench.result_tables import short_count
from escapebench.bench.settings import RunSettings
from escapebench.bench.suite import run_suite
from escapebench.exit_codes import EXIT_USAGE
from escapebench.llm.base import ToolCall
from tests.support.fake_openai_server import FakeOpenAIServer, tool_call_answer
from tests.support.tool_calls import reference_calls

BROKEN: list[dict[str, Any] | str] = [
    "I should look around first.",  # text, no function call
    tool_call_answer("apply", '{"tool": "battery", "item": ', content="Let me try."),  # not JSON
    tool_call_answer("apply", {"tool": "battery"}),  # a missing argument
    tool_call_answer("open", {"item": "door"}),  # no such function
]


def tutorial_answers() -> list[dict[str, Any] | str]:
    """Four broken answers, then the tutorial's reference solution as function calls."""
    solution = [
        tool_call_answer(name, args, content=f"The next step is {name}.")
        for name, args in reference_calls("tutorial")
    ]
    return [*BROKEN, *solution]


def settings(out: Path, server: FakeOpenAIServer, **kw: Any) -> RunSettings:
    base = dict(agent="base", model="fake-model", base_urls=[server.base_url],
                games=["tutorial"], difficulties=["normal"], out=out, action_format="tools",
                cache=out.parent / "cache.sqlite", quiet=True, fsync=False)
    base.update(kw)
    return RunSettings(**base)


def steps(out: Path) -> list[dict[str, Any]]:
    [log] = (out / "episodes").glob("*/steps.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.slow
def test_tools_format_plays_the_tutorial_to_the_end(tmp_path: Path) -> None:
    with FakeOpenAIServer(answer=tutorial_answers()) as server:
        outcome = asyncio.run(run_suite(settings(tmp_path / "run", server)))
        requests = list(server.requests)
    assert outcome.exit_code == 0
    [summary] = [s for s in outcome.summaries if s.difficulty == "all"]
    assert summary.escaped == 1 and summary.total_steps == len(BROKEN) + 9
    # the five functions, with their JSON schemas, were offered with every action call
    for request in requests:
        names = [t["function"]["name"] for t in request["tools"]]
        assert names == ["move", "click", "apply", "input", "craft"]
        apply_schema = request["tools"][2]["function"]["parameters"]
        assert apply_schema["required"] == ["tool", "item"]
        assert "Answer in this format" not in request["messages"][-1]["content"]
        assert "calling one of the functions" in request["messages"][-1]["content"]
    records = steps(tmp_path / "run")
    # every broken answer is a counted, logged step with the engine's feedback
    for record in records[: len(BROKEN)]:
        assert record["error"] and "Could not read an action" in record["feedback"] or (
            "Wrong number of arguments for apply" in record["feedback"]
        )
    assert records[0]["agent"]["tool_call_problem"] == "no function call"
    assert records[0]["reasoning"] == "I should look around first."
    assert records[1]["agent"]["tool_call_problem"] == "arguments are not JSON"
    assert records[1]["reasoning"] == "Let me try."  # the reasoning text is kept
    assert records[2]["agent"]["tool_call_problem"] == "missing or empty argument(s): item"
    assert records[3]["agent"]["tool_call_problem"] == "unknown function 'open'"
    assert records[-1]["game_end"] and records[-1]["action"] == "click(door)"
    assert records[4]["agent"]["tool_call"] == {
        "name": "click", "arguments": '{"item": "desk drawer"}'
    }
    # the mode is recorded in run.json and in every result row, and labels the agent
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["action_format"] == "tools"
    assert run["agent"] == "base-tools" and run["agent_settings"]["action_format"] == "tools"
    with open(tmp_path / "run" / "results.csv", newline="") as f:
        [row] = list(csv.DictReader(f))
    assert row["action_format"] == "tools" and row["agent"] == "base-tools"


@pytest.mark.slow
def test_tool_answers_are_cached_and_the_key_includes_the_tools(tmp_path: Path) -> None:
    with FakeOpenAIServer(answer=tutorial_answers()) as server:
        first = asyncio.run(run_suite(settings(tmp_path / "a", server)))
        asked = server.request_count
        again = asyncio.run(run_suite(settings(tmp_path / "b", server)))
        assert server.request_count == asked  # every answer, tool calls included, replayed
        text = asyncio.run(run_suite(settings(
            tmp_path / "c", server, action_format="text", max_steps=3,
        )))
        # the same game in the text format asks again: different tools (none), other prompts
        assert server.request_count == asked + 3
    assert not any(c["cached"] for r in steps(tmp_path / "a") for c in r["calls"])
    assert all(c["cached"] for r in steps(tmp_path / "b") for c in r["calls"])
    played_a = [(r["action"], r["feedback"]) for r in steps(tmp_path / "a")]
    played_b = [(r["action"], r["feedback"]) for r in steps(tmp_path / "b")]
    assert played_a == played_b and first.summaries[0].escaped == again.summaries[0].escaped
    assert text.exit_code == 0


def test_cli_option_and_its_errors(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "escapebench.cli", "run", *args, "--out", str(tmp_path)],
            capture_output=True, text=True, timeout=120,
        )

    done = run("--agent", "explorer", "--action-format", "tools", "--games", "tutorial")
    assert done.returncode == EXIT_USAGE
    assert "--action-format tools is for the model agents" in done.stderr
    assert "invalid choice" in run("--action-format", "json").stderr


def test_reading_function_calls() -> None:
    def call(name: str, arguments: str) -> tuple[ToolCall, ...]:
        return (ToolCall(name, arguments),)

    assert read_tool_answer(call("apply", '{"tool": "key", "item": "door"}')).action == (
        "apply(key, door)"
    )
    # a number typed as a number is the string of its digits
    assert read_tool_answer(call("input", '{"text": 427, "item": "door"}')).action == (
        "input(427, door)"
    )
    two = (ToolCall("click", '{"item": "a"}'), ToolCall("click", '{"item": "b"}'))
    answer = read_tool_answer(two)
    assert answer.action == "click(a)" and answer.ignored_calls == 1 and not answer.problem
    for name, arguments, problem in [
        ("click", "[1, 2]", "arguments are not a JSON object"),
        ("click", '{"item": ""}', "missing or empty argument(s): item"),
        ("click", '{"item": {"name": "door"}}', "missing or empty argument(s): item"),
        ("Jump", "{}", "unknown function 'Jump'"),
    ]:
        assert read_tool_answer(call(name, arguments)).problem == problem
    assert [t.name for t in ACTION_TOOLS] == ["move", "click", "apply", "input", "craft"]


@pytest.mark.slow
def test_cli_plays_with_tools_and_prints_model_usage(tmp_path: Path) -> None:
    with FakeOpenAIServer(answer=tutorial_answers()) as server:
        done = subprocess.run(
            [sys.executable, "-m", "escapebench.cli", "run", "--agent", "base", "--model",
             "fake-model", "--base-url", server.base_url, "--action-format", "tools",
             "--games", "tutorial", "--difficulty", "normal", "--no-cache", "--out",
             str(tmp_path / "run")],
            capture_output=True, text=True, timeout=120,
        )
        asked = server.request_count
    assert done.returncode == 0, done.stderr
    assert "base-tools" in done.stdout and "1/1" in done.stdout  # escaped, own label
    # calls and tokens, per episode (the live display) and in total (after the table)
    with open(tmp_path / "run" / "results.csv", newline="") as f:
        [row] = list(csv.DictReader(f))
    assert int(row["model_calls"]) == asked == 13
    tokens_in, tokens_out = (short_count(int(row[k])) for k in ("tokens_in", "tokens_out"))
    tokens = f"{tokens_in} in / 0 cached / {tokens_out} out"  # the fake server caches nothing
    assert f"{asked} model calls, tokens {tokens}" in done.stderr
    usage = [line for line in done.stdout.splitlines() if line.startswith("model usage")]
    assert usage == [
        f"model usage, base-tools / fake-model: {asked} calls, tokens {tokens} in 1 episode; "
        f"per episode {asked} calls, {tokens}"
    ]


def test_tools_format_under_the_original_protocol(tmp_path: Path) -> None:
    """Function calls work under the original harness's texts too: its prompt with the
    functions offered, its parser's reading of the call, its feedback; labelled apart."""
    from escapebench.games.loading import load_games
    from tests.conftest import UPSTREAM
    from tests.support.original_harness import make_checkout
    from tests.support.tool_calls import as_function_call

    if not (UPSTREAM / "original" / "src").is_dir():
        pytest.skip("needs ../shared/upstream (the original code and data)")
    game = str(make_checkout(tmp_path) / "data" / "game1-1.yaml")
    [defn] = load_games([game], ["normal"])
    first = defn.reference[0]
    assert first.scene == defn.scenes[0].name  # played where the game starts
    answers = [tool_call_answer(*as_function_call(first.action)), "no call at all"]
    with FakeOpenAIServer(answer=answers) as server:
        outcome = asyncio.run(run_suite(settings(
            tmp_path / "run", server, games=[game], protocol="original", max_steps=3,
        )))
        requests = list(server.requests)
    assert outcome.exit_code == 0
    assert all(r["tools"] for r in requests)
    records = steps(tmp_path / "run")
    assert records[0]["success"] and records[0]["action"] == first.action
    assert records[0]["outcome"] in ("triggered", "collected")
    assert records[1]["error"] and records[1]["agent"]["tool_call_problem"] == "no function call"
    assert "Could not read an action" not in records[1]["feedback"]  # the original's words
    [summary] = [s for s in outcome.summaries if s.difficulty == "all"]
    assert summary.coverage is not None and summary.coverage.protocol == "original"
    assert summary.agent == "base-tools" and summary.coverage.action_format == "tools"
