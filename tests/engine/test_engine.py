"""Engine behaviour a player or model would notice, on a small game written here."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from escapebench.engine import EscapeGame, Outcome, extract_call
from escapebench.games.loading import GameFileError, load_file
from escapebench.protocols.escapebench.observation import observation_text

GAME = textwrap.dedent(
    """
    escapebench: 1
    id: mini
    title: Mini test room
    scenes:
      - name: hall
        desc: {easy: "A bright hall with a box, a lock and a door.", hard: "A hall."}
        scene_relations:
          To the closet: closet
          To the garden: garden
        items:
          - position: on the floor
            item:
              name: box (red), small
              states:
                - desc: A red box held shut by a rusty screw.
                  neg_reward: {easy: "The Screw needs turning, try a flat thing.", hard: null}
                  transitions:
                    - wait_for: ["apply, coin"]
                      trigger:
                        - change_state, 1
                        - change_visible, tool, key, true
                      reward: The box opens. A Key lies inside!
                - desc: An open red box.
          - position: on the wall
            item:
              name: lock 42
              states:
                - desc: A lock with a 3-digit dial.
                  transitions:
                    - wait_for: ["input, 042"]
                      trigger:
                        - change_visible, scene, garden, true
                        - change_interact, false
                      reward: The lock clicks open.
          - position: by the exit
            item:
              name: exit door
              states:
                - desc: A door with two keyholes.
                  transitions:
                    - wait_for: ["apply, key", "apply, lamp"]
                      trigger: ["change_interact, false"]
                      reward: The door swings open. GAME END
        tools:
          - position: in a crack
            tool:
              name: coin
              states:
                - desc: A thin, stiff coin.
                  apply_to: ["box (red), small"]
          - position: inside the box
            tool:
              name: key
              visible: false
              states:
                - desc: A key.
                  apply_to: [exit door]
      - name: closet
        desc: A closet.
        scene_relations: {Back to the hall: hall}
        items:
          - position: in the corner
            item:
              name: lamp stand
              states:
                - desc: A lamp without a bulb.
                  transitions:
                    - wait_for: [click]
                      trigger: ["become_tool, lamp"]
                      reward: You take the lamp off its stand.
        tools:
          - position: on a shelf
            tool:
              name: bulb
              states:
                - desc: A bulb.
                  apply_to: [lamp]
          - position: in the corner
            tool:
              name: lamp
              visible: false
              states:
                - desc: A lamp with no bulb.
                  wait_for: [bulb]
                - desc: A working lamp.
                  apply_to: [exit door]
      - name: garden
        desc: A garden.
        visible: false
        scene_relations: {Back to the hall: hall}
    reference:
      - {position: hall, action: "click(coin)"}
      - {position: hall, action: "apply(coin, box (red), small)"}
      - {position: hall, action: "click(key)"}
      - {position: hall -> closet, action: "click(bulb)"}
      - {position: hall -> closet, action: "click(lamp stand)"}
      - {position: hall -> closet, action: "craft(bulb, lamp)"}
      - {position: hall, action: "input(042, lock 42)"}
      - {position: hall, action: "apply(key, exit door)"}
      - {position: hall, action: "apply(lamp, exit door)"}
    """
)


@pytest.fixture()
def game_file(tmp_path: Path) -> Path:
    path = tmp_path / "mini.yaml"
    path.write_text(GAME)
    return path


def _game(path: Path, setting: str = "mini") -> EscapeGame:
    (defn,) = [d for d in load_file(path) if d.setting == setting]
    return EscapeGame(defn)


def test_our_format_yields_three_versions_that_differ_only_in_texts(game_file: Path) -> None:
    settings = {d.setting: d for d in load_file(game_file)}
    assert set(settings) == {"mini-easy", "mini", "mini-hard"}
    assert settings["mini-hard"].scenes[0].desc == "A hall."
    assert settings["mini-easy"].scenes[0].desc.startswith("A bright hall")
    # no "normal" text given: the normal version has no scene text rather than another's
    assert settings["mini"].scenes[0].desc == ""
    hard_box = settings["mini-hard"].items[0].states[0]
    assert hard_box.neg_reward is None
    assert settings["mini-easy"].items[0].states[0].neg_reward.startswith("The Screw")


def test_reference_plays_to_game_end_with_names_holding_commas_and_digits(game_file: Path) -> None:
    game = _game(game_file)
    for ref in game.defn.reference:
        game.teleport(ref.scene)
        result = game.step(ref.action)
        assert result.success, (ref.action, result.outcome)
    assert game.ended and game.progress == 1.0
    assert result.game_end
    assert game.key_steps == game.defn.total_key_steps == 6
    assert game.tools_collected == game.defn.total_tools == 4


def test_author_texts_are_reported_as_written_and_hard_has_no_custom_feedback(game_file) -> None:
    easy = _game(game_file, "mini-easy")
    wrong = easy.step("click(box (red), small)")
    assert not wrong.success and not wrong.error
    assert wrong.feedback == ""  # the engine reports data; a protocol says it in words
    assert wrong.outcome.kind == "no_effect" and wrong.outcome.verb == "click"
    assert wrong.outcome.names == ("box (red), small",)
    assert "The Screw needs turning" in wrong.outcome.text  # capital letters kept
    easy.step("click(coin)")
    opened = easy.step("apply(coin, box (red), small)")
    # a success is reported as one, with the author's text as written
    assert opened.outcome == Outcome(
        "triggered", "apply", ("box (red), small",), "The box opens. A Key lies inside!"
    )
    hard = _game(game_file, "mini-hard")
    assert hard.step("click(box (red), small)").outcome.text == ""


def test_multi_wait_transition_counts_each_wait_and_fires_on_the_last(game_file: Path) -> None:
    game = _game(game_file)
    for ref in game.defn.reference[:-1]:
        game.teleport(ref.scene)
        game.step(ref.action)
    before = game.key_steps
    assert not game.ended
    result = game.step("apply(lamp, exit door)")
    assert result.key_steps_gained == 1 and game.key_steps == before + 1 and result.game_end


def test_craft_works_in_either_order_and_become_tool_collects(game_file: Path) -> None:
    game = _game(game_file)
    game.step("move(To the closet)")
    game.step("click(bulb)")
    r = game.step("click(lamp stand)")
    assert r.tools_gained == 1 and "lamp" in game.state_dict()["bag"]
    assert "closet/lamp stand" not in game.state_dict()["items"]
    r = game.step("craft(lamp, bulb)")  # reversed order
    assert r.success and game.state_dict()["bag"] == {"lamp": 1}


def test_errors_name_what_is_valid_and_change_nothing(game_file: Path) -> None:
    game = _game(game_file)
    before = game.state_dict()
    for bad in ["click(sofa)", "apply(coin, sofa)", "craft(coin, key)", "move(attic)",
                "input(1)", "dance(floor)", "click()", "", "apply(coin)"]:
        r = game.step(bad)
        assert r.error and not r.success, bad
        assert r.outcome.kind in ("unknown_item", "unknown_tool", "unknown_scene",
                                  "wrong_arity", "malformed"), bad
        assert game.state_dict() == before, bad
    sofa = game.step("click(sofa)").outcome
    assert sofa.kind == "unknown_item" and sofa.text == "sofa"
    assert "coin" in sofa.options  # what can be clicked
    attic = game.step("move(attic)").outcome
    assert attic.kind == "unknown_scene" and "To the closet" in attic.options
    assert game.step("craft(coin, key)").outcome.kind == "unknown_tool"
    assert game.step("input(1)").outcome == Outcome("wrong_arity", "input")
    assert game.step("dance(floor)").outcome.kind == "malformed"


def test_input_ignores_case_and_surrounding_quotes(game_file: Path) -> None:
    game = _game(game_file)
    assert game.step('input("042", lock 42)').success
    assert game.state_dict()["scenes"]["garden"] is True


@pytest.mark.parametrize(
    "answer, expected",
    [
        ("I think I should click(coin).", "click(coin)"),
        ("First click(a) then... Final answer: **apply(coin, box (red), small)**",
         "apply(coin, box (red), small)"),
        ("`CLICK( coin )`", "click( coin )"),
        ("Action: move(To the closet)\n", "move(To the closet)"),
        ("apply(coin, box (red), small", None),  # unbalanced: not well-formed
        ("nothing to do here", None),
    ],
)
def test_extract_call_takes_the_last_well_formed_call(answer: str, expected: str | None) -> None:
    call = extract_call(answer)
    assert (str(call) if call else None) == expected


def test_forgiving_calls_resolve_against_names_on_screen(game_file: Path) -> None:
    game = _game(game_file)
    assert game.step(extract_call("`CLICK( 'Coin' )`")).success
    r = game.step(extract_call('**apply("COIN", Box (Red), Small)**'))
    assert r.success and r.action == "apply(coin, box (red), small)"


def test_moved_to_is_a_look_ahead_that_leaves_the_game_as_it_was(game_file: Path) -> None:
    game = _game(game_file)
    for ref in game.defn.reference[:5]:
        game.teleport(ref.scene)
        game.step(ref.action)
    before = game.snapshot()
    elsewhere = next(s.name for s in game.defn.scenes if s.name != game.scene_name)
    there = game.moved_to(elsewhere)
    assert there.scene_name == elsewhere and game.snapshot() == before
    assert {**there.snapshot(), "scene": game.scene} == before  # the same play, moved
    for ref in game.defn.reference[5:]:  # playing on the copy changes nothing here
        there.teleport(ref.scene)
        there.step(ref.action)
    assert there.ended and game.snapshot() == before
    with pytest.raises(KeyError):
        game.moved_to("no such scene")


def test_snapshot_is_plain_json_and_restores_exactly(game_file: Path) -> None:
    game = _game(game_file)
    for ref in game.defn.reference[:5]:
        game.teleport(ref.scene)
        game.step(ref.action)
    snap = json.loads(json.dumps(game.snapshot()))
    other = _game(game_file)
    other.restore(snap)
    assert other.state_dict() == game.state_dict()
    assert observation_text(other) == observation_text(game)
    for ref in game.defn.reference[5:]:
        for g in (game, other):
            g.teleport(ref.scene)
        assert game.step(ref.action) == other.step(ref.action)
    with pytest.raises(ValueError):
        _game(game_file, "mini-hard").restore(snap)


def test_reset_returns_to_the_start_without_reloading(game_file: Path) -> None:
    game = _game(game_file)
    start = game.state_dict()
    game.step("click(coin)")
    game.reset()
    assert game.state_dict() == start


def test_observation_follows_the_paper_layout(game_file: Path) -> None:
    game = _game(game_file)
    text = observation_text(game)
    assert text.startswith("Scene Description:\nYou are in the scene 'hall'.")
    assert "<interactable item> box (red), small" in text
    assert "<interactable scene> To the closet: It leads to closet" in text
    assert "garden" not in text.split("Possible Actions:")[1]  # hidden scene not offered
    game.step("click(coin)")
    assert "<applicable tool> coin: A thin, stiff coin." in observation_text(game)


def test_games_are_independent(game_file: Path) -> None:
    (defn, *_rest) = load_file(game_file)
    a, b = EscapeGame(defn), EscapeGame(defn)
    a.step("click(coin)")
    assert "coin" not in b.state_dict()["bag"]


@pytest.mark.parametrize(
    "mutation, message, line",
    [
        (("- change_state, 1\n", "- change_colour, 1\n"), "unknown trigger 'change_colour'", 21),
        (("- desc: A red box held shut", "- desc: [A red box held shut]\n                  #"),
         "expected text, got list", 16),
        (('wait_for: ["apply, coin"]', 'wait_for: ["poke, coin"]'),
         "unknown wait 'poke, coin'", 19),
        (("scene_relations: {Back to the hall: hall}\n    items",
          "scene_relations: [hall]\n    items"),
         "expected a mapping, got list", 61),
        (("id: mini", "id: [mini"), "invalid YAML", 4),
        (("change_state, 1\n", "change_state, one\n"), "needs a state number", 21),
    ],
)
def test_malformed_files_name_file_line_and_problem(
    tmp_path: Path, mutation: tuple[str, str], message: str, line: int | None
) -> None:
    old, new = mutation
    assert old in GAME
    path = tmp_path / "broken.yaml"
    path.write_text(GAME.replace(old, new, 1))
    with pytest.raises(GameFileError) as info:
        load_file(path)
    err = info.value
    assert str(path) in str(err) and message in str(err)
    assert err.line is not None
    if line is not None:
        assert err.line == line


def test_a_state_past_the_last_on_screen_ends_the_step_with_a_clear_error(
    tmp_path: Path,
) -> None:
    from tests.games.shed import write_shed

    path = write_shed(tmp_path, 'trigger: ["change_state, 1"]', 'trigger: ["change_state, 5"]')
    game = EscapeGame(load_file(path)[0])
    assert game.step("click(curtain)").success  # the rest of the game plays
    before = game.snapshot()
    result = game.step("input(42, padlocked door)")
    assert result.error and not result.success
    assert result.outcome.kind == "broken_game"
    assert re.search(
        r"item 'padlocked door'.* state 5, which it does not have", result.outcome.text
    )
    assert game.snapshot() == before  # the step changed nothing
    assert "padlocked door" in observation_text(game)


def test_a_trigger_naming_a_missing_scene_is_a_clear_error_when_it_fires(
    tmp_path: Path,
) -> None:
    from escapebench.engine import BrokenGameError
    from tests.games.shed import write_shed

    path = write_shed(tmp_path, "change_visible, scene, workbench, True",
                      "change_visible, scene, attic, True")
    game = EscapeGame(load_file(path)[0])
    with pytest.raises(BrokenGameError, match=r"names scene 'attic', which does not exist"):
        game.step("click(curtain)")


def test_a_crafted_state_with_a_name_goes_by_it_in_the_bag(tmp_path: Path) -> None:
    """A tool state's ``name`` (our format): once crafted, the lamp is listed, described and
    called as the "lit lamp"; the craft's feedback names what was made; the tool's own name
    still works (references, logs and waits use it)."""
    from escapebench.protocols.escapebench.feedback import feedback_text

    path = tmp_path / "named.yaml"
    path.write_text(re.sub(r"( *)- desc: A working lamp\.",
                           r"\1- name: lit lamp\n\1  desc: A lamp.", GAME))
    game = _game(path)
    game.step("move(To the closet)")
    game.step("click(bulb)")
    game.step("click(lamp stand)")
    assert "lamp: A lamp with no bulb." in observation_text(game)
    made = game.step("craft(bulb, lamp)")
    assert feedback_text(made.outcome) == (
        "You combined the bulb with the lamp and made the lit lamp.")
    shown = observation_text(game)
    assert "lit lamp: A lamp." in shown and "lamp: A lamp with no bulb." not in shown
    assert game.step("craft(coin, lit lamp)").outcome.options == ("lit lamp",)
    game.step("move(Back to the hall)")
    wrong = game.step("apply(lit lamp, box (red), small)")  # a wrong use names it as shown
    assert wrong.outcome.names[0] == "lit lamp" and wrong.action.startswith("apply(lamp, ")
    assert game.step("apply(lamp, exit door)").outcome.kind == "partial"  # its own name works


def test_a_tool_states_craft_refusal_is_added_to_a_refused_craft(tmp_path: Path) -> None:
    """A tool state's ``neg_reward`` (our format, generator version 8): a refused craft with
    the tool in that state says it after "These two tools do not go together." (the
    generator's craft parts: "The fridge magnet will go with one thing here, but not with
    this."); a version that sets it to null says nothing more."""
    from escapebench.protocols.escapebench.feedback import feedback_text

    path = tmp_path / "refusal.yaml"
    path.write_text(re.sub(r"( *)- desc: A bulb\.\n",
                           r"\1- desc: A bulb.\n\1  neg_reward: {normal: The bulb goes with one "
                           r"thing here., hard: null}\n", GAME))
    for setting, said in (("mini", " The bulb goes with one thing here."), ("mini-hard", "")):
        game = _game(path, setting)
        game.step("click(coin)")
        game.step("move(To the closet)")
        game.step("click(bulb)")
        for pair in ("craft(bulb, coin)", "craft(coin, bulb)"):
            refused = game.step(pair)
            assert feedback_text(refused.outcome) == (
                "These two tools do not go together." + said), setting
        assert game.step("craft(bulb, lamp)").success is False  # the lamp is not yet held
