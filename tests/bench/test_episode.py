"""One episode in process: the step loop, malformed answers, max steps, the log and resuming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escapebench.bench.episode import (
    EpisodeLogError,
    EpisodeSpec,
    play_episode,
    read_step_log,
)
from escapebench.bench.hints import HintOptions
from escapebench.bench.metrics import ACCOUNTING_COLUMNS, EpisodeResult
from escapebench.engine.model import GameDefinition
from escapebench.llm.scripted import ScriptedChatModel
from tests.bench.answers import pick_answer
from tests.bench.echo_agent import EchoAgent

HINTS = HintOptions(patience=8, help_steps=2)


def model() -> ScriptedChatModel:
    return ScriptedChatModel(lambda messages: pick_answer({"messages": list(messages)}))


def spec(defn: GameDefinition, max_steps: int = 4000) -> EpisodeSpec:
    return EpisodeSpec("ep", defn, "echo", "scripted", max_steps=max_steps, hints=HINTS)


def comparable(result: EpisodeResult) -> dict:
    data = result.to_dict()
    for key in (*ACCOUNTING_COLUMNS, "cached_calls"):
        data.pop(key)
    return data


def steps_of(folder: Path) -> list[dict]:
    records = read_step_log(folder / "steps.jsonl")
    for r in records:
        r.pop("wall_s")
        for call in r["calls"]:
            call.pop("latency_s")
    return records


async def test_an_episode_ends_escaped_and_logs_every_step(mini: GameDefinition, tmp_path):
    result = await play_episode(spec(mini), EchoAgent(model=model()), tmp_path)
    records = read_step_log(tmp_path / "steps.jsonl")
    assert result.escaped and result.ended_by == "escaped"
    assert result.total_steps == len(records) == records[-1]["step"] + 1
    assert records[-1]["game_end"] and result.progress == 1.0
    assert result.model_calls == len(records) - result.forced_steps
    assert result.hints_used == len(result.hint_steps) >= 1
    # The result on disk is the one returned.
    saved = json.loads((tmp_path / "result.json").read_text())
    assert EpisodeResult.from_dict(saved) == result


async def test_a_malformed_answer_is_feedback_not_a_crash(mini: GameDefinition, tmp_path):
    answers = ["I have no idea.", "click(door", "Let me think... Action: move(To the study)"]
    scripted = ScriptedChatModel(answers)
    result = await play_episode(spec(mini, max_steps=3), EchoAgent(model=scripted), tmp_path)
    records = read_step_log(tmp_path / "steps.jsonl")
    assert [r["error"] for r in records] == [True, True, False]
    assert "Could not read an action" in records[0]["feedback"]
    assert records[2]["action"] == "move(study)" and records[2]["scene"] == "hall"
    assert records[0]["raw_answer"] == "I have no idea."
    # The agent saw the feedback of its malformed answers in its memory.
    assert "Could not read an action" in records[1]["agent_state"]["memory"][0]
    assert not result.escaped and result.ended_by == "max_steps" and result.total_steps == 3
    assert result.error_actions == 2


async def test_max_steps_ends_the_episode_unescaped(mini: GameDefinition, tmp_path):
    stuck = ScriptedChatModel(["click(door)"], cycle=True)
    result = await play_episode(spec(mini, max_steps=20), EchoAgent(model=stuck), tmp_path)
    assert (result.escaped, result.total_steps, result.ended_by) == (False, 20, "max_steps")
    assert result.hint_steps == [8, 19]  # patience 8; forced at 10 makes progress; 11..18
    assert result.early_exit_progress == 0.0


@pytest.mark.parametrize("cut", [1, 7, 11, 12, 23])
@pytest.mark.parametrize("torn", [False, True])
async def test_resuming_a_cut_log_gives_the_uninterrupted_result(
    mini: GameDefinition, tmp_path: Path, cut: int, torn: bool
):
    whole = tmp_path / "whole"
    expected = await play_episode(spec(mini), EchoAgent(model=model()), whole)
    assert expected.total_steps > 23
    # A run killed after `cut` steps, possibly in the middle of writing the next record.
    part = tmp_path / "part"
    part.mkdir()
    lines = (whole / "steps.jsonl").read_bytes().splitlines(keepends=True)
    data = b"".join(lines[:cut])
    if torn:
        data += lines[cut][: len(lines[cut]) // 2]
    (part / "steps.jsonl").write_bytes(data)
    fresh = EchoAgent(model=model())
    resumed = await play_episode(spec(mini), fresh, part)
    assert comparable(resumed) == comparable(expected)
    assert steps_of(part) == steps_of(whole)  # no step lost or repeated


async def test_a_finished_episode_is_not_played_again(mini: GameDefinition, tmp_path):
    first = await play_episode(spec(mini), EchoAgent(model=model()), tmp_path)
    untouched = ScriptedChatModel([])  # would raise if asked anything
    again = await play_episode(spec(mini), EchoAgent(model=untouched), tmp_path)
    assert again == first and untouched.calls == 0


async def test_a_log_of_another_game_is_refused(mini: GameDefinition, tmp_path):
    await play_episode(spec(mini, max_steps=30), EchoAgent(model=model()), tmp_path)
    (tmp_path / "result.json").unlink()
    records = read_step_log(tmp_path / "steps.jsonl")
    first_success = next(r for r in records if r["progressed"])
    first_success["key_steps"] += 5  # the log no longer matches what the game does
    (tmp_path / "steps.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
    )
    with pytest.raises(EpisodeLogError, match="does not replay as logged"):
        await play_episode(spec(mini, max_steps=40), EchoAgent(model=model()), tmp_path)
