"""``escapebench compare RUN_DIR...``: paired comparisons and the Table-5 form.

* ``compare A B`` (two result folders, each of one agent and model): the paired comparison of
  B against A: per setting both played, B's mean minus A's (over repeats), averaged over the
  settings, with a 95% bootstrap interval and a sign-flip permutation test over settings
  (:func:`escapebench.bench.summaries.paired_compare`); a difference whose interval covers zero
  is "not distinguishable". Runs under different rules (protocol, limits, hint options) are
  refused: their per-setting numbers measure different things.
* Folders holding EscapeAgent runs: per model, the BaseAgent row, then each EscapeAgent
  variant with its change against BaseAgent on the settings both played under the same rules.

The numbers come from ``escapebench.bench.summaries`` (through ``escapebench.report.tables``);
this module only picks the rows and prints them.
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
from collections.abc import Sequence

from escapebench.bench.costs import add_price_arguments, prices_from_args
from escapebench.bench.metrics import EpisodeResult
from escapebench.bench.summaries import PairedDifference, coverage_of, paired_compare, rules_of
from escapebench.exit_codes import EXIT_NOTHING_TO_COMPARE, EXIT_OK, EXIT_USAGE
from escapebench.report.runs import (
    ReportInputError,
    RunFolder,
    all_results,
    load_runs,
    recorded_prices,
)
from escapebench.report.tables import (
    COVERS,
    HUMAN_AGENT,
    METRICS,
    PERCENT_FIELDS,
    Table,
    agent_label,
    markdown,
    table3,
    table5,
    usage_table,
)
from escapebench.terminal import render_table, terminal_width


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``escapebench compare``."""
    parser.add_argument(
        "run_dirs", nargs="+", metavar="RUN_DIR",
        help="two result folders A B for a paired comparison (B - A), or folders holding "
        "BaseAgent and EscapeAgent runs (any number, any mix) for the Table-5 form",
    )
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    add_price_arguments(parser)


def comparison_table(results: Sequence[EpisodeResult]) -> Table:
    """The Table-5 comparison of ``results``: per model, BaseAgent then EscapeAgent variants.

    The EscapeAgent rows carry their change against BaseAgent; the table has no rows when
    there is nothing to compare.
    """
    def key(row_summary: object) -> tuple[object, ...]:
        c = getattr(row_summary, "coverage", None)
        return (getattr(row_summary, "model", ""), c.rules() if c is not None else None)

    base_rows = {key(row.summary): row for row in table3(results).rows}
    rows = []
    for row in table5(results).rows:
        model = row.summary.model
        base = base_rows.pop(key(row.summary), None)
        if base is not None:
            base.label = f"{model} / {base.summary.agent}"
            rows.append(base)
        row.label = f"{model} / {row.summary.agent}"
        rows.append(row)
    return Table(
        "BaseAgent vs EscapeAgent (Table 5)",
        "Per model: BaseAgent, then EscapeAgent variants with the change against BaseAgent on "
        "the settings both played (↓ fewer, ↑ more).",
        ["Model / agent", *(header for _, header, _ in METRICS), COVERS],
        rows,
    )


def _with_change(cell: str, change: str) -> str:
    """``"4.70 (13.74%)"`` with change ``"↓3.44"`` -> ``"4.70 ↓3.44 (13.74%)"`` (the paper's
    order: the value, its change, then the share)."""
    if not change:
        return cell
    value, _, share = cell.partition(" ")
    return f"{value} {change} {share}".rstrip()


def table_rows(table: Table) -> tuple[list[str], list[list[str]], list[str]]:
    """The headers, the cells (changes after the values) and one note per row of ``table``."""
    rows: list[list[str]] = []
    notes = []
    for row in table.rows:
        cells = [
            _with_change(cell, row.deltas[i][0] if i < len(row.deltas) and row.deltas[i] else "")
            for i, cell in enumerate(row.cells)
        ]
        rows.append([row.label, *cells])
        if row.note:
            notes.append(f"  {row.label}: {row.note}")
    return list(table.headers), rows, notes


