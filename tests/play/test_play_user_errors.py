"""Mistakes a person makes with ``escapebench play``: ``--load`` of a file that is not a save of
this game, an ``--out`` that cannot be a folder, ``save``/``load`` of a folder. Each is one
line naming the file and the problem, never a traceback."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from escapebench.cli import main as cli_main
from tests.support.hostile_inputs import folder_of_special_files


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"format": 1}', "not an escapebench play save"),
        (None, "this save is of 'lab', not of 'tutorial'"),
    ],
    ids=["not-a-save", "another-game"],
)
def test_a_bad_save_is_named_with_its_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    content: str | None, problem: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    save = tmp_path / "game.save.json"
    if content is None:  # a real save of another game
        typed = "move 1\nsave game.save.json\nquit\n"
        monkeypatch.setattr("sys.stdin", io.StringIO(typed))
        assert cli_main(["play", "lab", "--no-result"]) == 0
        assert json.loads(save.read_text())["setting"] == "lab"
    else:
        save.write_text(content, encoding="utf-8")
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    code = cli_main(["play", "tutorial", "--load", str(save), "--no-result"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.strip() == f"escapebench play: {save}: {problem}"


def test_play_in_process_gives_the_signal_handlers_back(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    before = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert cli_main(["play", "tutorial", "--no-result"]) == 0
    assert signal.getsignal(signal.SIGINT) is before


@pytest.mark.parametrize("where", ["a-file", "under-a-file"])
def test_out_that_cannot_be_a_folder_is_refused_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    blocker = tmp_path / "notes.txt"
    blocker.write_text("my notes")
    out = blocker if where == "a-file" else blocker / "results"
    monkeypatch.setattr("sys.stdin", io.StringIO("move 1\nquit\n"))
    code = cli_main(["play", "tutorial", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2 and "Traceback" not in captured.err
    assert captured.err.strip() == (
        f"escapebench play: {blocker} is a file, so {out} cannot be a result folder; "
        "choose another --out"
    )
    assert "step 1" not in captured.out  # nothing was played


@pytest.mark.parametrize("target", [".", "..", "afolder", "afolder/"])
def test_save_and_load_of_a_folder_are_refused_in_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    target: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afolder").mkdir()
    typed = f"move 1\nsave {target}\nload {target}\nlook\nquit\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    code = cli_main(["play", "tutorial", "--no-result"])
    out = capsys.readouterr().out
    assert code == 0
    assert f"! cannot save to {target}: it is a folder; give a file name" in out
    assert f"! cannot read {Path(target)}: Is a directory" in out
    assert "Saved at step 1 to tutorial.save.json" in out  # quit still saves the game


def test_an_autosave_that_cannot_be_written_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tutorial.save.json").mkdir()  # where the game would be saved
    monkeypatch.setattr("sys.stdin", io.StringIO("move 1\nmove 1\nmove 1\n"))
    cli_main(["play", "tutorial", "--no-result"])
    out = capsys.readouterr().out
    warning = "! cannot save to tutorial.save.json: it is a folder; give a file name"
    assert out.count(warning) == 1
    assert "the game is not saved after each step" in out


@pytest.mark.parametrize("player", ["x" * 41, "<script>", "a/b", ""])
def test_a_player_name_the_browser_would_refuse_is_refused_in_the_terminal_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    player: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("click 1\nquit\n"))
    code = cli_main(["play", "tutorial", "--player", player, "--out", "o"])
    captured = capsys.readouterr()
    assert code == 2
    assert "escapebench play: --player: a player name is 1-40 letters" in captured.err
    assert "Traceback" not in captured.err and "step 1" not in captured.out
    assert not (tmp_path / "o").exists() and not list(tmp_path.glob("*.save.json"))


def test_a_hint_asked_before_the_first_step_is_kept_by_quit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("hint\nquit\n"))
    assert cli_main(["play", "tutorial", "--no-result"]) == 0
    assert "Saved at step 0 to tutorial.save.json" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert cli_main(["play", "tutorial", "--no-result", "--load", "tutorial.save.json"]) == 0
    assert "--- step 0 | hints 1 |" in capsys.readouterr().out  # (was: lost, a free hint)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_folder_of_only_pipes_and_devices_names_what_it_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: "folder holds no game files" alone, with the FIFO and the link left unsaid.
    folder = folder_of_special_files(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    code = cli_main(["play", str(folder), "--no-result"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.strip() == (
        f"escapebench play: {folder}: folder holds no game files (*.yaml, *.yml); skipped "
        "pipe.yaml (a FIFO (named pipe)), zero.yml (a link to a character device (/dev/zero))"
    )
