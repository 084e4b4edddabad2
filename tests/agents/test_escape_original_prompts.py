"""The acceptance test of the original EscapeAgent: the calls behind Table 5, message for message.

For every setting recorded in ../shared/upstream/prompts/creative, ``escapebench run --agent
escape --protocol original --model scripted --base-url <fake_openai_scripted> --games <setting>
--max-steps 150 --concurrency 1 --no-cache`` against the shared scripted server must make
``compare_prompts.py`` exit 0: every system and user text byte-identical, in the same order,
the same number of calls (foresight, action and trial, reflection). The games come from a
checkout laid out as a user has it (CHECKOUT/src and CHECKOUT/data, symlinks into
../shared/upstream), so every text is read from the original code at run time.

One ``run`` over the checkout's data folder plays all settings one at a time; its server log is
cut into one part per episode by the calls each episode's steps.jsonl records.

The ablations (``--no-reflection``, ``--no-foresight``; the original has no flags for them) are
played on game1-1 and their calls counted by kind.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED, UPSTREAM
from tests.support.original_harness import (
    episode_steps,
    make_checkout,
    matches_recording,
    play_original,
    recordings_present,
    requests_per_setting,
)

RECORDINGS = UPSTREAM / "prompts" / "creative"

pytestmark = pytest.mark.skipif(
    not recordings_present("creative"),
    reason=f"original harness recordings not present at {SHARED}",
)


def _recording(setting: str) -> dict[str, Any]:
    with gzip.open(RECORDINGS / f"{setting}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def test_every_recorded_setting_gets_the_original_escape_agent_messages(tmp_path: Path) -> None:
    root = make_checkout(tmp_path)
    settings = sorted(p.name[: -len(".json.gz")] for p in RECORDINGS.glob("*.json.gz"))
    games = sorted(p.stem for p in (root / "data").glob("*.yaml"))
    assert set(settings) <= set(games)
    out, lines = play_original(tmp_path, "escape", str(root / "data"))
    run = json.loads((out / "run.json").read_text())
    assert run["protocol"]["name"] == "original"
    assert (run["agent"], run["agent_played"]) == ("escape", "escape-original")
    parts = requests_per_setting(out, lines, games, "escape")
    assert sum(len(p) for p in parts.values()) == len(lines)
    for setting in games:
        # every step says its mode, task list, proposals and calls by kind
        steps = episode_steps(out, f"{setting}__escape__scripted__r0")
        assert all({"original_mode", "task_list", "proposals", "prompt_kinds"} <= set(r["agent"])
                   for r in steps)  # fmt: skip
    identical = [
        setting for setting in settings
        if matches_recording(RECORDINGS / f"{setting}.json.gz", parts[setting],
                             tmp_path / f"{setting}.jsonl")
    ]  # fmt: skip
    assert identical == settings
    # The steps played are the recorded ones: the same actions in the same positions.
    for setting in settings:
        steps = episode_steps(out, f"{setting}__escape__scripted__r0")
        recorded = _recording(setting)["steps"]
        assert [(r["position"], r["action"]) for r in steps] == [
            (r["position"], r["action_answer"]) for r in recorded
        ], setting


def _kinds(out: Path, episode: str) -> Counter[str]:
    return Counter(k for r in episode_steps(out, episode) for k in r["agent"]["prompt_kinds"])


def test_ablations_take_away_exactly_their_calls(tmp_path: Path) -> None:
    """Without foresight: no foresight call and no trial (Try Action never starts); without
    reflection: no reflection call, so no task and no task foresight (tool foresight stays, its
    task list empty). The action and reflection calls that remain are the original's texts."""
    root = make_checkout(tmp_path)
    game = str(root / "data" / "game1-1.yaml")
    full, _ = play_original(tmp_path, "escape", game, name="full")
    no_foresight, nf_lines = play_original(tmp_path, "escape", game, "--no-foresight", name="nf")
    no_reflection, nr_lines = play_original(tmp_path, "escape", game, "--no-reflection",
                                            name="nr")
    k_full = _kinds(full, "game1-1__escape__scripted__r0")
    k_nf = _kinds(no_foresight, "game1-1__escape-no-foresight__scripted__r0")
    k_nr = _kinds(no_reflection, "game1-1__escape-no-reflection__scripted__r0")
    assert dict(k_full) == {"action": 134, "trial": 16, "reflection": 22, "foresight_task": 14,
                            "foresight_tool": 3}  # fmt: skip
    assert k_nf["foresight_task"] == k_nf["foresight_tool"] == k_nf["trial"] == 0
    assert k_nf["action"] == 150 and k_nf["reflection"] > 0
    assert k_nr["reflection"] == k_nr["foresight_task"] == 0
    assert k_nr["action"] + k_nr["trial"] == 150
    # Each ablation's calls are texts of the original agent: the system prompts of the kinds
    # it still makes are the recording's.
    systems = {c["kind"]: c["system"] for c in _recording("game1-1")["calls"]}
    for lines, kept in (
        (nf_lines, {"action", "reflection"}),
        (nr_lines, {"action", "foresight_tool"}),
    ):
        seen = {json.loads(line)["messages"][0]["content"] for line in lines}
        assert seen <= {systems[k] for k in kept}
