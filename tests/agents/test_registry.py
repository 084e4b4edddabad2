"""make_agent builds every agent by name and refuses what cannot work, saying why."""

from __future__ import annotations

import pytest

from escapebench.agents.base import Hint, TurnContext
from escapebench.agents.base_agent import BaseAgent
from escapebench.agents.escape_agent import EscapeAgent
from escapebench.agents.registry import AGENT_NAMES, AgentConfigError, make_agent, played_agent
from escapebench.agents.scripted_agent import ScriptedAgent
from escapebench.engine.env import EscapeGame
from escapebench.llm.base import SamplingSettings
from escapebench.llm.scripted import ScriptedChatModel
from tests.agents.conftest import Driver

MODEL = ScriptedChatModel(["- Action: click(box)"])


def test_every_name_builds() -> None:
    built = {
        name: make_agent(name, model=MODEL, actions=["click(box)"])
        if name == "scripted"
        else make_agent(name, model=MODEL)
        for name in AGENT_NAMES
    }
    # results name the original release's EscapeAgent "escape" too (the protocol tells them
    # apart in every table, and the paper calls both EscapeAgent)
    labels = {n: "escape" if n == "escape-original" else n for n in AGENT_NAMES}
    assert {name: agent.name for name, agent in built.items()} == labels
    assert type(built["escape-original"]).__name__ == "OriginalEscapeAgent"


def test_escape_under_the_original_protocol_is_escape_original_with_a_note() -> None:
    assert played_agent("escape", "escapebench") == ("escape", None)
    name, note = played_agent("escape", "original")
    assert name == "escape-original" and note is not None and "escape-original" in note
    assert played_agent("escape-original", "original") == ("escape-original", None)
    assert played_agent("base", "original") == ("base", None)
    with pytest.raises(AgentConfigError, match="under the original protocol only"):
        played_agent("escape-original", "escapebench")


async def test_escape_agent_refuses_the_original_protocol(workshop_game: EscapeGame) -> None:
    """It no longer turns into another agent: the harness picks escape-original instead."""

    class Original:
        name = "original"

    ctx = TurnContext(workshop_game, 0, "workshop", protocol=Original())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="escape-original"):
        await make_agent("escape", model=MODEL).decide(ctx)


def test_options_reach_the_agents() -> None:
    sampling = SamplingSettings(temperature=0.5)
    base = make_agent("base", model=MODEL, memory=3, sampling=sampling)
    assert isinstance(base, BaseAgent) and base.memory_size == 3 and base.sampling == sampling
    escape = make_agent("escape", model=MODEL, no_reflection=True, explore_after=7)
    assert isinstance(escape, EscapeAgent)
    assert (escape.use_reflection, escape.use_foresight, escape.explore_after) == (False, True, 7)
    assert escape.name == "escape-no-reflection"
    assert make_agent("random", seed=5).settings()["seed"] == 5
    scripted = make_agent("scripted", actions=["click(box)"], cycle=False)
    assert isinstance(scripted, ScriptedAgent) and not scripted.cycle


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("gpt", {}, "unknown agent 'gpt'; choose one of: base, escape, random"),
        ("base", {"model": None}, "the 'base' agent needs a model (give --model)"),
        ("escape", {"model": None}, "the 'escape' agent needs a model"),
        ("base", {"model": MODEL, "no_foresight": True}, "--no-foresight only apply to"),
        ("random", {"no_reflection": True}, "--no-reflection only apply to the escape agent"),
        ("escape", {"model": MODEL, "temprature": 1}, "unexpected keyword argument 'temprature'"),
        ("scripted", {}, "the 'scripted' agent needs actions=[...]"),
    ],
)
def test_bad_requests_get_clear_errors(name: str, options: dict, message: str) -> None:
    with pytest.raises(AgentConfigError) as info:
        make_agent(name, **options)
    assert message in str(info.value)


async def test_scripted_agent_plays_its_list_and_can_follow_hints(
    workshop_game: EscapeGame,
) -> None:
    agent = ScriptedAgent(["click(poster)", "click(safe)"])
    driver = Driver(agent, workshop_game)
    turns = await driver.play(3)
    assert [t.result.action for t in turns] == ["click(poster)", "click(safe)", "click(poster)"]
    follower = ScriptedAgent(["click(poster)"], follow_hints=True)
    (turn,) = await Driver(follower, workshop_game).play(
        1, hint=Hint("click(chest)", "workshop", 0)
    )
    assert turn.decision.action == "click(chest)" and turn.decision.mode == "help"
