"""The original engine's rule for a tool used twice on one item: each use strikes the item off
the tool's list in that state (``Tool.delete_apply_to`` in the original), so a second apply to
the same item is refused unless the list names it twice, and then the list is used up.
"""

from __future__ import annotations

from pathlib import Path

from escapebench.cli import main as cli_main
from escapebench.engine import EscapeGame
from escapebench.games.loading import load_file

GAME = """\
escapebench: 1
id: plank
title: The Loose Plank
difficulty: normal
scenes:
  - name: shed
    desc: A shed whose only way out is boarded over.
    items:
      - position: across the doorway
        item:
          name: loose plank
          states:
            - desc: A plank held by nothing.
              neg_reward: The plank wobbles.
              transitions:
                - wait_for: ["apply, hammer"]
                  trigger: ["change_state, 1"]
                  reward: One nail goes in.
            - desc: A plank held by one nail.
              transitions:
                - wait_for: ["apply, hammer"]
                  reward: The second nail goes in, the ladder holds and you climb out. GAME END
    tools:
      - position: on the bench
        tool:
          name: hammer
          states:
            - desc: A claw hammer.
              apply_to: [{targets}]
reference:
  - {{position: shed, action: "click(hammer)"}}
  - {{position: shed, action: "apply(hammer, loose plank)"}}
  - {{position: shed, action: "apply(hammer, loose plank)"}}
"""


def _game(tmp_path: Path, targets: str) -> Path:
    path = tmp_path / "plank.yaml"
    path.write_text(GAME.format(targets=targets), encoding="utf-8")
    return path


def test_a_second_apply_to_the_same_item_is_refused_when_listed_once(tmp_path: Path) -> None:
    [defn] = load_file(_game(tmp_path, "loose plank"))
    game = EscapeGame(defn)
    assert game.step("click(hammer)").success
    first = game.step("apply(hammer, loose plank)")
    assert first.success and game.item_state[0] == 1
    # spent in its last (only) state: the hammer has left the bag, as the original's does
    assert game.bag == []
    second = game.step("apply(hammer, loose plank)")
    assert second.error and second.outcome.kind == "unknown_tool" and not game.ended


def test_a_tool_listing_the_item_twice_can_be_used_on_it_twice(tmp_path: Path) -> None:
    [defn] = load_file(_game(tmp_path, "loose plank, loose plank"))
    game = EscapeGame(defn)
    for action in ("click(hammer)", "apply(hammer, loose plank)"):
        assert game.step(action).success, action
    assert game.bag != []  # one use left on its list
    assert game.step("apply(hammer, loose plank)").game_end
    assert game.bag == []  # its list used up


def test_a_struck_use_in_a_state_that_is_not_the_last_is_refused_in_place(tmp_path: Path) -> None:
    text = GAME.format(targets="loose plank").replace(
        "              apply_to: [loose plank]\n",
        "              apply_to: [loose plank]\n            - desc: A hammer, worn.\n"
        "              apply_to: [loose plank]\n",
    )
    path = tmp_path / "plank.yaml"
    path.write_text(text, encoding="utf-8")
    [defn] = load_file(path)
    game = EscapeGame(defn)
    for action in ("click(hammer)", "apply(hammer, loose plank)"):
        assert game.step(action).success, action
    assert game.bag == [0]  # spent in a state that is not its last: it stays
    again = game.step("apply(hammer, loose plank)")
    assert not again.success and not again.error  # struck off its list: refused
    assert again.outcome.kind == "wrong_tool"  # the plank waits for the hammer, as before


def test_check_finds_the_game_unfinishable_when_listed_once(tmp_path: Path, capsys) -> None:
    assert cli_main(["check", str(_game(tmp_path, "loose plank, loose plank"))]) == 0
    capsys.readouterr()
    assert cli_main(["check", str(_game(tmp_path, "loose plank"))]) != 0
    out = capsys.readouterr().out
    assert "apply(hammer, loose plank)" in out
