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


@pytest.mark.parametrize(
    ("data", "where", "says"),
    [
        (b"name: x\n\0bad\n", "2:1", "a NUL byte"),
        (b"name: x\nroom: d\x01\n", "2:8", "U+0001"),
        (b"name: x\nb: \xff\xfe\n", "2:4", "not UTF-8 text: byte 0xff"),
        (b"\xef\xbb\xbfname: x\nb: \xc3\n", "2:4", "not UTF-8 text: byte 0xc3"),
    ],
    ids=["nul", "control", "invalid-utf8", "bom-then-invalid-utf8"],
)
@pytest.mark.parametrize("verb", ["check", "run", "play"])
def test_bad_bytes_in_a_game_file_are_one_line_with_file_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    data: bytes, where: str, says: str, verb: str,
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(data)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(""))
    args = {"check": ["check", str(path)], "run": ["run", "--games", str(path)],
            "play": ["play", str(path)]}[verb]
    assert cli_main(args) != 0
    captured = capsys.readouterr()
    lines = [line for line in (captured.out + captured.err).splitlines() if says in line]
    assert len(lines) == 1, captured
    assert f"{path}:{where}: " in lines[0]
    assert "position" not in captured.out + captured.err


def test_what_reproducing_md_says_about_an_unplayable_setting_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/reproducing.md: a setting that cannot be played stops the run before play (exit 2,
    naming --skip-unplayable); with --skip-unplayable the others play and run.json lists it."""
    import json

    doc = (Path(__file__).resolve().parents[2] / "docs" / "reproducing.md").read_text()
    assert "## When a setting cannot be played" in doc and "--skip-unplayable" in doc
    bad = tmp_path / "broken.yaml"
    bad.write_bytes(b"name: x\n\0bad\n")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "runs" / "mix"
    args = ["run", "--games", str(bad), "--games", "tutorial", "--out", str(out)]
    assert cli_main(args) == 2
    assert "--skip-unplayable" in capsys.readouterr().err
    assert cli_main([*args, "--skip-unplayable"]) == 0
    skipped = json.loads((out / "run.json").read_text())["skipped"]
    assert [s["source"] for s in skipped] == [str(bad)]
