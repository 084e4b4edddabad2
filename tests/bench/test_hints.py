"""The hint system: when hints start, what they target, forced steps, and resuming."""

from __future__ import annotations

import json
from collections.abc import Callable

from escapebench.agents.base import Hint
from escapebench.bench.hints import HintOptions, HintPolicy
from escapebench.engine.env import EscapeGame
from escapebench.engine.model import GameDefinition

Player = Callable[[EscapeGame, int, Hint | None], str]


def stuck(game: EscapeGame, step: int, hint: Hint | None) -> str:
    """A player that never makes progress (and never follows hints)."""
    return "click(note)" if game.scene_name == "study" else "click(door)"


def play(
    defn: GameDefinition,
    player: Player,
    options: HintOptions | None = None,
    max_steps: int = 2000,
) -> list[dict]:
    """Play until the game ends; one record per step, as the harness logs it."""
    game = EscapeGame(defn)
    policy = HintPolicy(defn, options)
    log: list[dict] = []
    for step in range(max_steps):
        hint = policy.before_step(game)
        forced = policy.forced_action()
        action = forced or player(game, step, hint)
        scene = game.scene_name
        result = game.step(action)
        outcome = policy.after_step(game, result)
        log.append(
            {
                "step": step,
                "scene": scene,
                "action": result.action,
                "hint": None if hint is None else hint.index,
                "started": hint is not None and hint.steps_in_help == 0,
                "forced": forced is not None,
                "progressed": result.progressed,
                "completed": outcome.completed,
            }
        )
        if result.game_end:
            break
    return log


def test_a_player_who_never_progresses_gets_each_hint_after_50_steps_and_a_forced_step_after_10(
    mini: GameDefinition,
) -> None:
    log = play(mini, stuck)
    starts = [r["step"] for r in log if r["started"]]
    forced = [r["step"] for r in log if r["forced"]]
    # As the original harness: help starts after step 50 (no progress since step 0), so the
    # first step in help is 51; the 10th step in help (60) is forced and makes progress; after
    # step 110 there is none since step 60: help from 111, and so on: 60 steps a hint.
    assert starts == [51, 111, 171, 231, 291, 351]
    assert forced == [60, 120, 180, 240, 300, 360]
    assert [log[s]["action"] for s in forced] == [
        "click(drawer)",
        "click(knife)",
        "apply(knife, box)",
        "click(key)",
        "apply(key, door)",
        "input(42, door)",
    ]
    # The hint targets reference actions in order, and every forced step is played in the
    # reference scene (the player is teleported there first).
    assert [log[s]["hint"] for s in starts] == [0, 1, 2, 3, 4, 5]
    assert [log[s]["scene"] for s in forced] == ["study", "study", "hall", "hall", "hall", "hall"]
    assert len(log) == 361  # the last forced step ends the game
    assert sum(r["progressed"] for r in log) == 6


def test_thresholds_are_options(mini: GameDefinition) -> None:
    log = play(mini, stuck, HintOptions(patience=5, help_steps=2))
    assert [r["step"] for r in log if r["started"]] == [6, 13, 20, 27, 34, 41]
    assert [r["step"] for r in log if r["forced"]] == [7, 14, 21, 28, 35, 42]


def test_a_hint_followed_by_the_player_ends_without_a_forced_step(mini: GameDefinition) -> None:
    def follower(game: EscapeGame, step: int, hint: Hint | None) -> str:
        if hint is not None and hint.steps_in_help == 3:
            return hint.action  # does what it is told, a little late
        return stuck(game, step, hint)

    log = play(mini, follower)
    assert not any(r["forced"] for r in log)
    # Help from 51, done at 54; none after step 104 since step 54: help from 105, done at 108...
    assert [r["step"] for r in log if r["started"]] == [51, 105, 159, 213, 267, 321]
    assert [r["completed"] for r in log if r["completed"] is not None] == [0, 1, 2, 3, 4, 5]


def test_the_hint_is_the_first_reference_action_not_yet_done_even_if_later_ones_are(
    mini: GameDefinition,
) -> None:
    # Solves everything up to the key, types the code (reference action 5) but never uses
    # the key (reference action 4).
    script = ["move(study)", "click(drawer)", "click(knife)", "move(hall)",
              "apply(knife, box)", "click(key)", "input(42, door)"]

    def player(game: EscapeGame, step: int, hint: Hint | None) -> str:
        return script[step] if step < len(script) else stuck(game, step, hint)

    log = play(mini, player)
    starts = [r for r in log if r["started"]]
    assert [r["hint"] for r in starts] == [4]
    # Last progress at step 6; none after step 56 since then: help from 57, forced at 66 (its
    # 10th step).
    assert starts[0]["step"] == 57
    assert log[-1]["step"] == 66 and log[-1]["forced"] and log[-1]["action"] == "apply(key, door)"


