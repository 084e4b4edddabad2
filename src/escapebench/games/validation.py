"""Validating game files: every check of a setting, gathered in a :class:`SettingReport`.

:func:`check_definition` runs the static checks (:mod:`escapebench.games.checks`), the
reference names and replay (:mod:`escapebench.games.reference`) and the state search
(:mod:`escapebench.games.solver`) on one setting. :func:`check_paths` is what
``escapebench check`` runs; :meth:`SettingReport.to_json` is its ``--json`` schema.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from escapebench.engine.actions import parse_call
from escapebench.engine.model import GAME_END_MARK, GameDefinition
from escapebench.games.checks import _StaticChecker
from escapebench.games.issues import CheckIssue, _Locator, control_character_issues
from escapebench.games.loading import (
    MEANT_TRUE,
    ORIGINAL_NAME,
    GameFileError,
    game_files,
    load_file,
)
from escapebench.games.reference import (
    _check_reference_names,
    _reference_places,
    _RefPlace,
    replay_reference,
)
from escapebench.games.solver import solve
from escapebench.gc_pause import collections_paused


@dataclass
class SettingReport:
    """Counts and issues of one setting (or of one file that could not be loaded)."""

    setting: str
    game: str
    difficulty: str
    title: str
    source: str
    scenes: int = 0
    hidden_scenes: int = 0
    items: int = 0
    tools: int = 0
    key_steps: int = 0  # total key steps of the setting
    total_tools: int = 0
    reference_length: int = 0
    oracle_steps: int | None = None  # None when the reference does not replay
    crafts: int = 0  # verbs of the reference actions
    inputs: int = 0
    applies: int = 0
    clicks: int = 0
    moves: int = 0
    solver: str = "not run"  # "reached", "unreachable", "gave up", "not run"
    loaded: bool = True
    issues: list[CheckIssue] = field(default_factory=list)

    @property
    def errors(self) -> list[CheckIssue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[CheckIssue]:
        return [i for i in self.issues if i.severity == "warning"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, Any]:
        """The ``check --json`` record of this setting."""
        return {
            "setting": self.setting,
            "game": self.game,
            "difficulty": self.difficulty,
            "title": self.title,
            "source": self.source,
            "ok": self.ok,
            "loaded": self.loaded,
            "scenes": self.scenes,
            "hidden_scenes": self.hidden_scenes,
            "items": self.items,
            "tools": self.tools,
            "key_steps": self.key_steps,
            "total_tools": self.total_tools,
            "reference_length": self.reference_length,
            "oracle_steps": self.oracle_steps,
            "crafts": self.crafts,
            "inputs": self.inputs,
            "applies": self.applies,
            "clicks": self.clicks,
            "moves": self.moves,
            "solver": self.solver,
            "errors": [i.to_json() for i in self.errors],
            "warnings": [i.to_json() for i in self.warnings],
        }


def _count_verbs(report: SettingReport, defn: GameDefinition) -> None:
    for step in defn.reference:
        call = parse_call(step.action)
        if call is None:
            continue
        attr = {"craft": "crafts", "input": "inputs", "apply": "applies", "click": "clicks",
                "move": "moves"}[call.verb]
        setattr(report, attr, getattr(report, attr) + 1)


def check_definition(
    defn: GameDefinition, text: str | None = None, *, run_solver: bool = True,
    nodes: yaml.Node | None = None,
) -> SettingReport:
    """All checks of one setting. ``text`` is the file's YAML, used to find lines; ``nodes``
    its YAML nodes when already at hand (the generator makes them to write the text): the
    same report, and the text is composed only if an issue needs its line."""
    with collections_paused():
        report = _check_definition(defn, text, run_solver=run_solver, nodes=nodes)
        setting = defn.setting
        report.issues = [  # CheckIssue is frozen: a copy naming the setting (faster than replace)
            CheckIssue(i.severity, i.check, i.message, i.source, i.line, setting, i.col)
            for i in report.issues
        ]
    return report


_CONTROL_LAST: list[Any] = []  # [source, text, issues] of the last file


def _control_characters(source: str, text: str | None, nodes: yaml.Node | None = None
                        ) -> tuple[CheckIssue, ...]:
    """:func:`control_character_issues`, kept for the last file: its three difficulties share
    the text, and walking a large file's nodes for each of them was a tenth of the check."""
    last = _CONTROL_LAST
    if last and last[0] == source and (last[1] is text or (
            text is not None and last[1] is not None and last[1] == text)):
        return last[2]
    found = tuple(control_character_issues(source, text, nodes))
    _CONTROL_LAST[:] = [source, text, found]
    return found


