"""``escapebench merge --out FILE``: one line saying --out is a file, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.bench.runner import EXIT_USAGE
from escapebench.cli import main as cli_main


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
