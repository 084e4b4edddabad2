"""An original-layout game whose ``reference/key_log_X-Y.txt`` cannot be read (not UTF-8, a
folder): ``check`` and ``run`` name the log file and the problem, without a traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from escapebench.cli import main as cli_main

# A two-scene game in the original format, written for this test.
ORIGINAL_GAME = """\
- name: hall
  desc: A hall with a door.
  scene_relations: {}
  items:
  - position: north wall
    item:
      name: door
      states:
      - desc: A door.
        transitions:
        - wait_for: [click]
          trigger: ['change_interact, false']
          reward: You leave. GAME END
"""
REFERENCE = '{"position": "hall", "action_answer": "click(door)"}\n'


def original_game(folder: Path, log: bytes | None) -> Path:
    (folder / "game9-9.yaml").write_text(ORIGINAL_GAME, encoding="utf-8")
    (folder / "reference").mkdir()
    path = folder / "reference" / "key_log_9-9.txt"
    if log is None:
        path.mkdir()
    else:
        path.write_bytes(log)
    return path


def test_a_readable_log_plays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original_game(tmp_path, REFERENCE.encode())
    assert cli_main(["check", "--quiet", str(tmp_path)]) == 0


@pytest.mark.parametrize(
    ("log", "problem"),
    [(b"\xff\xfe" + REFERENCE.encode(), "not UTF-8 text"), (None, "cannot read file")],
    ids=["not-utf8", "a-folder"],
)
@pytest.mark.parametrize("verb", ["check", "run"])
def test_an_unreadable_log_is_named_with_its_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], log: bytes | None, problem: str,
    verb: str,
) -> None:
    path = original_game(tmp_path, log)
    args = [verb, str(tmp_path)] if verb == "check" else [
        "run", "--games", str(tmp_path), "--out", str(tmp_path / "out"), "--quiet"]
    code = cli_main(args)
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert code != 0 and "Traceback" not in text
    # the file, with its line and column where they are known, and the problem
    assert re.search(rf"{re.escape(str(path))}(:\d+:\d+)?: (error: )?{problem}", text), text
