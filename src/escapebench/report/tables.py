"""The leaderboard in the form of the paper's Tables 3 and 5.

Numbers come from :func:`escapebench.bench.metrics.aggregate` (the one place the metrics are
averaged); this module only chooses rows and lays them out. Table 3 lists BaseAgent per model
with an "Average Human" row (every human player's finished games together; a game a person
stopped is not a result); Table 5 lists EscapeAgent and its ablations per model with the change
against BaseAgent on the settings both played. Every table has an Escaped column (escaped /
episodes): the paper's agents always escape thanks to hints, but a run capped by
``--max-steps`` may not, and its hint and step numbers are then not comparable.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from escapebench.bench.metrics import ALL, EpisodeResult, Summary, aggregate, table_cells

HUMAN_AGENT = "human"
BASE_AGENT = "base"
ESCAPE_AGENT = "escape"
HUMAN_LABEL = "Average Human"
NO_MODEL = "none"  # the harness's model name for agents that play without one
QUIT = "quit"  # ended_by of a human game stopped before its end

ESCAPED = "escaped"  # the first column: escaped / episodes, shown without a change in Table 5

# (Summary field, header, lower is better), in the order of the printed columns: the escaped
# episodes, then the paper's columns
METRICS: tuple[tuple[str, str, bool], ...] = (
    (ESCAPED, "Escaped", False),
    ("hints_used", "Hints Used", True),
    ("total_steps", "Total Steps", True),
    ("early_exit_progress", "Early Exit Progress (%)", False),
    ("tool_hints", "Tool Hints Used (percentage)", True),
    ("key_step_hints", "Key Steps Hints Used (percentage)", True),
)
PERCENT_FIELDS = {"early_exit_progress"}  # fractions, shown as percentages
_FIRST_METRIC_CELL = 3  # table_cells: agent, model, difficulty, escaped/episodes, metrics


@dataclass
class TableRow:
    """One printed row: a label, the metric cells and (Table 5) changes against BaseAgent."""

    label: str
    cells: list[str]
    summary: Summary
    # (text, is better) per cell; None where no change is shown (the Escaped column)
    deltas: list[tuple[str, bool | None] | None] = field(default_factory=list)
    note: str = ""

    @property
    def is_human(self) -> bool:
        return self.summary.agent == HUMAN_AGENT


@dataclass
class Table:
    """A titled table with the Table 3 columns."""

    title: str
    caption: str
    headers: list[str]
    rows: list[TableRow]


def agent_label(agent: str, model: str) -> str:
    """How an agent and model are named in tables and legends."""
    if agent == HUMAN_AGENT:
        return HUMAN_LABEL
    return f"{agent} / {model}" if model and model != NO_MODEL else agent


def _pool_humans(results: Sequence[EpisodeResult]) -> list[EpisodeResult]:
    """Human results all under one model name, so that players form one "Average Human".

    A game a person stopped (``ended_by`` "quit", written by older versions of terminal play)
    is left out: it is not a finished game, as an unfinished browser game is not a result.
    """
    return [
        dataclasses.replace(r, model="") if r.agent == HUMAN_AGENT else r
        for r in results
        if not (r.agent == HUMAN_AGENT and r.ended_by == QUIT)
    ]


def summaries(
    results: Sequence[EpisodeResult],
    where: Callable[[EpisodeResult], bool] = lambda r: True,
    difficulty: str = ALL,
) -> list[Summary]:
    """Summaries of the results ``where`` selects, for one difficulty (default: all)."""
    chosen = _pool_humans([r for r in results if where(r)])
    return [s for s in aggregate(chosen) if s.difficulty == difficulty]


def _cells(s: Summary) -> list[str]:
    return table_cells(s)[_FIRST_METRIC_CELL:]


def _note(s: Summary, results: Sequence[EpisodeResult]) -> str:
    mine = [r for r in results if r.agent == s.agent and (s.agent == HUMAN_AGENT or r.model ==
                                                          s.model)]
    settings = {r.setting for r in mine}
    players = {r.player for r in mine if r.agent == HUMAN_AGENT}
    note = f"{s.episodes} episodes, {s.escaped} escaped, {len(settings)} settings"
    if players:
        note += f", {len(players)} players"
    return note


def _human_rows(results: Sequence[EpisodeResult]) -> list[TableRow]:
    return [
        TableRow(HUMAN_LABEL, _cells(s), s, note=_note(s, results))
        for s in summaries(results, lambda r: r.agent == HUMAN_AGENT)
    ]


def _headers(first: str) -> list[str]:
    return [first, *(h for _, h, _ in METRICS)]


def table3(results: Sequence[EpisodeResult]) -> Table:
    """BaseAgent per model, then the human row (Table 3)."""
    rows = [
        TableRow(s.model or s.agent, _cells(s), s, note=_note(s, results))
        for s in summaries(results, lambda r: r.agent == BASE_AGENT)
    ]
    return Table(
        "Table 3: BaseAgent",
        "BaseAgent per model, micro-averaged over finished episodes (shares pool their "
        "numerators and denominators, as in the paper).",
        _headers("Model"),
        rows + _human_rows(results),
    )


def _delta(
    value: float, base: float, name: str, lower_better: bool
) -> tuple[str, bool | None]:
    """The change as the paper prints it (``↓5.27``) and whether it is an improvement."""
    diff = (value - base) * (100 if name in PERCENT_FIELDS else 1)
    if round(diff, 2) == 0:
        return "±0.00", None
    arrow = "↓" if diff < 0 else "↑"
    return f"{arrow}{abs(diff):.2f}", (diff < 0) == lower_better


def table5(results: Sequence[EpisodeResult]) -> Table:
    """EscapeAgent (and ablations) per model with the change against BaseAgent (Table 5).

    The change compares both agents on the settings both finished with that model, so a
    partial run is not compared against a full one.
    """
    rows = []
    for s in summaries(results, lambda r: r.agent.startswith(ESCAPE_AGENT)):
        label = s.model if s.agent == ESCAPE_AGENT else f"{s.model} ({s.agent})"
        row = TableRow(label, _cells(s), s, note=_note(s, results))
        mine = [r for r in results if r.agent == s.agent and r.model == s.model]
        base = [r for r in results if r.agent == BASE_AGENT and r.model == s.model]
        common = {r.setting for r in mine} & {r.setting for r in base}
        if common:
            a = summaries([r for r in mine if r.setting in common])[0]
            b = summaries([r for r in base if r.setting in common])[0]
            row.deltas = [
                None if name == ESCAPED
                else _delta(getattr(a, name), getattr(b, name), name, lower)
                for name, _, lower in METRICS
            ]
            if len(common) < len({r.setting for r in mine}):
                row.note += f"; change measured on the {len(common)} settings both played"
        else:
            row.note += "; no BaseAgent results for this model"
        rows.append(row)
    return Table(
        "Table 5: EscapeAgent",
        "EscapeAgent per model; subscripts give the change against BaseAgent with the same "
        "model on the same settings (green: better).",
        _headers("Model"),
        rows + _human_rows(results),
    )


def rank_key(s: Summary) -> tuple[float, float, float]:
    """Leaderboard order: the largest share of escaped episodes first, then fewest hints,
    then fewest steps; so a capped run that did not escape never ranks above one that did."""
    escaped_share = s.escaped / s.episodes if s.episodes else 0.0
    return (-escaped_share, s.hints_used, s.total_steps)


def leaderboard(results: Sequence[EpisodeResult]) -> Table:
    """Every agent x model, baselines included, in :func:`rank_key` order."""
    ranked = sorted(summaries(results, lambda r: r.agent != HUMAN_AGENT), key=rank_key)
    rows = [
        TableRow(agent_label(s.agent, s.model), _cells(s), s, note=_note(s, results))
        for s in ranked
    ]
    return Table(
        "Leaderboard: all agents",
        "Every agent and model: most escaped episodes first, then fewest hints, then "
        "fewest steps.",
        _headers("Agent / model"),
        rows + _human_rows(results),
    )


def by_difficulty(results: Sequence[EpisodeResult]) -> Table:
    """Every agent x model x difficulty (the numbers of figures 12 and 13)."""
    rows = []
    for s in aggregate(_pool_humans(results)):
        if s.difficulty == ALL:
            continue
        rows.append(TableRow(f"{agent_label(s.agent, s.model)} — {s.difficulty}", _cells(s), s,
                             note=f"{s.episodes} episodes, {s.escaped} escaped"))
    return Table(
        "By difficulty",
        "Per agent, model and difficulty.",
        _headers("Agent / model — difficulty"),
        rows,
    )


def all_tables(results: Sequence[EpisodeResult]) -> list[Table]:
    """The report's tables that have rows."""
    made = [table3(results), table5(results), leaderboard(results), by_difficulty(results)]
    return [t for t in made if t.rows]


def markdown(table: Table) -> str:
    """A table as Markdown (Table 5 changes in parentheses after the value)."""
    lines = [f"| {' | '.join(table.headers)} |", "|---|" + "---:|" * (len(table.headers) - 1)]
    for row in table.rows:
        cells = []
        for i, cell in enumerate(row.cells):
            delta = row.deltas[i] if i < len(row.deltas) else None
            cells.append(f"{cell} ({delta[0]})" if delta else cell)
        lines.append(f"| {row.label} | {' | '.join(cells)} |")
    return "\n".join(lines)
