"""``escapebench run`` end to end: BaseAgent (through the registry) against a real
OpenAI-compatible HTTP server on 127.0.0.1, through the ``openai`` SDK.

The server's answers depend only on the request (``tests/bench/answers.py``), so any two runs
of the same settings must produce the same episodes: with faults, after kill -9, after the
server died, sharded and merged, or replayed from the cache.
"""

from __future__ import annotations

import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from escapebench.bench.metrics import ACCOUNTING_COLUMNS
from escapebench.bench.settings import RunSettings
from escapebench.bench.suite import run_suite
from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_MODEL_UNAVAILABLE, EXIT_USAGE
from escapebench.llm.openai_client import OpenAIChatModel
from tests.bench.answers import pick_answer, stuck_answer
from tests.support.fake_openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server():
    with FakeOpenAIServer(answer=pick_answer, retry_after_s=0.01, slow_s=1.0) as s:
        yield s


def settings(out: Path, mini_game_file: Path, **kw) -> RunSettings:
    base = dict(agent="base", model="fake-model", games=[str(mini_game_file)], out=out,
                patience=10, help_steps=3, concurrency=3, no_cache=True, quiet=True)
    base.update(kw)
    return RunSettings(**base)


def fast_model(server: FakeOpenAIServer, **kw) -> OpenAIChatModel:
    """The real client, with retry timings shrunk so that faults cost milliseconds."""
    options = dict(timeout=0.5, max_retries=10, backoff_base=0.01, backoff_cap=0.05)
    options.update(kw)
    return OpenAIChatModel("fake-model", [server.base_url], **options)


def result_rows(out: Path) -> list[dict[str, str]]:
    """results.csv without the columns that only describe the transport and the clock."""
    with open(out / "results.csv", newline="") as f:
        return [{k: v for k, v in row.items() if k not in ACCOUNTING_COLUMNS}
                for row in csv.DictReader(f)]


def played(out: Path) -> dict[str, list[tuple]]:
    """Per episode, what happened at every step (no timings), with the hash of the agent's
    memory after it (the memory itself is in the checkpoint, not in the log)."""
    out_map = {}
    for log in sorted((out / "episodes").glob("*/steps.jsonl")):
        rows = [json.loads(line) for line in log.read_text().splitlines()]
        out_map[log.parent.name] = [
            (r["step"], r["scene"], r["action"], r["raw_answer"], r["feedback"], r["hint"],
             r["key_steps"], r["tools_collected"], r["agent_state_hash"]) for r in rows
        ]
    return out_map


def cli(out: Path, server: FakeOpenAIServer, mini_game_file: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "escapebench.cli", "run", "--agent", "base",
        "--model", "fake-model", "--base-url", server.base_url,
        "--games", str(mini_game_file), "--out", str(out), "--patience", "10",
        "--help-steps", "3", "--concurrency", "3", "--no-cache", "--max-retries", "1",
        "--timeout", "5", *extra,
    ]


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), e.get("PYTHONPATH")]))
    return e


def logged_steps(out: Path) -> int:
    return sum(
        p.read_bytes().count(b"\n") for p in (out / "episodes").glob("*/steps.jsonl")
    ) if (out / "episodes").is_dir() else 0


@pytest.fixture
def reference(tmp_path_factory, mini_game_file) -> Path:
    """An uninterrupted, fault-free run of the three mini settings."""
    out = tmp_path_factory.mktemp("reference") / "run"
    with FakeOpenAIServer(answer=pick_answer) as s:
        import asyncio

        outcome = asyncio.run(run_suite(settings(out, mini_game_file), model=fast_model(s)))
    assert outcome.exit_code == 0 and outcome.finished == 3
    return out


async def test_results_with_20_percent_faulted_requests_equal_a_fault_free_run(
    tmp_path, mini_game_file, reference
):
    faulty = FakeOpenAIServer(answer=pick_answer, fault_rate=0.2, seed=7, retry_after_s=0.01,
                              slow_s=1.0)
    with faulty:
        outcome = await run_suite(settings(tmp_path / "run", mini_game_file),
                                  model=fast_model(faulty))
    assert outcome.exit_code == 0
    kinds = set(faulty.faults_injected)
    assert len(faulty.faults_injected) >= 0.15 * faulty.request_count
    assert {"429", "500", "malformed", "empty_choices", "slow"} <= kinds
    assert result_rows(tmp_path / "run") == result_rows(reference)
    assert played(tmp_path / "run") == played(reference)
    with open(tmp_path / "run" / "results.csv", newline="") as f:
        assert sum(int(r["retries"]) for r in csv.DictReader(f)) >= len(faulty.faults_injected)


