"""Quitting terminal play keeps the game to continue, as the browser does, and writes no result;
a result is written when the game ends."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from escapebench.bench.hints import HintOptions
from escapebench.games.loading import load_games
from escapebench.play import PlayError, PlaySession, command_play


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
    # where the save is, said before the first step and when it is saved (it was only the
    # file's name: a player did not know it landed in the current folder)
    assert text.splitlines()[1] == (
        f"The game is saved after every step to tutorial.save.json (in {tmp_path}).")
    assert f"Saved at step 2 to tutorial.save.json (in {tmp_path}); no result" in text

    # Starting again without --load points at the save; quitting at once keeps it as it was.
    code, text = play(["tutorial", "--out", str(results)], "quit\n")
    assert "tutorial.save.json holds another game" in text
    assert "escapebench play tutorial --load tutorial.save.json" in text
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


def result_folders(results: Path) -> list[str]:
    episodes = results / "episodes"
    return sorted(p.name for p in episodes.iterdir()) if episodes.is_dir() else []


def test_a_finished_game_is_not_played_again_from_its_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    defn = next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")
    actions = [ref.action for ref in defn.reference]
    results = tmp_path / "results"
    save = Path("tutorial.save.json")
    play(["tutorial", "--out", str(results)], "\n".join([*actions[:2], "quit"]) + "\n")
    code, text = play(["tutorial", "--out", str(results), "--load", str(save)],
                      "\n".join(actions[2:]) + "\n")
    assert code == 0 and "Escaped after" in text
    assert "tutorial.save.json now holds the finished game" in text
    assert "Not used" not in text  # no settings given: nothing to say about them
    assert result_folders(results) == ["tutorial__human__none__r0"]
    saved = json.loads(save.read_text())
    assert saved["ended"] is True and saved["step"] == len(actions)
    assert saved["result"].endswith("tutorial__human__none__r0")

    # Loading it again does not resume the finished game, nor count it a second time.
    capsys.readouterr()
    code, text = play(["tutorial", "--out", str(results), "--load", str(save)], "look\n")
    assert code == 2 and text == ""
    error = capsys.readouterr().err
    assert "tutorial.save.json holds a game that already ended" in error
    assert "tutorial__human__none__r0" in error and "Start a new game with" in error
    assert result_folders(results) == ["tutorial__human__none__r0"]
    # ... nor from inside a game; and a new game does not offer it as one to continue.
    code, text = play(["tutorial", "--out", str(results)], "load tutorial.save.json\nquit\n")
    assert "to continue it" not in text
    assert "! tutorial.save.json holds a game that already ended" in text
    assert json.loads(save.read_text())["ended"] is True  # quitting at step 0 kept it


def test_a_finished_game_without_result_writes_it_when_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    defn = next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")
    actions = [ref.action for ref in defn.reference]
    results = tmp_path / "results"
    typed = "\n".join([actions[0], "save mine.json", *actions[1:]]) + "\n"
    code, text = play(["tutorial", "--no-result", "--out", str(results)], typed)
    assert code == 0 and result_folders(results) == []
    assert "mine.json now holds the finished game, without a result" in text
    saved = json.loads(Path("mine.json").read_text())
    assert saved["ended"] is True and saved["result"] is None

    code, text = play(["tutorial", "--out", str(results), "--load", "mine.json"], "")
    assert code == 0
    assert "already ended and its result was not written: writing it now" in text
    assert result_folders(results) == ["tutorial__human__none__r0"]
    assert "loading it will not play it again" in text
    code, _ = play(["tutorial", "--out", str(results), "--load", "mine.json"], "")
    assert code == 2 and result_folders(results) == ["tutorial__human__none__r0"]


def test_a_loaded_game_keeps_the_hint_settings_it_was_started_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    results = tmp_path / "results"
    started = ["--patience", "2", "--help-steps", "1", "--max-steps", "4"]
    code, text = play(["tutorial", *started, "--out", str(results)], "move 1\nquit\n")
    assert code == 0 and "Saved at step 1" in text
    # The resume command needs no settings: the save has them.
    assert "Continue with: escapebench play tutorial --load tutorial.save.json\n" in text

    code, text = play(
        ["tutorial", "--patience", "40", "--help-steps", "5", "--max-steps", "4",
         "--out", str(results), "--load", "tutorial.save.json"],
        "move 1\nmove 1\n",
    )
    assert code == 0
    assert ("This game keeps the settings it was started with: --patience 2, --help-steps 1, "
            "--max-steps 4.") in text
    # Only the given settings that differ are named (--max-steps 4 is the game's own).
    assert "Not used: --patience 40, --help-steps 5 from the command line" in text
    # Help starts after step 2, no progress since step 0 (patience 2, not 40), and its first
    # step is the hinted action played for the person (help steps 1, not 5); the game then
    # reaches its step limit of 4.
    assert "No progress for a while: the hint system takes you to" in text
    assert "The hint system did it for you" in text
    assert "Stopped after 4 steps with 1 hint" in text
    result = json.loads(
        (results / "episodes" / "tutorial__human__none__r0" / "result.json").read_text()
    )
    assert result["forced_steps"] == 1 and result["ended_by"] == "max_steps"
    run = json.loads((results / "run.json").read_text())
    assert run["hints"] == {"patience": 2, "help_steps": 1}


def test_a_save_brings_its_settings_and_player_back() -> None:
    defn = next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")
    first = PlaySession(defn, player="ada", hints=HintOptions(3, 2), max_steps=9)
    first.act(defn.reference[0].action)
    other = PlaySession(defn, player="bo")
    other.load(first.save())
    assert other.policy.options == HintOptions(3, 2)
    assert other.max_steps == 9 and other.player == "ada" and other.step == 1
    broken = first.save()
    broken["max_steps"] = 0
    with pytest.raises(PlayError, match="step limit"):
        other.load(broken)


def test_a_second_players_save_does_not_replace_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    defn = next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")
    steps = [ref.action for ref in defn.reference[:2]]
    play(["tutorial", "--player", "ada", "--no-result"], "\n".join([*steps, "quit"]) + "\n")
    ada = json.loads(Path("tutorial.save.json").read_text())
    code, text = play(["tutorial", "--player", "bo", "--no-result"],
                      "\n".join([steps[0], "quit"]) + "\n")
    assert code == 0
    assert "saved to tutorial.save-2.json" in text
    assert json.loads(Path("tutorial.save.json").read_text()) == ada  # untouched
    bo = json.loads(Path("tutorial.save-2.json").read_text())
    assert bo["player"] == "bo" and bo["step"] == 1
    # an explicit --save onto another's save is refused, and so is 'save FILE' in the game
    code, _ = play(["tutorial", "--player", "cy", "--save", "tutorial.save.json"], "quit\n")
    assert code == 2
    code, text = play(["tutorial", "--player", "cy", "--no-result"],
                      f"{steps[0]}\nsave tutorial.save.json\nquit\n")
    assert "holds another game: it is not overwritten" in text
    assert json.loads(Path("tutorial.save.json").read_text()) == ada


def test_quit_after_load_saves_to_the_loaded_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    defn = next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")
    steps = [ref.action for ref in defn.reference[:3]]
    play(["tutorial", "--player", "ada", "--no-result", "--save", "mine.json"],
         "\n".join([steps[0], "quit"]) + "\n")
    assert json.loads(Path("mine.json").read_text())["step"] == 1
    code, text = play(["tutorial", "--player", "bo", "--no-result"],
                      "\n".join(["load mine.json", steps[1], "quit"]) + "\n")
    assert code == 0
    assert json.loads(Path("mine.json").read_text())["step"] == 2  # saved where it came from
    assert not Path("tutorial.save.json").exists()


@pytest.mark.parametrize("typed", ["", "look", "look\n"], ids=["nothing", "no-newline", "line"])
def test_play_ended_by_end_of_input_ends_its_output_with_a_newline(
    tmp_path: Path, typed: str
) -> None:
    """Ctrl-D (or the end of a piped script) leaves the shell prompt on a line of its own."""
    import os
    import subprocess
    import sys

    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(
        [sys.executable, "-c", "from escapebench.cli import main; raise SystemExit(main())",
         "play", "tutorial", "--out", str(tmp_path / "results")],
        input=typed, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("\n")
    assert done.stdout.splitlines()[-1].startswith("Stopped after ")  # not after a "> "
