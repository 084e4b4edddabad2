"""``escapebench check [PATH...]``: validate game files and their reference solutions.

With no path, every built-in game is checked. Prints a table and every problem as
``file:line: error: message``; ``--json`` prints one JSON document instead::

    {"ok": bool, "settings": [ {setting, game, difficulty, title, source, ok, loaded,
      scenes, hidden_scenes, items, tools, key_steps, total_tools, reference_length,
      oracle_steps, crafts, inputs, applies, clicks, moves, solver,
      errors: [{severity, check, message, source, line}], warnings: [...]}, ... ]}

Exit status: 0 when every setting passes, 1 when any has an error, 2 for bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from escapebench.catalog.sources import check_specs, source_of, split_specs
from escapebench.exit_codes import EXIT_OK, EXIT_PROBLEMS_FOUND, EXIT_USAGE
from escapebench.games.loading import (
    GameFileError,
    builtin_files,
    game_files,
    special_entries,
    unknown_game,
)
from escapebench.games.validation import SettingReport
from escapebench.terminal import print_table, render_table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH",
        help="game files or folders of them, 'builtin', a built-in game's name, or a gen: spec, "
        "as --games takes them, also comma-separated (default: every built-in game)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON document for machines")
    parser.add_argument(
        "--no-solver", action="store_true",
        help="skip the search for any way to GAME END (the reference replay still runs)",
    )
    parser.add_argument(
        "--quiet", "-q", action="store_true", help="print only problems and the summary line"
    )


COLUMNS: tuple[tuple[str, str], ...] = (
    ("setting", "setting"),
    ("scenes", "scenes"),
    ("hidden", "hidden_scenes"),
    ("items", "items"),
    ("tools", "tools"),
    ("key steps", "key_steps"),
    ("ref", "reference_length"),
    ("oracle", "oracle_steps"),
    ("crafts", "crafts"),
    ("inputs", "inputs"),
    ("applies", "applies"),
    ("clicks", "clicks"),
    ("solver", "solver"),
    ("result", ""),
)


def _cell(report: SettingReport, attr: str) -> str:
    if not attr:
        if not report.ok:
            return f"{len(report.errors)} error(s)"
        return f"ok, {len(report.warnings)} warning(s)" if report.warnings else "ok"
    if not report.loaded and attr != "setting":
        return "-"
    value = getattr(report, attr)
    return "-" if value is None else str(value)


_RIGHT = frozenset(range(1, len(COLUMNS) - 2))  # the counts


def table_rows(reports: Sequence[SettingReport]) -> tuple[list[str], list[list[str]]]:
    """The headers and cells of the table, one row per setting."""
    return [head for head, _ in COLUMNS], [[_cell(r, attr) for _, attr in COLUMNS]
                                           for r in reports]


def format_table(reports: Sequence[SettingReport], *, width: int | None = None) -> str:
    """A text table of the counts, one row per setting (full width unless ``width``)."""
    headers, rows = table_rows(reports)
    return render_table(headers, rows, right=_RIGHT, width=width)


def format_issues(reports: Sequence[SettingReport], *, errors_only: bool = False) -> list[str]:
    """One line per problem. The versions of a game share their logic, so the same problem is
    usually found in each: it is printed once, naming every setting it was found in."""
    grouped: dict[tuple[str, str, str], list[str]] = {}
    for report in reports:
        for issue in report.issues:
            if errors_only and issue.severity != "error":
                continue
            key = (issue.where, issue.severity, issue.message)
            grouped.setdefault(key, [])
            if issue.setting and issue.setting not in grouped[key]:
                grouped[key].append(issue.setting)
    out = []
    for (where, severity, message), settings in grouped.items():
        tag = f"[{', '.join(settings)}] " if settings else ""
        out.append(f"{where}: {severity}: {tag}{message}")
    return out


def _expand(spec: str) -> list[str]:
    """The files a spec names, as ``--games`` reads it: ``builtin`` is every built-in game, and
    the name of a built-in game (or of one of its settings) is its file."""
    if spec == "builtin":
        return [str(p) for p in builtin_files()]
    if source_of(spec) or Path(spec).exists():
        return [spec]
    for f in builtin_files():
        if spec == f.stem or spec.startswith(f.stem + "-"):
            return [str(f)]
    return [spec]


def main(args: argparse.Namespace) -> int:
    paths = [p for spec in split_specs(args.paths) for p in _expand(spec)]
    if not paths:
        paths = [str(p) for p in builtin_files()]
        if not paths:
            print("escapebench check: no built-in games are installed", file=sys.stderr)
            return EXIT_PROBLEMS_FOUND
    # A path that names no game file is a mistake in the command, as in every other verb:
    # one line and exit 2, not a row of the table.
    wrong = []
    for spec in paths:
        if source_of(spec):  # not files (gen: games are made in memory): check_specs reads it
            continue
        try:
            game_files(spec)
        except GameFileError as exc:
            # a name that is nothing: as run and play say it, with the built-in games' names
            missing = not Path(spec).exists() and not Path(spec).is_symlink()
            error = unknown_game(spec) if missing else exc
            wrong.append(f"escapebench check: {error}")
            continue
        folder = Path(spec)
        if folder.is_dir():
            for entry, kind in special_entries(folder):
                print(f"escapebench check: skipped {entry} (not a regular file: {kind})",
                      file=sys.stderr)
    if wrong:
        print("\n".join(wrong), file=sys.stderr)
        return EXIT_USAGE
    reports = check_specs(paths, run_solver=not args.no_solver)
    ok = all(r.ok for r in reports)
    if args.json:
        doc = {"ok": ok, "settings": [r.to_json() for r in reports]}
        print(json.dumps(doc, indent=2, ensure_ascii=False))
        return EXIT_OK if ok else EXIT_PROBLEMS_FOUND
    if not args.quiet:
        print_table(*table_rows(reports), right=_RIGHT)
    lines = format_issues(reports, errors_only=args.quiet)
    if lines:
        print()
        print("\n".join(lines))
    n_err = sum(len(r.errors) for r in reports)
    n_warn = sum(len(r.warnings) for r in reports)
    print()
    verdict = "all passed" if ok else "FAILED"
    print(
        f"{len(reports)} setting(s) checked: {verdict} "
        f"({n_err} error(s), {n_warn} warning(s))"
    )
    return EXIT_OK if ok else EXIT_PROBLEMS_FOUND