def test_a_run_killed_at_random_points_and_restarted_ends_identical(
    tmp_path, mini_game_file, reference, server
):
    out = tmp_path / "run"
    total = logged_steps(reference)
    rng = random.Random(2024)
    kill_at = sorted(rng.sample(range(3, total - 5), 4))
    for target in kill_at:
        proc = subprocess.Popen(cli(out, server, mini_game_file, "--quiet"), env=env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while logged_steps(out) < target and proc.poll() is None:
                assert time.monotonic() < deadline, "the run made no progress"
                time.sleep(0.002)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        assert proc.returncode == -signal.SIGKILL
    done = subprocess.run(cli(out, server, mini_game_file, "--quiet"), env=env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert result_rows(out) == result_rows(reference)
    assert played(out) == played(reference)  # no step lost or repeated


def test_a_dead_server_stops_the_run_cleanly_and_the_rerun_completes(
    tmp_path, mini_game_file, reference, server
):
    out = tmp_path / "run"
    proc = subprocess.Popen(cli(out, server, mini_game_file), env=env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while logged_steps(out) < 20:
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.002)
    server.stop()
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_MODEL_UNAVAILABLE
    assert "model server is unavailable" in stderr
    assert "run the same command again" in stderr
    assert "Traceback" not in stderr
    kept = logged_steps(out)
    assert kept >= 20
    server.start()  # same port
    done = subprocess.run(cli(out, server, mini_game_file), env=env(), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Hints Used" in done.stdout  # the table
    assert result_rows(out) == result_rows(reference)
    assert played(out) == played(reference)


async def test_hints_through_the_harness_with_a_model_that_never_progresses(
    tmp_path, mini_game_file
):
    with FakeOpenAIServer(answer=stuck_answer) as s:
        outcome = await run_suite(
            settings(tmp_path, mini_game_file, difficulties=["normal"], patience=50,
                     help_steps=10),
            model=fast_model(s),
        )
        requests = s.request_count
    assert outcome.exit_code == 0
    log = [json.loads(line) for line in
           (tmp_path / "episodes" / "mini__base__fake-model__r0" / "steps.jsonl").open()]
    starts = [r["step"] for r in log if r["hint"] and r["hint"]["steps_in_help"] == 0]
    forced = [r["step"] for r in log if r["hint"] and r["hint"]["forced"]]
    # as the original harness: help after step 50 (no progress since step 0), forced on the
    # 10th step in help; 60 steps a hint
    assert starts == [51, 111, 171, 231, 291, 351]
    assert forced == [60, 120, 180, 240, 300, 360]
    assert [log[s]["action"] for s in forced] == [
        "click(drawer)", "click(knife)", "apply(knife, box)", "click(key)",
        "apply(key, door)", "input(42, door)",
    ]
    assert requests == 361 - 6  # forced steps ask no model
    (row,) = result_rows(tmp_path)
    assert row["escaped"] == "True" and row["total_steps"] == "361"
    assert row["hints_used"] == "6" and row["early_exit_progress"] == "0.0"
    assert (row["tool_hints"], row["tool_hint_share"]) == ("2", "1.0")
    assert (row["key_step_hints"], row["key_step_hint_share"]) == ("4", "1.0")
    result = json.loads(
        (tmp_path / "episodes" / "mini__base__fake-model__r0" / "result.json").read_text()
    )
    assert result["hint_steps"] == starts and result["forced_steps"] == 6
    assert result["hints_by_action"] == {"click": 1, "apply": 2, "input": 1, "craft": 0}


async def test_two_shards_merged_equal_an_unsharded_run(tmp_path, mini_game_file, server):
    whole, a, b, merged = (tmp_path / n for n in ("whole", "a", "b", "merged"))
    for out, shard in ((whole, None), (a, (1, 2)), (b, (2, 2))):
        outcome = await run_suite(settings(out, mini_game_file, repeats=2, shard=shard),
                                  model=fast_model(server))
        assert outcome.exit_code == 0
    ids_a = {p.name for p in (a / "episodes").iterdir()}
    ids_b = {p.name for p in (b / "episodes").iterdir()}
    assert len(ids_a) == len(ids_b) == 3 and not ids_a & ids_b
    assert cli_main(["merge", str(a), str(b), "--out", str(merged), "--quiet"]) == 0
    assert result_rows(merged) == result_rows(whole)
    assert played(merged) == played(whole)
    assert (merged / "summary.csv").read_text() == (whole / "summary.csv").read_text()
    run = json.loads((merged / "run.json").read_text())
    assert run["shard"] is None and [m["shard"] for m in run["merged_from"]] == [[1, 2], [2, 2]]


async def test_merge_refuses_overlapping_or_incompatible_folders(
    tmp_path, mini_game_file, server, capsys
):
    a, b, c = (tmp_path / n for n in "abc")
    await run_suite(settings(a, mini_game_file, difficulties=["easy"]), model=fast_model(server))
    await run_suite(settings(b, mini_game_file, difficulties=["easy"]), model=fast_model(server))
    await run_suite(settings(c, mini_game_file, difficulties=["hard"], patience=11),
                    model=fast_model(server))
    assert cli_main(["merge", str(a), str(b), "--out", str(tmp_path / "m1")]) == EXIT_USAGE
    assert "shards must not overlap" in capsys.readouterr().err
    assert cli_main(["merge", str(a), str(c), "--out", str(tmp_path / "m2")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "different settings" in err and "hints" in err
    assert not (tmp_path / "m1").exists() or not any((tmp_path / "m1").iterdir())


def test_with_the_cache_a_rerun_makes_zero_requests(tmp_path, mini_game_file, server, capsys):
    cache = tmp_path / "cache.sqlite"
    first_out, second_out = tmp_path / "first", tmp_path / "second"

    def run(out: Path) -> int:
        args = [a for a in cli(out, server, mini_game_file, "--cache", str(cache))
                if a != "--no-cache"]
        return cli_main(args[3:])  # the same command line, in this process

    assert run(first_out) == 0
    assert server.request_count > 0
    server.reset_counters()
    capsys.readouterr()
    assert run(first_out) == 0  # finished episodes are skipped
    assert "3 of 3 episodes already finished" in capsys.readouterr().err
    assert run(second_out) == 0  # a new folder: every answer comes from the cache
    assert server.request_count == 0
    assert result_rows(second_out) == result_rows(first_out)
    assert played(second_out) == played(first_out)


def test_a_folder_of_other_settings_is_refused(tmp_path, mini_game_file, server, capsys):
    out = tmp_path / "run"
    command = cli(out, server, mini_game_file, "--difficulty", "easy")[3:]
    assert cli_main(command) == 0
    capsys.readouterr()
    assert cli_main([*command, "--max-steps", "77"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "holds results of different settings" in err
    assert "max_steps: 4000 in the folder, 77 now" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "base"], "needs --model"),
        (["--agent", "wizard"], "unknown agent"),
        (["--games", "no-such-game"], "no-such-game"),
        (["--agent", "random", "--no-foresight"], "only apply to --agent escape"),
        (["--agent", "escape-original", "--model", "m", "--protocol", "escapebench",
          "--games", "tutorial"], "plays under the original protocol only"),
        (["--shard", "3/2"], "--shard"),
    ],
)
def test_user_errors_are_messages_not_tracebacks(tmp_path, capsys, args, message):
    code = cli_main(["run", "--out", str(tmp_path / "x"), *args])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE and message in err and "Traceback" not in err


def test_the_default_agent_plays_a_builtin_game_without_a_model(tmp_path, capsys):
    code = cli_main(["run", "--games", "tutorial", "--out", str(tmp_path / "t")])
    captured = capsys.readouterr()
    assert code == 0
    assert "Early Exit Progress (%)" in captured.out
    assert "explorer" in captured.out
    assert "done   tutorial-easy__explorer__none__r0: escaped" in captured.err
    with open(tmp_path / "t" / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert sorted(r["setting"] for r in rows) == ["tutorial", "tutorial-easy", "tutorial-hard"]
    assert all(r["escaped"] == "True" and r["model"] == "none" for r in rows)
    run = json.loads((tmp_path / "t" / "run.json").read_text())
    assert run["agent"] == run["agent_played"] == "explorer" and run["model_backend"] is None
    assert {g["setting"] for g in run["games"]} == {r["setting"] for r in rows}
    assert all(len(g["sha256"]) == 64 for g in run["games"])


async def test_the_api_key_is_used_but_never_written(tmp_path, mini_game_file, monkeypatch):
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("ESCAPEBENCH_TEST_KEY", secret)
    with FakeOpenAIServer(answer=pick_answer, require_api_key=secret) as s:
        outcome = await run_suite(settings(
            tmp_path, mini_game_file, difficulties=["easy"], base_urls=[s.base_url],
            api_key_env="ESCAPEBENCH_TEST_KEY", command_line=["escapebench", "run"],
        ))
        assert s.request_count > 0
    assert outcome.exit_code == 0
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["model_backend"]["api_key_env"] == "ESCAPEBENCH_TEST_KEY"
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path
