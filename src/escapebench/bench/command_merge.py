"""``escapebench merge DIR... --out DIR``: combine the result folders of a sharded run.

The folders must come from the same settings (every result-affecting key of ``run.json`` is
equal, and games present in several folders have the same file hashes) and must not hold the
same episode twice; shards played against different servers are refused unless
``--allow-server-change`` (then recorded in ``server_changes``, as ``run`` does). The planned
suite (every game of ``run.json`` times its repeats) must be there whole, whatever shard counts
made it: missing episodes are named and the merge is refused, unless ``--partial`` (which
records what is missing in the merged ``run.json``). Episode folders are copied;
``results.csv`` and the summaries are rebuilt from the episodes' ``result.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from escapebench.bench.episode import RESULT_FILE
from escapebench.bench.folders import collect_results, read_run_json, write_tables
from escapebench.bench.metrics import ResultFileError, atomic_write_text, read_result_json
from escapebench.bench.plan import FINGERPRINT_DEFAULTS, FINGERPRINT_KEYS, compatible
from escapebench.bench.records import EPISODES_DIR, RUN_FILE
from escapebench.bench.result_tables import print_table
from escapebench.bench.settings import RunConfigError
from escapebench.exit_codes import EXIT_OK, EXIT_USAGE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``escapebench merge``."""
    parser.add_argument("folders", nargs="+", type=Path, metavar="DIR",
                        help="result folders of the shards")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="the combined result folder (must not exist or be empty)")
    parser.add_argument("--quiet", action="store_true", help="do not print the table")
    parser.add_argument("--partial", action="store_true",
                        help="merge although shards or episodes of the planned suite are "
                        "missing (recorded in run.json); refused without it")
    parser.add_argument("--allow-server-change", action="store_true",
                        help="merge shards played against different servers (as run's "
                        "option: the changes are recorded in run.json's server_changes)")


def missing_from_plan(runs: list[dict[str, Any]], present: set[str]) -> tuple[list[str],
                                                                              list[str]]:
    """(missing shards as ``"i/n"``, missing episode ids) of the suite ``runs`` planned:
    every game their ``run.json`` lists, times the repeats, under their agent and model."""
    from escapebench.bench.plan import episode_id, legacy_episode_id

    first = runs[0]
    settings = sorted({g["setting"] for r in runs for g in r.get("games", []) if "setting" in g})
    repeats = max(int(r.get("repeats") or 1) for r in runs)
    agent, model = str(first.get("agent") or ""), str(first.get("model") or "")
    missing = sorted(
        episode_id(s, agent, model, n) for s in settings for n in range(repeats)
        if episode_id(s, agent, model, n) not in present
        and legacy_episode_id(s, agent, model, n) not in present  # an earlier escapebench's
    ) if agent else []
    # The suite is whole when every planned episode is there once, whatever shards made it
    # (1/2 with 2/3, or one folder run as 1/2 then 2/2). When episodes are missing and the
    # folders are shards of one count, the shards not given are named as a hint.
    shards = {tuple(r["shard"]) for r in runs if isinstance(r.get("shard"), list)
              and len(r["shard"]) == 2}
    missing_shards: list[str] = []
    counts = {n for _, n in shards}
    if missing and len(counts) == 1 and len(shards) == len(runs):
        (of,) = counts
        missing_shards = [f"{i}/{of}" for i in range(1, of + 1) if (i, of) not in shards]
    return missing_shards, missing


def merged_server(folders: list[Path], runs: list[dict[str, Any]], *,
                  allow: bool) -> tuple[str | None, list[dict[str, Any]]]:
    """The server and ``server_changes`` of the merged folder, as ``run`` records them on a
    resume: shards played against different servers are refused unless ``allow`` (their
    numbers would mix two models' answers), and each change is recorded."""
    order = sorted(range(len(runs)), key=lambda i: str(runs[i].get("started") or ""))
    changes: list[dict[str, Any]] = []
    server: str | None = None
    first_folder: Path | None = None
    for i in order:
        run, folder = runs[i], folders[i]
        changes += [c for c in run.get("server_changes") or [] if isinstance(c, dict)]
        now = run.get("server")
        if now is None:
            continue
        if server is not None and now != server:
            if not allow:
                raise RunConfigError(
                    f"{first_folder} was played against {server} and {folder} against {now}: "
                    "merged, their episodes would mix two servers' answers. Merge shards of "
                    "one server, or pass --allow-server-change if both serve the same model "
                    "(the change is recorded in run.json)"
                )
            changes.append({"from": server, "to": now, "at": run.get("started"),
                            "folder": str(folder)})
        if server is None:
            first_folder = folder
        server = now
    return server, changes


