"""The hint mechanics of the original harness, the same under both protocols: a BaseAgent whose
model never acts gets, on game1-3-hard, 38 hints and escapes at step 2281, as in the original
(help after 50 steps without progress, its 10th step played for the agent: 61 steps for the
first hint, 60 for each next)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from escapebench.agents.base_agent import BaseAgent
from escapebench.bench.episode import EpisodeSpec, play_episode
from escapebench.games.loading import load_file
from escapebench.llm.scripted import ScriptedChatModel
from escapebench.protocols import make_protocol


def history_steps(prompt: str, protocol: str) -> int:
    """How many steps of history an action prompt of ``protocol`` shows."""
    if protocol == "original":
        return prompt.count("History: [Step")
    return len(re.findall(r"^Step \d+ at ", prompt, re.MULTILINE))


@pytest.fixture()
def checkout(upstream_dir: Path, tmp_path: Path) -> Path:
    root = tmp_path / "EscapeBench"
    root.mkdir()
    (root / "src").symlink_to(upstream_dir / "original" / "src")
    (root / "data").symlink_to(upstream_dir / "data")
    return root


@pytest.mark.parametrize("protocol", ["original", "escapebench"])
async def test_a_model_that_never_acts_gets_38_hints_in_2281_steps_on_game1_3_hard(
    checkout: Path, tmp_path: Path, protocol: str
) -> None:
    game_file = checkout / "data" / "game1-3-hard.yaml"
    (defn,) = load_file(game_file)
    idle = ScriptedChatModel(["I will just wait here."], cycle=True)
    proto = make_protocol(protocol, [str(game_file)])
    spec = EpisodeSpec("ep", defn, "base", "idle", protocol=proto.label)
    folder = tmp_path / protocol
    result = await play_episode(spec, BaseAgent(idle), folder, fsync=False, protocol=proto)
    assert result.escaped and result.hints_used == 38 and result.total_steps == 2281
    assert result.forced_steps == 38 and result.model_calls == 2281 - 38
    assert result.hint_steps == [51 + 60 * k for k in range(38)]
    assert (result.protocol, result.protocol_version) == (proto.name, proto.version)
    records = [json.loads(line) for line in (folder / "steps.jsonl").open()]
    # Outside help the prompt shows the last 10 steps; in help (from step 51: call 51, no
    # forced step before it) the hint and no history.
    prompts = [call[-1]["content"] for call in idle.history]
    # (the escapebench window slides in blocks of 10 steps: at step 50 it has just moved)
    assert history_steps(prompts[50], protocol) == 10
    if protocol == "escapebench":
        assert history_steps(prompts[49], protocol) == 19
    assert records[51]["hint"]["steps_in_help"] == 0 and records[51]["mode"] == "help"
    assert history_steps(prompts[51], protocol) == 0
    assert records[51]["hint"]["action"] in prompts[51]
    assert records[60]["hint"]["forced"] and records[60]["calls"] == []
