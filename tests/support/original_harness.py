"""What the tests against the original harness share: a checkout laid out as a user has it,
and the shared scripted model server (``../shared/tools/fake_openai_scripted.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import SHARED, UPSTREAM

ROOT = Path(__file__).resolve().parents[2]
TOOLS = SHARED / "tools"


def recordings_present(kind: str) -> bool:
    """Whether ../shared has the recordings of ``kind`` (base, creative), the scripted server
    and the original code."""
    return (
        (UPSTREAM / "prompts" / kind).is_dir()
        and (TOOLS / "fake_openai_scripted.py").is_file()
        and (UPSTREAM / "original" / "src").is_dir()
    )


def subprocess_env() -> dict[str, str]:
    """The environment for an ``escapebench`` subprocess that runs this checkout's sources."""
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT / "src"), str(ROOT), e.get("PYTHONPATH")])
    )
    return e


def make_checkout(tmp: Path) -> Path:
    """A checkout as a user has it: CHECKOUT/src and CHECKOUT/data side by side (symlinks into
    ../shared/upstream)."""
    root = tmp / "EscapeBench"
    root.mkdir()
    (root / "src").symlink_to(UPSTREAM / "original" / "src")
    (root / "data").symlink_to(UPSTREAM / "data")
    return root


class ScriptedServer:
    """``fake_openai_scripted.py`` on a free port, logging every request to ``log``."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            [sys.executable, str(TOOLS / "fake_openai_scripted.py"), "0", str(log)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        self.url = line.split()[2]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
