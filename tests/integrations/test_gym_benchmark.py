"""benchmarks/gym.py keeps running (its figures are only meaningful on an idle machine)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "gym.py"


def test_gym_benchmark_reports_every_figure():
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCHMARK),
            "--game",
            "tutorial",
            "--steps",
            "64",
            "--runs",
            "1",
            "--envs",
            "2",
            "--episode-steps",
            "10",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert set(figures["steps_per_s"]) == {
        "engine_x1",
        "gym_x1",
        "engine_x2",
        "gym_sync_x2",
        "gym_async_x2",
    }
    assert all(rate > 0 for rate in figures["steps_per_s"].values())
    assert set(figures["overhead"]) == {"gym_x1", "gym_sync_x2", "gym_async_x2"}
    assert figures["setup"]["setting"] == "tutorial"
