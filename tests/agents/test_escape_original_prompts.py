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
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED, UPSTREAM
from tests.support.original_harness import (
    TOOLS,
    ScriptedServer,
    make_checkout,
    recordings_present,
    subprocess_env,
)

RECORDINGS = UPSTREAM / "prompts" / "creative"

pytestmark = pytest.mark.skipif(
    not recordings_present("creative"),
    reason=f"original harness recordings not present at {SHARED}",
)


def _run(tmp: Path, games: str, name: str, *flags: str) -> tuple[Path, list[str]]:
    """Play ``games`` with the escape agent under the original protocol; returns the run
    folder and the server's log lines."""
    log = tmp / f"{name}.jsonl"
    server = ScriptedServer(log)
    out = tmp / name
    try:
        done = subprocess.run(
            [sys.executable, "-m", "escapebench.cli", "run", "--agent", "escape", *flags,
             "--protocol", "original", "--model", "scripted", "--base-url", server.url,
             "--games", games, "--max-steps", "150", "--concurrency", "1",
             "--no-cache", "--no-fsync", "--quiet", "--out", str(out)],
            env=subprocess_env(), capture_output=True, text=True, timeout=1500,
        )  # fmt: skip
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    return out, log.read_text(encoding="utf-8").splitlines()


def _steps(out: Path, episode: str) -> list[dict[str, Any]]:
    path = out / "episodes" / episode / "steps.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _recording(setting: str) -> dict[str, Any]:
    with gzip.open(RECORDINGS / f"{setting}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def test_every_recorded_setting_gets_the_original_escape_agent_messages(tmp_path: Path) -> None:
    root = make_checkout(tmp_path)
    settings = sorted(p.name[: -len(".json.gz")] for p in RECORDINGS.glob("*.json.gz"))
    games = sorted(p.stem for p in (root / "data").glob("*.yaml"))
    assert set(settings) <= set(games)
    out, lines = _run(tmp_path, str(root / "data"), "run")
    run = json.loads((out / "run.json").read_text())
    assert run["protocol"]["name"] == "original"
    parts: dict[str, list[str]] = {}
    at = 0
    for setting in sorted(games, key=lambda s: f"{s}__escape__scripted__r0"):
        steps = _steps(out, f"{setting}__escape__scripted__r0")
        calls = sum(len(r["calls"]) for r in steps)
        parts[setting] = lines[at : at + calls]
        at += calls
        # every step says its mode, task list, proposals and calls by kind
        assert all({"original_mode", "task_list", "proposals", "prompt_kinds"} <= set(r["agent"])
                   for r in steps)  # fmt: skip
    assert at == len(lines)
    identical = []
    for setting in settings:
        part = tmp_path / f"{setting}.jsonl"
        part.write_text("".join(line + "\n" for line in parts[setting]), encoding="utf-8")
        compare = subprocess.run(
            [sys.executable, str(TOOLS / "compare_prompts.py"),
             str(RECORDINGS / f"{setting}.json.gz"), str(part)],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        if compare.returncode == 0:
            identical.append(setting)
        else:
            print(f"--- {setting}\n{compare.stdout[-3000:]}")
    assert identical == settings
    # The steps played are the recorded ones: the same actions in the same positions.
    for setting in settings:
        steps = _steps(out, f"{setting}__escape__scripted__r0")
        recorded = _recording(setting)["steps"]
        assert [(r["position"], r["action"]) for r in steps] == [
            (r["position"], r["action_answer"]) for r in recorded
        ], setting


def _kinds(out: Path, episode: str) -> Counter[str]:
    return Counter(k for r in _steps(out, episode) for k in r["agent"]["prompt_kinds"])


def test_ablations_take_away_exactly_their_calls(tmp_path: Path) -> None:
    """Without foresight: no foresight call and no trial (Try Action never starts); without
    reflection: no reflection call, so no task and no task foresight (tool foresight stays, its
    task list empty). The action and reflection calls that remain are the original's texts."""
    root = make_checkout(tmp_path)
    game = str(root / "data" / "game1-1.yaml")
    full, _ = _run(tmp_path, game, "full")
    no_foresight, nf_lines = _run(tmp_path, game, "nf", "--no-foresight")
    no_reflection, nr_lines = _run(tmp_path, game, "nr", "--no-reflection")
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
