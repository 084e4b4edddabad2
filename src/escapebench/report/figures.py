"""The paper's figures drawn from our results with matplotlib (Agg backend, PNG files).

Every function takes the finished episodes' :class:`EpisodeResult` objects, saves one PNG under
``<out>/figures/`` and returns a :class:`Figure`, or None when the results hold nothing to draw.
Averages come from :mod:`escapebench.bench.summaries` through :func:`tables.summaries`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display; must come before pyplot is imported

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure as MplFigure  # noqa: E402

from escapebench import __version__  # noqa: E402
from escapebench.bench.metrics import KEY_STEP_VERBS, EpisodeResult  # noqa: E402
from escapebench.bench.summaries import Summary  # noqa: E402
from escapebench.report.tables import HUMAN_LABEL, agent_label, summaries  # noqa: E402

DIFFICULTIES = ("easy", "normal", "hard")
HINT_COLOR = "#d62728"
HUMAN_SERIES = HUMAN_LABEL
# Bins of steps between progress events (figure 8); hints come after 50 idle steps, so the
# 50-60 bin holds the progress made through hints.
INTERVAL_BINS: tuple[tuple[int, int, str], ...] = (
    (1, 1, "1"),
    (2, 5, "2–5"),
    (6, 10, "6–10"),
    (11, 15, "11–15"),
    (16, 30, "16–30"),
    (31, 49, "31–49"),
    (50, 60, "50–60"),
    (61, 10**9, ">60"),
)
MAX_GAME_PANELS = 12


@dataclass(frozen=True)
class Figure:
    """A figure written to disk."""

    id: str
    title: str
    caption: str
    filename: str  # relative to the report folder


def _series(r: EpisodeResult | Summary) -> str:
    return agent_label(r.agent, r.model)


def _order(names: Sequence[str]) -> list[str]:
    return sorted(set(names), key=lambda n: (n == HUMAN_SERIES, n))


def _color(series: str, order: list[str]) -> object:
    if series == HUMAN_SERIES:
        return "black"
    return plt.get_cmap("tab10")(order.index(series) % 10 if series in order else 0)


def _linestyle(series: str) -> str:
    return ":" if series.startswith("escape") else "-"  # EscapeAgent dotted, as in fig. 6


def _save(fig: MplFigure, out_dir: Path, name: str) -> str:
    rel = f"figures/{name}.png"
    (out_dir / "figures").mkdir(parents=True, exist_ok=True)
    fig.savefig(out_dir / rel, dpi=150)
    plt.close(fig)
    return rel


def _grouped_bars(
    ax: plt.Axes, groups: Sequence[str], series: Sequence[str], value: Callable[[str, str], float],
    colors: Callable[[str], object],
) -> None:
    width = 0.8 / max(1, len(series))
    for i, name in enumerate(series):
        xs = [j + i * width for j in range(len(groups))]
        ax.bar(xs, [value(name, g) for g in groups], width, label=name, color=colors(name))
    ax.set_xticks([j + width * (len(series) - 1) / 2 for j in range(len(groups))])


def hints_by_action_type(results: Sequence[EpisodeResult], out_dir: Path) -> Figure | None:
    """Figure 5: key-step hints per action type, relative to the key steps of that type."""
    if not any(r.hints_used for r in results):
        return None
    rows = {_series(s): s for s in summaries(results, intervals=False)}
    order = _order(list(rows))
    verbs = list(KEY_STEP_VERBS)
    fig, ax = plt.subplots(figsize=(7, 3.8), layout="constrained")
    _grouped_bars(
        ax, verbs, order,
        lambda name, verb: 100 * rows[name].hint_share_by_action.get(verb, 0.0),
        lambda name: _color(name, order),
    )
    ax.set_xticklabels([v.capitalize() for v in verbs])
    ax.set_ylabel("hints / key steps of the type (%)")
    ax.set_title("Key-step hints by action type")
    ax.legend(fontsize=8)
    return Figure(
        "fig5", "Hints by action type (fig. 5)",
        "Key-step hints used for each action type, as a percentage of the reference key steps "
        "of that type (pooled over episodes).",
        _save(fig, out_dir, "fig5-hints-by-action-type"),
    )


def completed_vs_steps(results: Sequence[EpisodeResult], out_dir: Path) -> Figure | None:
    """Figure 6: accumulated number of escaped episodes against the steps they took."""
    escaped = [r for r in results if r.escaped]
    if not escaped:
        return None
    order = _order([_series(r) for r in escaped])
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    for name in order:
        steps = sorted(r.total_steps for r in escaped if _series(r) == name)
        xs = [0, *[x for x in steps for _ in (0, 1)]]
        ys = [0, *[y for i in range(len(steps)) for y in (i, i + 1)]]
        ax.plot(xs, ys, label=name, color=_color(name, order), linestyle=_linestyle(name))
    ax.set_xlabel("total steps")
    ax.set_ylabel("completed games")
    ax.set_title("Completed games against steps")
    ax.legend(fontsize=8)
    return Figure(
        "fig6", "Completed games against steps (fig. 6)",
        "Number of escaped episodes that took at most x steps; EscapeAgent dotted.",
        _save(fig, out_dir, "fig6-completed-vs-steps"),
    )


def _curve_points(r: EpisodeResult) -> tuple[list[int], list[float]]:
    units = r.total_key_steps + r.total_tools
    xs = [int(p[0]) for p in r.progress_curve]
    ys = [100 * (int(p[1]) + int(p[2])) / units if units else 0.0 for p in r.progress_curve]
    return xs, ys


def _progress_at(xs: list[int], ys: list[float], step: int) -> float:
    value = 0.0
    for x, y in zip(xs, ys, strict=True):
        if x > step:
            break
        value = y
    return value


def progress_per_game(results: Sequence[EpisodeResult], out_dir: Path) -> Figure | None:
    """Figure 7: progress against steps per setting, hints as red dots (first repeat shown)."""
    have = [r for r in results if r.progress_curve]
    if not have:
        return None
    first: dict[tuple[str, str, str], int] = {}
    for r in have:
        k = (r.setting, _series(r), r.player)
        first[k] = min(first.get(k, r.repeat), r.repeat)
    shown = [r for r in have if r.repeat == first[(r.setting, _series(r), r.player)]]
    # game by game, each in the order easy, normal, hard
    order_of = {r.setting: (r.game, DIFFICULTIES.index(r.difficulty)
                            if r.difficulty in DIFFICULTIES else 9, r.setting) for r in shown}
    all_settings = sorted(order_of, key=order_of.__getitem__)
    settings = all_settings[:MAX_GAME_PANELS]
    order = _order([_series(r) for r in shown])
    cols = min(3, len(settings))
    rows = math.ceil(len(settings) / cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(4.2 * cols, 3.2 * rows + 0.6), squeeze=False, layout="constrained"
    )
    for ax in axes.flat[len(settings):]:
        ax.axis("off")
    for ax, setting in zip(axes.flat, settings, strict=False):
        for r in shown:
            if r.setting != setting:
                continue
            name = _series(r)
            xs, ys = _curve_points(r)
            ax.step(xs, ys, where="post", label=name, color=_color(name, order),
                    linestyle=_linestyle(name))
            ax.scatter(r.hint_steps, [_progress_at(xs, ys, h) for h in r.hint_steps],
                       color=HINT_COLOR, s=14, zorder=3)
        ax.set_title(setting, fontsize=10)
        ax.set_ylim(0, 102)
        ax.set_xlabel("steps", fontsize=8)
        ax.set_ylabel("progress (%)", fontsize=8)
        ax.tick_params(labelsize=7)
    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="outside lower center", ncol=min(4, len(labels)), fontsize=8)
    fig.suptitle("Progress against steps (red dots: hints)")
    caption = "Progress of each agent's first repeat per game setting; red dots mark hints."
    if len(all_settings) > len(settings):
        caption += (
            f" The first {len(settings)} of {len(all_settings)} settings are drawn; the "
            "viewer below shows every episode."
        )
    return Figure(
        "fig7", "Progress against steps per game (fig. 7)", caption,
        _save(fig, out_dir, "fig7-progress-per-game"),
    )


def progress_intervals(results: Sequence[EpisodeResult], out_dir: Path) -> Figure | None:
    """Figure 8: distribution of steps between consecutive progress events, per agent."""
    have = [r for r in results if r.progress_intervals]
    if not have:
        return None
    order = _order([_series(r) for r in have])
    gaps = {name: [g for r in have if _series(r) == name for g in r.progress_intervals]
            for name in order}

    def share(name: str, label: str) -> float:
        lo, hi = next((lo, hi) for lo, hi, lab in INTERVAL_BINS if lab == label)
        return 100 * sum(1 for g in gaps[name] if lo <= g <= hi) / len(gaps[name])

    fig, ax = plt.subplots(figsize=(8, 3.8), layout="constrained")
    labels = [b[2] for b in INTERVAL_BINS]
    _grouped_bars(ax, labels, order, share, lambda name: _color(name, order))
    ax.set_xticklabels(labels)
    ax.set_xlabel("steps since the previous progress")
    ax.set_ylabel("share of progress events (%)")
    ax.set_title("Steps between progress events")
    ax.legend(fontsize=8)
    return Figure(
        "fig8", "Steps between progress events (fig. 8)",
        "How many steps each progress event (a key step or a new tool) took since the previous "
        "one; hints come after 50 steps without progress, so the 50–60 bin is mostly hinted.",
        _save(fig, out_dir, "fig8-progress-intervals"),
    )


def _by_difficulty(
    results: Sequence[EpisodeResult], out_dir: Path, attr: str, ylabel: str, fig_id: str,
    paper: str, name: str,
) -> Figure | None:
    if not results:
        return None
    table: dict[tuple[str, str], float] = {}
    for diff in DIFFICULTIES:
        for s in summaries(results, difficulty=diff, intervals=False):
            table[(_series(s), diff)] = getattr(s, attr)
    diffs = [d for d in DIFFICULTIES if any(k[1] == d for k in table)]
    order = _order([k[0] for k in table])
    shades = {"easy": "#9ecae1", "normal": "#4292c6", "hard": "#08519c"}
    fig, ax = plt.subplots(figsize=(max(5.0, 1.5 * len(order) + 2), 3.8), layout="constrained")
    _grouped_bars(ax, order, diffs, lambda diff, series: table.get((series, diff), 0.0),
                  lambda diff: shades[diff])
    ax.set_xticklabels(order, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    title = f"{ylabel.capitalize()} by difficulty"
    ax.set_title(title)
    ax.legend(fontsize=8)
    return Figure(
        fig_id, f"{title} ({paper})", f"Mean {ylabel} per finished episode by difficulty.",
        _save(fig, out_dir, name),
    )


def hints_by_difficulty(results: Sequence[EpisodeResult], out_dir: Path) -> Figure | None:
    """Figure 12: hints used by difficulty."""
    return _by_difficulty(results, out_dir, "hints_used", "hints used", "fig12", "fig. 12",
                          "fig12-hints-by-difficulty")


def steps_by_difficulty(results: Sequence[EpisodeResult], out_dir: Path) -> Figure | None:
    """Figure 13: total steps by difficulty."""
    return _by_difficulty(results, out_dir, "total_steps", "total steps", "fig13", "fig. 13",
                          "fig13-steps-by-difficulty")


TRIES_BINS = 10
"""Figure 14's tries axis: 0 to 9 failed tries, then one bin for 10 or more."""


