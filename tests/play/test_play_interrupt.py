"""Terminal play stopped by Ctrl-C, a closed terminal or ``kill -9`` (real processes, real
signals): the steps played are in the save, and ``--load`` continues from them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from escapebench.games.loading import load_games

TUTORIAL = next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")
FIRST_TWO = [ref.action for ref in TUTORIAL.reference[:2]]


def start_play(folder: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "escapebench.cli", "play", "tutorial", "--out",
         str(folder / "results"), *extra],
        cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )


def play_two_steps(process: subprocess.Popen[str]) -> None:
    """Type the first two reference actions, then 'look', and wait for the look's screen:
    by then the game has finished handling the two steps."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("\n".join([*FIRST_TWO, "look"]) + "\n")
    process.stdin.flush()
    seen = 0
    while seen < 2:  # step 2's screen after the second action, then the look
        line = process.stdout.readline()
        if not line:
            pytest.fail("the game ended its output before the look")
        seen += line.startswith("> --- step 2 ") or line.startswith("--- step 2 ")


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGHUP, signal.SIGKILL],
                         ids=["ctrl-c", "terminal-closed", "kill-9"])
def test_a_stopped_play_keeps_its_steps_and_load_continues(tmp_path: Path, stop: int) -> None:
    process = start_play(tmp_path)
    play_two_steps(process)
    process.send_signal(stop)
    process.wait(timeout=20)
    assert process.stdout is not None and process.stderr is not None
    said, err = process.stdout.read(), process.stderr.read()
    assert "Traceback" not in err
    if stop != signal.SIGKILL:
        assert process.returncode == 130, err  # stopped, as by Ctrl-C
        assert "Continue with: escapebench play tutorial --load tutorial.save.json" in said
    save = tmp_path / "tutorial.save.json"
    assert json.loads(save.read_text(encoding="utf-8"))["step"] == 2

    loaded = start_play(tmp_path, "--load", "tutorial.save.json")
    rest = [ref.action for ref in TUTORIAL.reference[2:]]
    out, err = loaded.communicate("\n".join(rest) + "\n", timeout=20)
    assert loaded.returncode == 0, err
    assert "Continuing tutorial.save.json at step 2" in out
    assert "Escaped after" in out
    assert os.listdir(tmp_path / "results" / "episodes")  # the result is written


def test_a_game_played_to_its_end_without_save_leaves_no_save_behind(tmp_path: Path) -> None:
    process = start_play(tmp_path)
    out, err = process.communicate(
        "\n".join(ref.action for ref in TUTORIAL.reference) + "\n", timeout=20
    )
    assert process.returncode == 0, err
    assert "Escaped after" in out
    assert not (tmp_path / "tutorial.save.json").exists()
    assert not list(tmp_path.glob("*.tmp"))
