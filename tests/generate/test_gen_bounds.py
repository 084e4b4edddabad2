"""``gen:`` specs and knobs have bounds, checked before any game is made (one line each); a
large generation says how far it is and stops on Ctrl-C within a second, without claiming that
finished steps are kept."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from escapebench.cli import main as cli
from escapebench.generate import knobs
from escapebench.generate.make import parse_gen_spec
from tests.support.signals import ctrl_c_as_at_a_terminal

ROOT = Path(__file__).resolve().parents[2]


def escapebench(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "escapebench.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=ctrl_c_as_at_a_terminal)


@pytest.mark.parametrize(("knob", "expected"), [
    ("steps=200", "knob steps='200' is out of range (steps takes 1 to 60)"),
    ("scenes=2000", "knob scenes='2000' is out of range (scenes takes 1 to 30)"),
    ("creative=inf", "knob creative='inf' is out of range (creative takes 0 to 1)"),
    ("creative=1e308", "knob creative='1e308' is out of range"),
    ("creative=nan", "knob creative='nan' is out of range"),
    ("seed=-1", "seed must be from 0 to"),
    ("seed=" + "9" * 40, "seed is too long (40 characters)"),
])
def test_a_knob_out_of_its_range_is_one_line_before_any_work(
    knob: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    code = cli(["run", "--games", f"gen:tier=2,{knob}", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and expected in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert time.monotonic() - started < 5 and not (tmp_path / "o").exists()


@pytest.mark.slow
def test_a_count_past_10000_needs_allow_large(tmp_path: Path) -> None:
    proc = escapebench("estimate", "--games", "gen:tier=5,count=100000")
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 2
    assert "count=100000 is more than 10,000 games" in err and "--allow-large" in err
    knobs.allow_large()
    try:
        assert parse_gen_spec("gen:tier=5,count=100000").count == 100000
    finally:
        knobs.allow_large(False)


@pytest.mark.slow
def test_a_large_generation_shows_progress_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    proc = escapebench("run", "--games", "gen:tier=3,count=500", "--out", str(tmp_path / "o"))
    try:
        # the first progress line comes after the first game finished past 2 s of
        # generation: wait for it (a loaded machine imports slowly), then press Ctrl-C
        guard = threading.Timer(60, proc.kill)  # no line in a minute: fail, do not hang
        guard.start()
        first = proc.stderr.readline() if proc.stderr else ""
        guard.cancel()
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=10)
        err = first + err
        stopped_after = time.monotonic() - sent
    finally:
        proc.kill()
    assert "escapebench: generating gen:tier=3,count=500,seed=0: " in err
    assert "of 500 games" in err and "(Ctrl-C stops)" in err
    assert proc.returncode == 130 and stopped_after < 1.5
    assert "interrupted before any episode started; nothing was played or written" in err
    assert "finished steps are kept" not in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()
