"""``escapebench compare`` on result folders written by real runs against a real HTTP server."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from escapebench.cli import main as cli
from escapebench.games.loading import load_file
from escapebench.protocols.escapebench.protocol import ESCAPEBENCH_VERSION
from tests.agents.conftest import WORKSHOP, kind_of
from tests.agents.oracle import exploring_actions, foresight_oracle
from tests.support.fake_openai_server import FakeOpenAIServer

# the label the tables give the current escapebench protocol ("escapebench/2")
LABEL = "escapebench/" + ESCAPEBENCH_VERSION.split("+")[0].removeprefix("escapebench-")


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    """An OpenAI-compatible server answering like the scripted comparison model."""
    defn = next(d for d in load_file(WORKSHOP) if d.setting == "workshop")
    oracle = foresight_oracle(defn)
    explore = exploring_actions(seed=0)

    def answer(request: dict[str, Any]) -> str:
        messages = request["messages"]
        kind = kind_of(messages)
        return explore(messages) if kind == "action" else oracle[kind](messages)

    with FakeOpenAIServer(answer=answer, model_name="fake") as running:
        yield running


@pytest.fixture(scope="module")
def runs(server: FakeOpenAIServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Result folders of base, escape and escape --no-foresight on the workshop (normal)."""
    root = tmp_path_factory.mktemp("runs")
    folders = {}
    for name, flags in (("base", []), ("escape", []), ("escape-nf", ["--no-foresight"])):
        out = root / name
        code = cli([
            "run", "--agent", name.split("-")[0], *flags, "--model", "fake",
            "--base-url", server.base_url, "--games", str(WORKSHOP), "--difficulty", "normal",
            "--out", str(out), "--no-cache", "--quiet", "--no-fsync",
        ])
        assert code == 0
        folders[name] = out
    return folders


def _steps(folder: Path) -> int:
    with open(folder / "results.csv", newline="", encoding="utf-8") as f:
        (row,) = list(csv.DictReader(f))
    return int(row["total_steps"])


def test_compare_prints_base_then_escape_variants_with_changes(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["compare", *(str(p) for p in runs.values())]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "BaseAgent vs EscapeAgent (Table 5)"
    assert "Hints Used" in lines[2] and "Key Steps Hints Used (percentage)" in lines[2]
    body = [line for line in lines[4:] if line.startswith("fake / ")]
    assert [line.split()[2] for line in body] == ["base", "escape", "escape-no-foresight"]
    base_steps, escape_steps = _steps(runs["base"]), _steps(runs["escape"])
    assert escape_steps < base_steps
    escape_row = body[1]
    assert f"{escape_steps:.2f} ↓{base_steps - escape_steps:.2f}" in escape_row
    assert not any(mark in body[0] for mark in "↓↑±")  # the reference: no change printed
    assert "1 episode, 1 escaped, 1 setting" in out  # not "1 episodes", "1 settings"


def test_compare_markdown(runs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["compare", str(runs["base"]), str(runs["escape"]), "--markdown"]) == 0
    table = capsys.readouterr().out.strip().splitlines()
    assert table[0].startswith("| Model / agent | Escaped | Hints Used | Total Steps |")
    assert table[1].startswith("|---|---:|")
    assert table[2].startswith("| fake / base |") and table[3].startswith("| fake / escape |")
    assert "↓" in table[3]


def test_compare_errors_are_messages_not_tracebacks(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["compare", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "escapebench compare:" in err and "not a result folder" in err
    assert cli(["compare", str(runs["base"])]) == 1
    err = capsys.readouterr().err
    assert "nothing to compare" in err and "agents found: base" in err
    assert "Traceback" not in err


def test_compare_fits_an_80_column_terminal(runs: dict[str, Path]) -> None:
    from escapebench.report.command_compare import comparison_table, format_text, paired_report
    from escapebench.report.runs import all_results, load_runs

    loaded = load_runs([str(p) for p in runs.values()])
    wide = format_text(comparison_table(all_results(loaded)))
    narrow = format_text(comparison_table(all_results(loaded)), width=80)
    assert max(len(line) for line in wide.splitlines()) > 80  # the table needs fitting
    assert max(len(line) for line in narrow.splitlines()) <= 80
    for label in ("fake / base", "fake / escape", "fake / escape-no-foresight"):
        assert label in narrow
    # the rules every row shares are said once, not in each row
    assert narrow.count(LABEL) == 1 and "vescapebench" not in wide
    paired = paired_report(loaded[0], loaded[1], width=80)
    assert max(len(line) for line in paired.splitlines()) <= 80 and "Total Steps" in paired