def test_progress_resets_the_patience_counter(mini: GameDefinition) -> None:
    # Progress at step 40 (drawer) delays the first hint to step 91 (none after step 90 since
    # step 40); the forced step 100 makes progress, so the next is from 151.
    def player(game: EscapeGame, step: int, hint: Hint | None) -> str:
        if step == 39:
            return "move(study)"
        if step == 40:
            return "click(drawer)"
        return stuck(game, step, hint)

    log = play(mini, player)
    assert [r["step"] for r in log if r["started"]][:2] == [91, 151]
    assert log[91]["hint"] == 1  # the drawer is done: the first hint is the knife


def test_a_requested_hint_starts_at_once_and_counts_once(mini: GameDefinition) -> None:
    game = EscapeGame(mini)
    policy = HintPolicy(mini, HintOptions(patience=50, help_steps=2))
    assert policy.before_step(game) is None  # no patience has run out
    hint = policy.request(game)
    assert hint is not None and (hint.index, hint.action) == (0, "click(drawer)")
    assert game.scene_name == "study" == hint.scene  # put where the action is taken
    assert policy.request(game) == hint and policy.hints_started == 1  # asked again: same
    # This step is the first in help; the player does something else.
    assert policy.forced_action() is None
    policy.after_step(game, game.step("click(note)"))
    assert policy.before_step(game) == policy.hint
    assert policy.forced_action() == "click(drawer)"  # the 2nd step in help
    outcome = policy.after_step(game, game.step("click(drawer)"))
    assert outcome.completed == 0 and policy.hint is None
    assert policy.request(game).index == 1 and policy.hints_started == 2


def test_requesting_a_hint_when_the_chain_is_done_gives_none(mini: GameDefinition) -> None:
    game = EscapeGame(mini)
    policy = HintPolicy(mini)
    for effect in policy.effects:
        game.teleport(effect.scene)
        policy.before_step(game)
        policy.after_step(game, game.step(effect.action))
    assert game.ended and policy.request(game) is None and policy.hints_started == 0


def test_snapshot_and_restore_continue_exactly(mini: GameDefinition) -> None:
    full = play(mini, stuck)
    # Play 55 steps (in the middle of the first help period), then continue in a new policy
    # and game restored from plain JSON.
    game = EscapeGame(mini)
    policy = HintPolicy(mini)
    actions = []
    for step in range(len(full)):
        if step == 55:
            game_state = json.loads(json.dumps(game.snapshot()))
            hint_state = json.loads(json.dumps(policy.snapshot()))
            game = EscapeGame(mini)
            game.restore(game_state)
            policy = HintPolicy(mini)
            policy.restore(hint_state)
        hint = policy.before_step(game)
        action = policy.forced_action() or stuck(game, step, hint)
        result = game.step(action)
        policy.after_step(game, result)
        actions.append(result.action)
    assert actions == [r["action"] for r in full]
    assert game.ended


ALTERNATIVE_ROUTE = """
escapebench: 1
id: fork
title: Two ways into the box
scenes:
- name: hall
  desc: "A hall."
  items:
  - position: Here
    item:
      name: box
      states:
      - desc: "A taped box."
        transitions:
        - wait_for: ["apply, knife"]
          trigger: ["change_state, 1"]
          reward: "Cut open."
        - wait_for: ["input, open sesame"]
          trigger: ["change_state, 1"]
          reward: "It opens by magic."
      - desc: "An open box."
        transitions:
        - wait_for: [click]
          trigger: ["change_state, 2"]
          reward: "You climb into the box and out of the room. GAME END"
      - desc: "Gone."
  tools:
  - position: Here
    tool:
      name: knife
      states:
      - desc: "A knife."
        apply_to: [box]
reference:
- {position: hall, action: "click(knife)"}
- {position: hall, action: "apply(knife, box)"}
- {position: hall, action: "click(box)"}
"""


def test_a_forced_action_that_no_longer_applies_is_forced_again_every_step(tmp_path) -> None:
    from escapebench.games.loading import load_file

    path = tmp_path / "fork.yaml"
    path.write_text(ALTERNATIVE_ROUTE, encoding="utf-8")
    defn = next(d for d in load_file(path) if d.setting == "fork")
    script = ["click(knife)", "input(open sesame, box)"]

    def player(game: EscapeGame, step: int, hint: Hint | None) -> str:
        return script[step] if step < len(script) else "click(nothing)"

    log = play(defn, player, HintOptions(patience=3, help_steps=1), max_steps=30)
    # The box was opened another way (its input is no reference action, so nothing is
    # matched): help from step 5, and as in the original harness "apply(knife, box)" is
    # forced on every step in help from the first (help_steps 1), fails, and never ends it.
    assert [(r["step"], r["hint"]) for r in log if r["started"]] == [(5, 1)]
    assert [r["step"] for r in log if r["forced"]] == list(range(5, 30))
    assert {r["action"] for r in log if r["forced"]} == {"apply(knife, box)"}
    assert not any(r["progressed"] for r in log[5:])
