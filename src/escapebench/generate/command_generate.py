"""``escapebench generate --tier T --count N --seed S --out DIR [--knob k=v] [--graph]``:
write N proven games (each one file with its easy, normal and hard versions and its
reference chain), deterministic in tier, count, seed, knobs and generator version."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from escapebench.exit_codes import EXIT_OK, EXIT_PROBLEMS_FOUND, EXIT_USAGE
from escapebench.generate.knobs import count_problem, knobs_for
from escapebench.generate.make import GENERATOR_VERSION, generate_games

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``escapebench generate``."""
    parser.add_argument("--tier", type=int, default=2, help="difficulty tier 1-5 (default 2)")
    parser.add_argument("--count", type=int, default=1, help="games to write (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--out", default="generated", help="folder to write (default generated)")
    parser.add_argument("--knob", action="append", default=[], metavar="NAME=VALUE",
                        help="override one knob of the tier (repeatable)")
    parser.add_argument("--graph", action="store_true",
                        help="also draw each game's dependency graph as <game>.png")
    parser.add_argument("--from", dest="draw_from", metavar="SPEC",
                        help="with --graph: draw the games SPEC names (built-in, files, "
                        "original folders) instead of generating")


def main(args: argparse.Namespace) -> int:
    """Generate, prove and write the games; print one line per game and the rejects."""
    overrides: dict[str, str] = {}
    for kv in args.knob:
        name, sep, value = kv.partition("=")
        if not sep:
            print(f"escapebench generate: --knob {kv!r}: expected NAME=VALUE", file=sys.stderr)
            return EXIT_USAGE
        overrides[name.strip()] = value.strip()
    try:
        knobs_for(args.tier, overrides)
        problem = count_problem(args.count, what="--count")
        if problem is not None:
            raise ValueError(problem)
    except ValueError as exc:
        print(f"escapebench generate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.draw_from:
        return _draw_existing(args)
    try:
        games = generate_games(args.tier, args.count, args.seed, overrides)
    except RuntimeError as exc:
        print(f"escapebench generate: {exc}", file=sys.stderr)
        return EXIT_PROBLEMS_FOUND
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rejects = 0
    manifest = []
    for g in games:
        (out / f"{g.game_id}.yaml").write_text(g.text, encoding="utf-8")
        rejects += g.rejects
        manifest.append({"file": f"{g.game_id}.yaml", "sha256": g.sha256, "rejects": g.rejects,
                         "key_steps": len(g.design.key_steps),
                         "creative_steps": len(g.design.creative)})
        print(f"{out / (g.game_id + '.yaml')}: {len(g.design.key_steps)} key steps, "
              f"{len(g.design.creative)} creative, {g.rejects} rejected before it")
        if args.graph:
            from escapebench.generate.graph import draw_design

            normal = next(d for d in g.settings if d.difficulty == "normal")
            draw_design(g.design, out / f"{g.game_id}.png", normal)
    (out / "generated.json").write_text(json.dumps({
        "generator_version": GENERATOR_VERSION, "tier": args.tier, "count": args.count,
        "seed": args.seed, "knobs": overrides, "games": manifest,
    }, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    # Each game comes in several versions (easy, normal, hard): --count 3 is 9 settings to
    # play, which a run of them shows; said here so that the count is no surprise.
    settings = sum(len(g.settings) for g in games)
    versions = list(dict.fromkeys(d.difficulty for g in games for d in g.settings))
    each = ", ".join(versions[:-1]) + f" and {versions[-1]}" if len(versions) > 1 else (
        "".join(versions))
    print(f"{len(games)} game{'s' if len(games) != 1 else ''} written to {out}: "
          f"{settings} setting{'s' if settings != 1 else ''} to play ({each} of each); "
          f"{rejects} candidates rejected ({rejects / (rejects + len(games)):.0%})")
    return EXIT_OK


def _draw_existing(args: argparse.Namespace) -> int:
    from escapebench.games.loading import GameFileError, load_games
    from escapebench.generate.graph import draw_definition

    try:
        defs = [d for d in load_games([args.draw_from]) if d.difficulty == "normal"]
    except GameFileError as exc:
        print(f"escapebench generate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for d in defs:
        print(draw_definition(d, out / f"{d.setting}.png"))
    return EXIT_OK
