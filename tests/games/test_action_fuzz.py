"""Random and near-valid action strings never crash the parser or the engine.

A rejected action (``error``) must leave the game exactly as it was: models send plenty of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from escapebench.engine import EscapeGame, extract_call, parse_call
from escapebench.engine.actions import ARITY, VERBS
from escapebench.engine.model import GameDefinition
from escapebench.games.loading import load_file
from escapebench.protocols.escapebench.feedback import feedback_text
from tests.games.shed import write_shed

FUZZ = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def shed(tmp_path_factory: pytest.TempPathFactory) -> GameDefinition:
    folder: Path = tmp_path_factory.mktemp("shed")
    (defn,) = load_file(write_shed(folder))
    return defn


def _names_on_screen(game: EscapeGame) -> list[str]:
    d = game.defn
    names = [d.items[i].name for i in game.visible_items()]
    names += [d.tools[t].name for t in game.visible_scene_tools()]
    names += [d.tools[t].name for t in game.bag]
    names += [label for label, _ in game.open_links()]
    names += [d.scenes[s].name for _, s in game.open_links()]
    names += [it.name for it in d.items] + [t.name for t in d.tools]  # also off-screen ones
    return names


WRAPS = ["", "'", '"', "`", "**", "<", "[", " ", "“"]
SEPARATORS = [",", ", ", " ,", ",,", "", " , "]


@st.composite
def near_valid_action(draw: st.DrawFn, names: list[str]) -> str:
    """An action built from real names, often well-formed, else bent the ways model output
    bends them."""
    if draw(st.booleans()):
        verb = draw(st.sampled_from(VERBS))
        args = [draw(st.sampled_from(names)) for _ in range(ARITY[verb])]
        return f"{verb}({', '.join(args)})"
    verb = draw(st.sampled_from([*VERBS, "use", "take", ""]))
    verb = draw(st.sampled_from([verb, verb.upper(), verb.title()]))
    n_args = draw(st.integers(0, 3))
    args = []
    for _ in range(n_args):
        name = draw(st.one_of(st.sampled_from(names), st.text(max_size=12)))
        name = draw(st.sampled_from([name, name.upper(), name.lower(), f"  {name} "]))
        wrap = draw(st.sampled_from(WRAPS))
        args.append(f"{wrap}{name}{wrap[::-1]}")
    body = draw(st.sampled_from(SEPARATORS)).join(args)
    opening = draw(st.sampled_from(["(", " (", "((", "", "[ "]))
    closing = draw(st.sampled_from([")", "))", "", " )", ")."]))
    prefix = draw(st.sampled_from(["", "I will ", "Action: ", "```\n", "think... click(x) then "]))
    return f"{prefix}{verb}{opening}{body}{closing}"


def _play_prefix(game: EscapeGame, n: int) -> None:
    """Put the game part-way through its reference chain, as the hint system plays it."""
    for step in game.defn.reference[:n]:
        game.teleport(step.scene)
        game.step(step.action)


def _step_and_check(game: EscapeGame, action: object) -> None:
    before_state = game.state_dict()
    before_snapshot = game.snapshot()
    result = game.step(action)  # type: ignore[arg-type]
    assert result.feedback == "" and feedback_text(result.outcome)  # data, said by a protocol
    if result.error:
        assert not result.success
        assert game.state_dict() == before_state
        assert game.snapshot() == before_snapshot
    assert 0.0 <= game.progress <= 1.0


@FUZZ
@given(text=st.text(max_size=200))
def test_random_text_never_raises(shed: GameDefinition, text: str) -> None:
    call = extract_call(text)
    assert call is None or call.verb in VERBS
    strict = parse_call(text)
    assert strict is None or strict.verb in VERBS
    game = EscapeGame(shed)
    _step_and_check(game, text)
    if call is not None:
        _step_and_check(game, call)


@FUZZ
@given(data=st.data(), progress=st.integers(0, 7))
def test_near_valid_actions_never_raise_and_errors_change_nothing(
    shed: GameDefinition, data: st.DataObject, progress: int
) -> None:
    game = EscapeGame(shed)
    _play_prefix(game, progress)
    for _ in range(data.draw(st.integers(1, 6))):
        text = data.draw(near_valid_action(_names_on_screen(game)))
        extract_call(text)
        parse_call(text)
        _step_and_check(game, text)
        call = extract_call(text)
        if call is not None:
            _step_and_check(game, call)


def test_fuzz_reaches_both_outcomes(shed: GameDefinition) -> None:
    """The near-valid strategy is useful only if it produces accepted and rejected actions."""
    seen = {"error": 0, "accepted": 0}

    @settings(max_examples=200, deadline=None, database=None)
    @given(data=st.data())
    def probe(data: st.DataObject) -> None:
        game = EscapeGame(shed)
        _play_prefix(game, 2)
        result = game.step(data.draw(near_valid_action(_names_on_screen(game))))
        seen["error" if result.error else "accepted"] += 1

    probe()
    assert seen["error"] > 0 and seen["accepted"] > 0, seen
