"""The typed step record: it reads the step logs written before it, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escapebench.bench.hints import reference_effects
from escapebench.bench.metrics import RESULT_VERSION, EpisodeMetrics, read_result_json
from escapebench.bench.records import (
    EpisodeLogError,
    StepRecord,
    read_step_records,
    write_step_log,
)
from escapebench.games.loading import load_games

# An episode folder written by escapebench before step records were typed (the escape agent
# against the fake server on tutorial-hard, with --patience 2 --help-steps 2 --memory 2: hints,
# forced steps, reflection, foresight and model calls).
EPISODE = Path(__file__).parent / "data" / "tutorial-hard__escape__fake__r0"


def test_every_line_of_an_earlier_log_reads_back_and_writes_out_unchanged(
    tmp_path: Path,
) -> None:
    lines = (EPISODE / "steps.jsonl").read_bytes().splitlines()
    records = read_step_records(EPISODE)
    assert [r.step for r in records] == list(range(len(lines)))
    assert [r.json_bytes() for r in records] == lines
    write_step_log(tmp_path / "steps.jsonl", records)
    assert (tmp_path / "steps.jsonl").read_bytes() == (EPISODE / "steps.jsonl").read_bytes()
    forced = [r for r in records if r.hint is not None and r.hint.forced]
    assert forced and all(r.hint_done == "completed" and not r.calls for r in forced)
    assert all(c.kind for r in records for c in r.calls)


def test_the_metrics_of_an_earlier_folder_are_its_result(tmp_path: Path) -> None:
    """The records of the folder, fed to the metrics, give its result.json again."""
    written = read_result_json(EPISODE / "result.json")
    defn = next(d for d in load_games(["tutorial"]) if d.setting == written.setting)
    metrics = EpisodeMetrics(defn, reference_effects(defn))
    for record in read_step_records(EPISODE):
        metrics.add(record)
    again = metrics.result(
        episode_id=written.episode_id, agent=written.agent, model=written.model,
        repeat=written.repeat, prompt_version=written.prompt_version,
        max_steps=written.max_steps, player=written.player,
        action_format=written.action_format, patience=written.patience,
        help_steps=written.help_steps, protocol=written.protocol,
        protocol_version=written.protocol_version,
    )
    # written as result version 1; the tutorial's tool choice is the same by every rule
    assert written.version == 1 and again.version == RESULT_VERSION
    assert {**again.to_dict(), "version": 1} == written.to_dict()
    assert written.hints_used > 0 and written.forced_steps > 0 and written.model_calls > 0


def test_a_record_of_an_older_log_takes_defaults_for_what_it_lacks() -> None:
    """Logs older than outcomes, events and cached-token counts still read."""
    old = StepRecord.from_json({
        "step": 4, "action": "click(box)", "error": True, "key_steps": 1,
        "tools_collected": 0, "progress": 0.25,
        "hint": {"action": "click(box)", "scene": "hall", "index": 2},
        "calls": [{"kind": "action", "tokens_in": 7, "tokens_out": 3}],
        "agent_state": {"memory": []},  # an earlier escapebench logged the agent's memory
    })
    assert (old.step, old.outcome, old.events, old.hint_done) == (4, "", (), None)
    assert (old.hint.index, old.hint.steps_in_help, old.hint.forced) == (2, 0, False)
    assert (old.calls[0].tokens_in, old.calls[0].tokens_cached) == (7, 0)
    assert "agent_state" not in old.to_json()


def test_a_line_that_is_not_a_step_record_names_the_log(tmp_path: Path) -> None:
    folder = tmp_path / "ep"
    folder.mkdir()
    (folder / "steps.jsonl").write_text(json.dumps({"step": "one"}) + "\n")
    with pytest.raises(EpisodeLogError, match=r"steps\.jsonl: record 1 is not a step record"):
        read_step_records(folder)
