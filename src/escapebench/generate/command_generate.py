"""``escapebench generate --tier T --count N --seed S --out DIR [--knob k=v] [--graph]``:
write N proven games (each one file with its easy, normal and hard versions and its
reference chain), deterministic in tier, count, seed, knobs and generator version."""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from escapebench.exit_codes import EXIT_OK, EXIT_PROBLEMS_FOUND, EXIT_STORAGE, EXIT_USAGE
from escapebench.games.loading import GENERATED_LIST
from escapebench.generate.knobs import count_problem, knobs_for
from escapebench.generate.make import GENERATOR_VERSION, Generated, Progress, generate_games

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
    out = Path(args.out)
    problem = _out_problem(out)
    if problem is not None:  # said before the games are made, not after
        print(f"escapebench generate: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        games = generate_games(args.tier, args.count, args.seed, overrides,
                               progress=Progress(f"tier {args.tier}, {args.count} games"))
    except RuntimeError as exc:
        print(f"escapebench generate: {exc}", file=sys.stderr)
        return EXIT_PROBLEMS_FOUND
    try:
        _write_folder(out, games, args, overrides)
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        print(f"escapebench generate: cannot write {where}: {exc.strerror or exc}; {out} is "
              "as it was (free space and run the same command again)", file=sys.stderr)
        return EXIT_STORAGE
    rejects = sum(g.rejects for g in games)
    for g in games:
        print(f"{out / (g.game_id + '.yaml')}: {len(g.design.key_steps)} key steps, "
              f"{len(g.design.creative)} creative, {g.rejects} rejected before it")
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


def _out_problem(out: Path) -> str | None:
    """Why ``--out`` cannot take the games (None: it is new, empty, or a folder generate wrote
    whose files are all as it wrote them: it is replaced whole)."""
    if not out.exists() and not out.is_symlink():
        return None
    if not out.is_dir():
        return f"--out {out} is a file; choose a new or empty folder"
    names = sorted(p.name for p in out.iterdir())
    if not names:
        return None
    listed: dict[str, str] = {}
    try:
        data = json.loads((out / GENERATED_LIST).read_text(encoding="utf-8"))
        listed = {str(g["file"]): str(g["sha256"]) for g in data["games"]}
    except FileNotFoundError:
        pass
    except (OSError, ValueError, KeyError, TypeError):
        return (f"--out {out}: its {GENERATED_LIST} cannot be read, so which files generate "
                "wrote is unknown; choose a new or empty folder")
    ours = {GENERATED_LIST} | set(listed) | {f"{Path(f).stem}.png" for f in listed}
    others = [n for n in names if n not in ours] if listed else names
    changed = [f for f, sha in listed.items() if (out / f).is_file()
               and hashlib.sha256((out / f).read_bytes()).hexdigest() != sha]
    if others or changed:
        shown = (others + [f"{f} (changed since generated)" for f in changed])
        text = ", ".join(shown[:5]) + (f" and {len(shown) - 5} more" if len(shown) > 5 else "")
        return (f"--out {out} holds files generate did not write as they are ({text}); "
                "choose a new or empty folder")
    return None


def _write_folder(out: Path, games: list[Generated], args: argparse.Namespace,
                  overrides: dict[str, str]) -> None:
    """Write the games into a hidden folder beside ``out``, ``generated.json`` last, then put
    it in the place of ``out``: a kill or a full disk leaves ``out`` as it was, never a folder
    of some games without their list."""
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_left_behind(out)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.generating-{os.getpid()}-",
                                    dir=out.parent))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(staging, 0o777 & ~umask)  # mkdtemp's 0700 would stay on the renamed folder
        manifest = []
        for g in games:
            write_text(staging / f"{g.game_id}.yaml", g.text)
            manifest.append({"file": f"{g.game_id}.yaml", "sha256": g.sha256,
                             "rejects": g.rejects, "key_steps": len(g.design.key_steps),
                             "creative_steps": len(g.design.creative)})
            if args.graph:
                from escapebench.generate.graph import draw_design

                normal = next(d for d in g.settings if d.difficulty == "normal")
                draw_design(g.design, staging / f"{g.game_id}.png", normal)
        write_text(staging / GENERATED_LIST, json.dumps({
            "generator_version": GENERATOR_VERSION, "tier": args.tier, "count": args.count,
            "seed": args.seed, "knobs": overrides, "games": manifest,
        }, indent=1, sort_keys=True) + "\n")
        if out.is_dir() and any(out.iterdir()):  # a folder generate wrote: replaced whole
            old = out.parent / f".{out.name}.replaced-{os.getpid()}"
            os.rename(out, old)
            os.rename(staging, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, out)  # (an empty --out folder is replaced)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _remove_left_behind(out: Path) -> None:
    """Remove the hidden folders a killed ``generate`` into ``out`` left beside it (named with
    its process id; those of a process still running are left alone)."""
    for kind in ("generating", "replaced"):
        for folder in out.parent.glob(f".{glob.escape(out.name)}.{kind}-*"):
            pid = folder.name[len(f".{out.name}.{kind}-"):].split("-")[0]
            if not pid.isdigit() or not folder.is_dir() or folder.is_symlink():
                continue
            try:
                os.kill(int(pid), 0)
                continue  # still running
            except ProcessLookupError:
                shutil.rmtree(folder, ignore_errors=True)
            except (PermissionError, OverflowError, ValueError):
                continue


def write_text(path: Path, text: str) -> None:
    """Write one file of the new folder (where a full disk shows)."""
    path.write_text(text, encoding="utf-8")


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
