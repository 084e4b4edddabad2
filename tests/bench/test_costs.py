"""Cost columns: prices from the command line, a replay from the response cache costs
nothing, and the summary prints tokens in / cached / out with the cost."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from escapebench.bench.costs import Prices
from escapebench.cli import main as cli_main
from tests.bench.answers import pick_answer
from tests.support.fake_openai_server import FakeOpenAIServer


def _rows(folder: Path) -> list[dict[str, str]]:
    return list(csv.DictReader((folder / "results.csv").open()))


def test_a_rerun_from_the_response_cache_counts_the_tokens_and_costs_nothing(
    tmp_path: Path, capsys
) -> None:
    cache = tmp_path / "cache.sqlite"
    with FakeOpenAIServer(answer=pick_answer, report_cached=True) as server:
        def run(out: str) -> None:
            assert cli_main(["run", "--agent", "base", "--model", "fake-model", "--base-url",
                             server.base_url, "--games", "tutorial", "--difficulty", "normal",
                             "--cache", str(cache), "--quiet", "--out", str(tmp_path / out),
                             "--price-in", "2", "--price-cached", "1", "--price-out", "8"]) == 0
        run("first")
        first_summary = capsys.readouterr().out
        sent = server.request_count
        run("second")
        second_summary = capsys.readouterr().out
        assert server.request_count == sent  # every answer came from the cache
    (first,), (second,) = _rows(tmp_path / "first"), _rows(tmp_path / "second")
    for column in ("model_calls", "tokens_in", "tokens_cached", "tokens_out"):
        assert first[column] == second[column]
    tokens_in, cached, out = (int(first[c]) for c in ("tokens_in", "tokens_cached",
                                                     "tokens_out"))
    # The first run paid for what it sent: its calls, less those a repeated prompt of the
    # same episode got from the cache (result.json keeps those counts apart).
    import json

    (result,) = (tmp_path / "first" / "episodes").glob("*/result.json")
    data = json.loads(result.read_text())
    sent_tokens = (data["sent_tokens_in"], data["sent_tokens_cached"], data["sent_tokens_out"])
    assert 0 < sent_tokens[0] <= tokens_in and sent_tokens[2] <= out
    assert float(first["cost_usd"]) == pytest.approx(Prices(2, 1, 8).cost(*sent_tokens),
                                                     abs=1e-6)
    assert float(first["cost_usd"]) <= Prices(2, 1, 8).cost(tokens_in, cached, out)
    assert float(second["cost_usd"]) == 0.0
    assert "in / " in first_summary and " cached / " in first_summary and "cost $" in first_summary
    assert "cost $0 " in second_summary


def test_a_negative_price_is_a_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli_main(["run", "--price-in", "-1"])
    assert exc.value.code == 2
    assert "a price must be a number >= 0" in capsys.readouterr().err


def test_cached_input_costs_the_input_price_unless_given() -> None:
    assert Prices(1.0, None, 0.0).cost(1_000_000, 500_000, 0) == 1.0
    assert Prices(1.0, 0.1, 4.0).cost(1_000_000, 500_000, 250_000) == pytest.approx(
        0.5 + 0.05 + 1.0)