def _tries_shares(solves: Sequence[tuple[int, int]]) -> tuple[list[float], list[float]]:
    """For (tries, candidates) pairs: the share (%) of solves per tries bin, and the share a
    blind player who never repeats a failure would give (tries uniform on 0..k-1)."""
    seen = [0.0] * (TRIES_BINS + 1)
    blind = [0.0] * (TRIES_BINS + 1)
    for tries, k in solves:
        seen[min(tries, TRIES_BINS)] += 1
        for t in range(k):
            blind[min(t, TRIES_BINS)] += 1 / k
    n = len(solves)
    return [100 * x / n for x in seen], [100 * x / n for x in blind]


def tries_before_success(results: Sequence[EpisodeResult], out_dir: Path) -> Figure | None:
    """Figure 14 with a chance line: failed tries before each tool solve, per agent, beside
    what a blind player without repetition would need on the same solves."""
    by_series: dict[str, list[tuple[int, int]]] = {}
    for r in results:
        for s in r.tool_solve_log:
            if int(s.get("candidates", 0)) >= 2:
                by_series.setdefault(_series(r), []).append(
                    (int(s["tries"]), int(s["candidates"])))
    if not by_series:
        return None
    order = _order(list(by_series))
    choice = {s.agent_label: s.tool_choice for s in _choice_rows(results)}
    fig, ax = plt.subplots(figsize=(8, 3.8), layout="constrained")
    xs = list(range(TRIES_BINS + 1))
    for name in order:
        seen, blind = _tries_shares(by_series[name])
        color = _color(name, order)
        score = choice.get(name)
        label = f"{name} ({len(by_series[name])} solves"
        label += f", tool choice {score:.2f})" if score is not None else ")"
        ax.plot(xs, seen, marker="o", color=color, label=label, linestyle=_linestyle(name))
        ax.plot(xs, blind, color=color, linestyle="--", alpha=0.55, linewidth=1)
    ax.plot([], [], color="gray", linestyle="--", label="blind pick, same solves (chance)")
    ax.set_xticks(xs)
    ax.set_xticklabels([str(x) for x in xs[:-1]] + [f"{TRIES_BINS}+"])
    ax.set_xlabel("failed tries before the solve (since the solving tool was in the bag)")
    ax.set_ylabel("share of tool solves (%)")
    ax.set_title("Tries before success per tool solve, against chance")
    ax.legend(fontsize=7)
    return Figure(
        "fig14", "Tries before success, against chance (fig. 14)",
        "For every tool the player applied or crafted itself (no hint showing), the failed "
        "tries at that solve before it; dashed, in the same colour: what a player picking "
        "blindly among the same candidates, never repeating a failure, would need on the "
        "same solves. A curve above its dashed line at 0 chose better than chance. Tool "
        "choice: 1 = the right tool first, 0 = blind, -1 = random with repeats "
        "(docs/metrics.md).",
        _save(fig, out_dir, "fig14-tries-before-success"),
    )


