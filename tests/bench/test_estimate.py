"""``escapebench estimate``: spends nothing, and a run lands inside the range it prints."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from escapebench.bench.command_estimate import estimate_run
from escapebench.bench.command_run import settings_from_args
from escapebench.cli import build_parser
from escapebench.cli import main as cli_main
from tests.bench.answers import pick_answer
from tests.support.fake_openai_server import FakeOpenAIServer


def _args(server: FakeOpenAIServer, out: Path) -> list[str]:
    return ["--agent", "base", "--model", "fake-model", "--base-url", server.base_url,
            "--games", "tutorial", "--difficulty", "normal", "--no-cache", "--quiet",
            "--out", str(out), "--max-tokens", "64", "--max-retries", "0",
            "--price-in", "0.15", "--price-cached", "0.075", "--price-out", "0.6"]


def test_a_run_lands_inside_the_estimated_range(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(answer=pick_answer, report_cached=True) as server:
        argv = _args(server, tmp_path / "run")
        assert cli_main(["estimate", *argv]) == 0
        printed = capsys.readouterr().out
        assert server.request_count == 0  # the estimate sent nothing
        assert not (tmp_path / "run").exists()  # and wrote no result folder
        est = estimate_run(settings_from_args(build_parser("estimate").parse_args(
            ["estimate", *argv])))
        assert cli_main(["run", *argv]) == 0
        assert server.request_count > 0
    assert "tutorial" in printed and "Cost between $" in printed
    assert "characters / 4" in printed  # no tokenizer for this model name: it says so
    (row,) = csv.DictReader((tmp_path / "run" / "results.csv").open())
    ref, upper = est.total_reference, est.total_upper
    calls, steps = int(row["model_calls"]), int(row["total_steps"])
    tokens_in, tokens_out = int(row["tokens_in"]), int(row["tokens_out"])
    assert ref.calls <= calls <= upper.calls
    assert ref.steps <= steps <= upper.steps
    assert ref.tokens_in <= tokens_in <= upper.tokens_in
    assert ref.tokens_out <= tokens_out <= upper.tokens_out
    # Cost: the run's, with the cached part at its own price, is inside the range too.
    cost = float(row["cost_usd"])
    assert 0 < int(row["tokens_cached"]) < tokens_in
    from escapebench.bench.costs import Prices

    prices = Prices(0.15, 0.075, 0.6)
    assert prices.cost(ref.tokens_in, ref.tokens_in, ref.tokens_out) <= cost
    assert cost <= upper.cost(prices)
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["prices"]["input"] == 0.15 and run["prices"]["cached_input"] == 0.075
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert "Model usage" in summary and "Cost (USD)" in summary


def test_the_reference_case_follows_the_chain_and_the_upper_bound_the_hint_rules(
    tmp_path: Path,
) -> None:
    with FakeOpenAIServer() as server:
        argv = [*_args(server, tmp_path / "x"), "--patience", "5", "--help-steps", "2"]
        est = estimate_run(settings_from_args(build_parser("estimate").parse_args(
            ["estimate", *argv])))
    (tutorial,) = est.settings
    from escapebench.games.loading import load_games

    (defn,) = [d for d in load_games(["tutorial"]) if d.difficulty == "normal"]
    actions = len(defn.reference)
    assert tutorial.reference.steps == actions and tutorial.reference.calls == actions
    # Without progress, every non-move reference action costs patience + help steps, one of
    # them played for the model (the first hint one step later: patience counts from 0).
    hinted = sum(not r.action.startswith("move") for r in defn.reference)
    assert tutorial.upper.steps == hinted * (5 + 2) + 1
    assert tutorial.upper.calls == tutorial.upper.steps - hinted
    assert tutorial.upper.tokens_out == tutorial.upper.calls * 64
