"""``escapebench check`` reads game specs as ``--games`` does: ``builtin``, a built-in game's
name (or one of its settings'), files, folders and ``gen:`` specs."""

from __future__ import annotations

from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_USAGE
from escapebench.games.loading import builtin_files


def test_builtin_and_built_in_names_are_checked_like_their_files(capsys) -> None:
    assert cli_main(["check", "builtin", "-q"]) == 0
    out = capsys.readouterr().out
    assert f"{3 * len(builtin_files())} setting(s) checked: all passed" in out
    assert cli_main(["check", "tutorial", "lab-hard", "-q"]) == 0
    assert "6 setting(s) checked: all passed" in capsys.readouterr().out


def test_a_name_that_is_nothing_is_one_line_and_exit_2(capsys) -> None:
    assert cli_main(["check", "nonesuch"]) == EXIT_USAGE
    assert capsys.readouterr().err.strip().startswith(
        "escapebench check: nonesuch: no game file, folder or built-in game by this name")
