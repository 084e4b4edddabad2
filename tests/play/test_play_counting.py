"""One counting rule for people and models: the same actions give the same steps and hints
in terminal/browser play (PlaySession) and in the harness (an agent's episode)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from escapebench.agents.scripted_agent import ScriptedAgent
from escapebench.bench.episode import Episode, EpisodeSpec
from escapebench.bench.hints import HintOptions, reference_effects
from escapebench.games.loading import load_games
from escapebench.play import PlayError, PlaySession

# The tutorial's solution with slips a person or a model makes on the way: an action naming
# nothing on screen, an exit that is not there, a tool not in the bag, a wrong code.
ACTIONS = [
    "click(unicorn)",
    "click(desk drawer)",
    "move(nowhere)",
    "apply(hammer, door)",
    "click(battery)",
    "input(000, door)",
    "move(to the shelf)",
    "click(flashlight)",
    "craft(battery, flashlight)",
    "move(back)",
    "apply(flashlight, dark cupboard)",
    "input(427, door)",
    "click(door)",
]


def tutorial():
    return next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")


def test_the_same_actions_count_the_same_for_a_person_and_a_model(tmp_path: Path) -> None:
    defn = tutorial()
    hints = HintOptions(patience=2, help_steps=2)
    person = PlaySession(defn, player="ada", hints=hints)
    for action in ACTIONS:
        if person.ended:
            break
        person.act(action)
    spec = EpisodeSpec("tutorial__scripted__none__r0", defn, "scripted", "none",
                       max_steps=person.step, hints=hints)
    agent = ScriptedAgent(ACTIONS, cycle=False)
    model_result = asyncio.run(
        Episode(spec, agent, tmp_path / "ep", effects=reference_effects(defn)).run()
    )
    human_result = person.result()
    assert human_result.total_steps == model_result.total_steps == person.step
    assert person.step >= len(ACTIONS)  # every slip was a step (plus any forced ones)
    for name in ("hints_used", "tool_hints", "key_step_hints", "escaped", "key_steps",
                 "tools_collected", "error_actions", "forced_steps"):
        assert getattr(human_result, name) == getattr(model_result, name), name
    assert human_result.error_actions >= 4


def test_an_action_naming_nothing_on_screen_is_a_step_with_the_games_feedback() -> None:
    person = PlaySession(tutorial())
    (turn,) = person.act("click(unicorn)")
    assert person.step == 1 and turn.error and "unicorn" in turn.feedback
    # what is not an action at all still costs nothing
    with pytest.raises(PlayError):
        person.act("dance")
    assert person.step == 1


def test_a_reference_move_is_never_a_hint_target() -> None:
    # A move is never progress, so the original harness's matching could never take it off the
    # list of hints: the hint after the moves before it is the next action (the hint's teleport
    # does the move's work), and it counts as the kind of hint that action is.
    defn = tutorial()
    effects = reference_effects(defn)
    moves = [e for e in effects if e.verb == "move"]
    assert moves, "the tutorial's reference chain has a move"
    assert {e.kind for e in moves} == {"other"}
    person = PlaySession(defn, hints=HintOptions(patience=50, help_steps=2))
    for e in effects[: moves[0].index]:
        person.act(e.action)
    info = person.request_hint()
    after = effects[moves[0].index + 1]
    assert info is not None and info["action"] == after.action and after.verb != "move"
    person.act("move(Back to the room)" if person.game.scene_name != "practice room"
               else "click(door)")  # the first step in help: not the hint
    result = person.result()
    assert result.hints_used == 1 and result.hints[0].verb == after.verb
    assert result.hints[0].kind == after.kind
