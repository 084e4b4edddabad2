"""docs/rl.md's training example runs, learns, and prints what the document says it prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"
LINE = re.compile(r"episodes +(\d+)-(\d+) +mean return ([\d.]+) +escaped +(\d+)%")


def doc_blocks() -> tuple[str, str]:
    """The example's code and the output the document shows for it."""
    text = DOC.read_text(encoding="utf-8")
    after = text.split("<!-- rl-example -->", 1)[1]
    code = after.split("```python\n", 1)[1].split("```", 1)[0]
    shown = after.split("It prints", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    return code, shown


def test_the_tabular_example_learns_to_escape_the_tutorial(tmp_path):
    code, shown = doc_blocks()
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(root / "src"), str(root), os.environ.get("PYTHONPATH", "")]
        ),
    }
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    curve = [(float(m[3]), int(m[4])) for m in map(LINE.match, lines) if m]
    assert len(curve) == len(lines) == 10
    returns = [r for r, _ in curve]
    assert returns[0] < 0.2 and returns[-1] >= 0.9  # it learns to escape in time
    assert max(returns[:2]) < min(returns[3:])  # a rising curve, then a plateau
    # The document shows the first four blocks and the last one, as printed.
    for line in shown.strip().splitlines():
        if line != "...":
            assert line in lines
