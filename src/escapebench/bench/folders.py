"""A result folder on disk: its ``run.json``, its tables, its lock and its storage faults.

The shared layout (the file names are in :mod:`escapebench.bench.records`)::

    RUN_DIR/run.json, results.csv, summary.csv, summary.md
    RUN_DIR/episodes/<episode_id>/steps.jsonl, result.json (checkpoint.jsonl while unfinished)

:func:`read_run_json` / :func:`write_run_json` read and write the run's description,
:func:`collect_results` and :func:`write_tables` the finished episodes and the tables rebuilt
from them, :func:`folder_lock` keeps a second run out of a folder in use, and
:func:`refuse_foreign_folder` / :func:`check_server_change` refuse a folder a run must not write
into. Written by the harness and by human play alike.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import json
import os
import platform
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from escapebench.bench.build import played_agent_name
from escapebench.bench.costs import Prices
from escapebench.bench.metrics import (
    EpisodeResult,
    ResultFileError,
    atomic_write_text,
    read_result_json,
)
from escapebench.bench.plan import RunPlan, normalized
from escapebench.bench.records import (
    EPISODES_DIR,
    RESULT_FILE,
    RESULTS_FILE,
    RUN_FILE,
    SUMMARY_CSV,
    SUMMARY_MD,
)
from escapebench.bench.result_tables import write_results_csv, write_summary_csv, write_summary_md
from escapebench.bench.settings import RunConfigError
from escapebench.bench.summaries import Summary, aggregate

RUN_FORMAT = 1


def read_run_json(folder: Path) -> dict[str, Any] | None:
    """The folder's ``run.json``, or None."""
    path = folder / RUN_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise RunConfigError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise RunConfigError(f"{path}: not a run description")
    return data


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _redacted_command(argv: Sequence[str]) -> list[str]:
    """The command line without credentials (URL user info, key-shaped arguments)."""
    if not any("://" in a or "sk-" in a or "bearer" in a.lower() for a in argv):
        return list(argv)  # nothing to scrub; spares model-free runs the HTTP client import
    from escapebench.llm.openai_client import redact, safe_url

    return [redact(safe_url(a) if "://" in a else a) for a in argv]


def check_server_change(existing: dict[str, Any], server: str | None, folder: Path, *,
                        allow: bool) -> None:
    """Refuse to resume ``folder`` against another server than the one it was played with
    (its numbers would mix two models' answers) unless ``allow``."""
    before = existing.get("server")
    if before is None or server is None or before == server or allow:
        return
    raise RunConfigError(
        f"{folder} was played against {before}, and this run would continue against "
        f"{server}: its episodes would mix two servers' answers. Use the original "
        "--base-url to resume, another --out for a new run, or --allow-server-change if "
        "both serve the same model (the change is recorded in run.json)"
    )


RESULT_FOLDER_ENTRIES = frozenset({RUN_FILE, RESULTS_FILE, SUMMARY_CSV, SUMMARY_MD,
                                   EPISODES_DIR, ".lock"})


def refuse_foreign_folder(folder: Path) -> None:
    """Refuse an ``--out`` folder that holds files but is not a result folder (no
    ``run.json``): writing episodes into someone's documents would mix them with files a
    report cannot tell from results, and a later clean-up would delete both."""
    if not folder.is_dir():
        return
    others = sorted(p.name for p in folder.iterdir() if p.name not in RESULT_FOLDER_ENTRIES)
    if others:
        shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5
                                         else "")
        raise RunConfigError(
            f"--out {folder} is not empty and is not a result folder (no {RUN_FILE}; it "
            f"holds {shown}); choose a new or empty folder"
        )


def write_run_json(plan: RunPlan, model_record: dict[str, Any] | None,
                   existing: dict[str, Any] | None, finished: bool,
                   server: str | None = None) -> None:
    """Write (or update) ``run.json`` with everything the results depend on, including the
    server that answered (``server``) and every change of it on resume."""
    s = plan.settings
    changes = list((existing or {}).get("server_changes") or [])
    before = (existing or {}).get("server")
    if before is not None and server is not None and before != server:
        changes.append({"from": before, "to": server, "at": _now()})
    games = {g["setting"]: g for g in (existing or {}).get("games", [])}
    games.update({g["setting"]: g for g in plan.games})
    data = {
        "format": RUN_FORMAT,
        **normalized(plan.fingerprint),
        # the agent that played --agent (escape under the original protocol: escape-original)
        "agent_played": played_agent_name(s)[0],
        "model_backend": model_record,
        "server": server if server is not None else (existing or {}).get("server"),
        "server_changes": changes,
        "games": [games[k] for k in sorted(games)],
        "protocol_source": (
            plan.protocol.record().get("source") if plan.protocol is not None else None
        ),
        "skipped": plan.skipped,  # settings --skip-unplayable left out, with the reason
        "repeats": max(s.repeats, int((existing or {}).get("repeats", 0))),
        "shard": list(s.shard) if s.shard else None,
        "concurrency": s.concurrency,
        "prices": (s.prices.record() if s.prices is not None
                   else (existing or {}).get("prices")),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "command_line": _redacted_command(s.command_line or sys.argv),
        "started": (existing or {}).get("started") or _now(),
        "finished": _now() if finished else None,
    }
    plan.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(plan.out / RUN_FILE, json.dumps(data, indent=1, default=str) + "\n")


