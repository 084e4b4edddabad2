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
description, the property it is used for. Generator version 6 adds :func:`code_problems` (one
answer per code), :func:`cue_agreement_problems` (what an obstacle asks, its solution has),
:func:`craft_problems` (crafts that make sense), :func:`label_problems` (labels that tell the
truth), :func:`text_problems` (words that do not mislead) and :func:`decoy_problems` (no
detail links unrelated things); version 7 :func:`key_problems` (each key read to its lock);
version 8 :func:`hard_cue_problems` (a creative step keeps a readable link in hard) and
:func:`plain_cue_problems` (every property step keeps one in normal and hard); version 10
:func:`half_problems` (no craft's half is a guess).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from escapebench.engine.model import GameDefinition

__all__ = ["abstract_reaches_end", "asked_properties", "blocked_reaches_end", "code_problems",
           "cue_pattern",
           "craft_problems", "cue_agreement_problems", "cue_problems", "decoy_problems",
           "fair_problems", "fit_problems", "half_problems", "hard_cue_problems", "key_problems",
           "label_problems", "naming_problems", "parse_step", "part_alone_gives",
           "plain_cue_problems",
           "source_problems",
           "plural_name", "text_problems", "visible_marks"]

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
    return _fixed_point(defn, blocked, stop_at_end=True)[0]


def _fixed_point(defn: GameDefinition, blocked: Iterable[str], stop_at_end: bool
                 ) -> tuple[bool, set[int], set[int], set[tuple[int, int]], set[int]]:
    """The over-approximation's fixed point with the steps ``blocked`` never taken: whether
    it reaches ``GAME END``, and the scenes reached, the items ever visible, the item states
    ever reached and the tools ever in the bag (stopped early at the end if ``stop_at_end``)."""
    block = {parse_step(s) for s in blocked}
    c = _compiled(defn)
    scene_vis, item_vis, item_int, item_st, tool_vis = (set(x) for x in c.start)
    bag: set[int] = set()
    tool_st: dict[int, set[int]] = {t: {0} for t in range(c.n_tools)}
    rules, applies_in = c.rules, c.applies_in
    w_scene, w_item, w_tool = c.watch_scene, c.watch_item, c.watch_tool
    done = bytearray(len(rules))
    reach: set[int] = set()
    todo = list(c.order)

    def reach_from(sc: int) -> None:  # the first scene is where the player starts
        stack = [sc]
        reach.add(sc)
        while stack:
            cur = stack.pop()
            todo.extend(w_scene[cur])
            for j in c.links[cur]:
                if j in scene_vis and j not in reach:
                    reach.add(j)
                    stack.append(j)

    def applies(t: int, name: str) -> bool:  # some state tool t ever reaches applies to name
        states = applies_in.get((t, name))
        return states is not None and not states.isdisjoint(tool_st[t])

    def effect(i: int, op: int, idx: int, value: Any) -> None:
        if op == _SELF:  # a trigger on the item itself
            op, idx = value[0], i
            value = value[1]
        if op == _BECOME:
            if idx not in bag:
                bag.add(idx)
                todo.extend(w_tool[idx])
        elif op == _SHOW_SCENE:
            if idx not in scene_vis:
                scene_vis.add(idx)
                if idx not in reach and any(p in reach for p in c.preds[idx]):
                    reach_from(idx)
        elif op == _SHOW_ITEM:
            if idx not in item_vis:
                item_vis.add(idx)
                todo.extend(w_item[idx])
        elif op == _SHOW_TOOL:
            if idx not in tool_vis:
                tool_vis.add(idx)
                todo.extend(w_tool[idx])
        elif op == _INTERACT:
            if idx not in item_int:
                item_int.add(idx)
                todo.extend(w_item[idx])
        elif op == _ITEM_STATE:
            if (idx, value) not in item_st:
                item_st.add((idx, value))
                todo.extend(w_item[idx])
        elif op == _TOOL_STATE:
            got = tool_st.setdefault(idx, set())
            if value not in got:
                got.add(value)
                todo.extend(w_tool[idx])
        elif op == _BAD_KIND:
            raise KeyError(value)

    ended = False
    reach_from(0)
    while todo:
        r = todo.pop()
        if done[r]:
            continue
        rule = rules[r]
        if rule[0] == _BAG:
            t = rule[1]
            if t in tool_vis and rule[2] in reach:
                done[r] = 1
                if t not in bag:
                    bag.add(t)
                    todo.extend(w_tool[t])
        elif rule[0] == _CRAFT:
            _, b, sb, name, parts = rule
            states = tool_st[b]
            if sb + 1 in states:
                done[r] = 1
                continue
            if b in bag and sb in states and all(
                a is not None and a in bag and key not in block and applies(a, name)
                for a, key in parts
            ):
                done[r] = 1
                states.add(sb + 1)
                todo.extend(w_tool[b])
        else:
            _, i, s, scene, name, waits, ends, effects = rule
            if i not in item_vis or i not in item_int or scene not in reach or (
                    (i, s) not in item_st):
                continue
            if not all(key not in block and (not is_apply or (
                    t is not None and t in bag and applies(t, name)))
                    for key, t, is_apply in waits):
                continue
            done[r] = 1
            if ends:
                ended = True
                if stop_at_end:
                    break
            for op, idx, value in effects:
                effect(i, op, idx, value)
    return ended, reach, item_vis, item_st, bag


# what a trigger does in the abstraction (anything else, a hide or a lock, does nothing)
(_BECOME, _SHOW_SCENE, _SHOW_ITEM, _SHOW_TOOL, _INTERACT, _ITEM_STATE, _TOOL_STATE, _SELF,
 _BAD_KIND) = range(9)
_BAG, _CRAFT, _TR = range(3)  # the rules: a tool picked up, a craft made, a transition fired


def _trigger_op(d: GameDefinition, trig: Any) -> tuple[int, int, Any] | None:
    """A trigger as ``(op, index, value)``; None for one that changes nothing here. A trigger
    on its own item (``self``) is ``(_SELF, 0, (op, value))``, the index its firer's."""
    kind, tk, target, value = trig.kind, trig.target_kind, trig.target, trig.value
    if kind == "become_tool":
        t = d.tool_index.get(str(value))
        return None if t is None else (_BECOME, t, None)
    idx: int | None
    if tk == "self":
        idx, tk = 0, "item"
    elif tk == "scene":
        idx = d.scene_index.get(target)
    elif tk == "tool":
        idx = d.tool_index.get(target)
    else:
        idx = d.item_index.get(target)
    if idx is None:
        return None
    op: tuple[int, Any] | None = None
    if kind == "change_visible" and value is True:
        op = {"scene": (_SHOW_SCENE, None), "item": (_SHOW_ITEM, None),
              "tool": (_SHOW_TOOL, None)}.get(tk, (_BAD_KIND, tk))
    elif kind == "change_interact" and value is True and tk == "item":
        op = (_INTERACT, None)
    elif kind == "change_state" and isinstance(value, int):
        op = (_ITEM_STATE if tk == "item" else _TOOL_STATE, value)
    if op is None:
        return None
    if trig.target_kind == "self":
        return (_SELF, 0, op)
    return (op[0], idx, op[1])


@dataclass
class _Compiled:
    """What the work list needs of a game, worked out once for all its proof calls."""

    # each rule in file order: (_BAG, tool, its scene), (_CRAFT, tool, state, its name,
    # ((part, block key), ...)) or (_TR, item, state, its scene, its name, ((block key, tool
    # or None, is an apply), ...) for its waits, whether it ends the game, its triggers' ops)
    rules: list[tuple[Any, ...]]
    order: list[int]  # the rules' numbers, last first (the work list pops from its end)
    # the rules to try again when a scene, an item or a tool gains something
    watch_scene: list[list[int]]
    watch_item: list[list[int]]
    watch_tool: list[list[int]]
    links: list[list[int]]
    preds: list[list[int]]
    applies_in: dict[tuple[int, str], frozenset[int]]  # the states of a tool applying to a name
    n_tools: int
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
    w_scene: list[list[int]] = [[] for _ in d.scenes]
    w_item: list[list[int]] = [[] for _ in d.items]
    w_tool: list[list[int]] = [[] for _ in d.tools]
    applies_in: dict[tuple[int, str], set[int]] = {}
    for t, tool in enumerate(d.tools):
        r = len(rules)
        rules.append((_BAG, t, tool.scene))
        w_tool[t].append(r)
        w_scene[tool.scene].append(r)
        for sb, st in enumerate(tool.states):
            for name in st.apply_to:
                applies_in.setdefault((t, name), set()).add(sb)
            if not st.wait_for or sb + 1 >= len(tool.states):
                continue
            r = len(rules)
            parts = [(d.tool_index.get(name), ("craft", name, tool.name)) for name in st.wait_for]
            rules.append((_CRAFT, t, sb, tool.name, tuple(parts)))
            w_tool[t].append(r)
            for a, _key in parts:
                if a is not None:
                    w_tool[a].append(r)
    for i, it in enumerate(d.items):
        for s, st in enumerate(it.states):
            for tr in st.transitions:
                r = len(rules)
                waits = tuple(((w.kind, w.arg if w.kind != "click" else "", it.name),
                               d.tool_index.get(w.arg) if w.kind == "apply" else None,
                               w.kind == "apply") for w in tr.waits)
                ops = tuple(op for trig in tr.triggers
                            if (op := _trigger_op(d, trig)) is not None)
                rules.append((_TR, i, s, it.scene, it.name, waits, tr.ends_game, ops))
                w_item[i].append(r)
                w_scene[it.scene].append(r)
                for _key, t, _apply in waits:
                    if t is not None:
                        w_tool[t].append(r)
    start = (frozenset(i for i, sc in enumerate(d.scenes) if sc.visible),
             frozenset(i for i, it in enumerate(d.items) if it.visible),
             frozenset(i for i, it in enumerate(d.items) if it.interactable),
             frozenset((i, 0) for i in range(len(d.items))),
             frozenset(i for i, t in enumerate(d.tools) if t.visible))
    out = _Compiled(rules, list(range(len(rules) - 1, -1, -1)), w_scene, w_item, w_tool,
                    links, preds, {k: frozenset(v) for k, v in applies_in.items()},
                    len(d.tools), start)
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
    return bool(text) and _mentions_in(str(text), name)


@lru_cache(maxsize=1 << 16)
def _mentions_in(text: str, name: str) -> bool:
    # kept: the rules ask the same texts about the same names in each version and rule
    return bool(_spans(text.lower(), name.lower()))


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
                    for tool_name in _shown_names(d, w.arg):  # a crafted product's too
                        out += [f"{it.name!r} names its solution {tool_name!r}: {x!r}"
                                for x in own if _mentions(_without(x, it.name), tool_name)]
                        both = set(naming(it.name)) & set(naming(tool_name))
                        for n in sorted(both):
                            kind, owner, at, k2 = owners[n]
                            if kind == "item" and owner == i:
                                continue  # its own texts: checked above, or shown once solved
                            if kind == "reward" and owner == i and (at, k2) == (s, k):
                                continue  # the reward of solving it
                            if _mentions(_without(texts[n], it.name), tool_name):
                                out.append(f"a text pairs {tool_name!r} with {it.name!r}: "
                                           f"{texts[n]!r}")
    for tool in d.tools:
        for s, st in enumerate(tool.states):
            for part in st.wait_for:
                before = [x.desc for x in tool.states[: s + 1]]
                p = d.tool_index.get(part)
                parts = [x.desc for x in d.tools[p].states] if p is not None else []
                out += [f"{tool.name!r} names its part {part!r} before the craft: {x!r}"
                        for x in before if _mentions(_without(x, tool.name), part)]
                out += [f"part {part!r} names the tool {made!r} it is crafted into: {x!r}"
                        for made in _shown_names(d, tool.name)
                        for x in parts if _mentions(_without(x, part), made)]
    return out


def _shown_names(defn: GameDefinition, tool: str) -> list[str]:
    """The names ``tool`` goes by: its own, and its states' (a crafted product's)."""
    t = defn.tool_index.get(tool)
    if t is None:
        return [tool]
    return list(dict.fromkeys([tool, *(st.name for st in defn.tools[t].states if st.name)]))


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
            rx = cue_pattern(words)  # (one pattern for all the words: found when any is)
            if rx is None or not rx.search(st.desc.lower()):
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


# -- generator version 6: fair by proof, and words that do not mislead --------------------------

_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6}
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
_NUMBER = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# the marks a clue can carry: "II = 5" / "II-5" (a place by its Roman numeral), "a 5 beside
# two dots" (a place by its dots), "the second digit of the X code is 5" and "the code of the
# X is 512" (a place, or the whole code, tied to its lock by name)
_MARK_ROMAN = re.compile(r"(?<![\w-])(VI|IV|V|I{1,3}) ?(?:=|-) ?(\d)\b")
_MARK_DOTS = re.compile(r"\b(\d) beside (\d|one|two|three|four|five|six) dots?\b")
_MARK_ORD = re.compile(r"\b(first|second|third|fourth|fifth|sixth) digit of the (.+?) code is "
                       r"(\d)\b")
