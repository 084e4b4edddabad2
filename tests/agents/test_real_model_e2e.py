"""BaseAgent and EscapeAgent play 30 steps with the real SmolLM2 model behind llama.cpp's
OpenAI-compatible server, through the real ``escapebench run`` command.

SmolLM2-135M is near-random at this game: this checks the plumbing (prompts, the OpenAI
client, parsing of whatever the model says, step logs, results), not its play. The prompts
are kept small (no working memory, 12 answer tokens) so that llama.cpp's prompt cache makes
most steps cheap; the test skips cleanly where llama-cpp-python or the weights are missing.
"""

from __future__ import annotations

import csv
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from escapebench.llm.local import LocalModelNotInstalledError, find_smollm2_gguf
from escapebench.protocols.escapebench.prompts import PROMPT_VERSION

pytestmark = pytest.mark.slow

MODEL_ALIAS = "smollm2-135m"
STEPS = 30


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``python -m llama_cpp.server`` with SmolLM2 on 127.0.0.1; yields its /v1 URL."""
    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] not installed")
    try:
        gguf = find_smollm2_gguf()
    except LocalModelNotInstalledError as exc:
        pytest.skip(str(exc))
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(gguf), "--model_alias", MODEL_ALIAS,
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "2048", "--seed", "0",
    ]
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}  # no busy-waiting threads on small CI
    with open(log, "wb") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                pytest.fail(f"llama_cpp.server exited early:\n{log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.mark.parametrize("agent", ["base", "escape"])
def test_agent_plays_30_steps_with_smollm2(llama_server: str, tmp_path: Path, agent: str) -> None:
    out = tmp_path / "run"
    command = [
        sys.executable, "-m", "escapebench.cli", "run",
        "--agent", agent, "--model", MODEL_ALIAS, "--base-url", llama_server,
        "--games", "tutorial", "--difficulty", "normal", "--max-steps", str(STEPS),
        "--memory", "0", "--max-tokens", "12", "--timeout", "300",
        "--out", str(out), "--no-cache", "--quiet",
    ]
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr

    with open(out / "results.csv", newline="", encoding="utf-8") as f:
        (row,) = list(csv.DictReader(f))
    assert row["agent"] == agent and row["model"] == MODEL_ALIAS
    assert row["prompt_version"] == PROMPT_VERSION
    steps = int(row["total_steps"])
    assert steps >= STEPS or row["escaped"] == "True"
    assert int(row["model_calls"]) >= 1 and int(row["tokens_in"]) > 0

    (episode,) = (out / "episodes").iterdir()
    records = [json.loads(line) for line in (episode / "steps.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records] == list(range(steps))
    answers = [r["raw_answer"] for r in records if any(c["kind"] == "action" for c in r["calls"])]
    assert answers and all(isinstance(a, str) for a in answers)  # the model's own words
    assert all(r["feedback"] for r in records)  # every answer, readable or not, got feedback
    assert (episode / "result.json").is_file()
    run_info = json.loads((out / "run.json").read_text())
    assert PROMPT_VERSION in json.dumps(run_info)
