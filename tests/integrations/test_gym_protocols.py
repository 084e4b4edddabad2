"""The Gymnasium environment speaks the protocol chosen, as ``escapebench run`` does: ours by
default, the original harness's texts and parser for a game of an original checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

gym = pytest.importorskip("gymnasium")

import escapebench.gym  # noqa: E402,F401  (registers the ids)
from escapebench.engine import EscapeGame  # noqa: E402
from escapebench.games.loading import load_games  # noqa: E402
from escapebench.integrations import gym as eg  # noqa: E402
from escapebench.protocols import OriginalSourceError, make_protocol  # noqa: E402
from escapebench.protocols.escapebench import feedback_text  # noqa: E402
from tests.conftest import UPSTREAM  # noqa: E402
from tests.support.original_harness import make_checkout  # noqa: E402

needs_original = pytest.mark.skipif(
    not ((UPSTREAM / "original" / "src").is_dir() and (UPSTREAM / "data").is_dir()),
    reason="needs ../shared/upstream (the original code and data)",
)


def test_the_default_is_ours_and_says_so() -> None:
    env = gym.make("escapebench/tutorial-v0")
    obs, info = env.reset(seed=0)
    assert info["protocol"].startswith("escapebench/")
    _, _, _, _, info = env.step("dance(now)")
    assert info["feedback"].startswith("Could not read an action")


def test_original_needs_a_checkout_and_says_what_to_pass() -> None:
    with pytest.raises(OriginalSourceError):
        gym.make("escapebench/tutorial-v0", protocol="original")
    with pytest.raises(ValueError, match="unknown protocol 'nonesuch'"):
        gym.make("escapebench/tutorial-v0", protocol="nonesuch")


@needs_original
def test_a_game_of_a_checkout_reads_as_the_original_harness(tmp_path: Path) -> None:
    checkout = make_checkout(tmp_path)
    data = str(checkout / "data")
    env = gym.make(eg.GENERIC_ID, game=data, setting="game1-1")
    obs, info = env.reset(seed=0)
    assert info["protocol"].startswith("original/")
    assert info["texts_version"] == info["protocol"]

    # What the original harness shows at step 0, built from the same checkout by hand.
    protocol = make_protocol("original", [data])
    [defn] = [d for d in load_games([data]) if d.setting == "game1-1"]
    game, session = EscapeGame(defn), protocol.session(defn)
    position = session.begin_step(game, None)
    expected = protocol.action_user_prompt(
        step=0, position=position, observation=session.observation(game), history=[], hint=None
    )
    assert obs == expected

    # An action's feedback is the original's words, and the next text shows it.
    first = defn.reference[0].action
    _, _, _, _, info = env.step(first)
    played = session.play(game, first)
    assert info["feedback"] == played.feedback and info["success"] == played.success
    obs, _, _, _, info = env.step("dance(now)")
    assert info["feedback"] and info["feedback"] in obs
    ours = feedback_text(EscapeGame(defn).step("dance(now)").outcome)
    assert info["feedback"] != ours  # not our words


@needs_original
def test_original_protocol_with_an_explicit_checkout_on_a_copied_game(tmp_path: Path) -> None:
    checkout = make_checkout(tmp_path)
    env = gym.make(eg.GENERIC_ID, game=str(UPSTREAM / "data"), setting="game1-1",
                   protocol="original", original_source=str(checkout))
    obs, info = env.reset(seed=0)
    assert info["protocol"].startswith("original/")
    from gymnasium.utils.env_checker import check_env

    check_env(env.unwrapped, skip_render_check=True)
