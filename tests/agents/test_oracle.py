"""The oracle agent: the reference chain played through the harness, hint system included."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.agents.oracle import OracleAgent
from escapebench.agents.registry import make_agent
from escapebench.bench.episode import EpisodeSpec, play_episode
from escapebench.engine.model import GameDefinition
from escapebench.games.loading import builtin_files, load_file, load_games
from escapebench.games.reference import replay_reference


async def _play(defn: GameDefinition, folder: Path):
    spec = EpisodeSpec(f"{defn.setting}__oracle", defn, "oracle", "none")
    return await play_episode(spec, OracleAgent(), folder, fsync=False)


@pytest.mark.parametrize("name", ["tutorial", "lab-hard", "submarine"])
async def test_oracle_escapes_without_hints_choosing_every_tool_first(
    name: str, tmp_path: Path
) -> None:
    (defn,) = [d for d in load_games([name]) if d.setting == name]
    result = await _play(defn, tmp_path)
    assert result.escaped and result.hints_used == 0 and result.error_actions == 0
    # every step is a reference action or a move of the shortest walk: check's oracle count
    assert result.total_steps == replay_reference(defn).oracle_steps
    assert result.tool_solves > 0
    assert result.tool_tries == 0
    assert result.tool_choice in (1.0, None)  # None: no solve had two candidates (tutorial)
    if name != "tutorial":
        assert result.tool_choice == 1.0


def test_oracle_is_a_named_agent() -> None:
    agent = make_agent("oracle")
    assert agent.name == "oracle"
    agent.restore({"next": 3})
    assert agent.snapshot() == {"next": 3}


async def test_oracle_on_the_original_settings(upstream_dir: Path, tmp_path: Path) -> None:
    files = sorted((upstream_dir / "data").glob("game*-easy.yaml"))[:2]
    for n, f in enumerate(files):
        defn = load_file(f)[0]
        result = await _play(defn, tmp_path / str(n))
        assert result.escaped and result.hints_used == 0 and result.tool_choice == 1.0


def test_every_builtin_game_is_played_by_its_oracle(tmp_path: Path) -> None:
    """The built-in games' reference chains are walkable: no hint is ever needed."""
    import asyncio

    for n, f in enumerate(builtin_files()):
        defn = load_file(f)[1]  # the normal version
        result = asyncio.run(_play(defn, tmp_path / str(n)))
        assert result.escaped and result.hints_used == 0, defn.setting
