"""Both protocols say the same outcome: the engine's data, each in its own words.

A step's ``outcome`` is what ``steps.jsonl`` keeps as ``outcome`` and what agents read
(Foresight keeps only informative feedback), so it must not depend on the protocol's wording.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from escapebench.engine import OUTCOME_KINDS, EscapeGame
from escapebench.games.loading import load_games
from escapebench.protocols import make_protocol
from escapebench.protocols.escapebench import feedback_text
from tests.conftest import UPSTREAM
from tests.support.original_harness import make_checkout

needs_original = pytest.mark.skipif(
    not ((UPSTREAM / "original" / "src").is_dir() and (UPSTREAM / "data").is_dir()),
    reason="needs ../shared/upstream (the original code and data)",
)

ERRORS = {"unknown_scene", "unknown_item", "unknown_tool", "wrong_arity", "malformed"}


def _actions(rng: random.Random, game: EscapeGame) -> str:
    d = game.defn
    names = [d.items[i].name for i in game.visible_items()]
    names += [d.tools[t].name for t in game.visible_scene_tools()]
    bag = [d.tools[t].name for t in game.bag] or ["nothing"]
    exits = [label for label, _ in game.open_links()] or ["nowhere"]
    return rng.choice([
        f"click({rng.choice(names or ['nothing'])})",
        f"move({rng.choice(exits)})",
        f"apply({rng.choice(bag)}, {rng.choice(names or ['nothing'])})",
        f"input(1234, {rng.choice(names or ['nothing'])})",
        f"craft({rng.choice(bag)}, {rng.choice(bag)})",
        "click(unicorn)", "move(the moon)", "apply(wand, door)", "dance(now)", "click(a, b)",
    ])


def test_the_escapebench_words_cover_every_kind() -> None:
    from escapebench.engine import Outcome

    for kind in OUTCOME_KINDS:
        verb = "input" if kind == "wrong_input" else "apply" if kind == "wrong_tool" else "click"
        text = feedback_text(Outcome(kind, verb, ("lamp", "door"), "It is dark.", ("hall",)))
        assert text.strip(), kind


@needs_original
def test_the_original_protocol_reports_the_engines_kind_of_outcome(tmp_path: Path) -> None:
    data = str(make_checkout(tmp_path) / "data")
    original = make_protocol("original", [data])
    ours = make_protocol("escapebench")
    [defn] = [d for d in load_games([data]) if d.setting == "game1-1"]
    rng = random.Random(7)
    seen = set()
    a, b = EscapeGame(defn), EscapeGame(defn)
    sa, sb = original.session(defn), ours.session(defn)
    for ref in defn.reference[:6]:  # some progress first, so that the bag holds tools
        a.teleport(ref.scene)
        sa.begin_step(a, None)
        assert sa.play(a, ref.action).outcome.kind in ("triggered", "collected", "partial")
    for _ in range(300):
        sa.begin_step(a, None)
        action = _actions(rng, a)
        result = sa.play(a, action)
        assert result.outcome.kind in OUTCOME_KINDS and result.outcome.kind != "game_over"
        assert result.feedback  # in the original's words
        seen.add(result.outcome.kind)
        if result.error:
            assert result.outcome.kind in ERRORS, (action, result.outcome)
        else:
            assert result.outcome.kind not in ERRORS, (action, result.outcome)
    assert {"unknown_item", "unknown_tool", "malformed", "no_effect", "moved"} <= seen, seen
    # ours, for comparison: the same kinds, said in our words
    b_result = sb.play(b, "click(unicorn)")
    assert b_result.outcome.kind == "unknown_item" and "unicorn" in b_result.feedback