_MARK_WHOLE = re.compile(r"\bcode of the (.+?) is (\d+)\b")
_DIGITS = re.compile(r"\b(\d+) digits\b")
_ANY_DIGIT = re.compile(r"\d")


def visible_marks(text: str) -> list[tuple[int, str, str]]:
    """The code marks ``text`` shows, each as ``(place, digit, lock named or "")``; a whole
    code tied to a lock gives one mark per digit."""
    return list(_marks_in(text)) if _ANY_DIGIT.search(text) else []


@lru_cache(maxsize=1 << 14)
def _marks_in(text: str) -> tuple[tuple[int, str, str], ...]:
    # kept: each code lock of a game reads the same texts, in each version
    out: list[tuple[int, str, str]] = []
    for m in _MARK_WHOLE.finditer(text):
        out += [(p + 1, d, m.group(1)) for p, d in enumerate(m.group(2))]
    for m in _MARK_ORD.finditer(text):
        out.append((_ORDINAL[m.group(1)], m.group(3), m.group(2)))
    for m in _MARK_ROMAN.finditer(text):
        out.append((_ROMAN[m.group(1)], m.group(2), ""))
    for m in _MARK_DOTS.finditer(text):
        n = m.group(2)
        out.append((int(n) if n.isdigit() else _NUMBER[n], m.group(1), ""))
    return tuple(out)


