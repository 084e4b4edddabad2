"""A bad ``gen:`` spec is one clear line that names the spec once, wherever ``--games`` goes."""

from __future__ import annotations

import pytest

from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_USAGE

SPEC = "gen:tier=2,count=0"


@pytest.mark.parametrize(
    "argv",
    [["run", "--games", SPEC], ["serve", "--games", SPEC, "--port", "0"], ["play", SPEC]],
    ids=["run", "serve", "play"],
)
def test_a_bad_spec_is_named_once_with_its_problem(argv: list[str], capsys) -> None:
    assert cli_main(argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "count must be at least 1" in err
    assert err.count(SPEC) == 1 + err.count(f"escapebench check {SPEC}"), err
