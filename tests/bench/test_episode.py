"""One episode in process: the step loop, malformed answers, max steps, the log and resuming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escapebench.bench import records
from escapebench.bench.episode import (
    EpisodeLogError,
    EpisodeSpec,
    StepProgress,
    play_episode,
    read_step_log,
)
from escapebench.bench.hints import HintOptions
from escapebench.bench.metrics import ACCOUNTING_COLUMNS, EpisodeResult
from escapebench.bench.records import read_checkpoints
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
    # The agent saw the feedback of its malformed answer in its memory (the next prompt).
    assert "Could not read an action" in scripted.history[1][-1]["content"]
    assert not result.escaped and result.ended_by == "max_steps" and result.total_steps == 3
    assert result.error_actions == 2


async def test_max_steps_ends_the_episode_unescaped(mini: GameDefinition, tmp_path):
    stuck = ScriptedChatModel(["click(door)"], cycle=True)
    result = await play_episode(spec(mini, max_steps=20), EchoAgent(model=stuck), tmp_path)
    assert (result.escaped, result.total_steps, result.ended_by) == (False, 20, "max_steps")
    # patience 8: no progress after step 8 since step 0, so help from step 9; forced on its 2nd
    # step (10), which makes progress; none again after step 18 since step 10: help from 19
    assert result.hint_steps == [9, 19]
    assert result.early_exit_progress == 0.0


class Killed(Exception):
    """Stands for kill -9 between two steps: raised by the progress callback."""


def kill_after(steps: int):
    def on_step(progress: StepProgress) -> None:
        if progress.step >= steps and not progress.done:
            raise Killed

    return on_step


async def play_until_killed(defn: GameDefinition, folder: Path, steps: int) -> None:
    with pytest.raises(Killed):
        await play_episode(spec(defn), EchoAgent(model=model()), folder,
                           on_step=kill_after(steps))
    assert not (folder / "result.json").exists()


def drop_last_lines(path: Path, count: int = 1, torn: bool = False) -> None:
    """What a kill (or a power cut) leaves of a file appended line by line: the last ``count``
    lines lost, the last of them possibly half-written."""
    lines = path.read_bytes().splitlines(keepends=True)
    rest = lines[-count][: len(lines[-count]) // 2] if torn else b""
    path.write_bytes(b"".join(lines[: len(lines) - count]) + rest)


KILL_POINTS = ["between steps", "before the append", "mid append", "mid checkpoint", "power cut"]


def kill_at(folder: Path, kill_point: str) -> int:
    """Turn a folder killed between two steps into one killed at ``kill_point``; return how
    many of its steps were never finished."""
    log, journal = folder / "steps.jsonl", folder / "checkpoint.jsonl"
    if kill_point == "before the append":  # the checkpoint line is written, the record not
        drop_last_lines(log)
    elif kill_point == "mid append":
        drop_last_lines(log, torn=True)
    elif kill_point == "mid checkpoint":  # the step never finished: it is played again
        drop_last_lines(log)
        drop_last_lines(journal, torn=True)
        return 1
    elif kill_point == "power cut":
        # The log lines not synced yet are lost (at worst every one the journal still holds);
        # the journal's lines were synced.
        drop_last_lines(log, min(len(read_checkpoints(folder, "ep")), len(log.read_bytes()
                                                                      .splitlines())))
    return 0


@pytest.mark.parametrize("cut", [1, 7, 11, 12, 23])
@pytest.mark.parametrize("kill_point", KILL_POINTS)
async def test_resuming_a_killed_episode_gives_the_uninterrupted_result(
    mini: GameDefinition, tmp_path: Path, cut: int, kill_point: str
):
    whole = tmp_path / "whole"
    expected = await play_episode(spec(mini), EchoAgent(model=model()), whole)
    assert expected.total_steps > 23
    part = tmp_path / "part"
    await play_until_killed(mini, part, cut)
    unfinished = kill_at(part, kill_point)
    fresh = EchoAgent(model=model())
    resumed = await play_episode(spec(mini), fresh, part)
    assert comparable(resumed) == comparable(expected)
    assert steps_of(part) == steps_of(whole)  # no step lost or repeated, same agent memory
    # Only the steps not finished before the kill ask the model again.
    start = cut - unfinished
    assert fresh.model.calls == sum(len(r["calls"]) for r in steps_of(whole)[start:])


# With rotation after every 4 lines, steps 8 and 12 start a new journal. A kill in the middle
# of writing such a step's line leaves the old journal and a torn new one ("mid rotation", at
# 12); a torn last line of the journal at a step that rotated it cannot happen.
ROTATION_CASES = [
    (cut, kill_point)
    for cut in (9, 10, 11, 12, 13)
    for kill_point in KILL_POINTS
    if not (kill_point == "mid checkpoint" and cut in (9, 13))
] + [(12, "mid rotation")]


@pytest.mark.parametrize(("cut", "kill_point"), ROTATION_CASES)
async def test_the_journal_is_rotated_and_resuming_across_a_rotation_is_exact(
    mini: GameDefinition, tmp_path: Path, cut: int, kill_point: str,
    monkeypatch: pytest.MonkeyPatch,
):
    # A tiny journal: rotated at steps 4, 8, 12, ... (once it holds 4 lines).
    monkeypatch.setattr(records, "JOURNAL_ROTATE_BYTES", 1)
    monkeypatch.setattr(records, "JOURNAL_ROTATE_LINES", 4)
    whole = tmp_path / "whole"
    expected = await play_episode(spec(mini), EchoAgent(model=model()), whole)
    part = tmp_path / "part"
    await play_until_killed(mini, part, cut)
    # The journal holds only the steps since its last rotation.
    assert [c.step for c in read_checkpoints(part, "ep")] == list(range(4 * ((cut - 1) // 4), cut))
    if kill_point == "mid rotation":  # step 12's new journal was being written
        (part / "checkpoint.jsonl.new").write_bytes(b'{"v":1,"episode_id":"ep","st')
    else:
        kill_at(part, kill_point)
    resumed = await play_episode(spec(mini), EchoAgent(model=model()), part)
    assert comparable(resumed) == comparable(expected)
    assert steps_of(part) == steps_of(whole)  # no step lost or repeated
    assert not (part / "checkpoint.jsonl").exists()


async def test_the_log_grows_with_steps_not_with_the_agents_memory(
    mini: GameDefinition, tmp_path: Path
):
    small, large = tmp_path / "small", tmp_path / "large"
    stuck = ["click(door)"]
    await play_episode(spec(mini, max_steps=60),
                       EchoAgent(model=ScriptedChatModel(stuck, cycle=True), memory=1), small)
    await play_episode(spec(mini, max_steps=60),
                       EchoAgent(model=ScriptedChatModel(stuck, cycle=True), memory=60), large)
    small_log, large_log = steps_of(small), steps_of(large)
    assert len(small_log) == len(large_log) == 60
    assert all("agent_state" not in r for r in large_log)
    # The memory of 60 steps is nowhere in the log; only its hash changes from step to step
    # (the sizes differ only by timings and the memory size the agent reports per step).
    small_size = (small / "steps.jsonl").stat().st_size
    assert abs((large / "steps.jsonl").stat().st_size - small_size) < 0.01 * small_size
    assert len({r["agent_state_hash"] for r in large_log}) > len(
        {r["agent_state_hash"] for r in small_log}
    )
    # A finished episode keeps no resume data.
    assert sorted(p.name for p in large.iterdir()) == ["result.json", "steps.jsonl"]


async def test_a_log_without_checkpoints_from_an_earlier_version_resumes(
    mini: GameDefinition, tmp_path: Path
):
    whole = tmp_path / "whole"
    expected = await play_episode(spec(mini), EchoAgent(model=model()), whole)
    part = tmp_path / "part"
    await play_until_killed(mini, part, 12)
    # Earlier versions kept the agent and hint state in every record and had no checkpoints.
    (checkpoint,) = [c for c in read_checkpoints(part, "ep") if c.step == 11]
    records = read_step_log(part / "steps.jsonl")
    for r in records:
        r.pop("agent_state_hash")
    records[-1].update(agent_state=checkpoint.agent_state, hint_state=checkpoint.hint_state)
    (part / "steps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (part / "checkpoint.jsonl").unlink()
    resumed = await play_episode(spec(mini), EchoAgent(model=model()), part)
    assert comparable(resumed) == comparable(expected)


async def test_a_log_whose_checkpoints_are_lost_is_refused(mini: GameDefinition, tmp_path):
    await play_until_killed(mini, tmp_path, 5)
    (tmp_path / "checkpoint.jsonl").unlink()
    with pytest.raises(EpisodeLogError, match="no checkpoint of step 4"):
        await play_episode(spec(mini), EchoAgent(model=model()), tmp_path)


async def test_a_checkpoint_of_another_episode_is_refused(mini: GameDefinition, tmp_path):
    await play_until_killed(mini, tmp_path, 5)
    other = EpisodeSpec("other", mini, "echo", "scripted", hints=HINTS)
    with pytest.raises(EpisodeLogError, match="a checkpoint of episode 'ep', not 'other'"):
        await play_episode(other, EchoAgent(model=model()), tmp_path)


async def test_a_finished_episode_is_not_played_again(mini: GameDefinition, tmp_path):
    first = await play_episode(spec(mini), EchoAgent(model=model()), tmp_path)
    untouched = ScriptedChatModel([])  # would raise if asked anything
    again = await play_episode(spec(mini), EchoAgent(model=untouched), tmp_path)
    assert again == first and untouched.calls == 0


async def test_a_log_of_another_game_is_refused(mini: GameDefinition, tmp_path):
    await play_until_killed(mini, tmp_path, 30)
    records = read_step_log(tmp_path / "steps.jsonl")
    first_success = next(r for r in records if r["progressed"])
    first_success["key_steps"] += 5  # the log no longer matches what the game does
    (tmp_path / "steps.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
    )
    with pytest.raises(EpisodeLogError, match="does not replay as logged"):
        await play_episode(spec(mini, max_steps=40), EchoAgent(model=model()), tmp_path)


async def test_each_step_reports_the_model_calls_sent_and_the_time_they_took(
    mini: GameDefinition, tmp_path
):
    # What the live display's "s per call" is made of: calls sent to the model and their time.
    seen: list[StepProgress] = []
    slow = ScriptedChatModel(lambda messages: pick_answer({"messages": list(messages)}),
                             latency_s=0.02)
    await play_episode(spec(mini, max_steps=3), EchoAgent(model=slow), tmp_path,
                       on_step=seen.append)
    last = seen[-1]
    assert last.sent_calls == last.model_calls >= 2
    assert 0.02 * last.sent_calls <= last.model_wait_s < 1.0 * last.sent_calls
