"""Result folders for the report and web tests, produced by the real harness with scripted models.

The fixtures :func:`harness_runs` and :func:`runs_copy` are imported by ``tests/report/conftest.py``
and ``tests/web/conftest.py``; the closet game is ``tests/support/games/closet.yaml``.
"""

from __future__ import annotations

import asyncio
import io
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from escapebench.bench.settings import RunSettings
from escapebench.bench.suite import run_suite
from escapebench.llm.scripted import ScriptedChatModel

GAMES_DIR = Path(__file__).parent / "games"
CLOSET = GAMES_DIR / "closet.yaml"

# The closet game's solution, walked in order: a model that answers with it escapes quickly.
SOLUTION = [
    "click(note)",
    "input(417, keypad)",
    "click(string)",
    "move(north door)",
    "click(magnet)",
    "craft(string, magnet)",
    "apply(magnet, drain)",
    "click(key)",
    "move(back)",
    "apply(key, front door)",
]
# Answers that never make progress: every hint is needed (and some are forced).
FUMBLING = [
    "I should look around first.\nAction: click(front door)",
    "apply(nothing, keypad)",
    "Let me think... no action here.",
]
HINTS = {"patience": 6, "help_steps": 3}


def run_harness(out: Path, agent: str, model_name: str | None, answers: list[str]) -> Path:
    """Play every closet setting with ``agent`` through ``run_suite`` into ``out``."""
    model = ScriptedChatModel(answers, name=model_name, cycle=True) if model_name else None
    settings = RunSettings(
        agent=agent, model=model_name, games=[str(CLOSET)], out=out, max_steps=300,
        quiet=True, fsync=False, no_cache=True, **HINTS,
    )
    outcome = asyncio.run(run_suite(settings, model=model, stream=io.StringIO()))
    assert not outcome.failed, outcome.failed
    return out


@pytest.fixture(scope="session")
def harness_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Result folders of base (two models), escape and explorer on the closet game."""
    root = tmp_path_factory.mktemp("runs")
    return {
        "base-fumbler": run_harness(root / "base-fumbler", "base", "fumbler", FUMBLING),
        "base-solver": run_harness(root / "base-solver", "base", "solver", SOLUTION),
        "escape-solver": run_harness(root / "escape-solver", "escape", "solver", SOLUTION),
        "explorer": run_harness(root / "explorer", "explorer", None, []),
    }


@pytest.fixture()
def runs_copy(harness_runs: dict[str, Path], tmp_path: Path) -> dict[str, Path]:
    """A private copy of the harness runs, for tests that change files."""
    out = {}
    for name, path in harness_runs.items():
        out[name] = tmp_path / name
        shutil.copytree(path, out[name])
    return out


class TableParser(HTMLParser):
    """The report's result tables: ``{title: [[row label, cell, ...], ...]}``."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._in_body = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and a.get("data-table"):
            self._table = a["data-table"] or ""
            self.tables[self._table] = []
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._table and self._in_body:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "sub" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def report_tables(html: str) -> dict[str, list[list[str]]]:
    """Parse the result tables out of a report page."""
    parser = TableParser()
    parser.feed(html)
    return parser.tables
