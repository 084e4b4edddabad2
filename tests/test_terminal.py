"""Tables on a real terminal (a pseudo-terminal 80 columns wide) and in a pipe."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from escapebench.terminal import render_table

pty = pytest.importorskip("pty")
ESCAPE_CODE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def _in_a_terminal(args: list[str], columns: int) -> tuple[int, str]:
    """Run ``escapebench ARGS`` with a pseudo-terminal of ``columns`` as its stdout."""
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "40",
           "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", "from escapebench.cli import main; "
                             "raise SystemExit(main())", *args],
                            stdout=child, stderr=subprocess.DEVNULL, env=env)
    os.close(child)
    out = b""
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed its end
            break
        if not data:
            break
        out += data
    os.close(main)
    code = proc.wait(timeout=120)
    return code, ESCAPE_CODE.sub("", out.decode("utf-8")).replace("\r", "")


def test_games_fits_an_80_column_terminal_and_is_full_width_in_a_pipe():
    code, screen = _in_a_terminal(["games"], 80)
    assert code == 0
    assert max(len(line) for line in screen.splitlines()) <= 80
    assert "Tutorial: The Practice Room" in re.sub(r"\s+", " ", screen)
    piped = subprocess.run(
        [sys.executable, "-c", "from escapebench.cli import main; raise SystemExit(main())",
         "games"], capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")},
    )
    lines = piped.stdout.splitlines()
    assert "\x1b" not in piped.stdout and max(len(line) for line in lines) > 80
    assert lines[0].split()[:2] == ["setting", "difficulty"] and set(lines[1]) == {"-", " "}
    assert all("Tutorial: The Practice Room" in line for line in lines[2:5])  # one per row


def test_a_table_too_wide_for_its_columns_becomes_one_block_per_row():
    headers = ["name", *(f"a long header {n}" for n in range(8))]
    rows = [["first", *(f"value-{n}-without-spaces" for n in range(8))]]
    text = render_table(headers, rows, width=60)
    assert max(len(line) for line in text.splitlines()) <= 60
    assert text.splitlines()[0] == "first"
    assert "a long header 7  value-7-without-spaces" in text


def test_check_on_an_80_column_terminal_gives_each_setting_a_line_or_two():
    code, screen = _in_a_terminal(["check", "--no-solver"], 80)
    assert code == 0
    lines = screen.splitlines()
    assert max(len(line) for line in lines) <= 80
    starts = [line for line in lines if line.startswith("tutorial-easy: scenes 2, hidden 0,")]
    assert len(starts) == 1
    settings = sum(1 for line in lines if re.match(r"^[a-z-]+: scenes \d+", line))
    assert f"{settings} setting(s) checked: all passed" in screen
    assert len(lines) <= 2 * settings + 4
