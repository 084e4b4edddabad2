"""``escapebench merge --out FILE``: one line saying --out is a file, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_USAGE


def test_merge_into_a_file_says_it_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mini_game_file: Path
) -> None:
    run = tmp_path / "run"
    assert cli_main(["run", "--games", str(mini_game_file), "--out", str(run), "--quiet"]) == 0
    blocker = tmp_path / "merged"
    blocker.write_text("my notes")
    capsys.readouterr()
    code = cli_main(["merge", str(run), "--out", str(blocker)])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE and "Traceback" not in err
    assert err.strip() == (f"escapebench merge: {blocker} is a file; --out must be a new or "
                           "empty folder")
    assert blocker.read_text() == "my notes"


def test_an_interrupted_merge_leaves_nothing_and_can_be_run_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mini_game_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    run = tmp_path / "run"
    assert cli_main(["run", "--games", str(mini_game_file), "--out", str(run), "--quiet"]) == 0
    real_copytree = shutil.copytree
    copied = []

    def copy_then_ctrl_c(src, dst, *args, **kwargs):  # Ctrl-C after the first episode
        if copied:
            raise KeyboardInterrupt
        copied.append(src)
        return real_copytree(src, dst, *args, **kwargs)

    monkeypatch.setattr(shutil, "copytree", copy_then_ctrl_c)
    merged = tmp_path / "merged"
    assert cli_main(["merge", str(run), "--out", str(merged)]) == 130
    assert not merged.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # no half-merged folder

    monkeypatch.setattr(shutil, "copytree", real_copytree)
    capsys.readouterr()
    assert cli_main(["merge", str(run), "--out", str(merged), "--quiet"]) == 0
    assert (merged / "results.csv").read_text() == (run / "results.csv").read_text()


def test_the_merged_folder_has_the_permissions_of_a_new_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mini_game_file: Path
) -> None:
    import os

    run = tmp_path / "run"
    assert cli_main(["run", "--games", str(mini_game_file), "--out", str(run), "--quiet"]) == 0
    assert cli_main(["merge", str(run), "--out", str(tmp_path / "merged"), "--quiet"]) == 0
    plain = tmp_path / "plain"
    plain.mkdir()
    assert os.stat(tmp_path / "merged").st_mode == os.stat(plain).st_mode
