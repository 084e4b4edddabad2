"""EscapeAgent's mechanisms, each shown with a scripted model on the workshop game."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from escapebench.agents.escape_agent import EscapeAgent
from escapebench.agents.registry import make_agent
from escapebench.engine.env import EscapeGame
from escapebench.llm.base import Message, ModelUnavailableError
from escapebench.protocols.escapebench import prompts
from tests.agents.conftest import Driver, RoutedModel, act, kind_of

NONE = "- Thought: nothing to add.\n- Action: none()"
NEW_CHEST = (
    "- Thought: the lid is nailed, I need to pry it.\n"
    "- Action: new(open the chest, The lid is nailed down; something to pry it open may work.)"
)


async def test_failed_action_on_a_listed_target_updates_the_task_and_success_deletes_it(
    workshop_game: EscapeGame,
) -> None:
    model = RoutedModel(
        action=[
            act("click(chest)"),
            act("move(Through the curtain)"),
            act("click(crowbar)"),
            act("click(battery)"),
            act("move(Back through the curtain)"),
            act("apply(battery, chest)"),
            act("apply(crowbar, chest)"),
            act("click(poster)"),
        ],
        reflection=[NEW_CHEST, NONE],
    )
    agent = EscapeAgent(model, no_foresight=True)
    turns = await Driver(agent, workshop_game).play(8)

    # Step 2 asked the model (new task); the failed apply on the chest is a rule update.
    assert turns[1].decision.notes["reflection"][0]["operation"].startswith("new(open the chest")
    assert turns[1].decision.notes["task_list"][0]["target"] == "chest"
    assert "Task 1: open the chest (target item: chest)" in model.prompts_of(
        "action"
    )[2]
    update = turns[5].observed["reflection_rule"]
    assert update == {"rule": "update", "task": 1, "action": "apply(battery, chest)"}
    (task,) = turns[5].observed["task_list"]
    assert task["failed"] == ["click(chest)", "apply(battery, chest)"]
    assert task["description"].endswith(prompts.task_failed_note("apply(battery, chest)"))
    # The success on the chest deletes the task; the model is asked whether something new
    # came up (step 8), but the update at step 6 needed no model call.
    assert turns[6].observed["reflection_rule"]["rule"] == "delete"
    assert turns[6].observed["task_list"] == []
    assert [i for i, t in enumerate(turns) for c in t.decision.calls if c.kind == "reflection"] \
        == [1, 7]
    # The action prompts tell each change of the task list under the step that made it, and
    # each prompt starts with the one before it up to the end of its history.
    actions = model.prompts_of("action")
    assert "Task list: added Task 1: open the chest (target item: chest)" in actions[2]
    assert "Task list: task 1 now reads:" not in actions[6]
    assert "Task list: task 1 now reads: The lid is nailed down" in actions[7]
    for before, now in zip(actions, actions[1:], strict=False):
        cut = before.index("Here you recently failed")
        history_end = before.rfind("\n\n", 0, cut)
        if before.startswith(prompts.CURRENT_STEP_TEMPLATE.split("{")[0]) and (
            before.split("\n\n" + prompts.HISTORY_HEADER)[0]
            == now.split("\n\n" + prompts.HISTORY_HEADER)[0]
        ):
            assert now.startswith(before[:history_end])


async def test_new_tool_triggers_foresight_whose_valid_proposals_are_tried_in_order(
    workshop_game: EscapeGame,
) -> None:
    foresight = (
        "- Thought: the crowbar could pry things.\n"
        "- Actions: apply(crowbar, safe), apply(hammer, chest), click(chest), "
        "apply(crowbar, attic door), apply(crowbar, chest), apply(crowbar, poster)"
    )
    model = RoutedModel(
        action=[act("move(Through the curtain)"), act("click(crowbar)"), act("click(gear)")],
        foresight_tool=[foresight, "- Thought: nothing.\n- Actions: none"],
        reflection=NONE,
    )
    turns = await Driver(EscapeAgent(model), workshop_game).play(6)
    modes = [t.decision.mode for t in turns]
    actions = [t.result.action for t in turns]
    assert modes == ["free explore", "free explore", "try action", "try action", "free explore",
                     "free explore"]
    # put back where the items are (no step, as the original harness does), then the
    # proposals in the model's order, stopping at the first success: the poster proposal is
    # never tried.
    assert turns[2].decision.notes["teleported_to"] == "workshop"
    assert actions[2:4] == ["apply(crowbar, safe)", "apply(crowbar, chest)"]
    (outcome,) = turns[2].decision.notes["foresight"]
    assert outcome["trigger"] == "tool" and outcome["subject"] == "crowbar"
    assert [p["action"] for p in outcome["proposals"]] == [
        "apply(crowbar, safe)", "apply(crowbar, chest)", "apply(crowbar, poster)"
    ]
    assert {d["action"]: d["reason"] for d in outcome["dropped"]} == {
        "apply(hammer, chest)": "the tool must be in the bag and the item one seen before",
        "click(chest)": "click is not an action to propose here",
        "apply(crowbar, attic door)": "the tool must be in the bag and the item one seen before",
    }
    assert turns[2].observed["trial_outcome"]["status"] == "failed"
    success = turns[3].observed["trial_outcome"]
    assert success["status"] == "succeeded" and success["skipped"] == ["apply(crowbar, poster)"]
    assert turns[3].observed["try_queue"] == []
    assert "teleported_to" not in turns[4].decision.notes  # a success: it stays there
    # the foresight call is recorded with its kind in the step that made it
    assert [c.kind for c in turns[2].decision.calls] == ["foresight_tool"]
    assert turns[2].decision.notes["prompt_kinds"] == ["foresight_tool"]
    tool_prompt = model.prompts_of("foresight_tool")[0]
    assert "<applicable tool> crowbar: A heavy iron crowbar." in tool_prompt


async def test_new_task_triggers_foresight_with_the_memory_pad(
    workshop_game: EscapeGame,
) -> None:
    task_answer = (
        "- Thought: the poster said 1672.\n"
        "- Actions: click(safe), input(1234, poster), apply(crowbar, safe), input(1672, safe)"
    )
    model = RoutedModel(
        action=[act("click(poster)"), act("click(safe)")],
        reflection=[NONE, "- Action: new(open the safe, The safe wants a four-digit code.)"],
        foresight_task=task_answer,
    )
    turns = await Driver(EscapeAgent(model), workshop_game).play(5)
    assert workshop_game.ended and len(turns) == 3
    assert turns[2].decision.mode == "try action"
    assert turns[2].result.action == "input(1672, safe)"
    assert [c.kind for c in turns[2].decision.calls] == ["reflection", "foresight_task"]
    prompt = model.prompts_of("foresight_task")[0]
    assert "- Nothing happens. On the back someone wrote: 1672." in prompt  # memory pad
    assert "Task 1: open the safe (target item: safe)" in prompt
    dropped = {d["action"]: d["reason"] for d in turns[2].decision.notes["foresight"][0]
               ["dropped"]}
    assert dropped == {
        "click(safe)": "already tried and failed",
        "input(1234, poster)": "needs a text and an item seen before",
        "apply(crowbar, safe)": "the tool must be in the bag and the item one seen before",
    }


def _scenario_model() -> RoutedModel:
    """Collect the crowbar, fail on the chest, and so on: every module has work to do."""
    return RoutedModel(
        action=[
            act("click(chest)"),
            act("move(Through the curtain)"),
            act("click(crowbar)"),
            act("click(poster)"),
        ],
        reflection=[NEW_CHEST, NONE],
        foresight_task="- Actions: apply(crowbar, chest)",
        foresight_tool="- Actions: apply(crowbar, chest)",
    )


@pytest.mark.parametrize(
    ("flags", "expected_kinds", "try_mode"),
    [
        ({}, {"action", "reflection", "foresight_task", "foresight_tool"}, True),
        ({"no_foresight": True}, {"action", "reflection"}, False),
        ({"no_reflection": True}, {"action", "foresight_tool"}, True),
        ({"no_reflection": True, "no_foresight": True}, {"action"}, False),
    ],
)
async def test_ablation_flags_remove_exactly_their_module(
    workshop_game: EscapeGame, flags: dict[str, bool], expected_kinds: set[str], try_mode: bool
) -> None:
    model = _scenario_model()
    agent = make_agent("escape", model=model, **flags)
    turns = await Driver(agent, workshop_game).play(7)
    assert set(model.kinds) == expected_kinds
    assert any(t.decision.mode == "try action" for t in turns) is try_mode
    action_prompts = model.prompts_of("action")
    has_task_list = any(prompts.TASK_LIST_HEADER in p or prompts.EMPTY_TASK_LIST in p
                        or "Here you recently failed" in p
                        for p in action_prompts)
    assert has_task_list is ("no_reflection" not in flags)
    assert agent.settings()["reflection"] is ("no_reflection" not in flags)
    assert agent.settings()["foresight"] is ("no_foresight" not in flags)
    assert agent.name == "escape" + "-no-reflection" * ("no_reflection" in flags) + (
        "-no-foresight" * ("no_foresight" in flags)
    )


async def test_position_memory_is_shown_in_the_action_prompt(workshop_game: EscapeGame) -> None:
    model = RoutedModel(action=[act("click(poster)"), act("click(safe)")], reflection=NONE)
    await Driver(EscapeAgent(model), workshop_game).play(2)
    prompt = model.prompts_of("action")[1]
    assert prompts.format_position_memory(
        ["click(poster)"], ["Through the curtain", "Up the ladder"]
    ) in prompt
    assert prompts.EMPTY_TASK_LIST in prompt


async def test_stuck_in_one_place_goes_to_an_unexplored_scene(workshop_game: EscapeGame) -> None:
    model = RoutedModel(action=act("click(poster)"), reflection=NONE)
    turns = await Driver(EscapeAgent(model, explore_after=3), workshop_game).play(6)
    assert [t.result.action for t in turns[:3]] == ["click(poster)"] * 3
    # After three free-explore steps without progress the agent is put (no step, as the
    # original harness does) in the nearest scene it has not explored, and the model acts there.
    explore = turns[3]
    assert explore.decision.notes["explore"] == {"to": "storeroom"}
    # it asks to be moved (the Driver checks the game was not changed while deciding)
    assert explore.decision.teleport_to == "storeroom"
    assert explore.decision.notes["teleported_to"] == "storeroom"
    assert [c.kind for c in explore.decision.calls] == ["reflection", "action"]
    prompt = model.prompts_of("action")[3]
    assert "You are now at: workshop -> storeroom" in prompt
    # the screen is the storeroom's, where it acts, not the workshop's it was moved from
    assert "A cramped storeroom full of shelves." in prompt
    assert "A dusty workshop." not in prompt
    assert explore.result.error  # the poster is not in the storeroom
    # the count starts again
    assert all("teleported_to" not in t.decision.notes for t in turns[4:])


async def test_unreadable_reflection_answer_is_no_operation(workshop_game: EscapeGame) -> None:
    model = RoutedModel(action=act("click(chest)"), reflection="I think the chest is cool")
    turns = await Driver(EscapeAgent(model), workshop_game).play(2)
    (outcome,) = turns[1].decision.notes["reflection"]
    assert outcome["operation"] == "none()" and outcome["readable"] is False
    assert turns[1].decision.notes["task_list"] == []


async def test_failed_model_call_leaves_the_state_as_before(workshop_game: EscapeGame) -> None:
    calls = {"n": 0}

    def flaky(messages: Sequence[Message]) -> str:
        if kind_of(messages) == "foresight_tool":
            calls["n"] += 1
            if calls["n"] == 1:
                raise ModelUnavailableError("server down")
            return "- Actions: apply(crowbar, chest)"
        if kind_of(messages) == "reflection":
            return NONE
        return act("click(crowbar)" if "crowbar" in messages[-1]["content"].split(
            "You are now at:")[1].split("Tools in Bag:")[0] else "move(Through the curtain)")

    agent = EscapeAgent(RoutedModel(action=flaky, reflection=flaky, foresight_tool=flaky))
    driver = Driver(agent, workshop_game)
    await driver.play(2)  # move, pick up the crowbar
    before = agent.snapshot()
    with pytest.raises(ModelUnavailableError):
        await driver.play(1)
    assert agent.snapshot() == before
    (turn,) = await driver.play(1)  # the same turn again, now with the server back
    assert turn.decision.mode == "try action"


async def test_snapshot_restore_continues_identically(workshop: object) -> None:
    def answers() -> RoutedModel:
        return _scenario_model()

    async def play(split: int | None) -> list[tuple[str, str]]:
        model = answers()
        game = EscapeGame(workshop)  # type: ignore[arg-type]
        agent = EscapeAgent(model)
        driver = Driver(agent, game)
        if split is None:
            await driver.play(10)
        else:
            await driver.play(split)
            fresh = EscapeAgent(model)
            fresh.restore(json.loads(json.dumps(agent.snapshot())))
            driver.agent = fresh
            await driver.play(10 - split)
        return [(t.result.action, t.decision.mode) for t in driver.turns]

    straight = await play(None)
    for split in (1, 2, 3, 5):
        assert await play(split) == straight
