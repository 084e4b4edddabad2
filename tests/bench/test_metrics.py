"""Episode metrics (section 5.1) and the result files."""

from __future__ import annotations

import csv

from escapebench.bench.hints import reference_effects
from escapebench.bench.metrics import (
    RESULT_COLUMNS,
    EpisodeMetrics,
    read_result_json,
    write_result_json,
)
from escapebench.bench.records import StepRecord
from escapebench.bench.result_tables import (
    write_results_csv,
    write_summary_csv,
)
from escapebench.bench.summaries import aggregate
from escapebench.engine.model import GameDefinition


def record(step: int, key_steps: int, tools: int, *, hint=None, progressed=False, **extra):
    """A step record as a log line holds it (only the fields the metrics read)."""
    return StepRecord.from_json({
        "step": step, "key_steps": key_steps, "tools_collected": tools,
        "progress": (key_steps + tools) / 6, "progressed": progressed, "success": progressed,
        "error": False, "hint": hint, "calls": [{"tokens_in": 10, "tokens_out": 2,
                                                  "cached": False, "retries": 1}],
        "wall_s": 0.5, **extra,
    })


def hint(index: int, steps_in_help: int, forced: bool = False) -> dict:
    return {"action": "x", "scene": "hall", "index": index, "steps_in_help": steps_in_help,
            "forced": forced}


def test_episode_metrics_follow_the_paper(mini: GameDefinition) -> None:
    m = EpisodeMetrics(mini, reference_effects(mini))
    m.add(record(0, 1, 0, progressed=True))  # click(drawer): a key step on its own
    m.add(record(1, 1, 0))
    # Hint on reference action 1 (click(knife): a tool), done by the player in help.
    m.add(record(2, 1, 0, hint=hint(1, 0)))
    m.add(record(3, 1, 1, hint=hint(1, 1), progressed=True, hint_done="completed"))
    # Hint on action 2 (apply(knife, box): a key step), forced.
    m.add(record(4, 1, 1, hint=hint(2, 0)))
    m.add(record(5, 2, 1, hint=hint(2, 1, forced=True), progressed=True, hint_done="completed"))
    r = m.result(episode_id="e", agent="a", model="m", repeat=0, prompt_version="p",
                 max_steps=100)
    assert r.total_steps == 6 and not r.escaped and r.ended_by == "max_steps"
    assert r.hints_used == 2 and r.hint_steps == [2, 4]
    assert (r.tool_hints, r.key_step_hints) == (1, 1)
    assert r.tool_hint_share == 1 / mini.total_tools
    assert r.key_step_hint_share == 1 / mini.total_key_steps
    assert r.early_exit_progress == 1 / 6 and r.early_exit_units == 1
    assert r.hints_by_action == {"click": 0, "apply": 1, "input": 0, "craft": 0}
    assert r.key_steps_by_action == {"click": 1, "apply": 2, "input": 1, "craft": 0}
    assert r.forced_steps == 1 and [h.forced for h in r.hints] == [False, True]
    assert [h.ended_step for h in r.hints] == [3, 5]
    assert r.progress_curve == [(0, 0, 0, 0), (1, 1, 0, 0), (2, 1, 0, 1), (4, 1, 1, 1),
                                (4, 1, 1, 2), (6, 2, 1, 2)]
    assert r.progress_intervals == [1, 3, 2]
    assert (r.model_calls, r.tokens_in, r.tokens_out, r.retries) == (6, 60, 12, 6)
    assert r.wall_time_s == 3.0


def test_without_hints_the_early_exit_progress_is_the_final_progress(mini):
    m = EpisodeMetrics(mini, reference_effects(mini))
    m.add(record(0, 1, 0, progressed=True))
    m.add(record(1, 1, 1, progressed=True, game_end=True))
    r = m.result(episode_id="e", agent="a", model="m", repeat=0, prompt_version="",
                 max_steps=9)
    assert r.escaped and r.early_exit_progress == r.progress == 2 / 6


def test_results_round_trip_through_json_and_csv(mini, tmp_path) -> None:
    m = EpisodeMetrics(mini, reference_effects(mini))
    m.add(record(0, 0, 0, hint=hint(0, 0)))
    m.add(record(1, 1, 0, hint=hint(0, 1, forced=True), progressed=True, hint_done="completed"))
    r = m.result(episode_id="mini__base__m__r0", agent="base", model="m", repeat=0,
                 prompt_version="v1", max_steps=10)
    write_result_json(tmp_path / "result.json", r)
    assert read_result_json(tmp_path / "result.json") == r
    assert not list(tmp_path.glob("*.tmp"))  # the atomic write left nothing behind

    write_results_csv(tmp_path / "results.csv", [r])
    with open(tmp_path / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == RESULT_COLUMNS
    assert rows[0]["episode_id"] == "mini__base__m__r0" and rows[0]["hints_used"] == "1"
    assert float(rows[0]["key_step_hint_share"]) == r.key_step_hint_share

    write_summary_csv(tmp_path / "summary.csv", aggregate([r]))
    with open(tmp_path / "summary.csv", newline="") as f:
        summary = list(csv.DictReader(f))
    assert [s["difficulty"] for s in summary] == ["normal", "all"]
    assert summary[0]["click_hint_share"] == "1.0"
