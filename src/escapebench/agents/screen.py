"""What a player can see right now, as data: the view shared by non-model agents and human play.

The observation text is what a model reads; :class:`Screen` is the same information in a form a
program can act on (names, state indices, exits). It holds nothing a player could not read off
the observation: the state index of an item stands for the description shown for that state.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from escapebench.engine.env import EscapeGame


@dataclass(frozen=True, slots=True)
class ScreenItem:
    """An item visible in the current scene."""

    name: str
    state: int
    desc: str
    interactable: bool


@dataclass(frozen=True, slots=True)
class ScreenTool:
    """A tool lying in the current scene (``state`` 0) or carried in the bag."""

    name: str
    state: int
    desc: str


@dataclass(frozen=True, slots=True)
class Exit:
    """A way out of the current scene: the label shown and the scene it leads to."""

    label: str
    target: str


@dataclass(frozen=True, slots=True)
class Screen:
    """Everything on screen, in the order the observation lists it."""

    scene: str
    desc: str  # the scene description
    exits: tuple[Exit, ...]
    items: tuple[ScreenItem, ...]  # visible items, interactable or not
    scene_tools: tuple[ScreenTool, ...]  # tools lying here, to be picked up
    bag: tuple[ScreenTool, ...]

    @property
    def texts(self) -> list[str]:
        """The game's own texts on screen: scene, item and tool descriptions (no UI frame)."""
        return [self.desc, *(i.desc for i in self.items), *(t.desc for t in self.scene_tools),
                *(t.desc for t in self.bag)]

    @property
    def clickables(self) -> tuple[str, ...]:
        """Names that ``click`` accepts here: interactable items, then tools lying here."""
        return tuple(i.name for i in self.items if i.interactable) + tuple(
            t.name for t in self.scene_tools
        )


def read_screen(game: EscapeGame) -> Screen:
    """The current view of ``game``."""
    d = game.defn
    items = tuple(
        ScreenItem(
            d.items[i].name,
            game.item_state[i],
            d.items[i].states[game.item_state[i]].desc,
            game.item_interact[i],
        )
        for i in game.visible_items()
    )
    scene_tools = tuple(
        ScreenTool(d.tools[t].name, 0, d.tools[t].states[0].desc)
        for t in game.visible_scene_tools()
    )
    bag = tuple(
        ScreenTool(game.tool_name(t), game.tool_state[t],
                   d.tools[t].states[game.tool_state[t]].desc)
        for t in game.bag
    )
    exits = tuple(Exit(label, d.scenes[target].name) for label, target in game.open_links())
    return Screen(game.scene_name, d.scenes[game.scene].desc, exits, items, scene_tools, bag)


def screen_actions(screen: Screen, input_texts: Iterable[str] = ()) -> list[str]:
    """Every well-formed action on ``screen``, in screen order.

    Moves to open exits, clicks on interactable items and tools lying here, applies of each bag
    tool to each interactable item, crafts of each unordered pair of bag tools, and inputs of each
    of ``input_texts`` to each interactable item.
    """
    items = [i.name for i in screen.items if i.interactable]
    bag = [t.name for t in screen.bag]
    texts = list(dict.fromkeys(input_texts))
    out = [f"move({e.label})" for e in screen.exits]
    out += [f"click({name})" for name in screen.clickables]
    out += [f"apply({tool}, {item})" for tool in bag for item in items]
    out += [f"craft({a}, {b})" for k, a in enumerate(bag) for b in bag[k + 1 :]]
    out += [f"input({text}, {item})" for text in texts for item in items]
    return out


# ------------------------------------------------------------------ candidate input strings
# What a player without language understanding would try typing into a lock: numbers, words
# written in capitals, letter-digit codes, and short quoted words.
_NUMBER = re.compile(r"\b\d{3,}\b")
_CAPS = re.compile(r"\b[A-Z]{2,}(?:[ -][A-Z]{2,})*\b")
_CODE = re.compile(r"\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{3,12}\b")
_QUOTED = re.compile(r"['\"“‘]([A-Za-z0-9]{3,16})['\"”’]")
_DIGIT_SEQUENCE = re.compile(r"(?<![\w])\d(?:(?:, ?| |-)\d){2,}(?![\w])")
# Capitals that are part of the game's frame, not clues.
_NOT_CLUES = frozenset({"GAME END", "GAME", "END"})


def candidate_strings(text: str) -> list[str]:
    """Strings worth typing into a lock that ``text`` mentions, in order of appearance.

    Numbers of three digits or more, digit sequences written apart (``4, 2, 7`` -> ``427``),
    words in capitals (each word and the whole run), letter-digit codes and quoted single
    words. Duplicates are dropped; the order is stable, so agents stay deterministic.
    """
    found: list[tuple[int, str]] = []
    for m in _NUMBER.finditer(text):
        found.append((m.start(), m.group()))
    for m in _DIGIT_SEQUENCE.finditer(text):
        found.append((m.start(), re.sub(r"\D", "", m.group())))
    for m in _CAPS.finditer(text):
        run = m.group()
        words = re.split(r"[ -]", run)
        if len(words) > 1:
            found.append((m.start(), run))
        found.extend((m.start(), w) for w in words)
    for m in _CODE.finditer(text):
        found.append((m.start(), m.group()))
    for m in _QUOTED.finditer(text):
        found.append((m.start(1), m.group(1)))
    found.sort(key=lambda pair: pair[0])  # stable: same position keeps discovery order
    return [s for s in dict.fromkeys(s for _pos, s in found) if s not in _NOT_CLUES]


def route(game: EscapeGame, goal: str, known: set[str] | None = None) -> list[str] | None:
    """Link labels to follow from the current scene to ``goal``, through known scenes only.

    Only exits whose target is visible count (what the player sees); ``goal`` itself may be
    unknown; ``known`` None: every scene may be passed through (the shortest walk over the
    exits open now). Returns [] when already there, None when there is no known way.
    """
    d = game.defn
    goal_idx = d.scene_index.get(goal)
    if goal_idx is None:
        return None
    start = game.scene
    prev: dict[int, tuple[int, str]] = {start: (-1, "")}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        if cur == goal_idx:
            labels: list[str] = []
            while cur != start:
                cur, label = prev[cur]
                labels.append(label)
            return labels[::-1]
        for link in d.scenes[cur].links:
            nxt = d.scene_index.get(link.target)
            if nxt is None or nxt in prev or not game.scene_visible[nxt]:
                continue
            if known is not None and nxt != goal_idx and d.scenes[nxt].name not in known:
                continue
            prev[nxt] = (cur, link.label)
            queue.append(nxt)
    return None
