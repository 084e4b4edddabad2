"""Protocols word the engine's state; they ask the engine its rules through its public API.

A protocol that reads the engine's private names or its bookkeeping (which waits are met,
which uses are struck off) copies rules that belong to the engine, and goes wrong silently
when they change. The engine answers those questions itself (``EscapeGame.waits_met``,
``targets_left``, ``crafts_awaited``, ``refusal``, ``clickable_items``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import escapebench.protocols
from escapebench.engine.env import EscapeGame
from escapebench.engine.model import GameDefinition

PROTOCOLS = Path(escapebench.protocols.__file__).parent
NAMED_TUPLE_API = {"_replace", "_asdict", "_fields", "_make"}
"""Names with a leading underscore that are public (of NamedTuple, e.g. StepResult)."""
BOOKKEEPING = {
    name for name in EscapeGame.__slots__
    if name in ("satisfied", "counted", "used") or name.startswith("_")
}


def private_uses(source: str) -> list[tuple[int, str]]:
    """(line, name) of every private name or engine bookkeeping read on another object."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute):
            continue
        own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
        name = node.attr
        private = name.startswith("_") and not name.startswith("__")
        if (private and not own and name not in NAMED_TUPLE_API) or name in BOOKKEEPING:
            found.append((node.lineno, name))
    return found


def test_the_protocols_use_only_the_public_api_of_engine_objects() -> None:
    problems = [
        f"{path.relative_to(PROTOCOLS.parent)}:{line}: .{name}"
        for path in sorted(PROTOCOLS.rglob("*.py"))
        for line, name in private_uses(path.read_text(encoding="utf-8"))
    ]
    assert problems == []


def test_the_check_finds_what_it_looks_for() -> None:
    planted = "def f(game, defn):\n    a = game._tables\n    b = defn._x\n    c = game.satisfied\n"
    assert private_uses(planted) == [(2, "_tables"), (3, "_x"), (4, "satisfied")]
    assert private_uses("def f(self, r):\n    self._a = r._replace(x=1)\n") == []


def test_the_engine_answers_the_original_protocols_questions(tmp_path: Path) -> None:
    """A two-wait item, a tool with a listed target, a craft: what the engine says is left."""
    from escapebench.games.loading import load_file

    path = tmp_path / "g.yaml"
    path.write_text(GAME, encoding="utf-8")
    defn: GameDefinition = load_file(path)[0]
    game = EscapeGame(defn)
    box = next(i for i, it in enumerate(defn.items) if it.name == "box")
    key = next(k for k, t in enumerate(defn.tools) if t.name == "key")
    rod = next(k for k, t in enumerate(defn.tools) if t.name == "rod")
    assert game.clickable_items() == [box]
    game.step("click(key)")
    game.step("click(rod)")
    game.step("click(hook)")
    assert game.targets_left(key) == ["box"] and game.waits_met(box, 0) == frozenset()
    assert game.refusal("input", box).kind == "no_effect"
    assert game.refusal("apply", box, rod).kind == "wrong_tool"
    assert game.step("apply(key, box)").success
    assert game.targets_left(key) == [] and game.waits_met(box, 0) == {0}
    assert game.crafts_awaited(rod) == ["hook"]
    assert game.step("craft(hook, rod)").success
    assert game.crafts_awaited(rod) == []  # (its last state: the list stays met)


GAME = """
- name: room
  desc: A room.
  items:
  - position: on the table
    item:
      name: box
      states:
      - desc: A box with two locks.
        transitions:
        - wait_for: ["apply, key", "apply, rod"]
          trigger: ["change_state, 1"]
          reward: "GAME END"
      - desc: An open box.
  tools:
  - position: on the floor
    tool:
      name: key
      states:
      - desc: A key.
        apply_to: [box]
  - position: by the door
    tool:
      name: rod
      states:
      - desc: A bare rod.
        wait_for: [hook]
      - desc: A rod with a hook.
        apply_to: [box]
  - position: on a nail
    tool:
      name: hook
      states:
      - desc: A hook.
        apply_to: [rod]
"""
