"""BaseAgent as the paper describes it: prompt, working memory, parsing, hints, accounting."""

from __future__ import annotations

import json
import re

from escapebench.agents.base import Hint
from escapebench.agents.base_agent import NO_ACTION_READ, BaseAgent
from escapebench.engine.env import EscapeGame
from escapebench.llm.base import SamplingSettings
from escapebench.llm.scripted import ScriptedChatModel
from escapebench.protocols.escapebench import prompts
from tests.agents.conftest import Driver, RoutedModel, act


async def test_prompt_holds_system_text_position_observation_and_instruction(
    workshop_game: EscapeGame,
) -> None:
    model = RoutedModel(action=[act("move(Through the curtain)"), act("click(crowbar)")])
    driver = Driver(BaseAgent(model), workshop_game)
    await driver.play(2)
    system, user = model.history[1]
    assert system["content"] == prompts.ACTION_SYSTEM_PROMPT
    assert "You are now at: workshop -> storeroom" in user["content"]
    assert "You are in the scene 'storeroom'" in user["content"]
    assert user["content"].endswith(prompts.CHAIN_OF_THOUGHT_INSTRUCTION)
    assert prompts.HISTORY_STEP_TEMPLATE.format(
        step=1, position="workshop", action="move(storeroom)",
        feedback="You went to: storeroom.",
    ) in user["content"]
    assert prompts.NO_HISTORY in model.history[0][1]["content"]


def _shown_steps(prompt: str) -> list[int]:
    return [int(n) for n in re.findall(r"^Step (\d+) at ", prompt, re.MULTILINE)]


async def test_working_memory_shows_at_least_ten_steps_in_a_window_that_moves_in_blocks(
    workshop_game: EscapeGame,
) -> None:
    model = RoutedModel(action=act("click(poster)"))
    driver = Driver(BaseAgent(model), workshop_game)
    await driver.play(32)
    prompts_by_step = [call[1]["content"] for call in model.history]
    # Steps 1..10 then 11..19 shown while the window grows, then 11..20, 11..29, 21..30, ...
    assert _shown_steps(prompts_by_step[10]) == list(range(1, 11))
    assert _shown_steps(prompts_by_step[19]) == list(range(1, 20))
    assert _shown_steps(prompts_by_step[20]) == list(range(11, 21))
    assert _shown_steps(prompts_by_step[29]) == list(range(11, 30))
    assert _shown_steps(prompts_by_step[30]) == list(range(21, 31))
    for k in range(11, 32):
        assert 10 <= len(_shown_steps(prompts_by_step[k])) <= 19
        if k % 10:  # between two moves of the window, each prompt starts with the last one
            before, now = prompts_by_step[k - 1], prompts_by_step[k]
            history_end = before.index(prompts.CHAIN_OF_THOUGHT_INSTRUCTION)
            assert now.startswith(before[:history_end].rstrip())


async def test_memory_length_is_an_option(workshop_game: EscapeGame) -> None:
    model = RoutedModel(action=act("click(poster)"))
    await Driver(BaseAgent(model, memory=2), workshop_game).play(5)
    assert len(_shown_steps(model.history[-1][1]["content"])) in (2, 3)


async def test_action_after_the_marker_wins_over_calls_in_the_thought(
    workshop_game: EscapeGame,
) -> None:
    answer = "- Thought: click(chest) failed before, so rather...\n- Action: **click(safe)**"
    driver = Driver(BaseAgent(RoutedModel(action=answer)), workshop_game)
    (turn,) = await driver.play(1)
    assert turn.decision.action == "click(safe)"
    assert turn.decision.reasoning == "click(chest) failed before, so rather..."
    assert turn.decision.raw_answer == answer
    assert turn.result.feedback.endswith("The safe wants a four-digit code.")


async def test_garbled_answer_becomes_engine_feedback(workshop_game: EscapeGame) -> None:
    garbled = "I am not sure what to do here, maybe look around?"
    model = RoutedModel(action=[garbled, act("click(poster)")])
    driver = Driver(BaseAgent(model), workshop_game)
    first, _ = await driver.play(2)
    assert first.decision.action == garbled  # passed on as-is for the engine to judge
    assert first.result.error and "Could not read an action" in first.result.feedback
    assert workshop_game.key_steps == 0
    second_prompt = model.history[1][1]["content"]
    assert f"Step 1 at workshop: {NO_ACTION_READ}" in second_prompt
    assert "Result: Could not read an action" in second_prompt


async def test_hint_is_shown_and_marks_help_mode(workshop_game: EscapeGame) -> None:
    model = RoutedModel(action=act("click(crowbar)"))
    workshop_game.teleport("storeroom")
    hint = Hint(action="click(crowbar)", scene="storeroom", index=0)
    (turn,) = await Driver(BaseAgent(model), workshop_game).play(1, hint=hint)
    user = model.history[0][1]["content"]
    assert prompts.format_hint("workshop -> storeroom", "click(crowbar)") in user
    assert "you must follow it" in user
    assert turn.decision.mode == "help"


async def test_sampling_and_call_records(workshop_game: EscapeGame) -> None:
    model = ScriptedChatModel([act("click(poster)")] * 2)
    agent = BaseAgent(model)
    (turn,) = await Driver(agent, workshop_game).play(1)
    assert model.settings_history[0].temperature == 0.0  # the paper's T=0 by default
    (record,) = turn.decision.calls
    assert record.kind == "action" and record.tokens_in > 0 and record.tokens_out > 0
    hot = BaseAgent(model, sampling=SamplingSettings(temperature=0.7, max_tokens=128))
    await Driver(hot, EscapeGame(workshop_game.defn)).play(1)
    assert model.settings_history[1] == SamplingSettings(temperature=0.7, max_tokens=128)
    assert hot.settings()["sampling"]["temperature"] == 0.7
    assert hot.settings()["prompt_version"] == prompts.PROMPT_VERSION


async def test_snapshot_restore_gives_the_same_next_prompt(workshop_game: EscapeGame) -> None:
    model = RoutedModel(action=act("click(poster)"))
    agent = BaseAgent(model)
    driver = Driver(agent, workshop_game)
    await driver.play(4)
    clone = BaseAgent(model)
    clone.restore(json.loads(json.dumps(agent.snapshot())))
    ctx = driver.turns[-1].ctx
    assert clone.action_messages(ctx) == agent.action_messages(ctx)
