"""A key written twice in one mapping: YAML keeps only the last one, so the first is lost
without a word. ``check`` names both lines, and commands that play refuse the game."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.cli import main as cli_main
from escapebench.games.validation import check_file
from tests.games.shed import write_shed

SCENE_DESC = "    desc: A small wooden shed with a curtain on one side.\n"


def test_a_key_written_twice_is_an_error_with_both_lines(tmp_path: Path) -> None:
    path = write_shed(tmp_path, SCENE_DESC, SCENE_DESC + "    desc: Another text.\n")
    text = path.read_text(encoding="utf-8")
    first = text[: text.index(SCENE_DESC)].count("\n") + 1
    (report,) = check_file(path, run_solver=False)
    found = [i for i in report.errors if i.check == "duplicate key"]
    assert [(i.line, i.message) for i in found] == [
        (first + 1, f"key 'desc' is given twice in this mapping (lines {first} and "
                    f"{first + 1}); YAML keeps only the last one")
    ]


def test_run_refuses_a_game_with_a_key_written_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    top = "title: The Garden Shed\n"
    path = write_shed(tmp_path, top, top + "title: Again\n")
    code = cli_main(["run", "--games", str(path), "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert f"{path}:4:" in err and "key 'title' is given twice" in err
    assert not (tmp_path / "o").exists()
