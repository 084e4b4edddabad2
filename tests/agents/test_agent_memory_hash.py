"""The memory hash in every step record (``agent_state_hash``) is the same in a resumed
episode as in one that was never stopped: an agent restored from its snapshot takes the
snapshot again unchanged, and keeps taking the same snapshots as the original."""

from __future__ import annotations

import json
from typing import Any

import pytest

from escapebench.agents.explorer import ExplorerAgent
from escapebench.agents.random_agent import RandomAgent
from escapebench.bench.hints import HintPolicy
from escapebench.bench.records import encode_agent_state
from escapebench.engine.env import EscapeGame
from tests.agents.test_random_explorer import LONGEST, play


@pytest.mark.parametrize(
    "make", [ExplorerAgent, lambda: RandomAgent(3)], ids=["explorer", "random"]
)
def test_a_restored_agent_has_the_memory_hash_of_the_original(make: Any) -> None:
    defn = LONGEST
    game, policy = EscapeGame(defn), HintPolicy(defn)
    agent = make()
    agent.reset(game)
    play(defn, agent, steps=200, game=game, policy=policy)
    saved = json.loads(json.dumps(
        {"agent": agent.snapshot(), "game": game.snapshot(), "hints": policy.snapshot()}
    ))

    game2, policy2 = EscapeGame(defn), HintPolicy(defn)
    game2.restore(saved["game"])
    policy2.restore(saved["hints"])
    agent2 = make()
    agent2.reset(game2)
    agent2.restore(saved["agent"])
    assert encode_agent_state(agent2.snapshot()) == encode_agent_state(agent.snapshot())

    for _ in range(5):  # and it stays so while both play on
        play(defn, agent, steps=20, game=game, policy=policy)
        play(defn, agent2, steps=20, game=game2, policy=policy2)
        assert encode_agent_state(agent2.snapshot())[1] == encode_agent_state(agent.snapshot())[1]
