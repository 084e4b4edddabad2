"""What the tests against the original harness share: a checkout laid out as a user has it,
the shared scripted model server (``../shared/tools/fake_openai_scripted.py``), a run under the
original protocol against it, and the comparison of its requests with the recordings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

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
        # The shared tool runs unmodified, with TCP_NODELAY on its sockets: it writes headers
        # and body in two writes, and Nagle's algorithm with the client's delayed ACK made
        # every request wait about 40 ms (two thirds of these tests' time).
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("run_without_nagle.py")),
             str(TOOLS / "fake_openai_scripted.py"), "0", str(log)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        self.url = line.split()[2]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def play_original(
    tmp: Path, agent: str, games: str, *flags: str, name: str = "run", timeout: int = 1500
) -> tuple[Path, list[str]]:
    """``escapebench run --agent AGENT --protocol original`` on ``games`` against the scripted
    server, one episode at a time; returns the result folder and the server's request log."""
    log = tmp / f"{name}.jsonl"
    server = ScriptedServer(log)
    out = tmp / name
    try:
        done = subprocess.run(
            [sys.executable, "-m", "escapebench.cli", "run", "--agent", agent, *flags,
             "--protocol", "original", "--model", "scripted", "--base-url", server.url,
             "--games", games, "--max-steps", "150", "--concurrency", "1",
             "--no-cache", "--no-fsync", "--quiet", "--out", str(out)],
            env=subprocess_env(), capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    return out, log.read_text(encoding="utf-8").splitlines()


def episode_steps(out: Path, episode: str) -> list[dict[str, Any]]:
    """The step records of one episode of a result folder."""
    path = out / "episodes" / episode / "steps.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def requests_per_setting(
    out: Path, lines: list[str], settings: list[str], label: str
) -> dict[str, list[str]]:
    """The request log cut into one part per episode (``SETTING__LABEL__scripted__r0``): the
    episodes ran one at a time in id order, each making as many requests as its steps' calls."""
    parts: dict[str, list[str]] = {}
    at = 0
    for setting in sorted(settings, key=lambda s: f"{s}__{label}__scripted__r0"):
        steps = episode_steps(out, f"{setting}__{label}__scripted__r0")
        calls = sum(len(r["calls"]) for r in steps)
        parts[setting] = lines[at : at + calls]
        at += calls
    return parts


def matches_recording(recording: Path, lines: list[str], part: Path) -> bool:
    """Whether ``compare_prompts.py`` finds the requests ``lines`` (written to ``part``)
    byte-identical to the original harness's ``recording``; prints its report where not."""
    part.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    compare = subprocess.run(
        [sys.executable, str(TOOLS / "compare_prompts.py"), str(recording), str(part)],
        capture_output=True, text=True, timeout=300,
    )
    if compare.returncode != 0:
        print(f"--- {recording.name}\n{compare.stdout[-3000:]}")
    return compare.returncode == 0
