"""``escapebench serve`` as a real server: a subprocess on 127.0.0.1 with a free port."""

from __future__ import annotations

import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT_S = 120


@contextmanager
def serve(*args: str) -> Iterator[str]:
    """``escapebench serve ARGS --port 0`` in a subprocess; yields its base URL."""
    with server_verb("serve", *args) as url:
        yield url


@contextmanager
def server_verb(verb: str, *args: str) -> Iterator[str]:
    """``escapebench VERB ARGS --port 0`` (a verb that serves and prints its address) in a
    subprocess; yields its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "escapebench.cli", verb, *args, "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    seen: list[str] = []
    try:
        while True:
            try:
                line = lines.get(timeout=STARTUP_TIMEOUT_S)
            except queue.Empty:
                pytest.fail(f"escapebench {verb} did not start: {''.join(seen)}")
            seen.append(line)
            m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
            if m:
                yield m.group(1)
                break
            if proc.poll() is not None:
                pytest.fail(f"escapebench {verb} stopped: {''.join(seen)}")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
