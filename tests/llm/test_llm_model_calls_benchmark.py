"""benchmarks/model_calls.py keeps running (its figures are only meaningful on an idle machine)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCHMARK = ROOT / "benchmarks" / "model_calls.py"


def test_model_calls_benchmark_reports_every_figure(tmp_path: Path) -> None:
    # The A/B option: the client module given as a file, here a copy of the current one.
    client = tmp_path / "client.py"
    client.write_text((ROOT / "src/escapebench/llm/openai_client.py").read_text())
    proc = subprocess.run(
        [sys.executable, str(BENCHMARK), "--calls", "12", "--concurrency", "3",
         "--latency", "0.01", "--runs", "1", "--http-backend", "httpx",
         "--client", str(client), "--json"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert figures["calls"] == 12 and figures["concurrency"] == 3
    assert figures["retries"] == 0
    assert figures["wall_s"] >= figures["ideal_wall_s"] == 12 * 0.01 / 3
    for key in ("cpu_s", "cpu_ms_per_call", "speedup_vs_serial", "server_cpu_s"):
        assert figures[key] > 0, key