def merge_folders(folders: list[Path], out: Path, *, partial: bool = False,
                  allow_server_change: bool = False) -> tuple[int, int]:
    """Combine ``folders`` into ``out``; return (episodes, unfinished episodes).

    Raises :class:`RunConfigError` when the folders cannot be combined, or when shards or
    episodes of the planned suite are missing and ``partial`` is false; nothing is written
    then.
    """
    if out.exists() and not out.is_dir():
        raise RunConfigError(f"{out} is a file; --out must be a new or empty folder")
    if out.exists() and any(out.iterdir()):
        raise RunConfigError(f"{out} exists and is not empty; choose a new --out folder")
    runs: list[dict[str, Any]] = []
    for folder in folders:
        if folder.resolve() == out.resolve():
            raise RunConfigError(f"{folder}: the output folder cannot be one of the inputs")
        run = read_run_json(folder)
        if run is None:
            raise RunConfigError(f"{folder}: no {RUN_FILE}; not a result folder")
        runs.append(run)
    first = runs[0]
    fingerprint = {k: first.get(k, FINGERPRINT_DEFAULTS.get(k)) for k in FINGERPRINT_KEYS}
    for folder, run in zip(folders[1:], runs[1:], strict=True):
        problems = compatible(
            run, fingerprint, first.get("games", []),
            existing_is=f"in {folder}", new_is=f"in {folders[0]}",
        )
        if problems:
            raise RunConfigError(
                f"cannot merge {folder} with {folders[0]}: they were run with different "
                "settings, and only runs of the same settings can be merged:\n  "
                + "\n  ".join(problems)
            )
    server = merged_server(folders, runs, allow=allow_server_change)
    # Episode folders: refuse duplicates before copying anything.
    sources: dict[str, Path] = {}
    for folder in folders:
        episodes = folder / EPISODES_DIR
        for sub in sorted(episodes.iterdir()) if episodes.is_dir() else []:
            if not sub.is_dir():
                continue
            if sub.name in sources:
                raise RunConfigError(
                    f"episode {sub.name} is in both {sources[sub.name].parent.parent} and "
                    f"{folder}; shards must not overlap"
                )
            sources[sub.name] = sub
    missing_shards, missing = missing_from_plan(runs, set(sources))
    if (missing_shards or missing) and not partial:
        raise RunConfigError(
            "the folders do not hold the whole planned suite: " + describe_missing(
                missing_shards, missing) + "; merge every shard's folder, or pass --partial "
            "to merge what there is (what is missing is recorded in run.json)"
        )
    for src in sources.values():  # the tables are rebuilt from these: refuse damage now
        if (src / RESULT_FILE).is_file():
            try:
                read_result_json(src / RESULT_FILE)
            except ResultFileError as exc:
                raise RunConfigError(str(exc)) from None
    # Built in a hidden folder next to --out and renamed at the end: an interrupted merge
    # leaves no half-merged folder that a second try would refuse as "not empty".
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.merging-", dir=out.parent))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(staging, 0o777 & ~umask)  # mkdtemp's 0700 would stay on the renamed folder
        _fill(staging, folders, runs, sources, (missing_shards, missing), server)
        os.replace(staging, out)  # (an empty --out folder is replaced)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return len(sources), sum(not (src / RESULT_FILE).is_file() for src in sources.values())


def describe_missing(missing_shards: list[str], missing: list[str]) -> str:
    """``"shard 2/2 missing; 3 episodes missing: a, b, c"``."""
    parts = []
    if missing_shards:
        parts.append(f"shard{'s' if len(missing_shards) > 1 else ''} "
                     f"{', '.join(missing_shards)} missing")
    if missing:
        shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more"
                                          if len(missing) > 10 else "")
        parts.append(f"{len(missing)} planned episode{'s' if len(missing) > 1 else ''} "
                     f"missing: {shown}")
    return "; ".join(parts)


def _fill(out: Path, folders: list[Path], runs: list[dict[str, Any]],
          sources: dict[str, Path], missing: tuple[list[str], list[str]],
          server: tuple[str | None, list[dict[str, Any]]]) -> None:
    """Copy the episodes into ``out`` and write its ``run.json``."""
    first = runs[0]
    (out / EPISODES_DIR).mkdir(parents=True, exist_ok=True)
    for name, src in sources.items():
        shutil.copytree(src, out / EPISODES_DIR / name)
    unfinished = sum(not (src / RESULT_FILE).is_file() for src in sources.values())
    games: dict[str, Any] = {}
    for run in runs:
        games.update({g["setting"]: g for g in run.get("games", [])})
    merged = {
        **{k: v for k, v in first.items() if k not in ("shard", "command_line")},
        "games": [games[k] for k in sorted(games)],
        "repeats": max(int(r.get("repeats") or 1) for r in runs),
        "server": server[0],
        "server_changes": server[1],
        "shard": None,
        "partial": {"missing_shards": missing[0], "missing_episodes": missing[1]}
        if missing[0] or missing[1] else None,
        "merged_from": [
            {"folder": str(f), "shard": r.get("shard"), "command_line": r.get("command_line")}
            for f, r in zip(folders, runs, strict=True)
        ],
        "started": min((str(r.get("started") or "") for r in runs), default=""),
        "finished": None if unfinished or missing[1] or any(not r.get("finished") for r in runs)
        else max(str(r["finished"]) for r in runs),
    }
    atomic_write_text(out / RUN_FILE, json.dumps(merged, indent=1) + "\n")


def main(args: argparse.Namespace) -> int:
    """Merge, rebuild the tables, print the Table-3 summary."""
    try:
        count, unfinished = merge_folders(list(args.folders), args.out, partial=args.partial,
                                          allow_server_change=args.allow_server_change)
    except (RunConfigError, OSError) as exc:
        print(f"escapebench merge: {exc}", file=sys.stderr)
        return EXIT_USAGE
    summaries = write_tables(args.out, collect_results(args.out))
    if not args.quiet and summaries:
        print_table(summaries)
    print(f"merged {count} episodes into {args.out}", file=sys.stderr)
    merged = read_run_json(args.out) or {}
    if merged.get("partial"):
        p = merged["partial"]
        print("warning: a partial suite: " + describe_missing(
            p["missing_shards"], p["missing_episodes"]), file=sys.stderr)
    if unfinished:
        print(f"warning: {unfinished} episodes are unfinished; resume them in their shard "
              "folders and merge again", file=sys.stderr)
    return EXIT_OK
