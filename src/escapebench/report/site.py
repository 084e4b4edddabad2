"""Writing the static report folder: ``index.html``, figures, tables and viewer data.

The folder works opened from disk (``file://``): no server, no network, no CDN. Data the page's
scripts need is written as small ``.js`` files that assign to a global, because browsers do not
let pages opened from disk ``fetch`` files next to them; the trajectory viewer loads one
episode's file when it is picked.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jinja2

from escapebench import __version__
from escapebench.bench.costs import Prices
from escapebench.bench.verify import verification_status
from escapebench.report import tables
from escapebench.report.figures import Figure, draw_all
from escapebench.report.games import GamePage, game_pages
from escapebench.report.out_folder import report_folder
from escapebench.report.runs import (
    RESULT_FILE,
    STEPS_FILE,
    Episode,
    RunFolder,
    all_results,
    load_runs,
    recorded_prices,
)
from escapebench.report.trajectory import viewer_payload

PACKAGE_DIR = Path(__file__).parent
TEMPLATES_DIR = PACKAGE_DIR / "templates"
STATIC_DIR = PACKAGE_DIR / "static"
REPORT_ASSETS = ("style.css", "dom.js", "viewer.js")
# run.json fields shown in the report's list of result folders (run.json holds no keys, and only
# these named fields are copied into the page).
RUN_INFO_FIELDS = (
    "agent",
    "model",
    "model_backend",
    "agent_settings",
    "sampling",
    "hints",
    "max_steps",
    "repeats",
    "escapebench_version",
    "prompt_version",
    "observation_version",
    "started",
    "finished",
    "command_line",
    "skipped",
)


@dataclass
class ReportResult:
    """What :func:`build_report` wrote."""

    out_dir: Path
    index_html: Path
    episodes: int
    finished: int
    figures: list[Figure]
    tables: list[tables.Table]
    games: list[GamePage]


def template_environment(templates_dir: Path = TEMPLATES_DIR) -> jinja2.Environment:
    """The Jinja2 environment of the templates in ``templates_dir`` (the report's by default;
    the serve pages are :mod:`escapebench.web`'s), autoescape always on."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = lambda v: "–" if v is None else f"{100 * float(v):.1f}%"
    return env


def js_assignment(name: str, data: Any) -> str:
    """``window.<name> = <json>;`` -- a data file a page opened from disk can load."""
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return f"window.{name} = {payload};\n"


def js_callback(function: str, data: Any) -> str:
    """``<function>(<json>);`` -- an episode file that hands its data to the viewer."""
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return f"{function}({payload});\n"


def _run_info(run: RunFolder) -> dict[str, Any]:
    info = {k: run.run_info[k] for k in RUN_INFO_FIELDS if k in run.run_info}
    return {
        "index": run.index,
        "label": run.label,
        "path": str(run.path),
        "episodes": len(run.episodes),
        "finished": sum(1 for e in run.episodes if e.finished),
        "info": info,
        # "verified" (escapebench verify passed and nothing changed since), "changed since
        # verified", or None (never verified)
        "verified": verification_status(run.path),
    }


def _episode_entry(ep: Episode, hint_steps: list[int], steps: int,
                   pages: dict[tuple[int, str], GamePage]) -> dict[str, Any]:
    r = ep.result
    info = ep.describe()
    page = pages.get((ep.run.index, info["setting"]))
    return {
        "key": ep.key,
        "episode_id": ep.episode_id,
        "run": ep.run.index,
        **info,
        "finished": ep.finished,
        "escaped": bool(r and r.escaped),
        "total_steps": r.total_steps if r else steps,
        "hints_used": r.hints_used if r else len(hint_steps),
        "progress": r.progress if r else None,
        "series": tables.agent_label(info["agent"], info["model"]),
        "game_page": page.page if page is not None else None,
    }


class _EpisodeCache:
    """Each episode's viewer data as an earlier build made it, valid while the episode's files
    (its step log and result) have the same size and time and the report the same version."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.used: set[str] = set()
        folder.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def _signature(ep: Episode) -> list[Any]:
        out: list[Any] = [__version__, ep.key, ep.episode_id, ep.run.index]
        for name in (STEPS_FILE, RESULT_FILE):
            try:
                st = (ep.folder / name).stat()
                out.append([name, st.st_mtime_ns, st.st_size])
            except OSError:
                out.append([name, None])
        return out

    def get(self, ep: Episode, target: Path) -> tuple[list[int], int] | None:
        """Copy the kept viewer data to ``target``; (hint steps, steps), or None if not kept."""
        self.used.add(ep.key)
        try:
            meta = json.loads((self.folder / f"{ep.key}.json").read_text(encoding="utf-8"))
            if meta["signature"] != self._signature(ep):
                return None
            shutil.copyfile(self.folder / f"{ep.key}.js", target)
            return list(meta["hint_steps"]), int(meta["steps"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, ep: Episode, made: Path, hint_steps: list[int], steps: int) -> None:
        """Keep the viewer data just written to ``made``."""
        shutil.copyfile(made, self.folder / f"{ep.key}.js")
        meta = {"signature": self._signature(ep), "hint_steps": hint_steps, "steps": steps}
        (self.folder / f"{ep.key}.json").write_text(json.dumps(meta), encoding="utf-8")

    def prune(self) -> None:
        """Forget episodes this build did not show (a folder no longer served)."""
        for f in self.folder.iterdir():
            if f.stem not in self.used:
                f.unlink(missing_ok=True)


def build_report(
    run_dirs: Sequence[str | Path] | Iterable[RunFolder],
    out_dir: str | Path,
    *,
    title: str = "EscapeBench report",
    links: dict[str, str] | None = None,
    cache_dir: Path | None = None,
    prices: Prices | None = None,
) -> ReportResult:
    """Write the static report of ``run_dirs`` into ``out_dir``.

    ``links`` adds navigation links to the page header (the server adds "Play").
    ``cache_dir`` keeps what an earlier build made from the same inputs: figures per set of
    results (see ``figures.draw_all``) and each episode's viewer data per state of its files.
    ``escapebench serve`` rebuilds whenever a step of a live run is written; with the cache
    only what changed is made again. ``prices`` price the usage table (without them, the
    prices the runs' ``run.json`` record when they all record the same).

    ``out_dir`` must be new, empty or a folder a report wrote before (see
    :mod:`escapebench.report.out_folder`: the marker, the lock, the build in a temporary folder
    moved into place); else :class:`ReportInputError` says why, and nothing is written.
    """
    items = list(run_dirs)
    runs = (
        items if items and isinstance(items[0], RunFolder)  # type: ignore[list-item]
        else load_runs(items)  # type: ignore[arg-type]
    )
    out = Path(out_dir)
    with report_folder(out) as folder:
        result = _write_report(runs, folder.new, title=title, links=links, cache_dir=cache_dir,
                               games_cache=cache_dir or folder.cache, prices=prices)
        folder.commit()
    result.out_dir, result.index_html = out, out / "index.html"
    return result


def _write_report(runs: Sequence[RunFolder], out: Path, *, title: str,
                  links: dict[str, str] | None, cache_dir: Path | None, games_cache: Path,
                  prices: Prices | None) -> ReportResult:
    """Write the report of ``runs`` into the new folder ``out``."""
    episodes_dir = out / "data" / "episodes"
    episodes_dir.mkdir(parents=True, exist_ok=True)

    games = game_pages(runs, out, games_cache)
    pages = _pages_by_setting(runs, games)
    entries = []
    episode_cache = None if cache_dir is None else _EpisodeCache(cache_dir / "episodes")
    for run in runs:
        for ep in run.episodes:
            target = episodes_dir / f"{ep.key}.js"
            kept = None if episode_cache is None else episode_cache.get(ep, target)
            if kept is None:
                steps = ep.steps()
                payload = viewer_payload(ep)
                kept = payload["hint_steps"], len(steps)
                target.write_text(js_callback("EB_EPISODE_LOADED", payload), encoding="utf-8")
                ep.forget_steps()  # each log is needed once; keeps memory flat on big runs
                if episode_cache is not None:
                    episode_cache.put(ep, target, *kept)
            entries.append(_episode_entry(ep, *kept, pages))
    if episode_cache is not None:
        episode_cache.prune()

    results = all_results(runs)
    figures = draw_all(
        results, out, cache_dir=None if cache_dir is None else cache_dir / "figures"
    )
    shown = tables.all_tables(results, prices or recorded_prices(runs))

    (out / "data" / "index.js").write_text(
        js_assignment(
            "EB_INDEX", {"runs": [_run_info(r) for r in runs], "episodes": entries}
        ),
        encoding="utf-8",
    )
    assets = out / "assets"
    assets.mkdir(exist_ok=True)
    for name in REPORT_ASSETS:
        shutil.copyfile(STATIC_DIR / name, assets / name)

    env = template_environment()
    html = env.get_template("report.html.j2").render(
        title=title,
        version=__version__,
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        runs=[_run_info(r) for r in runs],
        tables=shown,
        figures=figures,
        episodes=len(entries),
        finished=sum(1 for e in entries if e["finished"]),
        links=links or {},
        games=games,
    )
    index = out / "index.html"
    index.write_text(html, encoding="utf-8")
    game_template = env.get_template("game.html.j2")
    for game in games:
        (out / game.page).write_text(
            game_template.render(title=title, version=__version__, game=game,
                                 links=links or {}), encoding="utf-8")
    (out / "tables.md").write_text(
        "\n\n".join(f"## {t.title}\n\n{t.caption}\n\n{tables.markdown(t)}" for t in shown)
        + "\n",
        encoding="utf-8",
    )
    return ReportResult(out, index, len(entries), sum(1 for e in entries if e["finished"]),
                        figures, shown, games)


def _pages_by_setting(runs: Sequence[RunFolder], games: Sequence[GamePage]
                      ) -> dict[tuple[int, str], GamePage]:
    """(run index, setting) -> the page of the game that run played under that name."""
    out: dict[tuple[int, str], GamePage] = {}
    for run in runs:
        for rec in run.run_info.get("games") or []:
            if not isinstance(rec, dict):
                continue
            game = str(rec.get("game") or rec.get("setting"))
            match = [g for g in games if g.game == game and rec.get("setting") in g.settings]
            if match:
                out[(run.index, str(rec.get("setting")))] = match[0]
    return out
