"""The memory hash in every step record (``agent_state_hash``) is the same in a resumed
episode as in one that was never stopped: an agent restored from its snapshot takes the
snapshot again unchanged, and keeps taking the same snapshots as the original."""

from __future__ import annotations

from typing import Any

import pytest

from escapebench.agents.explorer import ExplorerAgent
from escapebench.agents.random_agent import RandomAgent
from escapebench.bench.records import encode_agent_state
from tests.agents.test_random_explorer import LONGEST, play, played_and_resumed


@pytest.mark.parametrize(
    "make", [ExplorerAgent, lambda: RandomAgent(3)], ids=["explorer", "random"]
)
def test_a_restored_agent_has_the_memory_hash_of_the_original(make: Any) -> None:
    (agent, game, policy), (agent2, game2, policy2) = played_and_resumed(make, 200)
    assert encode_agent_state(agent2.snapshot()) == encode_agent_state(agent.snapshot())

    for _ in range(5):  # and it stays so while both play on
        play(LONGEST, agent, steps=20, game=game, policy=policy)
        play(LONGEST, agent2, steps=20, game=game2, policy=policy2)
        assert encode_agent_state(agent2.snapshot())[1] == encode_agent_state(agent.snapshot())[1]
