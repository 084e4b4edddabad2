"""The worker loop in process: errors of one episode."""

from __future__ import annotations

import io
import json

from escapebench.bench.settings import RunSettings
from escapebench.bench.suite import run_suite
from escapebench.exit_codes import EXIT_EPISODE_ERRORS


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
