"""``escapebench replay GAME --trace steps.jsonl`` re-checks a logged trajectory: a step that
does not replay as it was logged (the game file changed, or the log is of another game) is
named with its line, after the steps before it, and the exit status is 1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from escapebench.cli import main as cli_main
from tests.games.shed import write_shed


@pytest.fixture
def step_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The step log of the explorer escaping the shed."""
    game = write_shed(tmp_path)
    out = tmp_path / "run"
    assert cli_main(["run", "--games", str(game), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    (log,) = (out / "episodes").glob("*/steps.jsonl")
    return log


def replay(game: Path, log: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "replay", str(game), "--trace", str(log)],
        capture_output=True, text=True, timeout=30,
    )


def test_a_log_replays_on_its_own_game_without_complaint(tmp_path: Path, step_log: Path) -> None:
    done = replay(tmp_path / "shed.yaml", step_log)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout.splitlines()[-1])["game_end"] is True


def test_a_step_that_replays_differently_is_named_and_the_exit_is_1(
    tmp_path: Path, step_log: Path
) -> None:
    records = [json.loads(line) for line in step_log.read_text().splitlines()]
    opened = next(r for r in records if r["action"] == "input(42, padlocked door)")
    changed = write_shed(tmp_path, '"input, 42"', '"input, 43"', name="changed.yaml")
    done = replay(changed, step_log)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert (f"{step_log}:{opened['step'] + 1}: step {opened['step']} "
            "'input(42, padlocked door)' does not replay as logged") in done.stderr
    assert len(done.stdout.splitlines()) == opened["step"] + 1  # the steps up to that one


def test_an_empty_trace_is_named_not_replayed_silently(tmp_path: Path) -> None:
    empty = tmp_path / "trace.jsonl"
    empty.write_text("\n")
    done = replay(write_shed(tmp_path), empty)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == f"escapebench replay: {empty}: the trace holds no steps"
