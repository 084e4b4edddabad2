"""``escapebench games [PATH...]``: list the built-in games and those found in PATHs.

One row per setting: setting, difficulty, scenes, key steps, tools, oracle steps and title.
Files that cannot be loaded and settings that cannot be played (check errors) are all reported
on standard error, each with its reason (and the exit status is 1); the others are still listed.
A PATH that names no game file (missing, or a folder without any) is one line and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from escapebench.catalog.sources import split_specs
from escapebench.engine.model import GameDefinition
from escapebench.exit_codes import EXIT_OK, EXIT_PROBLEMS_FOUND, EXIT_USAGE
from escapebench.games.loading import (
    GameFileError,
    builtin_files,
    game_files,
    load_file,
    unknown_game,
)
from escapebench.games.playable import split_playable
from escapebench.games.reference import replay_reference
from escapebench.terminal import print_table, render_table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH",
        help="more game files or folders to list (also comma-separated)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON Lines, one per setting")
    parser.add_argument(
        "--no-builtin", action="store_true", help="list only the games found in PATHs"
    )


def describe(defn: GameDefinition, origin: str) -> dict[str, object]:
    """The listing's facts about one setting (oracle steps: None if the reference fails)."""
    return {
        "setting": defn.setting,
        "game": defn.game,
        "difficulty": defn.difficulty,
        "scenes": len(defn.scenes),
        "key_steps": defn.total_key_steps,
        "tools": defn.total_tools,
        "oracle_steps": replay_reference(defn).oracle_steps,
        "title": defn.title,
        "origin": origin,
        "source": defn.source,
    }


HEADERS = ("setting", "difficulty", "scenes", "key steps", "tools", "oracle", "origin", "title")
KEYS = ("setting", "difficulty", "scenes", "key_steps", "tools", "oracle_steps", "origin", "title")
NUMERIC = {"scenes", "key_steps", "tools", "oracle_steps"}


_RIGHT = frozenset(i for i, k in enumerate(KEYS) if k in NUMERIC)


def table_rows(rows: list[dict[str, object]]) -> tuple[list[str], list[list[str]]]:
    """The headers and cells of the listing, one row per setting."""
    return list(HEADERS), [["-" if r[k] is None else str(r[k]) for k in KEYS] for r in rows]


def format_table(rows: list[dict[str, object]], *, width: int | None = None) -> str:
    """The listing as a text table (full width unless ``width``)."""
    headers, cells = table_rows(rows)
    return render_table(headers, cells, right=_RIGHT, width=width)


def main(args: argparse.Namespace) -> int:
    sources: list[tuple[Path, str]] = []
    failed = False
    if not args.no_builtin:
        sources += [(p, "built-in") for p in builtin_files()]
    wrong = []
    for spec in split_specs(args.paths):
        try:
            sources += [(p, spec) for p in game_files(spec)]
        except GameFileError as exc:
            missing = not Path(spec).exists() and not Path(spec).is_symlink()
            error = unknown_game(spec) if missing else exc
            wrong.append(f"escapebench games: {error}")
    if wrong:
        # A PATH that names no game files is a mistake in the command, as in check: its
        # line and exit 2, not the built-in table with the error under it.
        print("\n".join(wrong), file=sys.stderr)
        return EXIT_USAGE
    rows: list[dict[str, object]] = []
    unplayable: list[str] = []
    for path, origin in sources:
        try:
            definitions = load_file(path)
        except (GameFileError, OSError) as exc:
            unplayable.append(f"{path.name.rsplit('.', 1)[0]}: {exc}")
            continue
        _, broken, _ = split_playable(definitions)
        unplayable += [str(u) for u in broken]
        bad = {u.setting for u in broken}
        rows += [{**describe(d, origin), "playable": d.setting not in bad} for d in definitions]
    if unplayable:
        failed = True
        listed = "\n  ".join(unplayable)
        print(f"escapebench games: {len(unplayable)} setting(s) cannot be played:\n  {listed}",
              file=sys.stderr)
    if args.json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
    elif rows:
        print_table(*table_rows(rows), right=_RIGHT)
    else:
        print("no games found", file=sys.stderr)
    return EXIT_PROBLEMS_FOUND if failed else EXIT_OK
