"""benchmarks/engine.py keeps running (its figures are only meaningful on an idle machine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from escapebench.games.yaml_reader import CACHE_ENV
from tests.games.shed import write_shed

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "engine.py"


def test_engine_benchmark_reports_every_figure(tmp_path: Path) -> None:
    game = write_shed(tmp_path)
    proc = subprocess.run(
        [sys.executable, str(BENCHMARK), str(game), "--runs", "1", "--repeat", "2", "--json"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, CACHE_ENV: str(tmp_path / "cache")},
    )
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert figures["settings"] == 1
    assert list((tmp_path / "cache").glob("*.json"))  # the cached load was measured
    assert set(figures["load_ms_per_setting"]) == {"shed"}
    assert figures["steps_per_run"] == 2 * 7  # two replays of the 7-step reference
    for key in ("load_ms_max", "cold_load_ms_max", "reset_us", "replay_steps_per_s",
                "baseline_parse_steps_per_s", "replay_to_baseline"):
        assert figures[key] > 0, key
