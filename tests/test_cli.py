"""The `escapebench` entry point as a shell user meets it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_output_cut_short_by_the_reader_is_no_traceback(tmp_path: Path) -> None:
    # `escapebench replay ... --states | head -1`: megabytes of output, a reader that leaves
    trace = tmp_path / "trace.jsonl"
    trace.write_text((json.dumps({"action": "click(door)"}) + "\n") * 3000)
    proc = subprocess.Popen(
        [sys.executable, "-m", "escapebench.cli", "replay", "tutorial", "--trace", str(trace),
         "--states"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=60)
    assert json.loads(first)["index"] == 0
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert code == 141


def test_help_says_what_the_tool_is_and_what_no_verb_does() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "--help"], capture_output=True, text=True,
        check=True,
    ).stdout
    assert "room-escape games" in out and "escapebench run" in out
    assert "``" not in out  # no source markup in what users read
