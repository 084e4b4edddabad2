"""More bad ``escapebench run`` command lines a new user types: each is one line naming the
option and the problem, exit 2, no traceback and nothing created."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_MODEL_UNAVAILABLE, EXIT_USAGE
from tests.support.hostile_inputs import folder_of_special_files


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli_main(["run", *args])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


@pytest.mark.parametrize(
    ("agent", "problem"),
    [
        (":", "cannot load agent factory ':'"),
        ("json:", "cannot load agent factory 'json:'"),
        (".relative:make", "cannot load agent factory '.relative:make'"),
        ("broken_factory_module:make", "SyntaxError"),
    ],
)
def test_a_factory_that_cannot_be_loaded_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    agent: str, problem: str,
) -> None:
    (tmp_path / "broken_factory_module.py").write_text("def make(:\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    code, err = run_cli(["--agent", agent, "--games", "tutorial", "--out", "o"], capsys)
    assert code == EXIT_USAGE
    assert problem in err and err.strip().count("\n") == 0
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("option", "value", "problem"),
    [
        ("--temperature", "inf", "--temperature must be a finite number >= 0"),
        ("--temperature", "nan", "--temperature must be a finite number >= 0"),
        ("--max-tokens", "0", "--max-tokens must be at least 1"),
        ("--max-tokens", "-5", "--max-tokens must be at least 1"),
        ("--timeout", "inf", "--timeout must be a finite number > 0"),
        ("--repeats", "100000000000", "--repeats must be at most"),
    ],
)
def test_numbers_that_cannot_work_are_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, problem: str
) -> None:
    code, err = run_cli(
        ["--agent", "base", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
         "--games", "tutorial", "--out", str(tmp_path / "o"), "--no-cache", option, value],
        capsys,
    )
    assert code == EXIT_USAGE
    assert problem in err and err.strip().count("\n") == 0
    assert not (tmp_path / "o").exists()


def test_a_file_that_is_not_a_gguf_model_is_unavailable_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("llama_cpp")
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"this is not a GGUF file\n" * 10)
    code, err = run_cli(
        ["--agent", "base", "--model", f"gguf:{fake}", "--games", "tutorial", "--difficulty",
         "easy", "--out", str(tmp_path / "o"), "--no-cache", "--quiet"],
        capsys,
    )
    assert code == EXIT_MODEL_UNAVAILABLE
    assert str(fake) in err and "cannot be loaded" in err
    assert "failed" not in err  # not an episode error: the run says the model is unavailable
    assert "the model is unavailable" in err and "server" not in err


def test_a_server_url_from_the_environment_that_is_not_a_url_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "notaurl")
    code, err = run_cli(
        ["--agent", "base", "--model", "m", "--games", "tutorial", "--out", str(tmp_path / "o"),
         "--no-cache", "--max-retries", "0"],
        capsys,
    )
    assert code == EXIT_USAGE
    assert "$OPENAI_BASE_URL 'notaurl': expected an http:// or https:// URL" in err
    assert not (tmp_path / "o").exists()


def test_out_naming_a_file_says_it_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "results"
    blocker.write_text("my notes")
    code, err = run_cli(["--games", "tutorial", "--out", str(blocker), "--quiet"], capsys)
    assert code == EXIT_USAGE
    assert f"the result folder {blocker} is a file" in err
    assert blocker.read_text() == "my notes"


def test_a_base_url_with_a_space_is_not_a_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = run_cli(
        ["--agent", "base", "--model", "m", "--base-url", "http://gpu 1:8000/v1",
         "--games", "tutorial", "--out", str(tmp_path / "o"), "--no-cache"],
        capsys,
    )
    assert code == EXIT_USAGE
    assert "--base-url 'http://gpu 1:8000/v1': the URL contains a space" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("kind", ["a-folder", "not-a-database", "under-a-file"])
def test_a_cache_path_that_cannot_be_a_cache_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    cache = {
        "a-folder": tmp_path,
        "not-a-database": tmp_path / "notes.txt",
        "under-a-file": tmp_path / "notes.txt" / "cache.sqlite",
    }[kind]
    (tmp_path / "notes.txt").write_text("my notes " * 100)
    code, err = run_cli(
        ["--agent", "base", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
         "--games", "tutorial", "--out", str(tmp_path / "o"), "--cache", str(cache)],
        capsys,
    )
    assert code == EXIT_USAGE
    assert err.startswith(f"escapebench run: --cache {cache}: cannot be the response cache (")
    assert err.strip().count("\n") == 0
    assert (tmp_path / "notes.txt").read_text() == "my notes " * 100
    assert not (tmp_path / "o").exists()


def test_the_hosted_api_without_a_key_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # (without a network the retries took about a minute to end in "model unavailable")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    code, err = run_cli(
        ["--agent", "base", "--model", "gpt-4o-mini", "--games", "tutorial", "--out", "o",
         "--no-cache"], capsys,
    )
    assert code == EXIT_USAGE
    assert "no API key for https://api.openai.com/v1: set OPENAI_API_KEY" in err
    assert "--base-url" in err and err.strip().count("\n") == 0
    assert not (tmp_path / "o").exists()
    # A server of one's own needs no key.
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    code, err = run_cli(
        ["--agent", "base", "--model", "m", "--games", "tutorial", "--out", "o2", "--no-cache",
         "--max-retries", "0", "--timeout", "2"], capsys,
    )
    assert code == EXIT_MODEL_UNAVAILABLE and "API key" not in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_folder_of_only_pipes_and_devices_names_what_it_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: "folder holds no game files" alone, with the FIFO and the link left unsaid.
    folder = folder_of_special_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, err = run_cli(["--games", str(folder), "--out", "o", "--quiet"], capsys)
    assert code == EXIT_USAGE
    assert err.strip() == (
        f"escapebench run: {folder}: folder holds no game files (*.yaml, *.yml); skipped "
        "pipe.yaml (a FIFO (named pipe)), zero.yml (a link to a character device (/dev/zero))"
    )
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("closed-port", "the connection was refused (nothing listens there); check --base-url"),
        ("http://nonexistent.invalid/v1",
         "the name 'nonexistent.invalid' does not resolve; check the host name in --base-url"),
    ],
)
def test_a_wrong_base_url_is_one_line_at_once_not_a_minute_of_retries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str, problem: str
) -> None:
    # Before: 18 "connection error ... retrying" lines and 41.7 s (refused), 44.7 s (DNS).
    if url == "closed-port":
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"  # closed when the block ends
    started = time.monotonic()
    code, err = run_cli(
        ["--agent", "base", "--model", "m", "--base-url", url, "--games", "tutorial",
         "--concurrency", "3", "--out", str(tmp_path / "o"), "--no-cache"],
        capsys,
    )
    assert time.monotonic() - started < 15.0
    assert code == EXIT_MODEL_UNAVAILABLE
    lines = [line for line in err.splitlines() if not line.startswith("start  ")]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"escapebench run: cannot reach the model server at {url}: "
                               f"{problem}"), err
    assert "retrying" not in err and "attempt" not in err
