"""Ctrl-C or kill in the middle of ``escapebench run`` (a real process, a real SIGINT or
SIGTERM): one clear line, exit 130, no traceback; running the same command again finishes the
run with the same steps as a run that was never interrupted."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.signals import ctrl_c_as_at_a_terminal

# The random agent without hints plays 3000 steps in each of two episodes (about a second):
# long enough to be stopped in the middle, short enough for a fast test.
RUN = [sys.executable, "-m", "escapebench.cli", "run", "--agent", "random", "--games", "lab",
       "--difficulty", "easy", "--difficulty", "normal", "--max-steps", "3000",
       "--patience", "100000", "--concurrency", "2", "--no-fsync"]


def steps_without_times(folder: Path) -> dict[str, list[dict]]:
    """Every episode's step records, without the wall-clock fields."""
    out = {}
    for episode in sorted((folder / "episodes").iterdir()):
        lines = (episode / "steps.jsonl").read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines]
        out[episode.name] = [{k: v for k, v in r.items() if k != "wall_s"} for r in records]
    return out


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "kill"])
def test_ctrl_c_stops_cleanly_and_the_same_command_resumes_identically(
    tmp_path: Path, stop: signal.Signals
) -> None:
    interrupted, clean = tmp_path / "interrupted", tmp_path / "clean"
    process = subprocess.Popen(
        [*RUN, "--out", str(interrupted)], stderr=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True, preexec_fn=ctrl_c_as_at_a_terminal,
    )
    assert process.stderr is not None
    first = process.stderr.readline()  # "start  <episode>": the run is playing
    assert first.startswith("start"), first
    time.sleep(0.2)
    process.send_signal(stop)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "never retrieved" not in err
    assert "run the same command again to resume" in err
    unfinished = [e for e in (interrupted / "episodes").iterdir()
                  if not (e / "result.json").exists()]
    assert unfinished, "the run finished before the interrupt; the test proves nothing"

    resumed = subprocess.run([*RUN, "--out", str(interrupted), "--quiet"], capture_output=True,
                             text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    subprocess.run([*RUN, "--out", str(clean), "--quiet"], check=True, capture_output=True,
                   timeout=60)
    assert steps_without_times(interrupted) == steps_without_times(clean)
