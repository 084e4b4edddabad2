"""Game files as editors save them: with a UTF-8 byte order mark (Windows Notepad) or with
CRLF line ends, a game in our format loads, checks and plays like the plain file."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.cli import main as cli_main
from escapebench.games.loading import load_file
from tests.games.shed import SHED_YAML


@pytest.mark.parametrize(
    "encode",
    [lambda t: "\ufeff" + t, lambda t: t.replace("\n", "\r\n"),
     lambda t: "\ufeff" + t.replace("\n", "\r\n")],
    ids=["bom", "crlf", "bom-crlf"],
)
def test_an_editor_saved_game_file_loads_like_the_plain_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], encode
) -> None:
    plain, saved = tmp_path / "plain.yaml", tmp_path / "saved.yaml"
    plain.write_text(SHED_YAML, encoding="utf-8", newline="")
    saved.write_text(encode(SHED_YAML), encoding="utf-8", newline="")
    [expected], [loaded] = load_file(plain), load_file(saved)
    assert loaded.setting == expected.setting == "shed"
    assert loaded.reference == expected.reference
    assert cli_main(["check", "--quiet", str(saved)]) == 0
    assert "all passed" in capsys.readouterr().out