def code_problems(defn: GameDefinition, codes: Iterable[tuple[str, str, str]],
                  seen: dict[str, Any] | None = None) -> list[str]:
    """Where the marks a player can see before a code lock opens do not determine exactly
    one code, its answer (empty when every code lock's marks do).

    ``codes`` holds each code lock as ``(lock, answer, sign)``: ``sign`` a word the lock's
    own first description and the marks meant for it both hold (a painted crown), "" for none.
    Seen before the lock opens: the descriptions, in every state ever reached, of the items
    ever visible in the abstraction with the lock's input never made (so marks behind it
    do not count). A mark is tied to a lock in words when it names the lock (easy: "the second
    digit of the cake tin code") or holds the lock's sign (which the lock's text must hold);
    a mark tied to another lock does not count; an untied mark counts for every lock. For
    each place of the code (the lock says how many digits), the values the counted marks
    claim must be exactly the answer's digit: two marks for one place with different values
    are a coin flip, no mark a blind search.
    """
    out: list[str] = []
    codes = list(codes)
    signs = {lock: sign for lock, _, sign in codes}
    for lock, answer, sign in codes:
        if lock not in defn.item_index:
            out.append(f"code lock {lock!r} is missing")
            continue
        i = defn.item_index[lock]
        own = defn.items[i].states[0].desc
        if sign and not _mentions(own, sign):
            out.append(f"code lock {lock!r} does not show its sign {sign!r}: {own!r}")
        found = _DIGITS.search(own)
        n = int(found.group(1)) if found else len(answer)
        # what can be seen before it opens: the versions share all logic, so ``seen`` (one
        # dict per game) keeps it for the next version
        key = f"input({answer}, {lock})"
        if seen is not None and key in seen:
            item_vis, item_st = seen[key]
        else:
            _, _, item_vis, item_st, _ = _fixed_point(defn, [key], False)
            if seen is not None:
                seen[key] = (item_vis, item_st)
        texts = [defn.items[j].states[s].desc for j, s in item_st
                 if j in item_vis and j != i and s < len(defn.items[j].states)]
        claims: dict[int, set[str]] = {p: set() for p in range(1, n + 1)}
        for text in texts:
            marks = visible_marks(text)
            if not marks:
                continue
            tied = {x for x, sg in signs.items() if sg and _mentions(text, sg)}
            for place, digit, named in marks:
                owners = {named} if named else tied
                if named:  # the longest lock name it holds ("the side cake tin code")
                    owners = {x for x in signs if named == x} or {
                        x for x in signs if named.endswith(" " + x)} or {named}
                if owners and lock not in owners:
                    continue
                if place in claims:
                    claims[place].add(digit)
        for place in range(1, n + 1):
            want = answer[place - 1] if place <= len(answer) else "?"
            got = claims[place]
            if got != {want}:
                what = "no visible mark" if not got else f"marks {sorted(got)}"
                out.append(f"code {lock!r}: place {place} has {what} before it opens "
                           f"(answer {want})")
    return out


def key_problems(defn: GameDefinition, keys: Iterable[str], signs: Iterable[str]
                 ) -> list[str]:
    """Where the text leaves a key to be tried rather than read (empty when it never does).

    A key lock is an item with a transition waiting for a key (one of ``keys``); its signs
    are the words of ``signs`` (a crown, a fox) its first description holds, a key's those
    any of its descriptions holds. The text rules a key out for a lock when both show signs
    and share none. The rule (generator version 7): every lock shows a sign, and for each
    lock the keys of the whole game the text does not rule out are exactly the keys that open
    it; so a player holding every key can tell which opens it (none of the "22 keys for 7
    locks" tried blind), in every version the proof is asked of.
    """
    key_set = set(keys)
    rx = re.compile(r"\b(" + "|".join(re.escape(x) for x in signs) + r")\b")

    def shown(texts: Iterable[str | None]) -> set[str]:
        return {m.group(1) for t in texts if t for m in rx.finditer(t.lower())}

    key_signs = {tl.name: shown(st.desc for st in tl.states) for tl in defn.tools
                 if tl.name in key_set}
    out: list[str] = []
    for it in defn.items:
        opens = {w.arg for st in it.states for tr in st.transitions for w in tr.waits
                 if w.kind == "apply" and w.arg in key_set}
        if not opens:
            continue
        own = shown([it.states[0].desc])
        if not own:
            out.append(f"lock {it.name!r} shows no sign its keys could match: "
                       f"{it.states[0].desc!r}")
            continue
        for key, ks in sorted(key_signs.items()):
            open_it = key in opens
            if open_it and ks and not ks & own:
                out.append(f"key {key!r} opens {it.name!r} but its text shows "
                           f"{sorted(ks)[0]!r}, not the lock's {sorted(own)[0]!r}")
            elif not open_it and (not ks or ks & own):
                why = "shows no sign" if not ks else f"shows the lock's {sorted(ks & own)[0]!r}"
                out.append(f"key {key!r} does not open {it.name!r} but its text {why}: "
                           "nothing tells it from the lock's keys")
    return out


