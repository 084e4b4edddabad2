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

from escapebench.bench.runner import RunSettings, run_suite
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
