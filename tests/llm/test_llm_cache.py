"""ResponseCache and CachedChatModel: zero model calls on re-runs, exact replays."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from escapebench.llm.base import Completion, ModelUnavailableError, SamplingSettings
from escapebench.llm.cache import CachedChatModel, ResponseCache, cache_key
from escapebench.llm.openai_client import OpenAIChatModel
from escapebench.llm.scripted import ScriptedChatModel
from tests.support.fake_openai_server import FakeOpenAIServer

MESSAGES = [{"role": "user", "content": "Where is the key?"}]
SETTINGS = SamplingSettings()
SRC = str(Path(__file__).resolve().parents[2] / "src")


def served(url: str) -> OpenAIChatModel:
    return OpenAIChatModel("fake-model", [url], timeout=2, max_retries=1, backoff_base=0.01)


async def test_rerun_costs_zero_requests_and_replays_exactly(tmp_path: Path) -> None:
    db = tmp_path / "cache.sqlite"
    with FakeOpenAIServer(latency_s=0.05) as server:
        first = CachedChatModel(served(server.base_url), ResponseCache(db))
        original = await first.complete(MESSAGES, SETTINGS)
        assert not original.cached
        assert server.request_count == 1

        # A new process would build everything again from the same file.
        again = CachedChatModel(served(server.base_url), ResponseCache(db))
        replay = await again.complete(MESSAGES, SETTINGS)
        assert server.request_count == 1
        assert again.calls == 0
        assert replay.cached
        assert replay.text == original.text
        assert replay.tokens_in == original.tokens_in
        assert replay.tokens_out == original.tokens_out
        assert replay.model == original.model
        assert replay.extra == original.extra


async def test_another_server_is_asked_and_replicas_given_together_share(
    tmp_path: Path,
) -> None:
    """The same model name on two servers is two models (llama.cpp answers to any name)."""
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with FakeOpenAIServer(answer="from A") as a, FakeOpenAIServer(answer="from B") as b:
        via_a = CachedChatModel(served(a.base_url), cache)
        via_b = CachedChatModel(served(b.base_url), cache)
        assert (await via_a.complete(MESSAGES, SETTINGS)).text == "from A"
        assert (await via_b.complete(MESSAGES, SETTINGS)).text == "from B"
        assert a.request_count == b.request_count == 1
        both = CachedChatModel(OpenAIChatModel("fake", [a.base_url, b.base_url]), cache)
        first = await both.complete(MESSAGES, SETTINGS)
        again = CachedChatModel(OpenAIChatModel("fake", [b.base_url + "/", a.base_url]), cache)
        second = await again.complete(MESSAGES, SETTINGS)
        assert not first.cached and second.cached and second.text == first.text
        assert a.request_count + b.request_count == 3


def test_key_depends_on_everything_that_changes_the_answer() -> None:
    base = cache_key("m", MESSAGES, SETTINGS)
    assert base == cache_key("m", [dict(reversed(list(MESSAGES[0].items())))], SETTINGS)
    assert len(base) == 64
    others = [
        cache_key("m2", MESSAGES, SETTINGS),
        cache_key("m", [{"role": "user", "content": "Where is the door?"}], SETTINGS),
        cache_key("m", [{"role": "system", "content": "Where is the key?"}], SETTINGS),
        cache_key("m", MESSAGES + [{"role": "assistant", "content": "x"}], SETTINGS),
        cache_key("m", MESSAGES, SamplingSettings(temperature=0.7)),
        cache_key("m", MESSAGES, SamplingSettings(top_p=0.9)),
        cache_key("m", MESSAGES, SamplingSettings(max_tokens=10)),
        cache_key("m", MESSAGES, SamplingSettings(seed=1)),
        cache_key("m", MESSAGES, SamplingSettings(stop=("\n",))),
        cache_key("m", MESSAGES, SETTINGS, "http://127.0.0.1:8001/v1"),
    ]
    assert len({base, *others}) == len(others) + 1


async def test_changed_settings_miss(tmp_path: Path) -> None:
    inner = ScriptedChatModel(["cold", "warm"])
    model = CachedChatModel(inner, ResponseCache(tmp_path / "c.sqlite"))
    assert (await model.complete(MESSAGES, SETTINGS)).text == "cold"
    assert (await model.complete(MESSAGES, SamplingSettings(temperature=1.0))).text == "warm"
    assert (await model.complete(MESSAGES, SETTINGS)).text == "cold"
    assert inner.calls == 2
    assert model.cache.hits == 1
    assert model.cache.misses == 2


async def test_concurrent_identical_requests_call_once(tmp_path: Path) -> None:
    inner = ScriptedChatModel(lambda messages: "same", latency_s=0.05)
    model = CachedChatModel(inner, ResponseCache(tmp_path / "c.sqlite"))
    results = await asyncio.gather(*(model.complete(MESSAGES, SETTINGS) for _ in range(8)))
    assert inner.calls == 1
    assert {r.text for r in results} == {"same"}
    assert sum(not r.cached for r in results) == 1


async def test_failures_are_not_cached(tmp_path: Path) -> None:
    class Flaky:
        name = "flaky"

        def __init__(self) -> None:
            self.calls = 0

        async def complete(self, messages: object, settings: SamplingSettings) -> Completion:
            self.calls += 1
            if self.calls == 1:
                raise ModelUnavailableError("down")
            return Completion(text="up", model=self.name)

    inner = Flaky()
    model = CachedChatModel(inner, ResponseCache(tmp_path / "c.sqlite"))
    with pytest.raises(ModelUnavailableError):
        await model.complete(MESSAGES, SETTINGS)
    assert len(model.cache) == 0
    assert (await model.complete(MESSAGES, SETTINGS)).text == "up"
    assert (await model.complete(MESSAGES, SETTINGS)).cached


def test_wal_mode_and_first_writer_wins(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    key = cache_key("m", MESSAGES, SETTINGS)
    assert key not in cache
    assert cache.put(key, Completion(text="first", tokens_in=3, tokens_out=4, model="m"))
    assert not cache.put(key, Completion(text="second", model="m"))
    hit = cache.get(key)
    assert hit is not None and hit.text == "first" and hit.cached
    assert (hit.tokens_in, hit.tokens_out) == (3, 4)
    cache.close()
    with sqlite3.connect(tmp_path / "c.sqlite") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


WRITER = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, {src!r})
    from escapebench.llm.base import SamplingSettings
    from escapebench.llm.cache import CachedChatModel, ResponseCache
    from escapebench.llm.scripted import ScriptedChatModel

    async def main(tag: str) -> None:
        inner = ScriptedChatModel(lambda messages: tag + ":" + messages[-1]["content"])
        model = CachedChatModel(inner, ResponseCache(sys.argv[1]))
        for i in range(40):
            messages = [{{"role": "user", "content": "shared" if i % 4 == 0 else tag + str(i)}}]
            await model.complete(messages, SamplingSettings())
        print(inner.calls)

    asyncio.run(main(sys.argv[2]))
    """
)


