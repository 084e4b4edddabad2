"""Reading a result folder while, or after, a run was killed: every finished step is shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escapebench.agents.registry import make_agent
from escapebench.bench.episode import EpisodeSpec, StepProgress, play_episode
from escapebench.games.loading import load_file
from escapebench.report.runs import ReportInputError, load_run
from tests.support.report_runs import CLOSET


class Killed(Exception):
    """Stands for kill -9 after a step."""


async def killed_run(root: Path, steps: int) -> Path:
    """A result folder whose one episode was killed after ``steps`` steps."""
    defn = next(d for d in load_file(CLOSET) if d.setting == "closet")
    spec = EpisodeSpec("closet__explorer__none__r0", defn, "explorer", "none")

    def kill(progress: StepProgress) -> None:
        if progress.step >= steps:
            raise Killed

    folder = root / "episodes" / spec.episode_id
    with pytest.raises(Killed):
        await play_episode(spec, make_agent("explorer"), folder, on_step=kill, fsync=False)
    return root


@pytest.mark.parametrize("steps, unlogged", [(6, 1), (5, 3)])
async def test_steps_only_the_checkpoint_journal_holds_are_shown_without_touching_the_log(
    tmp_path: Path, steps: int, unlogged: int
) -> None:
    run = await killed_run(tmp_path / "run", steps)
    log = run / "episodes" / "closet__explorer__none__r0" / "steps.jsonl"
    # Killed after the last step's checkpoint line was written, in the middle of its log line
    # (after a power cut, log lines not synced yet are lost too).
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[: steps - unlogged]) + lines[-1][:20])
    before = log.read_bytes()
    (episode,) = load_run(run).episodes
    assert not episode.finished
    assert [s["step"] for s in episode.steps()] == list(range(steps))
    assert episode.steps()[-unlogged:] == [json.loads(line) for line in lines[-unlogged:]]
    assert log.read_bytes() == before  # a report never changes a result folder


async def test_a_damaged_log_is_a_clear_error(tmp_path: Path) -> None:
    run = await killed_run(tmp_path / "run", 4)
    log = run / "episodes" / "closet__explorer__none__r0" / "steps.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(lines[0] + b"{oops\n" + b"".join(lines[1:]))
    (episode,) = load_run(run).episodes
    with pytest.raises(ReportInputError, match="line 2 is not valid JSON"):
        episode.steps()
