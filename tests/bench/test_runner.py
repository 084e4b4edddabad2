"""The runner in process: planning, errors of one episode, the folder lock, the display."""

from __future__ import annotations

import io
import json

import pytest

from escapebench.bench.display import LiveDisplay
from escapebench.bench.episode import EpisodeSpec, StepProgress
from escapebench.bench.metrics import EpisodeResult
from escapebench.bench.runner import (
    RunConfigError,
    RunSettings,
    episode_id,
    folder_lock,
    parse_shard,
    plan_run,
    run_suite,
)
from escapebench.exit_codes import EXIT_EPISODE_ERRORS


def test_plan_sorts_episode_ids_and_shards_deal_them_round_robin(mini_game_file, tmp_path):
    s = RunSettings(games=[str(mini_game_file)], repeats=2, out=tmp_path)
    whole = [e.episode_id for e in plan_run(s, "none", {}, "explorer").specs]
    assert whole == sorted(whole) and len(whole) == 6
    assert whole[0] == episode_id("mini-easy", "explorer", "none", 0)
    assert whole[0] == "mini-easy__explorer__none__r0"
    shards = []
    for i in (1, 2, 3):
        s.shard = (i, 3)
        shards.append([e.episode_id for e in plan_run(s, "none", {}, "explorer").specs])
    assert sorted(sum(shards, [])) == whole and all(len(x) == 2 for x in shards)
    assert shards[0] == whole[0::3]


def test_the_default_folder_depends_on_the_settings_only(mini_game_file):
    a = plan_run(RunSettings(games=[str(mini_game_file)]), "none", {}, "explorer").out
    b = plan_run(RunSettings(games=[str(mini_game_file)]), "none", {}, "explorer").out
    c = plan_run(RunSettings(games=[str(mini_game_file)], patience=7), "none", {}, "explorer")
    assert a == b != c.out and a.parts[0] == "runs" and a.name.startswith("explorer__none__")


def test_shard_syntax() -> None:
    assert parse_shard("2/4") == (2, 4)
    for bad in ("0/4", "5/4", "1-4", "x"):
        with pytest.raises(RunConfigError):
            parse_shard(bad)


async def test_a_failing_agent_fails_its_episode_only(mini_game_file, tmp_path):
    stream = io.StringIO()
    outcome = await run_suite(
        RunSettings(agent="tests.bench.failing_agent:make_flaky_agent",
                    games=[str(mini_game_file)], out=tmp_path, max_steps=12, concurrency=2),
        stream=stream,
    )
    assert outcome.exit_code == EXIT_EPISODE_ERRORS
    assert list(outcome.failed) == ["mini-hard__flaky__none__r0"]
    assert "ValueError: agent bug" in outcome.failed["mini-hard__flaky__none__r0"]
    assert "agent bug" in (tmp_path / "episodes" / "mini-hard__flaky__none__r0" /
                           "error.txt").read_text()
    assert outcome.finished == 2 and len((tmp_path / "results.csv").read_text().splitlines()) == 3
    assert "stop   mini-hard__flaky__none__r0: ValueError: agent bug" in stream.getvalue()
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["finished"] is None  # not every episode is done


def test_a_folder_in_use_is_refused(tmp_path):
    with (
        folder_lock(tmp_path),
        pytest.raises(RunConfigError, match="in use by another"),
        folder_lock(tmp_path),
    ):
        pass
    with folder_lock(tmp_path):  # released
        pass


def test_the_live_display_redraws_one_line_per_running_episode(mini):
    stream = io.StringIO()
    display = LiveDisplay(total=3, stream=stream, live=True)
    spec = EpisodeSpec("mini__base__m__r0", mini, "base", "m")
    display.started(spec)
    display._last_draw = 0  # no throttling in the test
    display.update(StepProgress(spec.episode_id, 42, 0.5, 2))
    text = stream.getvalue()
    assert "step    42  progress  50.0%  hints   2" in text
    assert "[0/3 done, 1 running]" in text and "\x1b[" in text  # redrawn in place
    display.finished(spec, EpisodeResult(spec.episode_id, "mini", "mini", "normal", "base", "m",
                                         escaped=True, total_steps=50, progress=1.0))
    display.close()
    assert "escaped in 50 steps" in stream.getvalue()


def test_the_plain_display_prints_lines_without_escape_codes(mini):
    stream = io.StringIO()
    display = LiveDisplay(total=1, stream=stream, live=False, status_every_s=0)
    spec = EpisodeSpec("e", mini, "base", "m")
    display.started(spec)
    display.update(StepProgress("e", 3, 0.25, 0))
    assert "\x1b" not in stream.getvalue()
    assert stream.getvalue().splitlines() == ["start  e", "[0/1 done, 1 running] "
                                              "elapsed 0m00s, ETA --"]
