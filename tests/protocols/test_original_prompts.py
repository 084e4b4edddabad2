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
from pathlib import Path

import pytest

from tests.conftest import SHARED, UPSTREAM
from tests.support.original_harness import (
    make_checkout,
    matches_recording,
    play_original,
    recordings_present,
    requests_per_setting,
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
    out, lines = play_original(tmp_path, "base", str(root / "data"), timeout=1200)
    run = json.loads((out / "run.json").read_text())
    assert run["protocol"]["name"] == "original"
    assert set(run["protocol"]["files"]) >= {"instruction.py", "agent_base.py", "env/item.py"}
    assert all(len(sha) == 64 for sha in run["protocol"]["files"].values())
    # Cut the log into one part per episode: episodes ran in id order, one at a time.
    parts = requests_per_setting(out, lines, games, "base")
    assert sum(len(p) for p in parts.values()) == len(lines)
    identical = []
    for setting in settings:
        same = matches_recording(RECORDINGS / f"{setting}.json.gz", parts[setting],
                                 tmp_path / f"{setting}.jsonl")
        if same:
            identical.append(setting)
        assert len(parts[setting]) == recorded_calls(setting) or not same
    assert identical == settings