def _check_definition(
    defn: GameDefinition, text: str | None, *, run_solver: bool, nodes: yaml.Node | None = None
) -> SettingReport:
    locator = _Locator(defn.source, text, nodes)
    report = SettingReport(
        setting=defn.setting,
        game=defn.game,
        difficulty=defn.difficulty,
        title=defn.title,
        source=defn.source,
        scenes=len(defn.scenes),
        hidden_scenes=sum(not s.visible for s in defn.scenes),
        items=len(defn.items),
        tools=len(defn.tools),
        key_steps=defn.total_key_steps,
        total_tools=defn.total_tools,
        reference_length=len(defn.reference),
    )
    _count_verbs(report, defn)
    static = _StaticChecker(defn, locator)
    report.issues.extend(static.run())
    report.issues.extend(_control_characters(defn.source, text, nodes))
    places = _reference_places(defn, locator)
    ref_issues: list[CheckIssue] = []
    _check_reference_names(defn, places, ref_issues)
    report.issues.extend(ref_issues)
    if static.unplayable:
        report.issues.append(CheckIssue(
            "warning", "skipped",
            "the reference replay and the solver were skipped: the errors "
            "above must be fixed before the game can be played",
            defn.source, None,
        ))
        return report
    try:
        before = len(report.issues)
        _dynamic_checks(report, defn, places, run_solver=run_solver, replay=not ref_issues)
        if any(note.endswith(MEANT_TRUE) for _, note in defn.readings):
            # The file most likely meant a boolean as true that the original's rules read as
            # false: the original engine plays it as read, and so do we. What then fails is
            # the file's meaning under those rules, said as a warning, not a broken game.
            report.issues[before:] = [
                replace(i, severity="warning", message=i.message + _AS_READ)
                if i.severity == "error" else i
                for i in report.issues[before:]
            ]
    except Exception as exc:  # an engine bug must not hide the other findings in a traceback
        report.issues.append(CheckIssue(
            "error", "internal",
            f"the engine failed while playing this game "
            f"({type(exc).__name__}: {exc}); please report this as a bug",
            defn.source, None,
        ))
    return report


_AS_READ = (
    " (as the original engine reads the file: a boolean that was most likely meant as true "
    "is read as false, see the 'reading' warnings)"
)


def _dynamic_checks(
    report: SettingReport,
    defn: GameDefinition,
    places: Sequence[_RefPlace],
    *,
    run_solver: bool,
    replay: bool,
) -> None:
    if replay:  # a chain naming missing things would only fail again, less clearly
        outcome = replay_reference(defn, places)
        report.oracle_steps = outcome.oracle_steps
        report.issues.extend(outcome.issues)
    if run_solver:
        verdict, visited = solve(defn)
        report.solver = verdict
        # (a scene no walk reaches, or a reference step only the teleport gets to)
        teleport_only = [i for i in report.issues if i.check in ("teleport-only", "walk")]
        if verdict == "unreachable" and teleport_only:
            # The search walks; the hint system teleports to a scene no walk reaches.
            report.issues.append(CheckIssue(
                "warning", "solver",
                f"no sequence of actions reaches {GAME_END_MARK!r} by walking (searched all "
                f"{visited} reachable states); the hint teleport also reaches the scene(s) "
                "no walk reaches (see the 'teleport-only' or 'walk' warning)",
                defn.source, None,
            ))
        elif verdict == "unreachable":
            report.issues.append(CheckIssue(
                "error", "solver",
                f"no sequence of actions reaches {GAME_END_MARK!r} "
                f"(searched all {visited} reachable states)",
                defn.source, None,
            ))
        elif verdict == "gave up":
            report.issues.append(CheckIssue(
                "warning", "solver",
                f"the search for a way to {GAME_END_MARK!r} stopped after "
                f"{visited} states without finding one",
                defn.source, None,
            ))


def failed_report(path: Path, exc: GameFileError) -> SettingReport:
    stem = path.name.rsplit(".", 1)[0]
    m = ORIGINAL_NAME.match(stem)
    report = SettingReport(
        setting=stem,
        game=f"game{m.group(1)}-{m.group(2)}" if m else stem,
        difficulty=(m.group(3) or "normal") if m else "",
        title="",
        source=exc.source,
        loaded=False,
    )
    report.issues.append(
        CheckIssue("error", "load", exc.problem, exc.source, exc.line, col=exc.col)
    )
    return report


def check_file(path: Path, *, run_solver: bool = True) -> list[SettingReport]:
    """Load one game file and check every setting it holds; load errors become a report."""
    with collections_paused():  # one file at a time: its cyclic garbage is collected after
        return _check_file(path, run_solver=run_solver)


def _check_file(path: Path, *, run_solver: bool) -> list[SettingReport]:
    try:
        definitions = load_file(path)
    except GameFileError as exc:
        return [failed_report(path, exc)]
    except OSError as exc:  # e.g. vanished or unreadable between listing and loading
        return [failed_report(path, GameFileError(str(path), f"cannot read file: {exc}"))]
    try:
        text: str | None = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = None
    return [check_definition(d, text, run_solver=run_solver) for d in definitions]


def check_paths(specs: Sequence[str], *, run_solver: bool = True) -> list[SettingReport]:
    """Check every setting of every file the paths name (a path that names nothing is a
    failed report, not an exception). The specs of other sources (``gen:``) are checked by
    :func:`escapebench.catalog.check_specs`."""
    out: list[SettingReport] = []
    for spec in specs:
        try:
            files = game_files(spec)
        except GameFileError as exc:
            out.append(failed_report(Path(spec), exc))
            continue
        for f in files:
            out.extend(check_file(f, run_solver=run_solver))
    return out
