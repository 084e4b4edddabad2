"""``escapebench fake-server`` as a user starts it: a real process on 127.0.0.1, then ``run``
against it, offline."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from escapebench.exit_codes import EXIT_INTERRUPTED, EXIT_OK
from tests.support.signals import ctrl_c_as_at_a_terminal

SRC = Path(__file__).resolve().parents[2] / "src"
CLI = [sys.executable, "-c", "from escapebench.cli import main; raise SystemExit(main())"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


@pytest.fixture()
def fake_server() -> Iterator[tuple[subprocess.Popen[str], str]]:
    proc = subprocess.Popen(
        [*CLI, "fake-server", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=_env(), stdin=subprocess.DEVNULL, preexec_fn=ctrl_c_as_at_a_terminal,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/v1", first)
        assert match, first + (proc.stderr.read() if proc.poll() is not None else "")
        yield proc, match.group(0)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _chat(url: str, body: dict[str, object]) -> dict[str, object]:
    request = urllib.request.Request(
        f"{url}/chat/completions", data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


OBSERVATION = (
    "You see:\n"
    "<interactable item> desk drawer\n<interactable item> door\n"
    "<interactable scene> To the shelf: It leads to shelf close-up\n"
)


def test_run_plays_against_the_fake_server_and_a_repeat_is_the_same(
    fake_server: tuple[subprocess.Popen[str], str], tmp_path: Path
) -> None:
    proc, url = fake_server
    with urllib.request.urlopen(f"{url}/models", timeout=10) as response:
        assert json.loads(response.read())["data"][0]["id"] == "fake"
    body = {"model": "fake", "messages": [{"role": "user", "content": OBSERVATION}]}
    first, again = _chat(url, body), _chat(url, body)
    text = first["choices"][0]["message"]["content"]  # type: ignore[index]
    assert re.search(r"Action: (click\((desk drawer|door)\)|move\(shelf close-up\))", text)
    assert again["choices"] == first["choices"]  # deterministic
    assert first["usage"]["prompt_tokens"] > 0  # type: ignore[index]
    tools = [{"type": "function", "function": {
        "name": name, "parameters": {"type": "object", "properties": {arg: {"type": "string"}}}}}
        for name, arg in (("click", "item"), ("move", "scene"))]
    called = _chat(url, {**body, "tools": tools})["choices"][0]["message"]  # type: ignore[index]
    assert called["tool_calls"][0]["function"]["name"] in ("click", "move")

    runs = []
    for n in (1, 2):
        out = tmp_path / f"run{n}"
        done = subprocess.run(
            [*CLI, "run", "--agent", "base", "--model", "fake", "--base-url", url,
             "--games", "tutorial", "--difficulty", "normal", "--max-steps", "20",
             "--out", str(out), "--cache", str(tmp_path / f"cache{n}.sqlite")],
            capture_output=True, text=True, env=_env(), cwd=tmp_path, timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == EXIT_OK, done.stderr
        [log] = out.glob("episodes/*/steps.jsonl")
        steps = [json.loads(line) for line in log.read_text().splitlines()]
        assert len(steps) == 20
        assert any(s["success"] for s in steps)  # it plays actions the game accepts
        assert "20 calls" in done.stdout + done.stderr  # usage came back with every answer
        runs.append([(s["action"], s["feedback"]) for s in steps])
    assert runs[0] == runs[1]  # the same command against it gives the same game

    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=10) == EXIT_INTERRUPTED


def test_a_taken_port_is_one_line_and_exit_2(
    fake_server: tuple[subprocess.Popen[str], str],
) -> None:
    _, url = fake_server
    port = url.rsplit(":", 1)[1].split("/")[0]
    done = subprocess.run([*CLI, "fake-server", "--port", port], capture_output=True,
                          text=True, env=_env(), timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "pick another --port" in done.stderr
