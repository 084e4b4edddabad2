"""The leaderboard in the form of the paper's Tables 3 and 5.

Numbers come from :func:`escapebench.bench.summaries.aggregate` (the one place the metrics are
averaged, with their 95% intervals); this module only chooses rows and lays them out. Table 3
lists BaseAgent per model; Table 5 lists EscapeAgent and its ablations per model with the
change against BaseAgent on the settings both played under the same rules; the leaderboards
rank agents only against rows covering the same work (one leaderboard per settings set,
protocol and limits); human players have their own table ("Average Human": every
human player's finished games together; a game a person stopped is not a result) with the
paper's human row as a marked reference line. Every row ends with what it covers, and every
table has an Escaped column (escaped / episodes): the paper's agents always escape thanks to
hints, but a run capped by ``--max-steps`` may not, and its hint and step numbers are then not
comparable.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from escapebench.bench.costs import Prices, format_cost
from escapebench.bench.metrics import EpisodeResult
from escapebench.bench.result_tables import short_count, table_cells
from escapebench.bench.summaries import ALL, Summary, aggregate, rules_of
from escapebench.terminal import counted

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
    ("tool_choice", "Tool Choice", False),
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
    reference: bool = False  # a published number shown for reference, not a result here

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
    *,
    intervals: bool = True,
) -> list[Summary]:
    """Summaries of the results ``where`` selects, for one difficulty (default: all);
    ``intervals=False`` skips the bootstrap (for numbers shown without one)."""
    chosen = _pool_humans([r for r in results if where(r)])
    return [s for s in aggregate(chosen, intervals=intervals) if s.difficulty == difficulty]


def _cells(s: Summary) -> list[str]:
    return table_cells(s)[_FIRST_METRIC_CELL:]


def _note(s: Summary, results: Sequence[EpisodeResult]) -> str:
    mine = [r for r in results if r.agent == s.agent and (s.agent == HUMAN_AGENT or r.model ==
                                                          s.model)]
    players = {r.player for r in mine if r.agent == HUMAN_AGENT}
    c = s.coverage
    note = f"{counted(s.episodes, 'episode')}, {s.escaped} escaped"
    if c is not None:
        note += f", {counted(len(c.settings), 'setting')}"
    if players:
        note += f", {counted(len(players), 'player')}"
    return note


def _headers(first: str) -> list[str]:
    return [first, *(h for _, h, _ in METRICS), COVERS]


COVERS = "Covers"  # the last column: which settings, protocol and limits a row covers


def _row(label: str, s: Summary, results: Sequence[EpisodeResult]) -> TableRow:
    return TableRow(label, _cells(s), s, note=_note(s, results))


def table3(results: Sequence[EpisodeResult]) -> Table:
    """BaseAgent per model (Table 3); each row says what it covers. Human players have
    their own table (:func:`human_table`)."""
    rows = [
        _row(s.model or s.agent, s, results)
        for s in summaries(results, lambda r: r.agent == BASE_AGENT)
    ]
    return Table(
        "Table 3: BaseAgent",
        "BaseAgent per model: means over finished episodes with 95% bootstrap intervals; "
        "shares are means of per-episode shares, as the paper's figures imply. The last "
        "column says what each row covers; rows covering different work are not comparable.",
        _headers("Model"),
        rows,
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


def _same_rules(a: Summary, b: Summary) -> list[str]:
    """Why ``a`` and ``b`` were played under different rules (empty: the same rules)."""
    if a.coverage is None or b.coverage is None:
        return ["coverage unknown"]
    return a.coverage.differences(b.coverage, settings=False)


def table5(results: Sequence[EpisodeResult]) -> Table:
    """EscapeAgent (and ablations) per model with the change against BaseAgent (Table 5).

    The change compares both agents on the settings both finished with that model under the
    same rules (protocol, action format, step limit, hint options), so neither a partial
    run nor one with other limits is subtracted from a full one; where no BaseAgent row
    covers the same work, the row says why and shows no change.
    """
    rows = []
    bases = summaries(results, lambda r: r.agent == BASE_AGENT)
    for s in summaries(results, lambda r: r.agent.startswith(ESCAPE_AGENT)):
        label = s.model if s.agent == ESCAPE_AGENT else f"{s.model} ({s.agent})"
        row = _row(label, s, results)
        same_model = [b for b in bases if b.model == s.model]
        same = [b for b in same_model if not _same_rules(s, b)]
        if not same:
            if same_model:
                reasons = "; ".join(_same_rules(s, same_model[0]))
                row.note += (
                    f"; no change shown: BaseAgent with this model covers other work ({reasons})"
                )
            else:
                row.note += "; no BaseAgent results for this model"
            rows.append(row)
            continue
        assert s.coverage is not None
        rules = s.coverage.rules()

        same_work = [r for r in results if r.model == s.model and rules_of(r) == rules]
        mine = [r for r in same_work if r.agent == s.agent]
        base = [r for r in same_work if r.agent == BASE_AGENT]
        common = {r.setting for r in mine} & {r.setting for r in base}
        if common:
            a = summaries([r for r in mine if r.setting in common], intervals=False)[0]
            b = summaries([r for r in base if r.setting in common], intervals=False)[0]
            row.deltas = [
                None if name == ESCAPED or getattr(a, name) is None or getattr(b, name) is None
                else _delta(getattr(a, name), getattr(b, name), name, lower)
                for name, _, lower in METRICS
            ]
            if len(common) < len({r.setting for r in mine}):
                row.note += f"; change measured on the {len(common)} settings both played"
        else:
            row.note += "; no change shown: BaseAgent played none of these settings"
        rows.append(row)
    return Table(
        "Table 5: EscapeAgent",
        "EscapeAgent per model; subscripts give the change against BaseAgent with the same "
        "model on the same settings under the same rules (green: better). For the interval "
        "of a change and a paired test, use `escapebench compare BASE_DIR ESCAPE_DIR`.",
        _headers("Model"),
        rows,
    )


def rank_key(s: Summary) -> tuple[float, float, float]:
    """Leaderboard order: the largest share of escaped episodes first, then fewest hints,
    then fewest steps; so a capped run that did not escape never ranks above one that did."""
    escaped_share = s.escaped / s.episodes if s.episodes else 0.0
    return (-escaped_share, s.hints_used, s.total_steps)


def same_work_groups(rows: Sequence[Summary]) -> list[list[Summary]]:
    """``rows`` split into groups covering the same work (same settings and rules),
    in order of first appearance: only rows of one group may be ranked against each other."""
    groups: dict[tuple[object, ...], list[Summary]] = {}
    for s in rows:
        key = s.coverage.work() if s.coverage is not None else (id(s),)
        groups.setdefault(key, []).append(s)
    return list(groups.values())


FLOOR_AGENT, ORACLE_AGENT = "random", "oracle"
BETWEEN = "Random → Oracle"
"""The leaderboard column placing a row between the random floor (0%) and the oracle (100%)."""


def _share_of_the_way(value: float | None, floor: float | None, top: float | None) -> str:
    if value is None or floor is None or top is None or top == floor:
        return "—"
    return f"{100 * (value - floor) / (top - floor):.0f}%"


def between_floor_and_oracle(s: Summary, group: Sequence[Summary]) -> str:
    """Where ``s`` falls between the random floor and the oracle of its leaderboard, on hints
    and on tool choice: ``hints 62%, choice 40%`` (0% = the random agent, 100% = the
    oracle); "—" when the leaderboard lacks either row."""
    floor = next((g for g in group if g.agent == FLOOR_AGENT), None)
    top = next((g for g in group if g.agent == ORACLE_AGENT), None)
    if s.agent == FLOOR_AGENT:
        return "floor (0%)"
    if s.agent == ORACLE_AGENT:
        return "oracle (100%)"
    if floor is None or top is None:
        return "—"
    hints = _share_of_the_way(s.hints_used, floor.hints_used, top.hints_used)
    choice = _share_of_the_way(s.tool_choice, floor.tool_choice, top.tool_choice)
    return f"hints {hints}, choice {choice}"


def leaderboards(results: Sequence[EpisodeResult]) -> list[Table]:
    """Every agent x model, baselines included, in :func:`rank_key` order: one leaderboard
    per work covered (settings set, protocol, limits), never a ranking across. Each row says
    where it falls between the random floor and the oracle (:func:`between_floor_and_oracle`)
    when both played the same work."""
    groups = same_work_groups(summaries(results, lambda r: r.agent != HUMAN_AGENT))
    groups.sort(key=lambda g: -len(g))
    tables = []
    for n, group in enumerate(groups):
        ranked = sorted(group, key=rank_key)
        rows = []
        for s in ranked:
            row = _row(agent_label(s.agent, s.model), s, results)
            row.cells.insert(len(row.cells) - 1, between_floor_and_oracle(s, ranked))
            rows.append(row)
        coverage = ranked[0].coverage
        assert coverage is not None
        caption = (
            "Most escaped episodes first, then fewest hints, then fewest steps; every row "
            f"covers {coverage.label()}. {BETWEEN}: where a row falls between the random "
            "agent (0%) and the oracle, which plays the reference chain (100%), on hints and "
            "on tool choice"
        )
        if not any(s.agent == FLOOR_AGENT for s in ranked) or not any(
                s.agent == ORACLE_AGENT for s in ranked):
            caption += (" (run --agent random and --agent oracle on the same settings to "
                        "place the rows)")
        caption += "."
        title = "Leaderboard"
        if len(groups) > 1:
            title = f"Leaderboard {n + 1} of {len(groups)}: {coverage.label()}"
            others = []
            for other in groups[:n] + groups[n + 1:]:
                assert other[0].coverage is not None
                reasons = ", ".join(coverage.differences(other[0].coverage))
                others.append(f"{agent_label(other[0].agent, other[0].model)}: {reasons}")
            caption += (
                " Not ranked against the other leaderboards, which cover different work ("
                + "; ".join(others) + ")."
            )
        headers = _headers("Agent / model")
        headers.insert(len(headers) - 1, BETWEEN)
        tables.append(Table(title, caption, headers, rows))
    return tables


def leaderboard(results: Sequence[EpisodeResult]) -> Table:
    """The leaderboard of the largest group of rows covering the same work (see
    :func:`leaderboards` for all of them)."""
    found = leaderboards(results)
    if found:
        return found[0]
    headers = _headers("Agent / model")
    headers.insert(len(headers) - 1, BETWEEN)
    return Table("Leaderboard", "", headers, [])


# The paper's "Average Human" row of Table 3 (36 settings, the original harness): shown as a
# reference line in the human table, never measured here and never ranked.
PAPER_HUMAN = {"hints_used": 4.33, "total_steps": 257.83, "early_exit_progress": 0.5965,
               "tool_hints": 0.17, "tool_hint_share": 0.0069, "key_step_hints": 4.17,
               "key_step_hint_share": 0.1228}
PAPER_HUMAN_LABEL = "Average Human (paper, reference)"


def _paper_human_row() -> TableRow:
    p = PAPER_HUMAN
    s = Summary(
        agent=HUMAN_AGENT, model="paper", difficulty=ALL, episodes=0, escaped=0,
        hints_used=p["hints_used"], total_steps=p["total_steps"],
        early_exit_progress=p["early_exit_progress"], tool_hints=p["tool_hints"],
        tool_hint_share=p["tool_hint_share"], key_step_hints=p["key_step_hints"],
        key_step_hint_share=p["key_step_hint_share"], progress=1.0, model_calls=0,
        tokens_in=0, tokens_out=0,
    )
    cells = [
        "—", f"{p['hints_used']:.2f}", f"{p['total_steps']:.2f}",
        f"{100 * p['early_exit_progress']:.2f}",
        f"{p['tool_hints']:.2f} ({100 * p['tool_hint_share']:.2f}%)",
        f"{p['key_step_hints']:.2f} ({100 * p['key_step_hint_share']:.2f}%)",
        "—",
        "the paper's Table 3: 36 settings, original harness (published, not measured here)",
    ]
    return TableRow(PAPER_HUMAN_LABEL, cells, s, note="reference line from the paper",
                    reference=True)


def human_table(results: Sequence[EpisodeResult]) -> Table:
    """Human players' finished games (their own table, never ranked among the models), with
    the paper's human row as a marked reference line."""
    rows = [_row(HUMAN_LABEL, s, results)
            for s in summaries(results, lambda r: r.agent == HUMAN_AGENT)]
    return Table(
        "Human players",
        "Finished games of the people who played here (a game a person stopped is not a "
        "result), then the paper's Average Human as a reference line. Humans are not ranked "
        "among the models.",
        _headers("Players"),
        [*rows, _paper_human_row()] if rows else [],
    )


