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

:func:`naming_problems` is the proof's last part: where a text of a version names a solution
outright (the generator asks it of the normal and hard versions). :func:`cue_problems` asks
the opposite of the normal version: that a creative step's tool does hint, in its own
description, the property it is used for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from escapebench.engine.model import GameDefinition

__all__ = ["abstract_reaches_end", "blocked_reaches_end", "cue_problems", "fair_problems",
           "naming_problems", "parse_step"]

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
    taken (see the module docstring).

    The fixed point is computed with a work list: each rule (a tool picked up, a craft made,
    a transition fired) is checked again only when something it depends on has just grown,
    so one call costs about the size of the game, not that size times the rounds. Every rule
    is monotone (it only asks that things *ever* hold), so the order the rules are tried in
    does not change the fixed point: the answer is the one a round-by-round iteration gives.
    """
    block = {parse_step(s) for s in blocked}
    c = _compiled(defn)
    d = defn
    scene_vis, item_vis, item_int, item_st, tool_vis = (set(x) for x in c.start)
    bag: set[int] = set()
    tool_st: dict[int, set[int]] = {t: {0} for t in range(len(d.tools))}
    done: set[tuple[Any, ...]] = set()
    reach: set[int] = set()
    todo: list[tuple[Any, ...]] = list(c.rules)

    def touch(key: tuple[Any, ...]) -> None:
        todo.extend(c.watch.get(key, ()))

    def reach_from(sc: int) -> None:  # the first scene is where the player starts
        stack = [sc]
        reach.add(sc)
        while stack:
            cur = stack.pop()
            touch(("scene", cur))
            for j in c.links[cur]:
                if j in scene_vis and j not in reach:
                    reach.add(j)
                    stack.append(j)

    def applies(t: int, name: str) -> bool:  # some state tool t ever reaches applies to name
        states = d.tools[t].states
        return any(s < len(states) and name in states[s].apply_to for s in tool_st[t])

    def effect(i: int, trig: Any) -> None:
        kind, tk, target, value = trig.kind, trig.target_kind, trig.target, trig.value
        if kind == "become_tool":
            t = d.tool_index.get(str(value))
            if t is not None and t not in bag:
                bag.add(t)
                touch(("tool", t))
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
            if tk == "scene":
                if idx not in scene_vis:
                    scene_vis.add(idx)
                    if idx not in reach and any(p in reach for p in c.preds[idx]):
                        reach_from(idx)
            elif tk == "item":
                if idx not in item_vis:
                    item_vis.add(idx)
                    touch(("item", idx))
            elif tk == "tool":
                if idx not in tool_vis:
                    tool_vis.add(idx)
                    touch(("tool", idx))
            else:
                raise KeyError(tk)
        elif kind == "change_interact" and value is True and tk == "item":
            if idx not in item_int:
                item_int.add(idx)
                touch(("item", idx))
        elif kind == "change_state" and isinstance(value, int):
            if tk == "item":
                if (idx, value) not in item_st:
                    item_st.add((idx, value))
                    touch(("item", idx))
            elif value not in tool_st.setdefault(idx, set()):
                tool_st[idx].add(value)
                touch(("tool", idx))

    reach_from(0)
    while todo:
        rule = todo.pop()
        if rule in done:
            continue
        if rule[0] == "bag":
            t = rule[1]
            if t in tool_vis and d.tools[t].scene in reach:
                done.add(rule)
                if t not in bag:
                    bag.add(t)
                    touch(("tool", t))
        elif rule[0] == "craft":
            b, sb = rule[1], rule[2]
            if sb + 1 in tool_st[b]:
                done.add(rule)
                continue
            tb = d.tools[b]
            if b in bag and sb in tool_st[b] and all(
                a is not None and a in bag and ("craft", name, tb.name) not in block
                and applies(a, tb.name)
                for name, a in c.parts[(b, sb)]
            ):
                done.add(rule)
                tool_st[b].add(sb + 1)
                touch(("tool", b))
        else:
            i, s, k = rule[1], rule[2], rule[3]
            it = d.items[i]
            if i not in item_vis or i not in item_int or it.scene not in reach or (
                    (i, s) not in item_st):
                continue
            tr = it.states[s].transitions[k]
            if not all(_met(w.kind, w.arg, it.name, t, bag, applies, block)
                       for w, t in zip(tr.waits, c.wait_tools[(i, s, k)], strict=True)):
                continue
            done.add(rule)
            if tr.ends_game:
                return True
            for trig in tr.triggers:
                effect(i, trig)
    return False


def _met(kind: str, arg: str, item: str, t: int | None, bag: set[int],
         applies: Callable[[int, str], bool], block: set[tuple[str, str, str]]) -> bool:
    if (kind, arg if kind != "click" else "", item) in block:
        return False
    if kind != "apply":
        return True
    return t is not None and t in bag and applies(t, item)


@dataclass
class _Compiled:
    """What the work list needs of a game, worked out once for all its proof calls."""

    rules: list[tuple[Any, ...]]
    watch: dict[tuple[str, int], list[tuple[Any, ...]]]
    links: list[list[int]]
    preds: list[list[int]]
    parts: dict[tuple[int, int], list[tuple[str, int | None]]]
    wait_tools: dict[tuple[int, int, int], list[int | None]]
    # what holds at the start: scenes, items and tools visible, items interactable, states
    start: tuple[frozenset[Any], ...]


_LAST: list[tuple[GameDefinition, _Compiled]] = []


def _compiled(d: GameDefinition) -> _Compiled:
    """The rules of ``d`` and what each one depends on (the last game's is kept: the proof
    asks the same game once per required step)."""
    if _LAST and _LAST[0][0] is d:
        return _LAST[0][1]
    links = [[j for ln in sc.links if (j := d.scene_index.get(ln.target)) is not None]
             for sc in d.scenes]
    preds: list[list[int]] = [[] for _ in d.scenes]
    for a, out in enumerate(links):
        for j in out:
            preds[j].append(a)
    rules: list[tuple[Any, ...]] = []
    watch: dict[tuple[str, int], list[tuple[Any, ...]]] = {}

    def dep(rule: tuple[Any, ...], *keys: tuple[str, int]) -> None:
        for key in keys:
            watch.setdefault(key, []).append(rule)

    parts: dict[tuple[int, int], list[tuple[str, int | None]]] = {}
    for t, tool in enumerate(d.tools):
        rule: tuple[Any, ...] = ("bag", t)
        rules.append(rule)
        dep(rule, ("tool", t), ("scene", tool.scene))
        for sb, st in enumerate(tool.states):
            if not st.wait_for or sb + 1 >= len(tool.states):
                continue
            rule = ("craft", t, sb)
            rules.append(rule)
            parts[(t, sb)] = [(name, d.tool_index.get(name)) for name in st.wait_for]
            dep(rule, ("tool", t), *(("tool", a) for _, a in parts[(t, sb)] if a is not None))
    wait_tools: dict[tuple[int, int, int], list[int | None]] = {}
    for i, it in enumerate(d.items):
        for s, st in enumerate(it.states):
            for k, tr in enumerate(st.transitions):
                rule = ("tr", i, s, k)
                rules.append(rule)
                tools = [d.tool_index.get(w.arg) if w.kind == "apply" else None
                         for w in tr.waits]
                wait_tools[(i, s, k)] = tools
                dep(rule, ("item", i), ("scene", it.scene),
                    *(("tool", t) for t in tools if t is not None))
    rules.reverse()  # popped from the end: tried in file order first
    start = (frozenset(i for i, sc in enumerate(d.scenes) if sc.visible),
             frozenset(i for i, it in enumerate(d.items) if it.visible),
             frozenset(i for i, it in enumerate(d.items) if it.interactable),
             frozenset((i, 0) for i in range(len(d.items))),
             frozenset(i for i, t in enumerate(d.tools) if t.visible))
    out = _Compiled(rules, watch, links, preds, parts, wait_tools, start)
    _LAST[:] = [(d, out)]
    return out


def blocked_reaches_end(defn: GameDefinition, step: str) -> bool:
    """Whether ``GAME END`` stays reachable (in the over-approximation) without ``step``."""
    return abstract_reaches_end(defn, [step])


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c in "_-"


def _spans(text: str, name: str) -> list[int]:
    """Where ``name`` starts in ``text`` as whole words (both lower case), left to right and
    not overlapping; a word character or hyphen on either side is no whole word."""
    out: list[int] = []
    n = len(name)
    i = text.find(name) if name else -1
    while i >= 0:
        if not (i and _is_word_char(text[i - 1])) and not (
                i + n < len(text) and _is_word_char(text[i + n])):
            out.append(i)
            i = text.find(name, i + n)
        else:
            i = text.find(name, i + 1)
    return out


def _mentions(text: str | None, name: str) -> bool:
    """Whether ``name`` appears in ``text`` as whole words (any case)."""
    return bool(text) and bool(_spans(str(text).lower(), name.lower()))


def _without(text: str | None, name: str) -> str:
    """``text`` (lower case) with the whole-word mentions of ``name`` taken out."""
    low, key = (text or "").lower(), name.lower()
    parts, last = [], 0
    for i in _spans(low, key):
        parts += [low[last:i], " "]
        last = i + len(key)
    return "".join(parts) + low[last:]


_WORD = re.compile(r"\w+")


def naming_problems(defn: GameDefinition) -> list[str]:
    """Where a text names a solution outright (empty when none does).

    For every obstacle, an item state waiting for a tool, a code or a craft:

    * the obstacle's own texts shown before it is solved (its descriptions and failure texts
      up to that state) do not name the tool that solves it;
    * no other text (a scene, item or tool description, a failure or reward text) names both
      the tool and the obstacle, but the reward of solving it and what the obstacle shows
      afterwards;
    * no text at all holds the answer of a code as a whole word;
    * a tool to be crafted does not name its part, nor the part the tool, before the craft.

    Easy versions may name solutions (the paper's easy settings do); the generator asks
    this of the normal and hard versions. A name counts where all of its words are written
    together, as whole words, in any case.
    """
    d = defn
    # every text with whose it is: (kind, owner, state, transition; -1 where none)
    owners: list[tuple[str, int, int, int]] = []
    texts: list[str] = []

    def add(owner: tuple[str, int, int, int], text: str | None) -> None:
        if text:
            owners.append(owner)
            texts.append(text)

    for sc in d.scenes:
        add(("scene", -1, -1, -1), sc.desc)
    for i, it in enumerate(d.items):
        for s, st in enumerate(it.states):
            add(("item", i, s, -1), st.desc)
            add(("item", i, s, -1), st.neg_reward)
            for k, tr in enumerate(st.transitions):
                add(("reward", i, s, k), tr.reward)
    for t, tool in enumerate(d.tools):
        for s, st in enumerate(tool.states):
            add(("tool", t, s, -1), st.desc)
    lowered = [x.lower() for x in texts]
    by_word: dict[str, set[int]] = {}
    for n, x in enumerate(lowered):
        for w in set(_WORD.findall(x)):
            by_word.setdefault(w, set()).add(n)

    def naming(name: str) -> list[int]:
        """The texts that name ``name`` (found through its words, then matched whole)."""
        words = _WORD.findall(name.lower())
        if not words:
            return []
        found = set.intersection(*(by_word.get(w, set()) for w in words))
        key = name.lower()
        return sorted(n for n in found if _spans(lowered[n], key))

    out: list[str] = []
    for i, it in enumerate(d.items):
        for s, st in enumerate(it.states):
            for k, tr in enumerate(st.transitions):
                for w in tr.waits:
                    if w.kind == "input":
                        out += [f"the answer {w.arg!r} of {it.name!r} is written out: "
                                f"{texts[n]!r}" for n in naming(w.arg)]
                        continue
                    if w.kind != "apply":
                        continue
                    own = [x for s2 in range(s + 1) for x in (
                        it.states[s2].desc, it.states[s2].neg_reward)]
                    out += [f"{it.name!r} names its solution {w.arg!r}: {x!r}" for x in own
                            if _mentions(_without(x, it.name), w.arg)]
                    both = set(naming(it.name)) & set(naming(w.arg))
                    for n in sorted(both):
                        kind, owner, at, k2 = owners[n]
                        if kind == "item" and owner == i:
                            continue  # its own texts: checked above, or shown once solved
                        if kind == "reward" and owner == i and (at, k2) == (s, k):
                            continue  # the reward of solving it
                        if _mentions(_without(texts[n], it.name), w.arg):
                            out.append(f"a text pairs {w.arg!r} with {it.name!r}: {texts[n]!r}")
    for tool in d.tools:
        for s, st in enumerate(tool.states):
            for part in st.wait_for:
                before = [x.desc for x in tool.states[: s + 1]]
                p = d.tool_index.get(part)
                parts = [x.desc for x in d.tools[p].states] if p is not None else []
                out += [f"{tool.name!r} names its part {part!r} before the craft: {x!r}"
                        for x in before if _mentions(_without(x, tool.name), part)]
                out += [f"part {part!r} names the tool {tool.name!r} it is crafted into: {x!r}"
                        for x in parts if _mentions(_without(x, part), tool.name)]
    return out


def cue_problems(defn: GameDefinition, cues: Iterable[tuple[str, str, str]],
                 cue_words: dict[str, list[str]]) -> list[str]:
    """Where a creative tool's description carries no cue for the property it is used for
    (empty when every one does).

    ``cues`` holds each creative step as ``(tool, obstacle, property)``; ``cue_words`` maps a
    property to its cue words (whole words or the start of one, ``data/affordances.yaml``'s
    ``cues``). The tool's description in every state that can be applied to the obstacle must
    hold one: without it a new player finds the step only by elimination. The generator asks
    it of the normal version (easy states the property plainly; hard may leave it out).
    """
    out: list[str] = []
    for tool, item, prop in cues:
        if tool not in defn.tool_index:
            out.append(f"creative tool {tool!r} is missing")
            continue
        words = cue_words.get(prop, [])
        for st in defn.tools[defn.tool_index[tool]].states:
            if item not in st.apply_to:
                continue
            low = st.desc.lower()
            if not any(re.search(r"\b" + re.escape(w) + r"(?:s|es|d|ed|ing|y|ly)?\b", low)
                       for w in words):
                out.append(f"{tool!r} is used for being {prop} on {item!r}, but its description "
                           f"hints nothing of it: {st.desc!r}")
    return out


def fair_problems(defn: GameDefinition, needs: Iterable[tuple[str, str, bool, str]],
                  cue_words: dict[str, list[str]], keys: Iterable[str] = (),
                  parts: Iterable[str] = ()) -> list[str]:
    """Where a tool reads as having what an obstacle needs, yet is refused there (empty when
    no tool does).

    ``needs`` holds each property obstacle as ``(obstacle, property, crafted, why)``:
    ``crafted`` when a crafted tool solves it, ``why`` a second property its text says it
    needs ("" for none). A tool reading as having the property but not as ``why`` is refused
    fairly when the obstacle's first description holds a cue of ``why``. ``cue_words`` maps
    a property to its cue words. At a crafted tool's obstacle every tool of the game but the
    keys (``keys``, tried as keys) is asked; at any other obstacle, the tools of ``parts``
    (craft parts, crafted tools, distractors).
    A tool's description in a state that cannot be applied to the obstacle must hold no cue
    of the property: a lump of wax "tacky", refused at a stuck zip that only a waxed string
    opens, leaves the player to guess pairs. A state of the solution that has a use of its own
    elsewhere (a knife before it is sharpened, at its whetstone) is not asked.
    """
    out: list[str] = []
    skip = set(keys)
    always = set(parts)
    def compiled(words: list[str]) -> re.Pattern[str] | None:
        return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words)
                          + r")(?:s|es|d|ed|ing|y|ly)?\b") if words else None

    for item, prop, crafted, why in needs:
        pattern = compiled(cue_words.get(prop, []))
        if pattern is None:
            continue
        because = compiled(cue_words.get(why, [])) if why else None
        if because is not None and item in defn.item_index:
            obs = defn.items[defn.item_index[item]].states[0].desc.lower()
            if not because.search(obs):
                because = None  # the obstacle does not say why: no excuse
        for tool in defn.tools:
            if tool.name in skip or not (crafted or tool.name in always):
                continue
            solves = any(item in st.apply_to for st in tool.states)
            for st in tool.states:
                if item in st.apply_to or (solves and st.apply_to):
                    continue
                low = st.desc.lower()
                if pattern.search(low) and not (because and not because.search(low)):
                    out.append(f"{tool.name!r} reads as {prop} ({st.desc!r}) but is refused at "
                               f"{item!r}")
                    break
    return out