@dataclass(frozen=True)
class _ChoiceRow:
    agent_label: str
    tool_choice: float | None


def _choice_rows(results: Sequence[EpisodeResult]) -> list[_ChoiceRow]:
    return [_ChoiceRow(_series(s), s.tool_choice)
            for s in summaries(results, intervals=False)]


ALL_FIGURES = (
    hints_by_action_type,
    completed_vs_steps,
    progress_per_game,
    progress_intervals,
    hints_by_difficulty,
    steps_by_difficulty,
    tries_before_success,
)


FIGURE_CACHE_SETS = 4


def draw_all(
    results: Sequence[EpisodeResult], out_dir: Path, *, cache_dir: Path | None = None
) -> list[Figure]:
    """Draw every figure the results have data for.

    With ``cache_dir``, figures drawn before for the same results (and the same escapebench
    version) are copied from there instead of drawn again: drawing is most of a report's time,
    and ``escapebench serve`` rebuilds its report whenever any step of a live run is written,
    while the figures change only when an episode ends.
    """
    if cache_dir is None:
        return _draw_all(results, out_dir)
    key = hashlib.sha256(json.dumps(
        [__version__, [r.to_dict() for r in results]], sort_keys=True
    ).encode()).hexdigest()[:32]
    kept = cache_dir / key
    index = kept / "figures.json"
    try:
        figures = [Figure(**f) for f in json.loads(index.read_text(encoding="utf-8"))]
        for f in figures:
            (out_dir / f.filename).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(kept / f.filename, out_dir / f.filename)
        os.utime(kept)  # used now: the newest sets are the ones kept
        return figures
    except (OSError, ValueError, TypeError):
        pass  # not drawn yet (or a damaged entry): draw, then keep a copy
    figures = _draw_all(results, out_dir)
    shutil.rmtree(kept, ignore_errors=True)
    for f in figures:
        (kept / f.filename).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out_dir / f.filename, kept / f.filename)
    kept.mkdir(parents=True, exist_ok=True)
    index.write_text(json.dumps([dataclasses.asdict(f) for f in figures]), encoding="utf-8")
    # Keep the few newest sets only: a live run makes a new one each time an episode ends.
    sets = sorted(cache_dir.iterdir(), key=lambda d: d.stat().st_mtime_ns, reverse=True)
    for old in sets[FIGURE_CACHE_SETS:]:
        shutil.rmtree(old, ignore_errors=True)
    return figures


def _draw_all(results: Sequence[EpisodeResult], out_dir: Path) -> list[Figure]:
    out = []
    for draw in ALL_FIGURES:
        fig = draw(results, out_dir)
        if fig is not None:
            out.append(fig)
    return out