# ---------------------------------------------------------------------- results
def collect_results(folder: Path) -> list[EpisodeResult]:
    """Every finished episode of a result folder, sorted by episode id.

    Raises :class:`RunConfigError` naming a ``result.json`` that cannot be read.
    """
    out = []
    episodes = folder / EPISODES_DIR
    if episodes.is_dir():
        for sub in sorted(episodes.iterdir()):
            path = sub / RESULT_FILE
            if path.is_file():
                try:
                    out.append(read_result_json(path))
                except ResultFileError as exc:
                    raise RunConfigError(str(exc)) from None
    return out


def write_tables(folder: Path, results: Sequence[EpisodeResult],
                 prices: Prices | None = None) -> list[Summary]:
    """Rebuild ``results.csv``, ``summary.csv`` and ``summary.md`` of a folder (with cost
    columns at ``prices``; without, at the prices its ``run.json`` records, if any)."""
    if prices is None:
        prices = Prices.from_record((read_run_json(folder) or {}).get("prices"))
    summaries = aggregate(results)
    write_results_csv(folder / RESULTS_FILE, results, prices)
    write_summary_csv(folder / SUMMARY_CSV, summaries, prices)
    write_summary_md(folder / SUMMARY_MD, summaries, title=f"escapebench results: {folder.name}",
                     prices=prices)
    return summaries


# ---------------------------------------------------------------------- the lock, storage faults
LOCK_FILE = ".lock"


class LockBusy(Exception):
    """Another process holds the lock (see :func:`exclusive_lock`)."""


@contextlib.contextmanager
def exclusive_lock(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_file`` (made if missing) while the block runs, or raise
    :class:`LockBusy` at once if another process holds it. The operating system releases it
    when the process dies, even by kill -9, so it never needs cleaning up. Without POSIX locks
    (Windows) the block runs unprotected."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no protection, as before
        yield
        return
    with open(lock_file, "a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise LockBusy(str(lock_file)) from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on a result folder for the duration of a run.

    Two processes appending to the same step logs would corrupt them; the second one is
    refused. The lock is released by the operating system when the process dies, even by
    kill -9, so it never needs cleaning up.
    """
    if folder.exists() and not folder.is_dir():
        raise RunConfigError(f"the result folder {folder} is a file; choose another --out")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunConfigError(
            f"cannot create the result folder {folder}: {exc.strerror or exc}"
        ) from None
    try:
        with exclusive_lock(folder / LOCK_FILE):
            yield
    except LockBusy:
        raise RunConfigError(
            f"{folder} is in use by another escapebench run; wait for it to finish or "
            "choose another --out"
        ) from None


# What a write into the result folder fails with when the disk, not the run, is the problem.
_STORAGE_ERRNOS = frozenset(
    getattr(errno, name) for name in
    ("ENOSPC", "EDQUOT", "EACCES", "EPERM", "EROFS", "EIO", "EFBIG", "ENOENT", "ESTALE")
    if hasattr(errno, name)
)


def is_storage_fault(exc: BaseException, folder: Path) -> bool:
    """Whether ``exc`` is a failed write into the result ``folder`` (the disk full, permission
    or the folder lost) rather than a problem of the episode: an OSError of the kinds a full
    or read-only disk gives, about a file in the folder (or about no file: a write on a file
    already open)."""
    if not isinstance(exc, OSError) or exc.errno not in _STORAGE_ERRNOS:
        return False
    if exc.filename is None:
        return True
    try:
        return Path(os.fsdecode(exc.filename)).resolve().is_relative_to(folder.resolve())
    except (OSError, ValueError, TypeError):
        return False


def storage_problem(exc: OSError) -> str:
    """``"<file>: <what went wrong>"`` for the message of a storage fault."""
    where = exc.filename if exc.filename is not None else "the result folder"
    return f"{where}: {exc.strerror or exc}"
