"""Results as tables: the Table-3 columns in the terminal and in Markdown, and the result
files ``results.csv``, ``summary.csv`` and ``summary.md``.

:func:`format_table` prints the Table-3 columns (means with their 95% intervals, what each row
covers), :func:`format_markdown` the same in Markdown; :func:`write_results_csv`,
:func:`write_summary_csv` and :func:`write_summary_md` write the result files of a folder.
"""

from __future__ import annotations

import csv
import io
import sys
import textwrap
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from escapebench.bench.costs import Prices, format_cost
from escapebench.bench.metrics import RESULT_COLUMNS, EpisodeResult, atomic_write_text
from escapebench.bench.summaries import ALL, SUMMARY_COLUMNS, Summary
from escapebench.terminal import render_table, terminal_width

TABLE_HEADERS: tuple[str, ...] = (
    "Agent",
    "Model",
    "Difficulty",
    "Escaped",
    "Hints Used",
    "Total Steps",
    "Early Exit Progress (%)",
    "Tool Hints Used (percentage)",
    "Key Steps Hints Used (percentage)",
    "Tool Choice",
    "Covers",
)


def with_interval(s: Summary, name: str, value: float, scale: float = 1.0) -> str:
    """``"4.70 [3.90, 5.50]"``: a mean and its 95% interval (the mean alone without one)."""
    ci = s.ci.get(name)
    text = f"{scale * value:.2f}"
    return text if ci is None else f"{text} [{scale * ci[0]:.2f}, {scale * ci[1]:.2f}]"


def choice_cell(s: Summary, name: str = "tool_choice") -> str:
    """A tool-choice mean with its interval, or "—" where no episode had a choice to make."""
    value = getattr(s, name)
    return "—" if value is None else with_interval(s, name, value)


def table_cells(s: Summary) -> list[str]:
    """The cells of one Table-3 row: means with their 95% interval in brackets; the shares
    in parentheses are means of per-episode shares (their intervals are in summary.csv)."""
    return [
        s.agent,
        s.model,
        s.difficulty,
        f"{s.escaped}/{s.episodes}",
        with_interval(s, "hints_used", s.hints_used),
        with_interval(s, "total_steps", s.total_steps),
        with_interval(s, "early_exit_progress", s.early_exit_progress, 100),
        f"{with_interval(s, 'tool_hints', s.tool_hints)} ({100 * s.tool_hint_share:.2f}%)",
        f"{with_interval(s, 'key_step_hints', s.key_step_hints)} "
        f"({100 * s.key_step_hint_share:.2f}%)",
        choice_cell(s),
        s.coverage.label() if s.coverage is not None else "",
    ]


# right-aligned columns of the terminal table: the numbers
_RIGHT = frozenset(range(3, len(TABLE_HEADERS) - 1))
_COVERS = len(TABLE_HEADERS) - 1


def table_rows(summaries: Sequence[Summary]) -> tuple[list[str], list[list[str]]]:
    """The headers and the cells of the terminal table (the data; the layout is
    :func:`format_table`'s): one row per summary."""
    return list(TABLE_HEADERS), [table_cells(s) for s in summaries]


def format_table(summaries: Sequence[Summary], *, width: int | None = None,
                 styled: bool = False) -> str:
    """A text table in the columns of the paper's Table 3, plus what each row covers, and its
    footnote. Without ``width``: full width, one line per row (for files and pipes); with a
    terminal's ``width``: fitted to it (see :func:`escapebench.terminal.render_table`)."""
    headers, rows = table_rows(summaries)
    right = {i for i, h in enumerate(headers) if h in _NUMERIC_HEADERS}
    shared = [i for i, h in enumerate(headers) if h == TABLE_HEADERS[_COVERS]]
    text = render_table(headers, rows, right=right, width=width, shared=shared,
                        label_columns=3, styled=styled)
    footnote = TABLE_FOOTNOTE if width is None else textwrap.fill(TABLE_FOOTNOTE, width)
    return text + "\n" + footnote


def print_table(summaries: Sequence[Summary], file: IO[str] | None = None) -> None:
    """Print :func:`format_table` to ``file`` (default: stdout), fitted to the terminal when
    it is one."""
    stream = sys.stdout if file is None else file
    width = terminal_width(stream)
    stream.write(format_table(summaries, width=width, styled=width is not None) + "\n")
    stream.flush()


_NUMERIC_HEADERS = frozenset(TABLE_HEADERS[i] for i in _RIGHT)

TABLE_FOOTNOTE = (
    "Means over episodes with 95% bootstrap intervals [low, high] (settings and repeats "
    "resampled); shares are means of per-episode shares. Tool Choice: 1 = the right tool "
    "first, 0 = blind trial, -1 = random with repeats. See docs/metrics.md."
)


def short_count(n: float) -> str:
    """A count, short: 950, 12.3k, 4.56M."""
    if abs(n) >= 1e6:
        return f"{n / 1e6:.3g}M"
    if abs(n) >= 1e4:
        return f"{n / 1e3:.3g}k"
    return f"{n:.0f}" if float(n).is_integer() else f"{n:.1f}"