def format_text(table: Table, *, width: int | None = None, styled: bool = False) -> str:
    """The table as text (changes after the values), then one note per row; full width, one
    line per row, unless ``width`` (a terminal's) is given."""
    headers, rows, notes = table_rows(table)
    right = set(range(1, len(headers) - 1)) if headers and headers[-1] == COVERS else set(
        range(1, len(headers)))
    shared = [len(headers) - 1] if headers and headers[-1] == COVERS else []
    text = render_table(headers, rows, right=right, width=width, shared=shared, styled=styled)
    return "\n".join([table.title, "", text, "", *(_fit(n, width, "    ") for n in notes)])


def _fit(line: str, width: int | None, indent: str = "") -> str:
    """``line`` wrapped at ``width`` (unchanged without one)."""
    if width is None or len(line) <= width:
        return line
    return textwrap.fill(line, width, subsequent_indent=indent, break_on_hyphens=False)


# (metric, header, lower is better) of the paired comparison, in printed order
PAIRED_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("escaped", "Escaped (share)", False),
    ("hints_used", "Hints Used", True),
    ("total_steps", "Total Steps", True),
    ("early_exit_progress", "Early Exit Progress (%)", False),
    ("tool_hints", "Tool Hints Used", True),
    ("tool_hint_share", "Tool Hints (share, %)", True),
    ("key_step_hints", "Key Steps Hints Used", True),
    ("key_step_hint_share", "Key Steps Hints (share, %)", True),
    ("progress", "Progress (%)", False),
    ("tool_choice", "Tool Choice", False),
    ("creative_choice", "Creative Tool Choice", False),
)
_PERCENT = {*PERCENT_FIELDS, "escaped", "tool_hint_share", "key_step_hint_share", "progress"}


class CompareError(ValueError):
    """Two runs that cannot be compared, with the reason."""


def _one_row(run: RunFolder) -> list[EpisodeResult]:
    results = [r for r in run.results if r.agent != HUMAN_AGENT]
    if not results:
        raise CompareError(f"{run.path}: no finished episodes to compare")
    rows = {(r.agent, r.model, rules_of(r)) for r in results}
    if len(rows) > 1:
        names = sorted({agent_label(a, m) for a, m, _ in rows})
        raise CompareError(
            f"{run.path}: holds {len(rows)} different runs ({', '.join(names)}); a paired "
            "comparison needs one agent and model under one set of rules per folder"
        )
    return results


def paired_report(
    a_run: RunFolder, b_run: RunFolder, *, width: int | None = None, styled: bool = False
) -> str:
    """The paired comparison of B against A as text (raises :class:`CompareError`); its
    table is full width unless ``width`` (a terminal's) is given."""
    a, b = _one_row(a_run), _one_row(b_run)
    ca, cb = coverage_of(a), coverage_of(b)
    rules = ca.differences(cb, settings=False)
    if rules:
        raise CompareError(
            f"{a_run.path} and {b_run.path} were played under different rules or scored by "
            "different result versions (" + "; ".join(rules) + "): their per-setting numbers "
            "measure different work"
        )
    diffs = paired_compare(a, b, [name for name, _, _ in PAIRED_METRICS])
    if not diffs:
        raise CompareError(f"{a_run.path} and {b_run.path} have no setting in common")
    label_a, label_b = agent_label(a[0].agent, a[0].model), agent_label(b[0].agent, b[0].model)
    common = sorted(set(ca.settings) & set(cb.settings))
    lines = [
        f"Paired comparison: B = {label_b} ({b_run.path}) minus A = {label_a} ({a_run.path})",
        f"on the {len(common)} setting{'s' if len(common) != 1 else ''} both played; "
        f"rules: {ca.rules_label()}; repeats: "
        f"A {ca.repeats_label().split()[0]}, B {cb.repeats_label().split()[0]}",
    ]
    only_a = sorted(set(ca.settings) - set(cb.settings))
    only_b = sorted(set(cb.settings) - set(ca.settings))
    if only_a or only_b:
        lines.append(f"left out: {len(only_a)} settings only in A, {len(only_b)} only in B")
    lines.append("")
    table = [["Metric", "A", "B", "B - A", "95% CI", "p (sign-flip)", "Verdict"]]
    by_name = {d.metric: d for d in diffs}
    for name, header, lower_better in PAIRED_METRICS:
        d = by_name[name]
        if d.settings == 0:
            continue
        table.append([header, *_paired_cells(d, name in _PERCENT, lower_better)])
    lines = [_fit(line, width) for line in lines]
    lines.append(render_table(table[0], table[1:], right={1, 2, 3, 4, 5}, width=width,
                              styled=styled))
    lines += [
        "",
        _fit("A, B: means over settings of each setting's mean over repeats. B - A: the mean "
             "of the per-setting differences; 95% CI: bootstrap over settings and repeats; p: "
             "sign-flip permutation test over settings. 'not distinguishable': the interval "
             "covers zero, or the test does not reach p < 0.05. See docs/metrics.md.", width),
    ]
    return "\n".join(lines)


