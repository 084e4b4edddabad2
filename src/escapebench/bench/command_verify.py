"""``escapebench verify RUN_DIR...``: check result folders without calling a model.

Every episode's logged actions are played again through the episode loop, the engine and the
hint system, under the protocol and rules ``run.json`` records, and every step record and
final metric is compared with the log and ``result.json`` (see :mod:`escapebench.bench.verify`).
One line per episode that fails, naming the first step that differs; then a verdict per folder
and in all. A folder that passes gets ``verified.json``, which ``escapebench report`` shows.
``--bundle OUT.zip`` packs one folder, its game files and a manifest of hashes for submission;
``escapebench verify OUT.zip`` checks such a bundle (its manifest, then every episode, with the
games it carries).

Exit status: 0 when every folder verifies, 1 when one does not, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from pathlib import Path

from escapebench.exit_codes import EXIT_OK, EXIT_PROBLEMS_FOUND, EXIT_USAGE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR",
                        help="result folders written by escapebench run (or play), or bundles "
                        "(.zip) written by --bundle")
    parser.add_argument(
        "--games", dest="games_dirs", action="append", type=Path, default=[], metavar="DIR",
        help="a folder holding the run's game files, where they are no longer at the paths "
        "run.json records (repeatable)",
    )
    parser.add_argument(
        "--original-source", type=Path, default=None, metavar="DIR",
        help="the original EscapeBench checkout, for a run of the original protocol whose "
        "recorded checkout is not here",
    )
    parser.add_argument(
        "--bundle", type=Path, default=None, metavar="OUT.zip",
        help="after verifying, pack the (one) folder with its game files and a manifest of "
        "sha256 hashes into this new zip file, for submission",
    )


def main(args: argparse.Namespace) -> int:
    from escapebench.bench.metrics import RESULT_VERSION
    from escapebench.bench.verify import (
        VerifyError,
        unpack_bundle,
        verify_run,
        withdraw_verified,
        write_bundle,
        write_verified,
    )

    if args.bundle is not None and len(args.run_dirs) != 1:
        print("escapebench verify: --bundle packs one folder; name exactly one RUN_DIR",
              file=sys.stderr)
        return EXIT_USAGE
    if args.bundle is not None and args.bundle.exists():
        print(f"escapebench verify: --bundle {args.bundle} exists; choose a new file",
              file=sys.stderr)
        return EXIT_USAGE
    all_ok = True
    episodes = failed = 0
    for folder in args.run_dirs:
        bundle = folder.is_file() and folder.suffix.lower() == ".zip"
        if not folder.is_dir() and not bundle:
            print(f"escapebench verify: {folder} is neither a result folder nor a bundle (.zip)",
                  file=sys.stderr)
            return EXIT_USAGE
        if bundle and args.bundle is not None:
            print("escapebench verify: --bundle packs a folder, not a bundle", file=sys.stderr)
            return EXIT_USAGE
        try:
            with contextlib.ExitStack() as stack:
                run_dir, games_dirs = folder, list(args.games_dirs)
                if bundle:
                    tmp = Path(stack.enter_context(
                        tempfile.TemporaryDirectory(prefix="escapebench-bundle-")))
                    run_dir, games = unpack_bundle(folder, tmp)
                    games_dirs.insert(0, games)
                check = verify_run(run_dir, games_dirs=games_dirs,
                                   original_source=args.original_source)
                check.folder = folder
        except VerifyError as exc:
            print(f"{folder}: NOT VERIFIED: {exc}")
            all_ok = False
            continue
        for problem in check.problems:
            print(f"{folder}: {problem}")
        for episode in check.failed:
            print(f"{folder}: {episode.episode_id}: {episode.problem}")
        episodes += len(check.episodes)
        failed += len(check.failed)
        rate = len(check.episodes) / check.seconds if check.seconds > 0 else 0.0
        if check.ok:
            if not bundle:
                write_verified(check)
            print(f"{folder}: VERIFIED: {len(check.episodes)} episodes, {check.steps} steps "
                  f"replayed as logged ({check.seconds:.1f} s, {rate:.1f} episodes/s)")
            for version, count in check.older_results().items():
                print(f"{folder}: note: {count} result(s) of result version {version}, scored "
                      f"by that version's tool-choice rule (checked by it); this escapebench "
                      f"writes version {RESULT_VERSION}, and tables keep the two apart "
                      "(docs/metrics.md)")
        else:
            all_ok = False
            if not bundle and withdraw_verified(folder):
                print(f"{folder}: its verified.json of an earlier check is removed")
            for note in check.notes:
                print(f"{folder}: note: {note}; the run was written by another escapebench")
            print(f"{folder}: NOT VERIFIED: {len(check.failed)} of {len(check.episodes)} "
                  f"episodes differ from their logs"
                  + (f"; {len(check.problems)} problem(s) of the folder" if check.problems
                     else ""))
    if len(args.run_dirs) > 1:
        verdict = "all verified" if all_ok else "NOT all verified"
        print(f"verdict: {verdict} ({len(args.run_dirs)} folders, {episodes} episodes, "
              f"{failed} failed)")
    if not all_ok:
        return EXIT_PROBLEMS_FOUND
    if args.bundle is not None:
        try:
            count = write_bundle(args.run_dirs[0], args.bundle, games_dirs=args.games_dirs)
        except (VerifyError, OSError) as exc:
            print(f"escapebench verify: --bundle: {exc}", file=sys.stderr)
            return EXIT_USAGE
        print(f"bundle: {args.bundle} ({count} files and MANIFEST.json with their sha256)")
    return EXIT_OK