def token_cells(tokens_in: float, tokens_cached: float, tokens_out: float) -> str:
    """``"12.3k in / 8.1k cached / 950 out"``."""
    return (f"{short_count(tokens_in)} in / {short_count(tokens_cached)} cached / "
            f"{short_count(tokens_out)} out")


def format_usage(summaries: Sequence[Summary], prices: Prices | None = None) -> str:
    """Model calls and tokens (in / cached / out) of each agent x model, in total and per
    episode (from the summaries over all difficulties), with the cost when priced; empty
    when no model was called."""
    lines = []
    for s in summaries:
        if s.difficulty != ALL or not s.model_calls:
            continue
        n = s.episodes
        cost = ""
        if prices is not None:
            cost = (f"; cost {format_cost(s.cost(prices) * n)} "
                    f"({format_cost(s.cost(prices))} per episode at {prices.label()})")
        lines.append(
            f"model usage, {s.agent} / {s.model}: {short_count(s.model_calls * n)} calls, "
            f"tokens {token_cells(s.tokens_in * n, s.tokens_cached * n, s.tokens_out * n)} "
            f"in {n} episode{'s' if n != 1 else ''}; per episode {short_count(s.model_calls)} "
            f"calls, {token_cells(s.tokens_in, s.tokens_cached, s.tokens_out)}{cost}"
        )
    return "\n".join(lines)


USAGE_HEADERS: tuple[str, ...] = ("Agent", "Model", "Difficulty", "Episodes", "Calls",
                                  "Tokens in", "Cached", "Tokens out")


def usage_cells(s: Summary, prices: Prices | None = None) -> list[str]:
    """One row of the usage table: totals of a summary's episodes (cost when priced)."""
    n = s.episodes
    cells = [s.agent, s.model, s.difficulty, str(n), short_count(s.model_calls * n),
             short_count(s.tokens_in * n), short_count(s.tokens_cached * n),
             short_count(s.tokens_out * n)]
    if prices is not None:
        cells.append(format_cost(s.cost(prices) * n))
    return cells


def format_usage_markdown(summaries: Sequence[Summary], prices: Prices | None = None) -> str:
    """Calls and tokens (in / cached / out) per row in Markdown; empty without model calls."""
    rows = [s for s in summaries if s.model_calls]
    if not rows:
        return ""
    headers = [*USAGE_HEADERS, *(["Cost (USD)"] if prices is not None else [])]
    out = ["| " + " | ".join(headers) + " |",
           "|" + "|".join("---" if i < 3 else "---:" for i in range(len(headers))) + "|"]
    out += ["| " + " | ".join(usage_cells(s, prices)) + " |" for s in rows]
    note = ("Tokens are totals over the row's episodes; cached: input tokens the server read "
            "from its prompt cache.")
    if prices is not None:
        note += f" Cost at {prices.label()}; calls answered by the response cache cost nothing."
    return "\n".join(out) + "\n\n" + note + "\n"


def format_markdown(summaries: Sequence[Summary]) -> str:
    """The same table in Markdown."""
    last = len(TABLE_HEADERS) - 1
    out = ["| " + " | ".join(TABLE_HEADERS) + " |"]
    out.append("|" + "|".join("---" if i < 3 or i == last else "---:"
                              for i in range(len(TABLE_HEADERS))) + "|")
    for s in summaries:
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in table_cells(s)) + " |")
    return "\n".join(out) + "\n\n" + TABLE_FOOTNOTE + "\n"


def _csv_text(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: _csv_value(row.get(c)) for c in columns})
    return buf.getvalue()


def _csv_value(value: Any) -> Any:
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) >= 1e6 else f"{round(value, 6)}"
    return value


COST_COLUMNS: tuple[str, ...] = ("cost_usd",)
SUMMARY_COST_COLUMNS: tuple[str, ...] = ("cost_usd_per_episode", "cost_usd")


def write_results_csv(path: Path, results: Iterable[EpisodeResult],
                      prices: Prices | None = None) -> None:
    """``results.csv``: one row per episode, sorted by episode id (``cost_usd`` when
    priced)."""
    rows = [r.row(prices) for r in sorted(results, key=lambda r: r.episode_id)]
    columns = RESULT_COLUMNS + (COST_COLUMNS if prices is not None else ())
    atomic_write_text(path, _csv_text(columns, rows))


def write_summary_csv(path: Path, summaries: Sequence[Summary],
                      prices: Prices | None = None) -> None:
    """``summary.csv``: one row per agent x model x difficulty (and "all"), with the cost
    columns when priced."""
    columns = SUMMARY_COLUMNS + (SUMMARY_COST_COLUMNS if prices is not None else ())
    atomic_write_text(path, _csv_text(columns, (s.row(prices) for s in summaries)))


def write_summary_md(path: Path, summaries: Sequence[Summary], title: str = "",
                     prices: Prices | None = None) -> None:
    """``summary.md``: the Table-3 columns as a Markdown table, then model usage (tokens in
    / cached / out, and cost when priced)."""
    head = f"# {title}\n\n" if title else ""
    usage = format_usage_markdown(summaries, prices)
    atomic_write_text(path, head + format_markdown(summaries)
                      + (f"\n## Model usage\n\n{usage}" if usage else ""))
