"""The Table-3 table on stdout: fitted to a terminal, full width in files and pipes."""

from __future__ import annotations

import io
import random
import re

from escapebench.bench.metrics import EpisodeResult
from escapebench.bench.result_tables import (
    format_markdown,
    format_table,
    print_table,
    table_rows,
)
from escapebench.bench.summaries import aggregate
from escapebench.protocols.escapebench.protocol import ESCAPEBENCH_VERSION

ESCAPE_CODE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

# the label the tables give the current escapebench protocol ("escapebench/2")
LABEL = "escapebench/" + ESCAPEBENCH_VERSION.split("+")[0].removeprefix("escapebench-")


def _results() -> list[EpisodeResult]:
    """Two models, six settings of three difficulties, three repeats each: a summary like a
    real run's (wide intervals, long model names, the protocol's full version)."""
    rng = random.Random(5)
    out = []
    for model in ("gpt-4o-2024-08-06", "claude-3-5-sonnet"):
        for n, difficulty in enumerate(["easy", "normal", "hard"] * 2):
            for repeat in range(3):
                out.append(EpisodeResult(
                    f"s{n}__base__{model}__r{repeat}", f"s{n}", f"g{n}", difficulty, "base",
                    model, escaped=True, hints_used=rng.randint(0, 40),
                    total_steps=rng.randint(40, 400), tool_hints=rng.randint(0, 9),
                    key_step_hints=rng.randint(0, 20), total_tools=10, total_key_steps=30,
                    early_exit_units=rng.randint(0, 30), key_steps=30, tools_collected=10,
                    protocol="escapebench", protocol_version=ESCAPEBENCH_VERSION,
                    max_steps=500, patience=50, help_steps=10,
                    tool_choice=rng.uniform(-0.5, 1.0),
                ))
    return out


def _rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("base ")]


def test_at_80_columns_every_line_fits():
    text = ESCAPE_CODE.sub("", format_table(aggregate(_results()), width=80, styled=True))
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    # every summary still shows its interval, whole or wrapped inside its cell
    assert text.count("[") >= 8 * 5


def test_at_220_columns_each_row_is_one_line_and_covers_is_said_once():
    summaries = aggregate(_results())
    text = format_table(summaries, width=220)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 220
    rule = next(n for n, line in enumerate(lines) if line.startswith("------"))
    body = lines[rule + 1:rule + 1 + len(summaries)]
    assert body == _rows(text) and lines[rule + 1 + len(summaries)].startswith("Covers")
    assert all(re.search(r"\d+\.\d\d \[\d+\.\d\d, \d+\.\d\d\]", row) for row in body)
    # the rules every row shares are said once under the table; each row keeps its settings
    (covers,) = [line for line in lines if line.startswith("Covers")]
    assert covers == (f"Covers (every row): {LABEL}, max 500 steps, patience 50, help 10, "
                      "3 repeats, text actions")
    assert all(re.search(r"  [26] settings #[0-9a-f]{8}$", row) for row in body)


def test_a_pipe_gets_the_full_table_one_line_per_row_without_escape_codes():
    summaries = aggregate(_results())
    out = io.StringIO()  # not a terminal
    print_table(summaries, file=out)
    text = out.getvalue()
    assert "\x1b" not in text
    header, rule, *rest = text.splitlines()
    assert header.split()[:3] == ["Agent", "Model", "Difficulty"] and set(rule) == {"-", " "}
    assert rest[:len(summaries)] == _rows(text) and len(_rows(text)) == len(summaries)
    assert all(row.endswith("3 repeats, text actions") for row in _rows(text))  # Covers kept


def test_the_covers_label_names_the_protocol_once():
    summaries = aggregate(_results())
    for text in (format_table(summaries), format_markdown(summaries)):
        assert f"{LABEL}, max 500 steps, patience 50, help 10, 3 repeats, text actions" \
            in text
        assert "vescapebench" not in text and "escapebench-1" not in text


def test_no_cell_is_cut_off_at_any_terminal_width():
    summaries = aggregate(_results())
    _, rows = table_rows(summaries)
    for width in range(50, 260, 15):
        text = format_table(summaries, width=width)
        assert max(len(line) for line in text.splitlines()) <= width, width
        flat = re.sub(r"\s+", "", text)
        for row in rows:
            for cell in row[:-1]:  # Covers: its shared part is said once, under the table
                assert re.sub(r"\s+", "", cell) in flat or all(
                    word in flat for word in cell.split()), (width, cell)


def test_no_header_word_is_broken_at_any_terminal_width():
    # At 120 columns the header read "(percentage" over ")" (rich's shrinking cut the word).
    summaries = aggregate(_results())
    headers, _ = table_rows(summaries)
    words = {w for header in headers for w in header.split()}
    tables = 0
    for width in range(60, 260, 7):
        lines = format_table(summaries, width=width).splitlines()
        rule = next((n for n, line in enumerate(lines) if line.startswith("------")), None)
        if rule is None:
            continue  # one block per row: each header whole on its line
        tables += 1
        heading = {w for line in lines[:rule] for w in line.split()}
        assert heading <= words, (width, heading - words)
        assert sum(line.count("(percentage)") for line in lines[:rule]) == 2, width
        assert max(len(line) for line in lines) <= width, width
    assert tables >= 15


def test_docs_metrics_shows_the_covers_label_the_tables_print():
    from pathlib import Path

    from escapebench.games.loading import builtin_files, load_file

    docs = (Path(__file__).parents[2] / "docs" / "metrics.md").read_text(encoding="utf-8")
    example = next(line.strip() for line in docs.splitlines() if "settings #" in line)
    builtin = [d for f in builtin_files() for d in load_file(f)]
    results = [EpisodeResult(f"{d.setting}__explorer__none__r{r}", d.setting, d.game,
                             d.difficulty, "explorer", "none", escaped=True, total_steps=9,
                             protocol="escapebench", protocol_version=ESCAPEBENCH_VERSION,
                             max_steps=4000, patience=50, help_steps=10)
               for d in builtin for r in range(5)]
    row = next(s for s in aggregate(results) if s.difficulty == "all")
    assert row.coverage is not None and example == row.coverage.label()
    version = ESCAPEBENCH_VERSION.split("+")[0]
    assert f"`{version}+PROMPTS+OBSERVATION` to\n`{LABEL}`" in docs
