"""What the engine keeps between steps (parsed calls, recipes, the screen) never shows.

Every observation must be the one a game rendering the same state from scratch shows, whatever
was played before, and parse_call must read exactly the action grammar.
"""

from __future__ import annotations

import random
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from escapebench.engine import EscapeGame, clear_memos, parse_call
from escapebench.engine.actions import VERBS, normalize_name
from escapebench.engine.model import GameDefinition
from escapebench.games import solver
from escapebench.games.loading import builtin_files, load_file
from escapebench.protocols.escapebench.observation import observation_text

# The action grammar as the docstring of parse_call states it.
GRAMMAR = re.compile(r"^\s*(move|click|apply|input|craft)\((.*)\)\s*$", re.DOTALL)
SPACES = [" ", "\t", "\n", "\x0c", "\u00a0", "\u2028", "\x1c", ""]


@st.composite
def call_like(draw: st.DrawFn) -> str:
    verb = draw(st.sampled_from([*VERBS, "Move", "clik", "", "movee"]))
    body = draw(st.text(alphabet="a(), \n\u00a0", max_size=6))
    return (
        draw(st.sampled_from(SPACES)) + verb + draw(st.sampled_from(["(", "", " ("])) + body
        + draw(st.sampled_from([")", "", ") "])) + draw(st.sampled_from(SPACES))
    )


@settings(max_examples=400, deadline=None)
@given(st.one_of(call_like(), st.text(max_size=12)))
def test_parse_call_reads_exactly_the_grammar(text: str) -> None:
    expected = GRAMMAR.match(text)
    for _ in range(2):  # read, then remembered
        call = parse_call(text)
        if expected is None:
            assert call is None
        else:
            assert call is not None
            assert (call.verb, call.arg_text) == (expected.group(1), expected.group(2))


# Names compare as their docstring says: wrapping quotes and spaces off, every run of
# whitespace one space, lower case. The wrappers are written out here on purpose.
WRAPPERS = "\"'`*_<>[] \t\r\n\u201c\u201d\u2018\u2019"


NAME_CHARS = "aB c,()'\"`*_<>[]\t\n\r\x0b\x0c\x1c\x85\u00a0\u2003\u201c\u2019é"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=NAME_CHARS, max_size=10))
@example("Old  Key")
@example("old\tkey")
@example(" key\u00a0")
@example("\u201cBox\u201d")
def test_names_compare_by_their_definition(text: str) -> None:
    expected = re.sub(r"\s+", " ", text.strip(WRAPPERS)).lower()
    assert normalize_name(text) == expected


def _fresh_observation(game: EscapeGame) -> str:
    other = EscapeGame(game.defn)
    other.restore(game.snapshot())
    return observation_text(other)


def _random_action(game: EscapeGame, rng: random.Random) -> str:
    d = game.defn
    items = [d.items[i].name for i in game.visible_items()]
    scene_tools = [d.tools[t].name for t in game.visible_scene_tools()]
    bag = [d.tools[t].name for t in game.bag] or ["nothing"]
    exits = [label for label, _ in game.open_links()] or ["nowhere"]
    things = items + scene_tools or ["nothing"]
    return rng.choice([
        f"click({rng.choice(things)})",
        f"apply({rng.choice(bag)}, {rng.choice(items or ['nothing'])})",
        f"craft({rng.choice(bag)}, {rng.choice(bag)})",
        f"move({rng.choice(exits)})",
        "input(1234, " + rng.choice(items or ["nothing"]) + ")",
    ])


def _builtin_definitions() -> list[GameDefinition]:
    return [d for f in builtin_files() for d in load_file(f) if d.difficulty == "normal"]


def test_every_observation_is_what_a_fresh_render_shows() -> None:
    rng = random.Random(5)
    for defn in _builtin_definitions():
        clear_memos(defn)
        game = EscapeGame(defn)
        for round_ in range(2):  # the second time after reset(), with everything remembered
            for ref in defn.reference:
                for _ in range(3):  # wander a little before each reference step
                    game.step(_random_action(game, rng))
                    assert observation_text(game) == _fresh_observation(game), defn.setting
                game.teleport(ref.scene)
                assert observation_text(game) == _fresh_observation(game), defn.setting
                game.step(ref.action)
                assert observation_text(game) == _fresh_observation(game), defn.setting
            assert game.ended, (defn.setting, round_)
            game.reset()
            assert observation_text(game) == observation_text(EscapeGame(defn))


def test_a_state_set_from_outside_shows_after_state_changed() -> None:
    """The checker's solver restores saved states by replacing the state lists."""
    defn = _builtin_definitions()[0]
    game = EscapeGame(defn)
    start = observation_text(game)
    saved = solver._save(game)
    for ref in defn.reference:  # until something is in the bag
        game.teleport(ref.scene)
        game.step(ref.action)
        if game.bag:
            break
    game.teleport(defn.start_scene)
    assert observation_text(game) != start  # the bag shows
    solver._load(game, saved)  # calls game.state_changed()
    assert observation_text(game) == start
