"""A game's reference chain as a player types it: each reference step's action, preceded by the
moves that walk from where the player stands to the scene it is taken in (the reference names
only the scenes; a person walks there through the exits on screen)."""

from __future__ import annotations

from collections import deque

from escapebench.engine.model import GameDefinition


def walk(defn: GameDefinition, start: str, goal: str) -> list[tuple[str, str]]:
    """The exits ``(label, target)`` of a shortest walk from scene ``start`` to ``goal``."""
    links = {s.name: s.links for s in defn.scenes}
    came: dict[str, tuple[str, str, str] | None] = {start: None}
    todo = deque([start])
    while todo:
        here = todo.popleft()
        if here == goal:
            break
        for link in links.get(here, ()):
            if link.target not in came:
                came[link.target] = (here, link.label, link.target)
                todo.append(link.target)
    if goal not in came:
        raise AssertionError(f"{defn.setting}: no walk from {start} to {goal}")
    out: list[tuple[str, str]] = []
    at = goal
    while came[at] is not None:
        prev, label, target = came[at]  # type: ignore[misc]
        out.append((label, target))
        at = prev
    return out[::-1]


def typed_reference(defn: GameDefinition) -> list[tuple[str, str]]:
    """``("move", label)`` and ``("act", action)`` in the order a player does them."""
    at = defn.start_scene
    out: list[tuple[str, str]] = []
    for ref in defn.reference:
        for label, target in walk(defn, at, ref.scene):
            out.append(("move", label))
            at = target
        out.append(("act", ref.action))
    return out
