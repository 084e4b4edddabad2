"""An episode under the original protocol, killed between two steps and resumed, sends the
original harness's messages as if it had never stopped (the scene stack and the bag's index
memory of the protocol are rebuilt by replaying the log)."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from escapebench.agents.base_agent import BaseAgent
from escapebench.bench.episode import EpisodeSpec, StepProgress, play_episode
from escapebench.games.loading import load_file
from escapebench.llm.scripted import ScriptedChatModel
from escapebench.protocols import make_protocol
from tests.conftest import SHARED

RECORDINGS = SHARED / "upstream" / "prompts" / "base"


class Killed(Exception):
    pass


@pytest.fixture()
def scripted_answer():
    if not (SHARED / "tools" / "scripted_answers.py").is_file():
        pytest.skip("shared scripted model not present")
    sys.path.insert(0, str(SHARED / "tools"))
    try:
        import scripted_answers  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(SHARED / "tools"))
    return scripted_answers.answer


@pytest.mark.parametrize("setting, kill_at", [("game1-1", 57), ("game2-1-hard", 23)])
async def test_a_resumed_episode_sends_the_recorded_messages(
    upstream_dir: Path, tmp_path: Path, scripted_answer, setting: str, kill_at: int
) -> None:
    root = tmp_path / "EscapeBench"
    root.mkdir()
    (root / "src").symlink_to(upstream_dir / "original" / "src")
    (root / "data").symlink_to(upstream_dir / "data")
    game_file = root / "data" / f"{setting}.yaml"
    (defn,) = load_file(game_file)
    protocol = make_protocol("original", [str(game_file)])
    sent: list[tuple[str, str]] = []

    def answer(messages) -> str:
        system, user = messages[0]["content"], messages[-1]["content"]
        sent.append((system, user))
        return scripted_answer(system, user)

    spec = EpisodeSpec("ep", defn, "base", "scripted", max_steps=150, protocol=protocol.label)
    folder = tmp_path / "ep"

    def kill(progress: StepProgress) -> None:
        if progress.step >= kill_at and not progress.done:
            raise Killed

    with pytest.raises(Killed):
        await play_episode(spec, BaseAgent(ScriptedChatModel(answer)), folder, fsync=False,
                           protocol=protocol, on_step=kill)
    await play_episode(spec, BaseAgent(ScriptedChatModel(answer)), folder, fsync=False,
                       protocol=protocol)
    with gzip.open(RECORDINGS / f"{setting}.json.gz", "rt", encoding="utf-8") as f:
        recorded = [(c["system"], c["user"]) for c in json.load(f)["calls"]]
    assert len(sent) == len(recorded)
    for n, (ours, theirs) in enumerate(zip(sent, recorded, strict=True)):
        assert ours == theirs, f"call {n} differs"