def cue_pattern(words: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern for ``words`` as cue words (whole, with plural or verb endings); kept."""
    return _cue_rx_of(tuple(words))


@lru_cache(maxsize=1024)
def _cue_rx_of(words: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words)
                      + r")(?:s|es|d|ed|ing|y|ly)?\b") if words else None


_NEGATED = re.compile(r"\b(?:not|without|never|no)(?: \w+){1,2}")
_NEED_CLAUSE = re.compile(r"\b(?:would|could|needs?|must|only|have to|has to|help)\b")
_CLAUSES = re.compile(r"[^.;:!?]+")


def asked_properties(text: str, asks: dict[str, re.Pattern[str]]) -> set[str]:
    """The properties a text says something needs: the cue (or ``asks``) words of each
    property in its clauses that speak of a need ("something greasy would make it slide",
    "Whatever does it will have to reach a long way.")."""
    out: set[str] = set()
    for clause in _CLAUSES.findall(text.lower()):
        if _NEED_CLAUSE.search(clause):
            out |= {p for p, rx in asks.items() if rx.search(clause)}
    return out


_ASKED_IN: dict[tuple[str, str], frozenset[str]] = {}


def cue_agreement_problems(defn: GameDefinition, needs: Iterable[tuple[str, str, bool, str]],
                           props: dict[str, list[str]], asks: dict[str, list[str]],
                           cue_words: dict[str, list[str]], opposite: dict[str, str],
                           first: dict[str, str], texts_of: dict[str, list[str]]
                           ) -> list[str]:
    """Where an obstacle's texts ask for a property its solving tool lacks, or the solving
    tool's text reads as the opposite of what is asked, or (normal) does not read as it.

    ``needs`` holds each property obstacle as ``(obstacle, property, crafted, why)``;
    ``props`` each solving tool's properties (a crafted tool's: the craft's); ``asks`` the
    words by which a need clause asks for each property (its cue words and more);
    ``opposite`` the property each one contradicts (hot and cold); ``first`` each object's
    property its name suggests; ``texts_of`` every version's texts of each obstacle (the
    obstacle's own descriptions and failure texts before it is solved: "something greasy
    would make it slide" on a hinge a glass marble opens is a lie). In the version ``defn``,
    the solving tool's descriptions in the states that apply to the obstacle must hold no cue
    of a property opposite to one asked, and in the normal version a cue of each asked
    property its name does not suggest (a hard version may be bare). An obstacle that states
    a ``why`` asks, in the normal version, for its need as well (version 7).
    """
    out: list[str] = []
    ask_rx = {p: rx for p, w in asks.items() if (rx := cue_pattern(w)) is not None}
    cue_rx = {p: rx for p, w in cue_words.items() if (rx := cue_pattern(w)) is not None}
    for item, prop, _crafted, why in needs:
        solver = next((t for t in defn.tools for st in t.states if item in st.apply_to), None)
        if solver is None:
            out.append(f"{item!r} has no solving tool")
            continue
        if why and defn.difficulty == "normal" and item in defn.item_index:
            # version 7: a stated why ("thin enough to get in") alone points at the tools that
            # have only it (a scalpel at a stuck zip): the normal text asks the need too
            own = defn.items[defn.item_index[item]].states[0].desc
            if prop not in asked_properties(_without(own, item), ask_rx):
                out.append(f"{item!r} says it needs {why} but not {prop}: {own!r}")
        have = set(props.get(solver.name, []))
        asked = {prop}
        for text in texts_of.get(item, []):  # its own name asks nothing ("warm tile")
            key = (text, item)
            got = _ASKED_IN.get(key)
            if got is None:
                if len(_ASKED_IN) > 50_000:
                    _ASKED_IN.clear()
                got = _ASKED_IN[key] = frozenset(asked_properties(_without(text, item), ask_rx))
            asked |= got
        if not asked <= have:
            out.append(f"{item!r} asks for {sorted(asked - have)}, which its solution "
                       f"{solver.name!r} does not have")
        for st in solver.states:
            if item not in st.apply_to:
                continue
            low = _NEGATED.sub(" ", st.desc.lower())  # "does not bend" is no bending
            against = [q for q in asked if q in opposite and (rx := cue_rx.get(opposite[q]))
                       and rx.search(low) and not (cue_rx.get(q) and cue_rx[q].search(low)
                                                   and opposite[q] in have)]
            if against:
                out.append(f"{solver.name!r} reads as {opposite[against[0]]} ({st.desc!r}) "
                           f"where {item!r} asks for {against[0]}")
            if defn.difficulty == "normal":
                missing = [q for q in sorted(asked) if first.get(solver.name) != q
                           and q in cue_rx and not cue_rx[q].search(st.desc.lower())]
                if missing:
                    out.append(f"{solver.name!r} does not read as {missing[0]} ({st.desc!r}), "
                               f"which {item!r} asks for")
    return out


def fit_problems(defn: GameDefinition, needs: Iterable[tuple[str, str, bool, str]],
                 tool_props: dict[str, list[str]], props: dict[str, list[str]],
                 crafted: Iterable[str], asks: dict[str, list[str]],
                 texts_of: dict[str, list[str]], keys: Iterable[str] = ()) -> list[str]:
    """Where a tool that has every property an obstacle asks for is refused there (version 8,
    the unique-fit rule): a paper clip, the textbook conductor, refused at "a circuit board
    with a gap between two contacts" that only the scissors close.

    ``needs`` holds each property obstacle as ``(obstacle, property, crafted, why)``; what it
    asks is its property, its ``why`` and every property its texts in any version
    (``texts_of``) ask for in a need clause (``asks``: the words by which a clause asks for
    each property). ``tool_props`` gives each tool's properties in the state it starts in,
    ``props`` a crafted tool's (``crafted``) in its made state. No tool of the game but the
    keys (tried as keys) may have, in any state but the one that solves the obstacle, all
    that the obstacle asks: the table says what things plainly are, so a player reasoning
    from the texts would try it, and be refused for no reason the game could give.
    """
    out: list[str] = []
    skip = set(keys)
    made = set(crafted)
    ask_rx = {p: rx for p, w in asks.items() if (rx := cue_pattern(w)) is not None}
    for item, prop, _crafted, why in needs:
        asked = _asked_of(item, prop, why, texts_of, ask_rx)
        for tool in defn.tools:
            if tool.name in skip:
                continue
            solves = any(item in st.apply_to for st in tool.states)
            have = [tool_props.get(tool.name, [])] if not solves or tool.name in made else []
            if tool.name in made and not solves:
                have.append(props.get(tool.name, []))
            if any(asked <= set(h) for h in have):
                out.append(f"{tool.name!r} has all that {item!r} asks for "
                           f"({', '.join(sorted(asked))}) but is refused there")
    return out


def craft_problems(defn: GameDefinition, crafts: Iterable[tuple[str, str, str, str]],
                   because: dict[tuple[str, str], dict[str, list[str]]],
                   needs: Iterable[tuple[str, str, bool, str]]) -> list[str]:
    """Where a craft makes no physical sense, or its product is not named as what it is.

    ``crafts`` holds each craft as ``(part, tool, result, obstacle)``; ``because`` maps
    ``(part, tool)`` to which parts give the product each of its properties (the affordance
    table's ``because``). What the obstacle asks (its property, and the ``why`` it states)
    must come from both parts together: a card with a rubber band round it is no better belt
    than the rubber band. Version 7: the crafted state is named as the product (its
    ``name``: the bag shows "blowpipe: A straw pushed into a cane.", not "bamboo cane: ..."),
    in every version, since a name is shared by all three.
    """
    out: list[str] = []
    asked = {item: {prop} | ({why} if why else set()) for item, prop, _c, why in needs}
    for part, tool, result, item in crafts:
        gives = because.get((part, tool))
        if gives is None:
            out.append(f"no affordance data for crafting {part!r} into {tool!r}")
            continue
        from_parts = {x for q in asked.get(item, set()) for x in gives.get(q, [])}
        if not {part, tool} <= from_parts:
            out.append(f"crafting {part!r} into {tool!r} adds nothing {item!r} asks for "
                       f"({sorted(asked.get(item, set()))} comes from {sorted(from_parts)})")
        t = defn.tool_index.get(tool)
        if t is None:
            continue
        for st in defn.tools[t].states[1:]:
            if st.name.lower() != result.lower():
                shown = st.name or tool
                out.append(f"crafted {tool!r} is not named as the {result!r} in the bag: "
                           f"{shown}: {st.desc!r}")
    return out


def _asked_of(item: str, prop: str, why: str, texts_of: dict[str, list[str]],
              ask_rx: dict[str, re.Pattern[str]]) -> set[str]:
    """What a property obstacle asks: its property, the ``why`` it states and every property
    its texts in any version (``texts_of``) ask for in a need clause (its own name aside)."""
    asked = {prop} | ({why} if why else set())
    for text in texts_of.get(item, []):
        asked |= asked_properties(_without(text, item), ask_rx)
    return asked


def part_alone_gives(gives: dict[str, list[str]], part: str, asked: Iterable[str],
                     other_has: Iterable[str]) -> set[str]:
    """What one part of a craft alone gives its product of what the obstacle asks: the
    properties the table's ``because`` (``gives``) credits to that part only, less what the
    other part has itself (a broom gives a blade on a pole its reach)."""
    return {p for p, by in gives.items() if by == [part]} & set(asked) - set(other_has)


def half_problems(defn: GameDefinition, crafts: Iterable[tuple[str, str, str, str]],
                  because: dict[tuple[str, str], dict[str, list[str]]],
                  needs: Iterable[tuple[str, str, bool, str]],
                  tool_props: dict[str, list[str]], asks: dict[str, list[str]],
                  texts_of: dict[str, list[str]], keys: Iterable[str] = ()) -> list[str]:
    """Where a craft's half is a guess (version 10): in some order of play, while a part of a
    craft is in the bag and the craft is not made, another tool can be held, in the state it
    starts in, that has all one part alone gives the product of what its obstacle asks. A
    blade on a pole must cut and reach a long way; the broom gives the reach; a fishing rod
    in the bag reaches as far (or, with the knife held and the broom still to come, a bamboo
    cane that a sponge waits for), and our format lets a crafted state wait for one set of
    parts, so a reader cannot tell which pairs.

    "Can be held" is the no-shortcut abstraction's (:func:`_fixed_point`): the tools ever in
    the bag with the craft never made, whatever the order (a flour chest opened before the
    balloon a pin on a ruler pops gave a walking stick early, though the reference took it
    later). A tool that is a part of another craft counts only if a part of this one can come
    before that craft is made (else it is crafted into something first).

    ``crafts`` holds each craft as ``(part, tool, result, obstacle)``; ``because`` maps
    ``(part, tool)`` to the parts that give the product each property; what an obstacle asks
    is its property, its ``why`` and what its texts in any version (``texts_of``) ask for in
    a need clause (``asks``). A half alone gives what ``because`` credits to it only, less
    what the other part has itself (``tool_props``: each tool's properties in its first
    state). Keys, the parts themselves and crafted things are not counted.
    """
    ask_rx = {p: rx for p, w in asks.items() if (rx := cue_pattern(w)) is not None}
    asked_at: dict[str, set[str]] = {}
    for item, prop, _crafted, why in needs:
        asked_at.setdefault(item, set()).update(_asked_of(item, prop, why, texts_of, ask_rx))
    halves: dict[frozenset[str], list[tuple[str, set[str]]]] = {}
    for part, tool, _result, item in crafts:
        gives = because.get((part, tool), {})
        for x, y in ((part, tool), (tool, part)):
            alone = part_alone_gives(gives, x, asked_at.get(item, set()), tool_props.get(y, []))
            if alone:
                halves.setdefault(frozenset((part, tool)), []).append((x, alone))
    if not halves:
        return []
    out: list[str] = []
    skip = set(keys)
    named = {frozenset((part, tool)): (part, tool) for part, tool, _r, _i in crafts}
    part_of = {x: key for key, pair in named.items() for x in pair}
    names = [t.name for t in defn.tools]
    without: dict[frozenset[str], set[str]] = {}

    def bag_without(key: frozenset[str]) -> set[str]:
        """The tools ever in the bag, in any order of play, with that craft never made."""
        if key not in without:
            a, b = named[key]
            bag = _fixed_point(defn, [f"craft({a}, {b})"], stop_at_end=False)[4]
            without[key] = {names[t] for t in bag}
        return without[key]

    for key, mine in halves.items():
        a, b = named[key]
        early = bag_without(key)
        for x, alone in mine:
            for other in sorted(early - key - skip):
                if not alone <= set(tool_props.get(other, [])):
                    continue
                theirs = part_of.get(other)
                if theirs is not None and theirs != key and not key & bag_without(theirs):
                    continue  # crafted into another thing before a part of this one can come
                out.append(f"crafting {a!r} with {b!r}: the {other!r} can be held with a part "
                           f"before the craft and has all the {x!r} gives "
                           f"({', '.join(sorted(alone))}), so which pairs is a guess")
    return out


_GENERIC = frozenset({"the", "a", "an", "of", "to", "door", "gate", "hatch", "room", "close",
                      "up", "shutter", "trapdoor", "and", "on", "in", "at", "by"})
_FIND = re.compile(r"\b(?:You find|It is) the ([a-z][a-z ,]*?)\.")
_LIST = re.compile(r", the | and the ")  # "You find the rope, the coin and the iron key."
_ONTO = re.compile(r"\bopens onto the ([a-z][a-z ]*?)\.")


def _content(name: str) -> set[str]:
    return set(_WORD.findall(name.lower())) - _GENERIC


def label_problems(defn: GameDefinition) -> list[str]:
    """Where a label or a reward tells something untrue, or two things cannot be told apart.

    A door (an item whose transition shows a scene) names no other scene of the game than
    the one it opens ("The yard door opens onto the flour loft."); a way's label names no
    scene but the one it leads to; a reward saying "You find the X" or "It is the X" shows
    tool X, and one saying it "opens onto the Y" shows scene Y; no close-up or room, named
    after what is there, is empty; and no two tools (nor two items) read the same in a state
    they start in ("A key." for every key of a hard version).
    """
    d = defn
    out: list[str] = []
    words = {sc.name: _content(sc.name) for sc in d.scenes}
    for it in d.items:
        for st in it.states:
            for tr in st.transitions:
                shown = {str(t.target) for t in tr.triggers if t.kind == "change_visible"
                         and t.target_kind == "scene" and t.value is True}
                tools = {str(t.target) for t in tr.triggers if t.kind == "change_visible"
                         and t.target_kind == "tool" and t.value is True}
                tools |= {str(t.value) for t in tr.triggers if t.kind == "become_tool"}
                if shown:
                    allowed = set().union(*(words.get(x, set()) for x in shown))
                    others = {w for sc, ws in words.items() if sc not in shown for w in ws}
                    wrong = (_content(it.name) & others) - allowed
                    if wrong:
                        out.append(f"door {it.name!r} names another room ({sorted(wrong)[0]!r})"
                                   f" than the {sorted(shown)[0]!r} it opens")
                reward = tr.reward or ""
                for m in _FIND.finditer(reward):
                    for name in _LIST.split(m.group(1)):
                        if name not in tools:
                            out.append(f"{it.name!r} promises the {name!r}, which it does "
                                       f"not show: {reward!r}")
                for m in _ONTO.finditer(reward):
                    if m.group(1) not in shown and "GAME END" not in reward:
                        out.append(f"{it.name!r} opens onto the {m.group(1)!r}, which it does "
                                   f"not show: {reward!r}")
    for sc in d.scenes:
        for ln in sc.links:
            named = {x for x in words if x != ln.target and _mentions(ln.label, x)
                     and not _mentions(ln.target, x)}
            if named:
                out.append(f"the way {ln.label!r} from {sc.name!r} names {sorted(named)[0]!r} "
                           f"but leads to {ln.target!r}")
        if not sc.items and not sc.tools:
            out.append(f"{sc.name!r} is empty")
    for kind, things in (("tool", d.tools), ("item", d.items)):
        seen: dict[str, str] = {}
        for th in things:
            text = th.states[0].desc if th.states else ""
            if text and text in seen:
                out.append(f"{kind}s {seen[text]!r} and {th.name!r} read the same: {text!r}")
            seen.setdefault(text, th.name)
    return out


_CALLED = re.compile(r"\b(?:names?|words?|letters?|initials|signatures?|spelt|spelled|dates?|"
                     r"heights?)\b")
_ORDINAL_NAME = re.compile(r"\b(?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|"
                           r"tenth|eleventh|twelfth)\b")
_WAY = re.compile(r"\bin your way\b|\bno longer blocks\b|\bno longer bars\b")
BLOCKING = re.compile(r"\bblocks?\b(?! of)|\bbars?\b|\bacross the\b|\bdoorway\b|\bin the way\b")
"""Words by which a first description says its thing blocks a way ("a heap across the hatch";
not "a block of ice", which blocks nothing)."""
_COLLECTIVE = re.compile(r"^(?:an? |the )?[a-z ]*?\b(?:pair|bag|box|bunch|handful|set|packet|roll|"
                         r"sheet|pot|jar|stick|length|coil|bundle|stack|tin|bottle|bowl|"
                         r"strip|sprig|string|punnet|tub|heap|pile|wad|jug) of\b")
_PRONOUN = re.compile(r"\b(?:it|its|it's)\b", re.IGNORECASE)
_SENTENCES = re.compile(r"[^.!?;:]+[.!?;:]?")


_HEAD = re.compile(r" (?:beyond|on|in|of|under|behind|across|at|by|with|for|over|round) ")


def verb_problems(defn: GameDefinition, props: dict[str, list[str]],
                  verb_takes: Iterable[tuple[str, Iterable[str]]]) -> list[str]:
    """Where a use sentence describes what its tool cannot do (empty when none does).

    ``verb_takes`` holds each use phrase with ``{tool}`` (``"wrap the {tool} round"``) and
    the properties a tool must have for it; ``props`` each solving tool's properties. A
    reward of a transition waiting for a tool that uses such a phrase needs the tool to have
    every property the phrase takes ("You wrap the oar round the leaking pipe": an oar does
    not bend). A tool not in ``props`` (a key) is not checked.
    """
    rules = [(re.compile(r"\b" + re.escape(w.lower()).replace(re.escape("{tool}"), ".+?")
                         + r"(?!\w)"), w, set(t)) for w, t in verb_takes]
    out: list[str] = []
    for it in defn.items:
        for st in it.states:
            for tr in st.transitions:
                low = (tr.reward or "").lower()
                if not low:
                    continue
                for w in tr.waits:
                    if w.kind != "apply" or w.arg not in props:
                        continue
                    for rx, words, takes in rules:
                        lack = takes - set(props[w.arg])
                        if lack and rx.search(low):
                            out.append(f"{it.name!r}: {words.replace('{tool}', w.arg)!r} "
                                       f"takes a tool that is {', '.join(sorted(lack))}, "
                                       f"which the {w.arg!r} is not: {tr.reward!r}")
    return out


def plural_name(name: str) -> bool:
    """Whether a thing's name is a plural or a pair (``tongs``, ``frozen peas``), by its head
    noun ("switch beyond the railings" is one switch)."""
    head = _HEAD.split(name, maxsplit=1)[0]
    return head.endswith("s") and not head.endswith(("ss", "us", "is", "ous"))


@lru_cache(maxsize=4096)
def _word_rx(name: str) -> re.Pattern[str]:
    return re.compile(r"\b" + re.escape(name) + r"\b")


# a lock part a reward names ("The frosted padlock springs open."): the item must show it
_LOCK_PART = re.compile(r"\bthe ((?:[a-z]+ )?(?:padlock|hasp))\b")


def text_problems(defn: GameDefinition, promises: Iterable[str] = (),
                  misfits: Iterable[str] = ()) -> list[str]:
    """Where the words of a version mislead (empty when none do).

    * a number is never called a word, a name, a letter or (version 7) a date or a height
      ("a word painted on the floor: 'III = 8'"; "a word lock" that takes digits; "A date
      burnt into the window, marked with a swan: II-7.");
    * twins are named by what they are, not counted: no name holds an ordinal ("second floor
      marks" reads as an upper storey, and a "second" met before any first);
    * pronouns agree in number: no "A tongs", and no "it" for a plural in the sentence
      naming it or in its own description ("You work the tweezers loose and take it.");
    * "no longer stands in your way" only for a thing whose first description blocked a way
      ("The blank letter no longer stands in your way.");
    * no text holds one of ``promises`` (phrases of a detail that promises what never comes:
      "catches the eye though you cannot say why", "does nothing"), nor a ``{placeholder}``;
    * no thing is one of ``misfits`` (things that do not belong in the game's theme: a
      snowball in a glasshouse);
    * a reward names no lock part ("the frosted padlock") its item never showed in this
      version (a hard "A ration tin." whose key makes "The frosted padlock springs open.").
    """
    d = defn
    out: list[str] = []
    promise = [p.lower() for p in promises]
    misfit = set(misfits)
    plurals = [x.name for x in (*d.items, *d.tools) if plural_name(x.name)]
    plural_rx = [(n, _word_rx(n)) for n in plurals]

    def check(text: str | None, owner: str, own: bool, said: bool = True) -> None:
        if not text:
            return
        low = text.lower()
        if ("{" in text or "}" in text):
            out.append(f"{owner!r}: a placeholder is left in {text!r}")
        called = _CALLED.search(low)
        if called and (visible_marks(text) or _DIGITS.search(text)):
            word = called.group(0).removesuffix("s")
            out.append(f"{owner!r}: a number is called a {word}: {text!r}")
        for p in promise:
            if p in low:
                out.append(f"{owner!r}: {p!r} promises what never comes: {text!r}")
        for name, rx in plural_rx:
            if name not in low:
                continue
            if _word_rx("a " + name).search(low) or _word_rx("an " + name).search(low):
                out.append(f"{owner!r}: 'a' before the plural {name!r}: {text!r}")
            for sent in (_SENTENCES.findall(low) if said else ()):
                m = rx.search(sent)
                if m and _PRONOUN.search(sent[m.end():]) and not _COLLECTIVE.search(sent):
                    out.append(f"{owner!r}: 'it' for the plural {name!r}: {text!r}")
                    break
        if own and plural_name(owner) and not _COLLECTIVE.search(low):
            first = _SENTENCES.findall(low)
            if any(_PRONOUN.search(s) for s in first):
                out.append(f"{owner!r}: its own text calls the plural 'it': {text!r}")

    for sc in d.scenes:
        if _ORDINAL_NAME.search(sc.name):
            out.append(f"scene {sc.name!r} is named by an ordinal")
        check(sc.desc, sc.name, False, said=False)
    for it in d.items:
        if _ORDINAL_NAME.search(it.name):
            out.append(f"item {it.name!r} is named by an ordinal")
        if it.name in misfit:
            out.append(f"item {it.name!r} does not belong in this place")
        blocking = bool(it.states) and bool(BLOCKING.search(it.states[0].desc.lower()))
        for st in it.states:
            check(st.desc, it.name, True)
            check(st.neg_reward, it.name, False)
            if _WAY.search(st.desc.lower()) and not blocking:
                out.append(f"{it.name!r} never blocked a way: {st.desc!r}")
            for tr in st.transitions:
                check(tr.reward, it.name, False)
                for m in _LOCK_PART.finditer((tr.reward or "").lower()):
                    if not any(_mentions(x.desc, m.group(1)) for x in it.states) and \
                            not _mentions(it.name, m.group(1)):
                        out.append(f"{it.name!r} never showed the {m.group(1)!r} its reward "
                                   f"names: {tr.reward!r}")
    for tl in d.tools:
        if _ORDINAL_NAME.search(tl.name):
            out.append(f"tool {tl.name!r} is named by an ordinal")
        if tl.name in misfit:
            out.append(f"tool {tl.name!r} does not belong in this place")
        for st in tl.states:
            check(st.desc, tl.name, True)
    return out


_LINKS_IN: dict[tuple[re.Pattern[str], str], frozenset[str]] = {}


def decoy_problems(defn: GameDefinition, link_words: Iterable[str],
                   related: Iterable[tuple[str, str]], clues: Iterable[str] = ()) -> list[str]:
    """Where a detail links a tool or a code mark to an obstacle it has nothing to do with
    (empty when none does).

    ``link_words`` are the words a reader takes for a link (a stain, a material, a colour:
    wax on a circuit board and a waxy candle, marks piped in icing and an icing bag);
    ``related`` the pairs of names that do belong together (a tool and the obstacle it
    solves, a part and what it is crafted into, a mark and its lock); ``clues`` the code
    marks. An obstacle is an item with a transition waiting for a tool or a code. No tool or
    mark may share a link word with an obstacle or a mark it is not related to.
    """
    d = defn
    rx = cue_pattern(link_words)
    if rx is None:
        return []
    pairs = {frozenset(p) for p in related}
    clue_set = set(clues)
    obstacles = {it.name for it in d.items if any(
        w.kind in ("apply", "input") for st in it.states for tr in st.transitions
        for w in tr.waits)}
    def found(texts: list[str]) -> set[str]:
        out: set[str] = set()
        for t in texts:
            got = _LINKS_IN.get((rx, t))
            if got is None:
                if len(_LINKS_IN) > 100_000:
                    _LINKS_IN.clear()
                got = _LINKS_IN[(rx, t)] = frozenset(
                    m.group(0).rstrip("s") for m in rx.finditer(t.lower()))
            out |= got
        return out

    words = {it.name: found([it.name, *(st.desc for st in it.states)]) for it in d.items
             if it.name in obstacles or it.name in clue_set}
    tool_words = {tl.name: found([tl.name, *(st.desc for st in tl.states)]) for tl in d.tools}
    out: list[str] = []
    sides = [*words.items(), *tool_words.items()]
    for a, wa in sides:
        if not wa or (a not in clue_set and a not in tool_words):
            continue
        for b, wb in words.items():
            shared = wa & wb
            if shared and a != b and frozenset((a, b)) not in pairs:
                out.append(f"{a!r} and {b!r} share {sorted(shared)[0]!r} but have nothing to "
                           f"do with each other")
    return out


def hard_cue_problems(defn: GameDefinition, needs: Iterable[tuple[str, str, bool, str]],
                      cues: Iterable[tuple[str, str, str]],
                      crafts: Iterable[tuple[str, str, str, str]],
                      shows: dict[str, list[str]], hard_words: dict[str, list[str]],
                      asks: dict[str, list[str]],
                      because: dict[tuple[str, str], dict[str, list[str]]],
                      has: dict[str, list[str]]) -> list[str]:
    """Where a step of the hard version can only be guessed (empty when none can), generator
    version 8: hard cuts texts to few words, but never to a bare name.

    * Every property obstacle of ``needs`` (``(obstacle, property, crafted, why)``) shows
      what is wrong in its first description: one of its ``shows`` words (the table's: a belt
      gone, a key beyond the bars, two bare contacts), not only its name ("A barred window."
      hid the key a hook was to bring back).
    * Every creative step of ``cues`` (``(tool, obstacle, property)``: a creative tool, or
      what a craft made) keeps a readable link to its property: the obstacle's text asks for
      it (``asks``, in a need clause, as rule 8 reads it) or the tool's name or text in a
      state applied there reads as it (``hard_words``: the cue words of rule 5 but the
      ``weak`` ones; "A little glass bottle." is no mirror).
    * Each part of a craft of ``crafts`` (``(part, tool, result, obstacle)``) reads, by its
      name or first text, as one property it gives the product (``because``) of those the
      obstacle asks for (its need and its why) and that the part itself has (``has``): "Two
      chopsticks." gave no reader the length the product needed. A property only the two
      parts together give (a lemon and a nail make power) is not asked of either.
    """
    d = defn
    out: list[str] = []
    ask_rx = {p: rx for p, w in asks.items() if (rx := cue_pattern(w)) is not None}
    hard_rx = {p: rx for p, w in hard_words.items() if (rx := cue_pattern(w)) is not None}

    def first(item: str) -> str:
        return d.items[d.item_index[item]].states[0].desc if item in d.item_index else ""

    def reads(text: str, prop: str) -> bool:
        rx = hard_rx.get(prop)
        return rx is not None and rx.search(text.lower()) is not None

    asked_of: dict[str, set[str]] = {}
    for item, prop, _crafted, why in needs:
        asked_of[item] = {prop} | ({why} if why else set())
        words = shows.get(item)
        if not words or item not in d.item_index:
            continue
        rx = cue_pattern(words)
        own = first(item)
        if rx is not None and not rx.search(_without(own, item)):
            out.append(f"{item!r} shows nothing of what is wrong with it: {own!r}")
    for tool, item, prop in cues:
        if tool not in d.tool_index or item not in d.item_index:
            continue
        own = first(item)
        if prop in asked_properties(_without(own, item), ask_rx):
            continue
        tl = d.tools[d.tool_index[tool]]
        for st in tl.states:
            if item in st.apply_to and not reads(f"{st.name or tl.name} {st.desc}", prop):
                out.append(f"{(st.name or tl.name)!r} is used at {item!r} for being {prop}, "
                           f"but neither reads as it: {own!r} / {st.desc!r}")
    for part, tool, _result, item in crafts:
        gives = because.get((part, tool), {})
        for x in (part, tool):
            mine = sorted(q for q in asked_of.get(item, set())
                          if x in gives.get(q, []) and q in has.get(x, []))
            if not mine or x not in d.tool_index:
                continue
            text = d.tools[d.tool_index[x]].states[0].desc
            if not any(reads(f"{x} {text}", q) for q in mine):
                out.append(f"craft part {x!r} gives what {item!r} asks ({', '.join(mine)}) "
                           f"but reads as none of it: {text!r}")
    return out


def plain_cue_problems(defn: GameDefinition, steps: Iterable[tuple[str, str, str]],
                       words: dict[str, list[str]], asks: dict[str, list[str]]) -> list[str]:
    """Where a property step of the version ``defn`` can only be guessed (empty when none
    can), generator version 8, rule 17: every step that applies a tool to an obstacle for a
    property, creative or plain, keeps one readable link in normal and hard.

    ``steps`` holds each property step as ``(tool, obstacle, property)`` (keys are no
    property steps). The obstacle's first description asks for the property (``asks``, in a
    need clause, as rule 8 reads it: "Blowing through a tube would clear it."), or the
    tool's name or description, in every state applied there, reads as it (``words``: the
    cue words but the ``weak`` ones, as rule 15 reads them). A stethoscope named only "A
    stethoscope." at "A clogged keyhole, packed with grey dust." is a guess even though the
    stethoscope's first property is the hollow the keyhole needs: a name says it only when
    the name holds a cue word ("A hollow reed.").
    """
    d = defn
    out: list[str] = []
    ask_rx = {p: rx for p, w in asks.items() if (rx := cue_pattern(w)) is not None}
    read_rx = {p: rx for p, w in words.items() if (rx := cue_pattern(w)) is not None}
    for tool, item, prop in steps:
        if tool not in d.tool_index or item not in d.item_index:
            continue
        own = d.items[d.item_index[item]].states[0].desc
        if prop in asked_properties(_without(own, item), ask_rx):
            continue
        rx = read_rx.get(prop)
        tl = d.tools[d.tool_index[tool]]
        for st in tl.states:
            name = st.name or tl.name
            if item in st.apply_to and (rx is None or not rx.search(f"{name} {st.desc}".lower())):
                out.append(f"{name!r} is used at {item!r} for being {prop}, but neither reads "
                           f"as it: {own!r} / {st.desc!r}")
    return out


def source_problems(defn: GameDefinition, sources: Iterable[tuple[str, str]]) -> list[str]:
    """Where a preparation source of the version ``defn`` does not say what it is for (empty
    when each does), generator version 8, part of rule 17: a source's first description holds
    its verb ("You could soak something here.", hard "A basin, for soaking."); a hard "A
    basin." left a player guessing that the moss was to be soaked there. ``sources`` holds
    each ``(source, verb)``."""
    out: list[str] = []
    for source, verb in sources:
        if source not in defn.item_index:
            continue
        desc = defn.items[defn.item_index[source]].states[0].desc
        stem = verb[:-1] if verb.endswith("e") else verb
        if not re.search(rf"\b{re.escape(stem)}", desc.lower()):
            out.append(f"{source!r} is where something is made to {verb}, but its text does "
                       f"not say so: {desc!r}")
    return out
