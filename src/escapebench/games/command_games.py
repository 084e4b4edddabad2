"""``escapebench games [PATH...]``: list the built-in games and those found in PATHs.

One row per setting: setting, difficulty, scenes, key steps, tools, oracle steps and title.
Files that cannot be loaded and settings that cannot be played (check errors) are all reported
on standard error, each with its reason (and the exit status is 1); the others are still listed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from escapebench.engine.model import GameDefinition
from escapebench.exit_codes import EXIT_OK, EXIT_PROBLEMS_FOUND
from escapebench.games.loading import GameFileError, builtin_files, game_files, load_file
from escapebench.games.playable import split_playable
from escapebench.games.reference import replay_reference


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="more game files or folders to list"
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


def format_table(rows: list[dict[str, object]]) -> str:
    cells = [list(HEADERS)] + [
        ["-" if r[k] is None else str(r[k]) for k in KEYS] for r in rows
    ]
    widths = [max(len(row[c]) for row in cells) for c in range(len(KEYS))]
    lines = []
    for n, row in enumerate(cells):
        parts = [
            cell.rjust(w) if KEYS[c] in NUMERIC else cell.ljust(w)
            for c, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(parts).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    sources: list[tuple[Path, str]] = []
    failed = False
    if not args.no_builtin:
        sources += [(p, "built-in") for p in builtin_files()]
    for spec in args.paths:
        try:
            sources += [(p, spec) for p in game_files(spec)]
        except GameFileError as exc:
            print(f"escapebench games: {exc}", file=sys.stderr)
            failed = True
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
        print(format_table(rows))
    else:
        print("no games found", file=sys.stderr)
    return EXIT_PROBLEMS_FOUND if failed else EXIT_OK
