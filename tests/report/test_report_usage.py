"""Tokens in / cached / out and cost in ``compare`` and the report; old folders still read."""

from __future__ import annotations

import json
from pathlib import Path

from escapebench.bench.costs import Prices
from escapebench.bench.metrics import EpisodeResult
from escapebench.cli import main as cli_main
from tests.support.report_runs import TableParser


def test_compare_prints_usage_and_the_cost_at_the_given_prices(harness_runs, capsys) -> None:
    a, b = harness_runs["base-fumbler"], harness_runs["base-solver"]
    assert cli_main(["compare", str(a), str(b), "--price-in", "1", "--price-out", "2"]) == 0
    out = capsys.readouterr().out
    usage = out[out.index("Model usage"):]
    assert "Tokens in" in usage and "Cached" in usage and "Tokens out" in usage
    assert "Cost (USD)" in usage and "$1 in / $1 cached / $2 out per 1M tokens" in usage
    assert cli_main(["compare", str(a), str(b)]) == 0
    assert "Cost (USD)" not in capsys.readouterr().out  # no prices, no cost column


def test_the_report_has_a_usage_table_priced_by_run_json(runs_copy, tmp_path: Path) -> None:
    run = runs_copy["base-solver"]
    info = json.loads((run / "run.json").read_text())
    info["prices"] = Prices(3.0, 0.3, 15.0).record()
    (run / "run.json").write_text(json.dumps(info))
    out = tmp_path / "site"
    assert cli_main(["report", str(run), "--out", str(out)]) == 0
    parser = TableParser()
    parser.feed((out / "index.html").read_text())
    (row,) = parser.tables["Model usage"]
    assert row[0].startswith("base") and row[-3].startswith("$")
    assert "$3 in / $0.3 cached / $15 out" in (out / "tables.md").read_text()


def test_a_result_written_before_token_caching_reads_with_its_calls_as_sent() -> None:
    old = {"episode_id": "e", "setting": "s", "game": "g", "difficulty": "normal",
           "agent": "base", "model": "m", "model_calls": 3, "tokens_in": 3_000_000,
           "tokens_out": 1_000_000}
    r = EpisodeResult.from_dict(old)
    assert r.tokens_cached == 0 and r.sent_tokens() == (3_000_000, 0, 1_000_000)
    assert r.cost(Prices(0.5, None, 2.0)) == 1.5 + 2.0
    assert r.row()["tokens_cached"] == 0
