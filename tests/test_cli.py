"""The `escapebench` entry point as a shell user meets it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path


def test_output_cut_short_by_the_reader_is_no_traceback(tmp_path: Path) -> None:
    # `escapebench replay ... --states | head -1`: megabytes of output, a reader that leaves
    trace = tmp_path / "trace.jsonl"
    trace.write_text((json.dumps({"action": "click(door)"}) + "\n") * 3000)
    proc = subprocess.Popen(
        [sys.executable, "-m", "escapebench.cli", "replay", "tutorial", "--trace", str(trace),
         "--states"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=60)
    assert json.loads(first)["index"] == 0
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert code == 141


def test_help_says_what_the_tool_is_and_what_no_verb_does() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "--help"], capture_output=True, text=True,
        check=True,
    ).stdout
    assert "room-escape games" in out and "escapebench run" in out
    assert "``" not in out  # no source markup in what users read


def _cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "escapebench.cli", *args], capture_output=True, text=True,
        cwd=cwd, timeout=timeout, stdin=subprocess.DEVNULL,
    )


def test_a_number_too_long_for_python_is_a_line_of_the_file_in_every_verb(tmp_path: Path) -> None:
    # 4,400 digits: past Python's int conversion limit (a traceback in check and run, before).
    from escapebench.games.loading import builtin_files

    tutorial = next(p for p in builtin_files() if p.stem == "tutorial").read_text("utf-8")
    lines = tutorial.splitlines()
    title = next(i for i, line in enumerate(lines) if line.startswith("title:"))
    lines[title] = "title: " + "7" * 4400
    (tmp_path / "big.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    where = f"big.yaml:{title + 1}"
    check = _cli("check", "big.yaml", cwd=tmp_path)
    assert check.returncode == 1 and re.search(
        rf"{re.escape(where)}(:\d+)?: error: a number of 4400", check.stdout)
    run = _cli("run", "--games", "./big.yaml", "--out", "out", "--quiet", cwd=tmp_path)
    play = _cli("play", "./big.yaml", "--no-result", cwd=tmp_path)
    for proc in (check, run, play):
        assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    for proc in (run, play):
        assert proc.returncode == 2 and where in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) <= 2, proc.stderr


def test_ctrl_c_while_the_verb_is_imported_is_one_line(monkeypatch, capsys) -> None:
    import importlib

    from escapebench import cli

    def interrupted(name: str, package: str | None = None) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib, "import_module", interrupted)
    assert cli.main(["check"]) == 130  # before: a KeyboardInterrupt traceback
    assert capsys.readouterr().err == "interrupted\n"


def test_ctrl_c_after_the_output_while_the_process_winds_down_is_exit_130(tmp_path) -> None:
    import signal
    import time

    # A thread still running when the verb is done: the process waits for it at exit.
    script = (
        "import sys, threading, time\n"
        "threading.Thread(target=time.sleep, args=(30,)).start()\n"
        "from escapebench.cli import main\n"
        "sys.argv = ['escapebench', 'games']\n"
        "code = main()\n"
        "print('done', flush=True)\n"
        "sys.exit(code)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    for line in proc.stdout:
        if line == "done\n":
            break
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=20) == 130  # before: -2 (killed by the signal), a traceback
    assert "Traceback" not in proc.stderr.read()


def test_options_without_a_verb_run_the_run_verb(tmp_path: Path) -> None:
    # The help says no verb means `run`: options alone are run's options.
    done = _cli("--agent", "random", "--games", "tutorial", "--difficulty", "easy",
                "--max-steps", "3", "--out", "out", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "run.json").is_file()
    assert "invalid choice" not in done.stderr


def test_a_misspelt_option_of_a_verb_shows_that_verbs_usage(tmp_path: Path) -> None:
    done = _cli("run", "--agnet", "base", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: escapebench run "), done.stderr
    assert "unrecognized arguments: --agnet base" in done.stderr
    assert not (tmp_path / "runs").exists()


def test_top_level_options_and_unknown_verbs_stay_top_level(tmp_path: Path) -> None:
    version = _cli("--vers", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("escapebench ")
    unknown = _cli("bogus", cwd=tmp_path)
    assert unknown.returncode == 2 and "invalid choice: 'bogus'" in unknown.stderr


def test_the_missing_local_extra_names_the_install_line_of_the_readme(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    from escapebench.cli import main as cli_main
    from escapebench.exit_codes import EXIT_MODEL_UNAVAILABLE

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    found = re.search(r"segfaulted on some\): (CMAKE_ARGS=.*\])'", readme)
    assert found, "the README's install line for the local model"
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as if the extra were not installed
    monkeypatch.chdir(tmp_path)
    code = cli_main(["run", "--agent", "base", "--model", "local", "--games", "tutorial",
                     "--max-steps", "1", "--no-cache", "--quiet"])
    err = capsys.readouterr().err
    assert code == EXIT_MODEL_UNAVAILABLE
    assert err.strip().count("\n") == 0 and "llama-cpp-python" in err
    assert found.group(1) + "'" in err
