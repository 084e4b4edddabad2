"""The proof that a game has no shortcut, over an abstraction of its states.

The abstraction keeps, for every item, tool and scene, the set of everything that can *ever*
hold (ever visible, ever in the bag, every state ever reached) and lets every transition whose
waits can ever be met fire; a trigger that hides or locks something is ignored. Every real play
stays inside this over-approximation, so when the fixed point does not contain ``GAME END``
the end is unreachable in the real game: a proof, in time linear in the game's size times the
number of rounds, however many states the real game has.

:func:`blocked_reaches_end` asks this with one step forbidden (a wait that is never met, or a
craft never made): if the end is still reachable, the step is not required and the game has a
shortcut.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from escapebench.engine.model import GameDefinition

__all__ = ["abstract_reaches_end", "blocked_reaches_end", "parse_step"]

_CALL = re.compile(r"^(\w+)\((.*)\)$")


def parse_step(step: str) -> tuple[str, str, str]:
    """``apply(coin, vent cover)`` -> ``("apply", "coin", "vent cover")``; ``click(x)`` ->
    ``("click", "", "x")``; ``input(427, door)`` -> ``("input", "427", "door")``;
    ``craft(a, b)`` -> ``("craft", "a", "b")``."""
    m = _CALL.match(step.strip())
    if not m:
        raise ValueError(f"not a step: {step!r}")
    verb, args = m.group(1), [a.strip() for a in m.group(2).split(",")]
    if verb == "click":
        return verb, "", args[0]
    return verb, args[0], args[1]


def abstract_reaches_end(defn: GameDefinition, blocked: Iterable[str] = ()) -> bool:
    """Whether the over-approximation reaches ``GAME END`` with the steps ``blocked`` never
    taken (see the module docstring)."""
    block = {parse_step(s) for s in blocked}
    d = defn
    scene_vis = {i for i, s in enumerate(d.scenes) if s.visible}
    item_vis = {i for i, it in enumerate(d.items) if it.visible}
    item_int = {i for i, it in enumerate(d.items) if it.interactable}
    item_st = {(i, 0) for i in range(len(d.items))}
    tool_vis = {i for i, t in enumerate(d.tools) if t.visible}
    bag: set[int] = set()
    tool_st = {(i, 0) for i in range(len(d.tools))}
    fired: set[tuple[int, int, int]] = set()
    start = 0  # the first scene in the file is where the player starts
    changed = True
    while changed:
        changed = False
        # scenes reachable by walking through ever-visible scenes
        reach = {start}
        todo = [start]
        while todo:
            sc = todo.pop()
            for link in d.scenes[sc].links:
                j = d.scene_index.get(link.target)
                if j is not None and j in scene_vis and j not in reach:
                    reach.add(j)
                    todo.append(j)
        for t, tool in enumerate(d.tools):
            if t not in bag and t in tool_vis and tool.scene in reach:
                bag.add(t)
                changed = True
        # crafts
        for b in list(bag):
            tb = d.tools[b]
            for sb, st in enumerate(tb.states):
                if (b, sb) not in tool_st or not st.wait_for or sb + 1 >= len(tb.states):
                    continue
                if (b, sb + 1) in tool_st:
                    continue
                ok = True
                for name in st.wait_for:
                    a = d.tool_index.get(name)
                    if a is None or a not in bag or ("craft", name, tb.name) in block or not any(
                        tb.name in d.tools[a].states[sa].apply_to
                        for (ta, sa) in tool_st if ta == a
                    ):
                        ok = False
                        break
                if ok:
                    tool_st.add((b, sb + 1))
                    changed = True
        # transitions
        for i, it in enumerate(d.items):
            if i not in item_vis or i not in item_int or it.scene not in reach:
                continue
            for s, st in enumerate(it.states):
                if (i, s) not in item_st:
                    continue
                for k, tr in enumerate(st.transitions):
                    if (i, s, k) in fired or not all(
                        _wait_met(d, w.kind, w.arg, it.name, bag, tool_st, block)
                        for w in tr.waits
                    ):
                        continue
                    fired.add((i, s, k))
                    changed = True
                    if tr.ends_game:
                        return True
                    for trig in tr.triggers:
                        _fire(d, i, trig, scene_vis, item_vis, item_int, item_st, tool_vis,
                              bag, tool_st)
    return False


def _wait_met(d: GameDefinition, kind: str, arg: str, item: str, bag: set[int],
              tool_st: set[tuple[int, int]], block: set[tuple[str, str, str]]) -> bool:
    if (kind, arg if kind != "click" else "", item) in block:
        return False
    if kind != "apply":
        return True
    t = d.tool_index.get(arg)
    return t is not None and t in bag and any(
        item in d.tools[t].states[s].apply_to for (tt, s) in tool_st if tt == t
        and s < len(d.tools[t].states)
    )


def _fire(d: GameDefinition, i: int, trig, scene_vis, item_vis, item_int, item_st, tool_vis,
          bag, tool_st) -> None:  # noqa: ANN001 (sets of indices)
    kind, tk, target, value = trig.kind, trig.target_kind, trig.target, trig.value
    if kind == "become_tool":
        t = d.tool_index.get(str(value))
        if t is not None:
            bag.add(t)
        return
    if tk == "self":
        idx: int | None = i
        tk = "item"
    elif tk == "scene":
        idx = d.scene_index.get(target)
    elif tk == "tool":
        idx = d.tool_index.get(target)
    else:
        idx = d.item_index.get(target)
    if idx is None:
        return
    if kind == "change_visible" and value is True:
        {"scene": scene_vis, "item": item_vis, "tool": tool_vis}[tk].add(idx)
    elif kind == "change_interact" and value is True and tk == "item":
        item_int.add(idx)
    elif kind == "change_state" and isinstance(value, int):
        (item_st if tk == "item" else tool_st).add((idx, value))


def blocked_reaches_end(defn: GameDefinition, step: str) -> bool:
    """Whether ``GAME END`` stays reachable (in the over-approximation) without ``step``."""
    return abstract_reaches_end(defn, [step])
