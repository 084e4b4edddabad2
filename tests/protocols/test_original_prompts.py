"""The acceptance test of the original protocol: escapebench sends, message for message, what
the original harness sends.

For every setting recorded in ../shared/upstream/prompts/base, ``escapebench run --agent base
--protocol original --model scripted --base-url <fake_openai_scripted> --games <setting>
--max-steps 150 --concurrency 1 --no-cache`` against the shared scripted server must make
``compare_prompts.py`` exit 0 (every system and user text byte-identical, the same number of
calls). The games come from a checkout laid out as the user has it (CHECKOUT/src and
CHECKOUT/data, here symlinks into ../shared/upstream), so the texts are read from the original
code at run time, as a user's run reads them.

One ``run`` over the checkout's data folder plays all settings (episodes in id order, one at a
time), against one server; its log is cut into one log per setting by the recorded call counts
and each part is compared.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SHARED, UPSTREAM
from tests.support.original_harness import (
    TOOLS,
    ScriptedServer,
    make_checkout,
    recordings_present,
    subprocess_env,
)

RECORDINGS = UPSTREAM / "prompts" / "base"

pytestmark = pytest.mark.skipif(
    not recordings_present("base"),
    reason=f"original harness recordings not present at {SHARED}",
)


def recorded_calls(setting: str) -> int:
    with gzip.open(RECORDINGS / f"{setting}.json.gz", "rt", encoding="utf-8") as f:
        return len(json.load(f)["calls"])


def test_every_recorded_setting_gets_the_original_harness_messages(tmp_path: Path) -> None:
    root = make_checkout(tmp_path)
    settings = sorted(p.name[: -len(".json.gz")] for p in RECORDINGS.glob("*.json.gz"))
    games = sorted(p.stem for p in (root / "data").glob("*.yaml"))
    assert set(settings) <= set(games)
    log = tmp_path / "requests.jsonl"
    server = ScriptedServer(log)
    try:
        out = tmp_path / "run"
        done = subprocess.run(
            [sys.executable, "-m", "escapebench.cli", "run", "--agent", "base",
             "--protocol", "original", "--model", "scripted", "--base-url", server.url,
             "--games", str(root / "data"), "--max-steps", "150", "--concurrency", "1",
             "--no-cache", "--no-fsync", "--quiet", "--out", str(out)],
            env=subprocess_env(), capture_output=True, text=True, timeout=1200,
        )
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    run = json.loads((out / "run.json").read_text())
    assert run["protocol"]["name"] == "original"
    assert set(run["protocol"]["files"]) >= {"instruction.py", "agent_base.py", "env/item.py"}
    assert all(len(sha) == 64 for sha in run["protocol"]["files"].values())
    # Cut the log into one part per episode: episodes ran in id order, one at a time.
    lines = log.read_text(encoding="utf-8").splitlines()
    order = sorted(games, key=lambda s: f"{s}__base__scripted__r0")
    parts: dict[str, list[str]] = {}
    at = 0
    for setting in order:
        steps = (out / "episodes" / f"{setting}__base__scripted__r0" / "steps.jsonl")
        calls = sum(len(json.loads(r)["calls"]) for r in steps.read_text().splitlines())
        parts[setting] = lines[at : at + calls]
        at += calls
    assert at == len(lines)
    identical = []
    for setting in settings:
        part = tmp_path / f"{setting}.jsonl"
        part.write_text("".join(line + "\n" for line in parts[setting]), encoding="utf-8")
        compare = subprocess.run(
            [sys.executable, str(TOOLS / "compare_prompts.py"),
             str(RECORDINGS / f"{setting}.json.gz"), str(part)],
            capture_output=True, text=True, timeout=300,
        )
        if compare.returncode == 0:
            identical.append(setting)
        else:
            print(f"--- {setting}\n{compare.stdout[-3000:]}")
        assert len(parts[setting]) == recorded_calls(setting) or compare.returncode != 0
    assert identical == settings
