"""``escapebench run`` on bad command lines and bad games: one clear line, the documented exit
code, no traceback and nothing created."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from escapebench.cli import build_parser
from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_MODEL_UNAVAILABLE, EXIT_USAGE


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli_main(["run", *args])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def test_a_missing_local_model_file_is_one_line_and_exit_3(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = run_cli(
        ["--agent", "base", "--model", "gguf:/nonexistent.gguf", "--games", "tutorial",
         "--no-cache"],
        capsys,
    )
    assert code == EXIT_MODEL_UNAVAILABLE
    assert err.strip().count("\n") == 0 and "/nonexistent.gguf" in err and "not found" in err
    assert not (tmp_path / "runs").exists()


def test_a_factory_that_is_not_an_agent_factory_is_a_usage_error(tmp_path, capsys):
    code, err = run_cli(
        ["--agent", "os:system", "--games", "tutorial", "--out", str(tmp_path / "o")], capsys
    )
    assert code == EXIT_USAGE
    assert "agent factory 'os:system' cannot be called" in err
    assert not (tmp_path / "o").exists()


def test_a_result_folder_that_cannot_be_created_is_a_usage_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, err = run_cli(["--games", "tutorial", "--out", str(blocker / "out")], capsys)
    assert code == EXIT_USAGE
    assert f"cannot create the result folder {blocker / 'out'}" in err


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("notaurl", "http:// or https://"),
        ("ftp://host/v1", "http:// or https://"),
        ("http:///v1", "no host"),
        ("http://host:port/v1", "not a URL"),
    ],
)
def test_a_base_url_that_is_not_a_url_is_refused_before_anything_is_created(
    tmp_path, capsys, monkeypatch, url, problem
):
    monkeypatch.chdir(tmp_path)
    code, err = run_cli(
        ["--agent", "base", "--model", "m", "--base-url", url, "--games", "tutorial",
         "--no-cache"],
        capsys,
    )
    assert code == EXIT_USAGE
    assert f"--base-url {url!r}" in err and problem in err
    assert "unavailable" not in err
    assert list(tmp_path.iterdir()) == []


def test_help_shows_each_default_once_and_every_option_has_help() -> None:
    parser = build_parser("run")
    run = next(
        p for a in parser._actions if a.dest == "verb" for n, p in a.choices.items() if n == "run"
    )
    text = run.format_help()
    assert "(default: None)" not in text and "(default: False)" not in text
    for paragraph in re.split(r"\n(?=  -)", text):
        assert paragraph.count("(default") <= 1, paragraph
    assert "(default: builtin)" in text and "(default: explorer)" in text
    assert all(a.help for a in run._actions), [a.dest for a in run._actions if not a.help]
    assert "exit status" in text and "model is unavailable" in text


def broken_copy(mini_game_file: Path, folder: Path) -> tuple[Path, int]:
    """The test game with a typo in its reference chain, and the line of the typo."""
    text = mini_game_file.read_text()
    assert 'action: "apply(key, door)"' in text
    bad = folder / "bad.yaml"
    bad.write_text(text.replace('action: "apply(key, door)"', 'action: "apply(key, dooor)"'))
    line = next(n for n, s in enumerate(bad.read_text().splitlines(), 1) if "dooor" in s)
    return bad, line


def test_a_game_with_errors_is_refused_with_file_line_and_problem(
    tmp_path, capsys, mini_game_file
):
    bad, line = broken_copy(mini_game_file, tmp_path)
    out = tmp_path / "out"
    code, err = run_cli(["--games", str(bad), "--out", str(out)], capsys)
    assert code == EXIT_USAGE
    # every setting of the file, each with its first error (file:line: problem)
    for setting in ("mini-easy", "mini", "mini-hard"):
        assert f"\n  {setting}: {bad}:{line}: " in err
    assert "dooor" in err
    assert f"escapebench check {bad}" in err
    assert not out.exists()


def test_the_static_checks_cost_little_on_the_builtin_games() -> None:
    import time

    from escapebench.bench.plan import refuse_broken_games
    from escapebench.games.loading import load_games

    definitions = load_games(["builtin"])
    t0 = time.perf_counter()
    refuse_broken_games(definitions)  # the built-in games have no errors
    assert time.perf_counter() - t0 < 5.0


def test_a_finished_run_ends_with_the_commands_to_try_next(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = run_cli(["--games", "tutorial", "--difficulty", "easy", "--out", "my run"],
                        capsys)
    assert code == 0
    assert err.rstrip().splitlines()[-2:] == [
        "next: escapebench report 'my run' --out report/   (tables, figures, trajectory viewer)",
        "      escapebench compare 'my run' OTHER_RUN   (paired differences to another run)",
    ]
    # the report command it names works as it is printed
    assert cli_main(["report", "my run", "--out", "report/"]) == 0


def test_a_run_that_did_not_finish_names_no_next_command(tmp_path, capsys):
    socket = pytest.importorskip("socket")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    code, err = run_cli(["--agent", "base", "--model", "m", "--base-url", url, "--games",
                         "tutorial", "--out", str(tmp_path / "o"), "--no-cache"], capsys)
    assert code == EXIT_MODEL_UNAVAILABLE and "next:" not in err
