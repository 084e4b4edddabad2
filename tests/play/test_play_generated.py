"""``escapebench play gen:tier=T,count=N,seed=S``: a generated game played in the terminal (a
subprocess, typed on stdin) by names as a person types them, quit and continued with
``--load``, to the end; the result folder records the spec, generator version and hash."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from escapebench.catalog import load_games
from escapebench.generate import GENERATOR_VERSION, generate_games
from tests.support.reference_walk import typed_reference

ROOT = Path(__file__).resolve().parents[2]
GEN = "gen:tier=2,count=1,seed=41"
SETTING = "gen-t2-s41-000"


def play(*args: str, typed: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "play", GEN, *args],
        input="\n".join(typed) + "\n", capture_output=True, text=True, cwd=cwd, timeout=300,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )


def test_a_generated_game_is_played_quit_continued_and_recorded(tmp_path: Path) -> None:
    defn = next(d for d in load_games([GEN]) if d.difficulty == "normal")
    typed = [f"move({w})" if k == "move" else w for k, w in typed_reference(defn)]
    half = len(typed) // 2
    out = tmp_path / "results"
    first = play("--out", str(out), "--player", "kim", typed=[*typed[:half], "quit"],
                 cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert f"You are in: {defn.start_scene}" in first.stdout
    assert f"Continue with: escapebench play {GEN} --load {SETTING}.save.json" in first.stdout
    assert not (out / "episodes").exists()  # no result for a game that has not ended
    second = play("--out", str(out), "--load", f"{SETTING}.save.json", typed=typed[half:],
                  cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert f"Continuing {SETTING}.save.json at step {half} (player kim)" in second.stdout
    assert f"Escaped after {len(typed)} steps with 0 hints; progress 100%" in second.stdout
    result = json.loads((out / "episodes" / f"{SETTING}__human__none__r0" / "result.json")
                        .read_text(encoding="utf-8"))
    assert result["escaped"] and result["player"] == "kim"
    assert result["total_steps"] == len(typed)
    [rec] = json.loads((out / "run.json").read_text(encoding="utf-8"))["games"]
    assert rec["setting"] == SETTING
    assert rec["generated"] == {"spec": GEN, "generator_version": GENERATOR_VERSION}
    assert rec["sha256"] == generate_games(2, 1, 41)[0].sha256


def test_a_hint_names_a_crafted_tool_as_the_bag_shows_it(tmp_path: Path) -> None:
    # the reference applies a crafted tool by its first name ("apply(string, ...)"); the hint
    # a person asks for names it as the bag does ("magnet on a string")
    [game] = generate_games(2, 1, 41)
    _part, tool, result, item = game.design.crafts[0]
    defn = next(d for d in load_games([GEN]) if d.difficulty == "normal")
    typed = typed_reference(defn)
    upto = typed.index(("act", f"apply({tool}, {item})"))
    words = [f"move({w})" if k == "move" else w for k, w in typed[:upto]]
    done = play("--out", str(tmp_path / "results"), typed=[*words, "hint", "quit"],
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"do: apply({result}, {item})" in done.stdout
    assert f"do: apply({tool}, {item})" not in done.stdout
