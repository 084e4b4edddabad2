"""Reading result folders for reports.

A result folder is written by the harness (``escapebench.bench``) or by human play, in the shared
layout: ``RUN_DIR/run.json``, ``results.csv`` and ``episodes/<id>/steps.jsonl`` plus
``result.json``. An episode is finished exactly when its ``result.json`` exists, so reports read
the numbers from there (the harness writes ``results.csv`` from the same objects). Reading is
tolerant of what a crash leaves behind (a torn last line of ``steps.jsonl``, a step only its
checkpoint holds yet, an episode without ``result.json``) and strict about what would make a
number wrong: a folder that is not a result folder or a result file that cannot be read is a
:class:`ReportInputError` naming the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from escapebench.bench.costs import Prices
from escapebench.bench.metrics import EpisodeResult
from escapebench.bench.records import (
    EPISODES_DIR,
    RESULT_FILE,
    STEPS_FILE,
    EpisodeLogError,
    read_episode_steps,
)
from escapebench.bench.records import RESULTS_FILE as RESULTS_CSV
from escapebench.bench.records import RUN_FILE as RUN_JSON

__all__ = [  # the layout's names are re-exported for the report modules
    "EPISODES_DIR",
    "RESULTS_CSV",
    "RESULT_FILE",
    "RUN_JSON",
    "STEPS_FILE",
    "Episode",
    "ReportInputError",
    "RunFolder",
    "all_results",
    "episode_key",
    "load_run",
    "load_runs",
    "read_episode",
    "read_json",
    "read_result",
    "recorded_prices",
    "safe_slug",
]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class ReportInputError(ValueError):
    """A result folder or file a report cannot use, with where and why."""


def episode_key(run_index: int, episode_id: str) -> str:
    """The key of an episode in a report (:attr:`Episode.key`): the episode ``episode_id`` of
    the report's result folder number ``run_index`` (an id that is not a safe file name of at
    most 100 characters gets a hash of the whole id: two episodes never share a key)."""
    from escapebench.bench.plan import name_part

    return f"{run_index}-{name_part(episode_id)}"


def safe_slug(text: str) -> str:
    """A file-name-safe form of ``text``: never empty, never a path, at most 120 characters."""
    return (_UNSAFE.sub("_", text).strip("._") or "x")[:120]


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from ``path``; raises :class:`ReportInputError` if it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReportInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportInputError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ReportInputError(f"{path}: expected a JSON object")
    return data


def read_episode(folder: Path) -> list[dict[str, Any]]:
    """The finished steps of an episode folder (see
    :func:`escapebench.bench.records.read_episode_steps`): a torn last line of the log is left
    out (the harness plays that step again on resume), a step that only its checkpoint holds
    is shown, a bad line in the middle is an error."""
    try:
        return read_episode_steps(folder)
    except OSError as exc:
        raise ReportInputError(f"{folder}: cannot read: {exc.strerror or exc}") from None
    except EpisodeLogError as exc:
        raise ReportInputError(str(exc)) from None


def run_defaults(run_info: dict[str, Any]) -> dict[str, Any]:
    """What a result folder's ``run.json`` says about the rules of its episodes (protocol,
    action format, hint options), for results written before they recorded these
    themselves."""
    out: dict[str, Any] = {}
    for key in ("protocol", "protocol_version", "action_format"):
        if isinstance(run_info.get(key), str):
            out[key] = run_info[key]
    protocol = run_info.get("protocol")
    if isinstance(protocol, dict):  # {"name", "version", "files", ...}, as escapebench run writes
        for key, field_name in (("name", "protocol"), ("version", "protocol_version")):
            if isinstance(protocol.get(key), str):
                out[field_name] = protocol[key]
    hints = run_info.get("hints")
    if isinstance(hints, dict):
        for key in ("patience", "help_steps"):
            if isinstance(hints.get(key), int):
                out[key] = hints[key]
    return out


def read_result(path: Path, defaults: dict[str, Any] | None = None) -> EpisodeResult:
    """An episode's ``result.json`` as an :class:`EpisodeResult`; ``defaults`` fill keys the
    file does not have (see :func:`run_defaults`)."""
    data = read_json(path)
    for key, value in (defaults or {}).items():
        if data.get(key) is None:
            data[key] = value
    try:
        return EpisodeResult.from_dict(data)
    except (TypeError, ValueError, KeyError) as exc:
        raise ReportInputError(f"{path}: not an episode result: {exc}") from None


def parse_episode_id(episode_id: str) -> dict[str, Any]:
    """Setting, agent, model slug and repeat from ``<setting>__<agent>__<model>__r<n>``.

    Used for unfinished episodes, which have no ``result.json`` yet.
    """
    parts = episode_id.split("__")
    out: dict[str, Any] = {"setting": episode_id, "agent": "", "model": "", "repeat": 0}
    if len(parts) >= 4 and re.fullmatch(r"r\d+", parts[-1]):
        out.update(
            setting=parts[0], agent=parts[1], model="__".join(parts[2:-1]),
            repeat=int(parts[-1][1:]),
        )
    return out


@dataclass
class Episode:
    """One episode of a result folder: its result (when finished) and where its log is."""

    run: RunFolder
    episode_id: str
    folder: Path
    result: EpisodeResult | None = None
    _steps: list[dict[str, Any]] | None = field(default=None, repr=False)

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def key(self) -> str:
        """Unique across the runs of one report and safe as a file name."""
        return episode_key(self.run.index, self.episode_id)

    @property
    def has_log(self) -> bool:
        return (self.folder / STEPS_FILE).is_file()

    def steps(self) -> list[dict[str, Any]]:
        """The step records (empty if the episode has no log)."""
        if self._steps is None:
            self._steps = read_episode(self.folder)
        return self._steps

    def forget_steps(self) -> None:
        """Drop the loaded log (reports read each log once; big runs stay small in memory)."""
        self._steps = None

    def describe(self) -> dict[str, Any]:
        """Setting, difficulty, agent, model, player and repeat, finished or not."""
        r = self.result
        if r is not None:
            return {
                "setting": r.setting, "game": r.game, "difficulty": r.difficulty,
                "agent": r.agent, "model": r.model, "player": r.player, "repeat": r.repeat,
            }
        out = parse_episode_id(self.episode_id)
        out.update(game="", difficulty="", player="")
        if "~" in out["setting"]:  # a shortened name with a hash: the run.json names it whole
            from escapebench.bench.plan import name_part

            for rec in self.run.run_info.get("games") or []:
                if isinstance(rec, dict) and name_part(str(rec.get("setting"))) == out["setting"]:
                    out["setting"] = str(rec["setting"])
        return out


@dataclass
class RunFolder:
    """A result folder as a report reads it."""

    path: Path
    index: int
    run_info: dict[str, Any]
    episodes: list[Episode] = field(default_factory=list)

    @property
    def label(self) -> str:
        """A short name for menus: the folder name."""
        return self.path.name or str(self.path)

    @property
    def results(self) -> list[EpisodeResult]:
        """Results of the finished episodes."""
        return [e.result for e in self.episodes if e.result is not None]


def _episode_folders(path: Path) -> Iterator[Path]:
    folder = path / EPISODES_DIR
    if folder.is_dir():
        yield from sorted(p for p in folder.iterdir() if p.is_dir())


def _is_result_folder(path: Path) -> bool:
    return any((path / name).exists() for name in (RESULTS_CSV, RUN_JSON, EPISODES_DIR))


def _result_folders_inside(parent: Path, shown: int = 3) -> str:
    """``"; it holds 2 result folders (runs/a, runs/b): did you mean runs/*?"`` for a folder
    of result folders (``runs/``, where ``escapebench run`` writes them); else ""."""
    try:
        inside = sorted(c for c in parent.iterdir() if c.is_dir() and _is_result_folder(c))
    except OSError:
        return ""
    if not inside:
        return ""
    names = ", ".join(str(c) for c in inside[:shown]) + (", ..." if len(inside) > shown else "")
    count = f"{len(inside)} result folder{'s' if len(inside) != 1 else ''}"
    return f"; it holds {count} ({names}): did you mean {parent / '*'}?"


def load_run(path: str | Path, index: int = 0) -> RunFolder:
    """Read one result folder (results of finished episodes; logs are read on demand)."""
    p = Path(path)
    if not p.is_dir():
        raise ReportInputError(f"{p}: no such result folder")
    if not _is_result_folder(p):
        raise ReportInputError(
            f"{p}: not a result folder (no {RESULTS_CSV}, {RUN_JSON} or {EPISODES_DIR}/)"
            + _result_folders_inside(p)
        )
    run_info = read_json(p / RUN_JSON) if (p / RUN_JSON).is_file() else {}
    run = RunFolder(p, index, run_info)
    defaults = run_defaults(run_info)
    for folder in _episode_folders(p):
        result_path = folder / RESULT_FILE
        result = read_result(result_path, defaults) if result_path.is_file() else None
        run.episodes.append(Episode(run, folder.name, folder, result))
    return run


def load_runs(paths: Iterable[str | Path]) -> list[RunFolder]:
    """Read several result folders; the same folder named twice is read once."""
    out: list[RunFolder] = []
    seen: set[Path] = set()
    for path in paths:
        resolved = Path(path).resolve()
        if resolved in seen:
            continue
        seen.add(resolved)
        out.append(load_run(path, len(out)))
    return out


def all_results(runs: Iterable[RunFolder]) -> list[EpisodeResult]:
    """The results of every finished episode of ``runs``."""
    return [r for run in runs for r in run.results]


def recorded_prices(runs: Sequence[RunFolder]) -> Prices | None:
    """The prices the runs' ``run.json`` record, when every run records the same ones."""
    found = {Prices.from_record(r.run_info.get("prices")) for r in runs}
    return found.pop() if len(found) == 1 else None
