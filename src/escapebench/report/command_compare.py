"""``escapebench compare RUN_DIR...``: BaseAgent against EscapeAgent per model (Table 5).

For every model with EscapeAgent results (the full agent and its ablations) the BaseAgent row
is printed first, then each EscapeAgent variant with its change against BaseAgent, measured on
the settings both played. The numbers come from ``escapebench.report.tables`` (which averages
with ``escapebench.bench.metrics``); this module only picks the rows and prints them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from escapebench.bench.metrics import EpisodeResult
from escapebench.report.runs import ReportInputError, all_results, load_runs
from escapebench.report.tables import METRICS, Table, markdown, table3, table5

EXIT_USAGE = 2
EXIT_NOTHING_TO_COMPARE = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``escapebench compare``."""
    parser.add_argument(
        "run_dirs", nargs="+", metavar="RUN_DIR",
        help="result folders holding BaseAgent and EscapeAgent runs (any number, any mix)",
    )
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")


def comparison_table(results: Sequence[EpisodeResult]) -> Table:
    """The Table-5 comparison of ``results``: per model, BaseAgent then EscapeAgent variants.

    The EscapeAgent rows carry their change against BaseAgent; the table has no rows when
    there is nothing to compare.
    """
    base_rows = {row.summary.model: row for row in table3(results).rows if not row.is_human}
    rows = []
    for row in table5(results).rows:
        if row.is_human:
            continue
        model = row.summary.model
        base = base_rows.pop(model, None)
        if base is not None:
            base.label = f"{model} / {base.summary.agent}"
            rows.append(base)
        row.label = f"{model} / {row.summary.agent}"
        rows.append(row)
    return Table(
        "BaseAgent vs EscapeAgent (Table 5)",
        "Per model: BaseAgent, then EscapeAgent variants with the change against BaseAgent on "
        "the settings both played (↓ fewer, ↑ more).",
        ["Model / agent", *(header for _, header, _ in METRICS)],
        rows,
    )


def _with_change(cell: str, change: str) -> str:
    """``"4.70 (13.74%)"`` with change ``"↓3.44"`` -> ``"4.70 ↓3.44 (13.74%)"`` (the paper's
    order: the value, its change, then the share)."""
    if not change:
        return cell
    value, _, share = cell.partition(" ")
    return f"{value} {change} {share}".rstrip()


def format_text(table: Table) -> str:
    """The table as aligned plain text (changes after the values), then one note per row."""
    lines_in: list[list[str]] = [table.headers]
    notes = []
    for row in table.rows:
        cells = [
            _with_change(cell, row.deltas[i][0] if i < len(row.deltas) and row.deltas[i] else "")
            for i, cell in enumerate(row.cells)
        ]
        lines_in.append([row.label, *cells])
        if row.note:
            notes.append(f"  {row.label}: {row.note}")
    widths = [max(len(line[i]) for line in lines_in) for i in range(len(table.headers))]
    out = []
    for n, line in enumerate(lines_in):
        cells = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                 enumerate(zip(line, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join([table.title, "", *out, "", *notes])


def main(args: argparse.Namespace) -> int:
    """Print the comparison; unreadable folders and nothing to compare are clear errors."""
    try:
        results = all_results(load_runs(args.run_dirs))
    except ReportInputError as exc:
        print(f"escapebench compare: {exc}", file=sys.stderr)
        return EXIT_USAGE
    table = comparison_table(results)
    if not table.rows:
        agents = sorted({r.agent for r in results}) or ["none (no finished episodes)"]
        print(
            "escapebench compare: nothing to compare: no finished EscapeAgent episodes in "
            f"{', '.join(args.run_dirs)} (agents found: {', '.join(agents)})",
            file=sys.stderr,
        )
        return EXIT_NOTHING_TO_COMPARE
    print(markdown(table) if args.markdown else format_text(table))
    return 0
