"""``kill`` stops ``escapebench run`` also where Ctrl-C is ignored: a run started in the
background by a shell script (bash ignores SIGINT in such jobs) or by a process manager.

SIGTERM was turned into a SIGINT, which such a process ignores: the kill was swallowed and the
run went on to its end (seen with a local model that played all its steps after the kill)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

RUN = [sys.executable, "-m", "escapebench.cli", "run", "--agent", "random", "--games", "lab",
       "--difficulty", "easy", "--difficulty", "normal", "--max-steps", "100000",
       "--patience", "1000000", "--concurrency", "2", "--no-fsync"]


def _ignore_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_kill_stops_a_run_that_ignores_ctrl_c(tmp_path: Path) -> None:
    out = tmp_path / "run"
    process = subprocess.Popen(
        [*RUN, "--out", str(out)], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        preexec_fn=_ignore_ctrl_c,
    )
    assert process.stderr is not None
    first = process.stderr.readline()  # "start  <episode>": the run is playing
    assert first.startswith("start"), first
    time.sleep(0.3)
    process.send_signal(signal.SIGTERM)
    try:
        _out, err = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert "run the same command again to resume" in err
    assert not list((out / "episodes").glob("*/result.json"))  # stopped, not finished
