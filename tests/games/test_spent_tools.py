"""The original engine's rule for a spent tool: it leaves the bag only in its last state.

``forge.yaml`` (ours) uses a tool on every target of its first state twice, once by a craft
(the match into the lamp) and once by an apply (the crowbar on the crate); each is then moved to
its second state by a later trigger of an item and is needed again to finish.
"""

from __future__ import annotations

from pathlib import Path

from escapebench.cli import main as cli_main
from escapebench.engine.env import EscapeGame
from escapebench.games.loading import load_file

FORGE = Path(__file__).with_name("forge.yaml")


def _play(game: EscapeGame, action: str) -> None:
    result = game.step(action)
    assert result.success, (action, result.outcome)


def test_a_tool_spent_in_an_earlier_state_stays_in_the_bag_and_moves_on() -> None:
    [defn] = load_file(FORGE)
    game = EscapeGame(defn)
    for action in ("click(match)", "click(oil lamp)", "craft(match, oil lamp)"):
        _play(game, action)
    # crafted into the lamp in its first state: still in the bag, unchanged
    assert game.state_dict()["bag"] == {"match": 0, "oil lamp": 1}
    _play(game, "apply(oil lamp, stove)")
    # the lamp was spent in its last state: it is gone
    assert game.state_dict()["bag"] == {"match": 0}
    _play(game, "click(stove)")  # the stove's trigger moves the match on
    assert game.state_dict()["bag"] == {"match": 1}
    _play(game, "apply(match, whitewashed wall)")
    assert game.state_dict()["bag"] == {}  # spent in its last state

    _play(game, "click(crowbar)")
    _play(game, "apply(crowbar, crate)")
    assert game.state_dict()["bag"] == {"crowbar": 0}  # an apply in its first state: it stays
    _play(game, "click(crate)")
    assert game.state_dict()["bag"] == {"crowbar": 1}
    last = game.step("apply(crowbar, trapdoor)")
    assert last.success and game.ended and game.progress == 1.0
    assert game.state_dict()["bag"] == {}


def test_the_forge_checks_clean_and_its_reference_reaches_the_end(capsys) -> None:
    assert cli_main(["check", str(FORGE)]) == 0
    out = capsys.readouterr().out
    assert "all passed (0 error(s), 0 warning(s))" in out
