"""``--games SPEC`` naming a folder without game files says so, in every command that takes
one (not "no game file, folder or built-in game by this name" for a folder that exists)."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.cli import main as cli_main


@pytest.mark.parametrize("verb", ["run", "play", "replay", "games"])
def test_an_empty_folder_is_named_as_a_folder_without_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    verb: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mygames").mkdir()
    (tmp_path / "mygames" / "notes.txt").write_text("not a game")
    args = {
        "run": ["run", "--games", "mygames", "--out", "o"],
        "play": ["play", "mygames", "--no-result"],
        "replay": ["replay", "mygames", "--trace", "-"],
        "games": ["games", "--no-builtin", "mygames"],
    }[verb]
    code = cli_main(args)
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert "mygames: folder holds no game files (*.yaml, *.yml)" in err
    assert not (tmp_path / "o").exists()


def test_a_subfolder_named_like_a_game_file_is_not_read_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.games.shed import write_shed

    write_shed(tmp_path)
    (tmp_path / "old.yaml").mkdir()
    code = cli_main(["run", "--games", str(tmp_path), "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "1 of 1 episodes finished" in err


def test_one_file_named_twice_is_one_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.games.shed import write_shed

    monkeypatch.chdir(tmp_path)
    game = write_shed(tmp_path)
    code = cli_main(["run", "--games", "shed.yaml", "--games", str(game), "--games", "./*.yaml",
                     "--out", "o", "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "1 of 1 episodes finished" in err