def _paired_cells(d: PairedDifference, percent: bool, lower_better: bool) -> list[str]:
    scale = 100.0 if percent else 1.0

    def num(x: float) -> str:
        return "n/a" if math.isnan(x) else f"{scale * x:.2f}"

    ci = "n/a" if d.ci is None else f"[{num(d.ci[0])}, {num(d.ci[1])}]"
    p = "n/a" if d.p_value is None else "<0.0001" if d.p_value < 1e-4 else f"{d.p_value:.4f}"
    if d.ci is None:
        verdict = "not distinguishable (one episode: no interval)"
    elif not d.interval_excludes_zero:
        verdict = "not distinguishable"
    elif not d.distinguishable:
        verdict = "not distinguishable (interval excludes 0, test p >= 0.05: too few settings)"
    else:
        better = (d.difference < 0) == lower_better
        direction = "lower" if d.difference < 0 else "higher"
        verdict = f"B {direction} ({'better' if better else 'worse'})"
    return [num(d.mean_a), num(d.mean_b), f"{'+' if d.difference > 0 else ''}{num(d.difference)}",
            ci, p, verdict]


def main(args: argparse.Namespace) -> int:
    """Print the comparison; unreadable folders and nothing to compare are clear errors."""
    try:
        runs = load_runs(args.run_dirs)
    except ReportInputError as exc:
        print(f"escapebench compare: {exc}", file=sys.stderr)
        return EXIT_USAGE
    results = all_results(runs)
    table = comparison_table(results)
    width = terminal_width(sys.stdout)
    styled = width is not None
    usage = usage_table(results, prices_from_args(args) or recorded_prices(runs))
    printed = False
    if table.rows:
        print(markdown(table) if args.markdown else format_text(table, width=width,
                                                                 styled=styled))
        printed = True
    if len(runs) == 2:
        try:
            text = paired_report(runs[0], runs[1], width=width, styled=styled)
        except CompareError as exc:
            if not printed:
                print(f"escapebench compare: cannot compare: {exc}", file=sys.stderr)
                return EXIT_NOTHING_TO_COMPARE
            print(f"\n(no paired comparison: {exc})")
        else:
            print(("\n" if printed else "") + text)
        _print_usage(usage, args.markdown)
        return EXIT_OK
    if not printed:
        agents = sorted({r.agent for r in results}) or ["none (no finished episodes)"]
        print(
            "escapebench compare: nothing to compare: no finished EscapeAgent episodes in "
            f"{', '.join(args.run_dirs)} (agents found: {', '.join(agents)}); give two "
            "result folders for a paired comparison",
            file=sys.stderr,
        )
        return EXIT_NOTHING_TO_COMPARE
    _print_usage(usage, args.markdown)
    return EXIT_OK


def _print_usage(usage: Table, as_markdown: bool) -> None:
    """Calls and tokens in / cached / out of each run's agent (and cost when priced)."""
    if usage.rows:
        print("\n" + (markdown(usage) if as_markdown else format_text(usage)))
        print(usage.caption)
