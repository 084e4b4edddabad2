"""A damaged response cache: refused when opened, with one line naming the file and the way
on (``--no-cache``, ``--cache NEW``); a cache that goes bad during a run stops it with that
line instead of failing every episode; a resumed episode that finishes loses its old
error.txt."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from escapebench.bench.settings import RunSettings
from escapebench.bench.suite import run_suite
from escapebench.cli import main as cli
from escapebench.llm import cache as cache_module
from escapebench.llm.base import Completion
from tests.bench import failing_agent
from tests.bench.answers import pick_answer
from tests.bench.conftest import MINI_GAME
from tests.support.fake_openai_server import FakeOpenAIServer


def run(out: Path, url: str, *cache: str) -> int:
    return cli(["run", "--agent", "base", "--model", "default", "--base-url", url,
                "--games", str(MINI_GAME), "--max-steps", "6", "--out", str(out), "--quiet",
                "--no-fsync", *cache])


@pytest.fixture
def server():
    with FakeOpenAIServer(answer=pick_answer, model_name="default") as s:
        yield s


def damage(path: Path) -> None:
    """Overwrite 4 KB of the file's second page (the answers' table) with other bytes."""
    with path.open("r+b") as fh:
        fh.seek(4096)
        fh.write(bytes(range(256)) * 16)


@pytest.mark.slow
def test_a_damaged_cache_is_refused_in_one_line_naming_it(server, tmp_path, capsys) -> None:
    cache = tmp_path / "responses.sqlite"
    with cache_module.ResponseCache(cache) as answers:
        for i in range(40):
            answers.put(f"key {i}", Completion(text="- Action: click(box)\n" * 20, model="m"))
    damage(cache)
    asked = server.request_count
    capsys.readouterr()
    assert run(tmp_path / "second", server.base_url, "--cache", str(cache)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"the response cache {cache} is damaged" in err
    assert "--no-cache" in err and "--cache NEW_FILE" in err
    assert server.request_count == asked and not (tmp_path / "second" / "episodes").exists()
    # the ways on, both work
    assert run(tmp_path / "second", server.base_url, "--no-cache") == 0
    assert run(tmp_path / "third", server.base_url, "--cache", str(tmp_path / "new.sqlite")) == 0
    assert server.request_count > asked


@pytest.mark.slow
def test_a_cache_that_goes_bad_during_the_run_stops_it_in_one_line(
    server, tmp_path, capsys, monkeypatch
) -> None:
    cache = tmp_path / "responses.sqlite"
    real_connect = cache_module.ResponseCache._connect
    uses = {"n": 0}

    class Damaged:  # what SQLite answers once the file is truncated under the run
        def execute(self, *args):
            raise sqlite3.DatabaseError("database disk image is malformed")

    def connect(self):
        uses["n"] += 1
        return real_connect(self) if uses["n"] <= 5 else Damaged()

    monkeypatch.setattr(cache_module.ResponseCache, "_connect", connect)
    out = tmp_path / "run"
    assert run(out, server.base_url, "--cache", str(cache)) == 4
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if x.startswith("escapebench run:"))
    assert f"the response cache {cache} is damaged (database disk image is malformed)" in line
    assert "--no-cache" in line and "failed" not in err
    assert list(out.rglob("error.txt")) == []
    monkeypatch.setattr(cache_module.ResponseCache, "_connect", real_connect)
    assert run(out, server.base_url, "--cache", str(tmp_path / "new.sqlite")) == 0


def test_a_resumed_episode_that_finishes_loses_its_old_error(tmp_path, monkeypatch) -> None:
    settings = RunSettings(agent="tests.bench.failing_agent:make_once_flaky_agent",
                           games=[str(MINI_GAME)], out=tmp_path, max_steps=12, quiet=True)
    outcome = asyncio.run(run_suite(settings))
    assert list(outcome.failed) == ["mini-hard__once-flaky__none__r0"]
    error = tmp_path / "episodes" / "mini-hard__once-flaky__none__r0" / "error.txt"
    assert "agent bug" in error.read_text()
    monkeypatch.setattr(failing_agent, "BROKEN", False)  # the bug fixed: resume
    outcome = asyncio.run(run_suite(settings))
    assert not outcome.failed and outcome.finished == 3
    assert (error.parent / "result.json").is_file() and not error.exists()
