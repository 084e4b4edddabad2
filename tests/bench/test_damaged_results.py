"""A result folder whose ``result.json`` was damaged outside escapebench (an editor, a bad
copy): ``run`` and ``merge`` name the file and stop before doing anything, without a
traceback; nothing in the folder is changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_USAGE


@pytest.fixture
def damaged_run(tmp_path: Path, mini_game_file: Path, capsys) -> tuple[Path, list[str], Path]:
    """A finished run of the mini game whose first result.json is cut short."""
    out = tmp_path / "run"
    command = ["run", "--games", str(mini_game_file), "--out", str(out), "--quiet"]
    assert cli_main(command) == 0
    capsys.readouterr()
    damaged = sorted((out / "episodes").glob("*/result.json"))[0]
    damaged.write_text('{"episode_id": ', encoding="utf-8")
    return out, command, damaged


@pytest.mark.parametrize("content", [b'{"episode_id": ', b"\xff\xfe", b"[1, 2]", b'{"x": 1}'],
                         ids=["cut-short", "not-utf8", "a-list", "not-a-result"])
def test_run_names_the_damaged_result_and_plays_nothing(damaged_run, capsys, content) -> None:
    out, command, damaged = damaged_run
    damaged.write_bytes(content)
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    code = cli_main(command)
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert "Traceback" not in err and str(damaged) in err
    assert err.strip().count("\n") == 0
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before


def test_merge_names_the_damaged_result_and_writes_nothing(damaged_run, capsys, tmp_path):
    out, _, damaged = damaged_run
    merged = tmp_path / "merged"
    code = cli_main(["merge", str(out), "--out", str(merged)])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert "Traceback" not in err and str(damaged) in err
    assert not merged.exists()