def test_cache_file_shared_by_processes(tmp_path: Path) -> None:
    db = tmp_path / "shared.sqlite"
    script = WRITER.format(src=SRC)
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(db), tag], stdout=subprocess.PIPE, text=True
        )
        for tag in ("p1", "p2")
    ]
    outputs = [w.communicate(timeout=60)[0] for w in writers]
    assert [w.returncode for w in writers] == [0, 0], outputs
    cache = ResponseCache(db)
    # 30 own entries per process, plus one entry for the "shared" prompt.
    assert len(cache) == 61
    shared = cache.get(cache_key("scripted", [{"role": "user", "content": "shared"}], SETTINGS))
    assert shared is not None and shared.text in ("p1:shared", "p2:shared")

    # A third process re-running the same work makes no model calls at all.
    rerun = subprocess.run(
        [sys.executable, "-c", script, str(db), "p1"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(rerun.stdout) == 0


LOCK_HOLDER = textwrap.dedent(
    """
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")  # the write lock a process switching the file to WAL holds
    print("held", flush=True)
    sys.stdin.readline()
    conn.execute("COMMIT")
    """
)


@contextlib.contextmanager
def another_process_setting_up(db: Path) -> Iterator[Callable[[], None]]:
    """A real process holding the write lock of the new file ``db``; yields its release."""
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdin is not None
    stdin = holder.stdin

    def release() -> None:
        stdin.write("\n")
        stdin.flush()
        assert holder.wait(timeout=10) == 0

    try:
        assert holder.stdout.readline() == "held\n"
        yield release
    finally:
        holder.kill()
        holder.wait()


def test_opening_waits_while_another_process_sets_up_a_new_file(tmp_path: Path) -> None:
    # Opening the cache must wait for the other process (SQLite's busy timeout does not
    # cover the switch to WAL), not fail with "database is locked".
    db = tmp_path / "new.sqlite"
    opened: list[ResponseCache] = []
    errors: list[BaseException] = []

    def open_cache() -> None:
        try:
            opened.append(ResponseCache(db, busy_timeout_s=10))
        except BaseException as exc:  # noqa: BLE001 - reported by the assertions below
            errors.append(exc)

    with another_process_setting_up(db) as release:
        opener = threading.Thread(target=open_cache)
        opener.start()
        opener.join(timeout=0.5)
        assert opener.is_alive(), f"did not wait for the lock: {errors}"
        release()
        opener.join(timeout=10)
    assert not opener.is_alive() and errors == []
    cache = opened[0]
    assert cache.put("k", Completion(text="stored", model="m"))
    cache.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT text FROM responses").fetchall() == [("stored",)]


def test_opening_gives_up_after_the_busy_timeout(tmp_path: Path) -> None:
    db = tmp_path / "new.sqlite"
    with another_process_setting_up(db) as release:
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="database is locked"):
            ResponseCache(db, busy_timeout_s=0.3)
        waited_s = time.monotonic() - started
        release()
    assert 0.3 <= waited_s < 2.0


STAMPEDE = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {src!r})
    from escapebench.llm.base import Completion
    from escapebench.llm.cache import ResponseCache

    tag = sys.argv[1]
    print("ready", flush=True)
    for line in sys.stdin:  # one new file per line, sent to every process at once
        try:
            cache = ResponseCache(line.strip())
            stored = cache.put(tag, Completion(text=tag, model="m"))
            cache.close()
            print("ok" if stored else "not stored", flush=True)
        except Exception as exc:
            print(repr(exc), flush=True)
    """
)


def test_processes_opening_one_new_file_at_once_all_succeed(tmp_path: Path) -> None:
    # Sharded runs start together on a cache file nobody has made yet. The file names are
    # handed to all processes at the same moment (a new file per round), so they race to
    # create and set up each one; every open and every write must succeed.
    tags = [f"p{i}" for i in range(6)]
    files = [tmp_path / f"round{i}.sqlite" for i in range(40)]
    openers = [
        subprocess.Popen(
            [sys.executable, "-c", STAMPEDE.format(src=SRC), tag],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for tag in tags
    ]
    try:
        for opener in openers:
            assert opener.stdout is not None and opener.stdout.readline() == "ready\n"
        for path in files:
            for opener in openers:
                assert opener.stdin is not None
                opener.stdin.write(f"{path}\n")
                opener.stdin.flush()
            answers = [opener.stdout.readline().strip() for opener in openers if opener.stdout]
            assert answers == ["ok"] * len(tags), f"{path.name}: {answers}"
        for opener in openers:
            assert opener.stdin is not None
            opener.stdin.close()
            assert opener.wait(timeout=10) == 0
    finally:
        for opener in openers:
            opener.kill()
            opener.wait()
    for path in files:
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            stored = {key for (key,) in conn.execute("SELECT key FROM responses")}
        assert stored == set(tags), path.name
