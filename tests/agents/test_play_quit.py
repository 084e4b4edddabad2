"""Quitting terminal play keeps the game to continue, as the browser does, and writes no result;
a result is written when the game ends."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from escapebench.agents import command_play
from escapebench.agents.human import PlayError, PlaySession
from escapebench.games.loading import load_games


def play(args: list[str], typed: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    command_play.add_arguments(parser)
    out = io.StringIO()
    code = command_play.run_play(parser.parse_args(args), io.StringIO(typed), out)
    return code, out.getvalue()


def test_quit_saves_the_game_writes_no_result_and_load_finishes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    defn = next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")
    results = tmp_path / "results"
    first = [ref.action for ref in defn.reference[:2]]
    code, text = play(["tutorial", "--out", str(results)], "\n".join([*first, "quit"]) + "\n")
    assert code == 0
    save = Path("tutorial.save.json")
    assert save.is_file()
    assert "Saved at step 2 to tutorial.save.json" in text
    assert "escapebench play tutorial --load tutorial.save.json" in text
    assert not (results / "episodes").exists()  # nothing for the report to pool

    # Starting again without --load points at the save; quitting at once keeps it as it was.
    code, text = play(["tutorial", "--out", str(results)], "quit\n")
    assert "A saved game is in tutorial.save.json" in text
    assert json.loads(save.read_text())["step"] == 2

    rest = [ref.action for ref in defn.reference[2:]]
    code, text = play(["tutorial", "--out", str(results), "--load", str(save)],
                      "\n".join(rest) + "\n")
    assert code == 0 and "Continuing tutorial.save.json at step 2" in text
    result = json.loads(
        (results / "episodes" / "tutorial__human__none__r0" / "result.json").read_text()
    )
    assert result["escaped"] and result["ended_by"] == "escaped"
    assert result["total_steps"] == len(defn.reference)


def test_an_unfinished_game_is_not_written_as_a_result(tmp_path: Path) -> None:
    defn = next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")
    session = PlaySession(defn)
    session.act(defn.reference[0].action)
    with pytest.raises(PlayError, match="not over"):
        session.write_result(tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("apply(1, 2, 3)", "apply takes 2 arguments, not 3"),
        ("craft(1, 2, 3, 4)", "craft takes 2 arguments, not 4"),
    ],
)
def test_too_many_arguments_are_named_as_such(command: str, message: str) -> None:
    defn = next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")
    session = PlaySession(defn)
    with pytest.raises(PlayError, match=message):
        session.act(command)
    assert session.step == 0