def by_difficulty(results: Sequence[EpisodeResult]) -> Table:
    """Every agent x model x difficulty (the numbers of figures 12 and 13)."""
    rows = []
    for s in aggregate(_pool_humans(results)):
        if s.difficulty == ALL:
            continue
        rows.append(TableRow(f"{agent_label(s.agent, s.model)} — {s.difficulty}", _cells(s), s,
                             note=f"{counted(s.episodes, 'episode')}, {s.escaped} escaped"))
    return Table(
        "By difficulty",
        "Per agent, model and difficulty; the last column says what each row covers.",
        _headers("Agent / model — difficulty"),
        rows,
    )


def usage_table(results: Sequence[EpisodeResult], prices: Prices | None = None) -> Table:
    """Model calls and tokens in / cached / out per agent x model (totals over its
    episodes), with the cost at ``prices``; rows only for agents that called a model."""
    rows = []
    for s in aggregate(results, intervals=False):
        if s.difficulty != ALL or not s.model_calls:
            continue
        n = s.episodes
        cells = [str(n), short_count(s.model_calls * n), short_count(s.tokens_in * n),
                 short_count(s.tokens_cached * n), short_count(s.tokens_out * n)]
        if prices is not None:
            cells += [format_cost(s.cost(prices) * n), format_cost(s.cost(prices))]
        cells.append(s.coverage.label() if s.coverage is not None else "")
        rows.append(TableRow(agent_label(s.agent, s.model), cells, s,
                             note=f"{counted(n, 'episode')}, {s.escaped} escaped"))
    headers = ["Agent / model", "Episodes", "Calls", "Tokens in", "Cached", "Tokens out"]
    if prices is not None:
        headers += ["Cost (USD)", "Per episode"]
    caption = ("Totals over each row's episodes; cached: input tokens the server read from "
               "its prompt cache (where it reports them).")
    if prices is not None:
        caption += (f" Cost at {prices.label()}; calls answered by the response cache cost "
                    "nothing.")
    return Table("Model usage", caption, [*headers, COVERS], rows)


def all_tables(results: Sequence[EpisodeResult], prices: Prices | None = None) -> list[Table]:
    """The report's tables that have rows (the usage table priced at ``prices``)."""
    made = [table3(results), table5(results), *leaderboards(results), human_table(results),
            by_difficulty(results), usage_table(results, prices)]
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
