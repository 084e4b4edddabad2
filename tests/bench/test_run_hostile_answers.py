"""Hostile model answers are feedback in the game, never a crash or a lost step.

``escapebench run`` with the base and escape agents against the real fake OpenAI server,
whose every answer is one kind of garbage; the reflection and foresight calls get it too.
Each run must finish every step, keep its step log valid JSON Lines, and a rerun with the
same response cache must ask the server nothing.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from escapebench.bench.settings import RunSettings
from escapebench.bench.suite import run_suite
from escapebench.cli import main as cli_main
from escapebench.protocols.escapebench.prompts import REFLECTION_SYSTEM_PROMPT
from tests.support.fake_openai_server import FakeOpenAIServer

STEPS = 6

HOSTILE_ANSWERS = {
    "empty": "",
    "no action": "I think I should look around carefully first.",
    "several actions": "- Action: click(box) click(door) move(To the study)",
    "not on screen": "- Thought: x\n- Action: click(golden unicorn)",
    "huge": "- Thought: " + "A" * 1_000_000,
    "nul bytes": "- Thought: \x00\x00\n- Action: click(\x00door\x00)",
    "lone surrogates": "- Thought: \ud800\n- Action: click(\udfffdoor)",
    "json fence": '```json\n{"action": "click(door)", "operation": "new(x, y)"}\n```',
    "markdown fence": "```\n- Thought: go\n- Actions: apply(knife, box) craft(knife, knife)\n```",
    "brackets": "}}}{{{ [[ Action: ((( ))) Operation: delete( Actions: click(",
    # Unicode digits (str.isdigit() takes them, int() does not) and a number int() refuses
    "superscript digit": "- Thought: x\n- Action: delete(²)",
    "circled digit": "- Thought: x\n- Action: delete(①)",
    "4,301 digits": "- Action: delete(" + "9" * 4301 + ")",
    "empty arguments": "- Action: delete() new() update() new(,) click() apply(,) input(,)",
    # quadratic before: each unclosed call scanned to the end, each comma cut copied the text
    "nested calls": "- Action: " + "click(" * 11_000,
    "a long argument list": "- Action: apply(" + "knife, " * 9_000 + "box)",
    "commas for foresight": "- Actions: input(" + "," * 60_000 + "box) apply(" + "," * 60_000,
}


def run(server: FakeOpenAIServer, out: Path, mini_game_file: Path, agent: str, cache: Path):
    settings = RunSettings(
        agent=agent, model="fake-model", base_urls=[server.base_url],
        games=[str(mini_game_file)], difficulties=["easy"], out=out, max_steps=STEPS,
        patience=2, help_steps=2, cache=cache, quiet=True, max_retries=0,
    )
    return asyncio.run(run_suite(settings))


@pytest.mark.parametrize("agent", ["base", "escape"])
@pytest.mark.parametrize("kind", sorted(HOSTILE_ANSWERS))
def test_a_hostile_answer_is_a_wasted_step_not_a_failure(
    tmp_path: Path, mini_game_file: Path, agent: str, kind: str
) -> None:
    cache = tmp_path / "cache.sqlite"
    with FakeOpenAIServer(answer=HOSTILE_ANSWERS[kind]) as server:
        outcome = run(server, tmp_path / "run", mini_game_file, agent, cache)
        assert outcome.failed == {} and outcome.exit_code == 0
        (log,) = (tmp_path / "run" / "episodes").glob("*/steps.jsonl")
        steps = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        assert [s["step"] for s in steps] == list(range(STEPS))
        asked = server.request_count
        assert asked > 0
        # The same command again, into a new folder: every answer comes from the cache.
        again = run(server, tmp_path / "again", mini_game_file, agent, cache)
        assert again.exit_code == 0 and server.request_count == asked


def _is_reflection(request: dict) -> bool:
    return request["messages"][0]["content"] == REFLECTION_SYSTEM_PROMPT


# An action answer that acts on items (so reflection is asked after it), per step.
ACTIONS = ["click(box)", "move(To the study)", "click(desk)", "move(Back to the hall)"]


@pytest.mark.parametrize(
    "operation", ["delete(²)", "delete(①)", f"delete({'7' * 4301})"], ids=["²", "①", "4301 digits"]
)
def test_an_escape_run_whose_reflection_answers_unicode_digits_exits_0(
    tmp_path: Path, mini_game_file: Path, operation: str, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = {"reflection": 0, "other": 0}

    def answer(request: dict) -> str:
        if _is_reflection(request):
            asked["reflection"] += 1
            return f"- Thought: that task is done.\n- Action: {operation}"
        asked["other"] += 1
        return f"- Thought: try.\n- Action: {ACTIONS[asked['other'] % len(ACTIONS)]}"

    with FakeOpenAIServer(answer=answer) as server:
        code = cli_main([
            "run", "--agent", "escape", "--model", "fake-model", "--base-url", server.base_url,
            "--games", str(mini_game_file), "--difficulty", "easy", "--max-steps", "8",
            "--out", str(tmp_path / "run"), "--no-cache", "--quiet", "--max-retries", "0",
        ])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err and "failed" not in err
    assert asked["reflection"] >= 1  # the operation was read, and it named no task
    (log,) = (tmp_path / "run" / "episodes").glob("*/steps.jsonl")
    steps = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(steps) == 8
    reflections = [r for s in steps for r in (s["agent"] or {}).get("reflection", [])]
    assert reflections, "the step log shows no reflection call"
    for r in reflections:  # read as a delete that names no task: a note, nothing applied
        assert r["operation"].startswith("delete(") or r["operation"] == "none()"
        assert r["applied"] is False


def test_a_huge_answer_is_logged_once(tmp_path: Path, mini_game_file: Path) -> None:
    huge = HOSTILE_ANSWERS["huge"]
    with FakeOpenAIServer(answer=huge) as server:
        outcome = run(server, tmp_path / "run", mini_game_file, "base", tmp_path / "c.sqlite")
    assert outcome.exit_code == 0
    (log,) = (tmp_path / "run" / "episodes").glob("*/steps.jsonl")
    first = log.read_text(encoding="utf-8").splitlines()[0]
    step = json.loads(first)
    assert step["raw_answer"] == huge  # the whole answer, once
    assert len(step["reasoning"]) < 200 and "raw_answer" in step["reasoning"]
    assert len(first) < len(huge) + 20_000  # not a second copy anywhere in the record
