"""What the player sees: the scene text in the layout of the paper's appendix C.1.

Rendering is on the hot path of every step. The per-item lines are built once per definition
(:class:`ObservationTexts`), and each game keeps the three parts of its screen (the scene with
its items and actions, the exits, the bag) in a :class:`ScreenCache` until the engine reports a
change to what that part shows: a step usually changes one part, often none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from escapebench.engine.model import TOOL_IN_SCENE

if TYPE_CHECKING:
    from escapebench.engine.env import EscapeGame
    from escapebench.engine.model import GameDefinition

# Recorded next to results: a change to the layout below changes what models see.
OBSERVATION_VERSION = "c1-layout-v1"

ITEM_TAG = "<interactable item>"
SCENE_TAG = "<interactable scene>"
TOOL_TAG = "<applicable tool>"


def _seen_line(position: str, name: str, desc: str) -> str:
    where = position[:1].upper() + position[1:] if position else "Here"
    return f"- {where}, there is {name}: {desc}"


SEEN_HEAD = "Here are the items you can see in this scene:\n"
NOTHING_SEEN = "You see nothing in particular here."
ACTIONS_HEAD = (
    "Here are all the items in the scene that you can perform 'click', 'apply' or 'input':\n"
)
NO_ACTIONS = "There is nothing in this scene you can click, apply or input to."
LINKS_HEAD = "\nHere are nearby scenes that you can perform 'move' to further explore:\n"
BAG_HEAD = (
    "Here are the tools in your bag. You can perform 'craft' to use two tools in your bag to "
    "craft a new one, or perform 'apply' to apply one tool in your bag to an item in the scene:\n"
)
EMPTY_BAG = "Your bag is empty."
# The heads above without their last newline: each line brings its own.
_SEEN = SEEN_HEAD[:-1]
_ACTIONS = ACTIONS_HEAD[:-1]
_LINKS = LINKS_HEAD[:-1]
_BAG = BAG_HEAD[:-1]
_POSSIBLE_ACTIONS = "\n\nPossible Actions:\n"
_BAG_TITLE = "\n\nTools in Bag:\n"


@dataclass(frozen=True)
class ObservationTexts:
    """Pre-rendered pieces of a definition's observations.

    Lines start with their newline, so a part is its head followed by the lines that show.
    """

    scene_head: tuple[str, ...]  # per scene, with the blank line that follows it
    # per scene, in file order: (item, its line per state, its action line)
    scene_items: tuple[tuple[tuple[int, tuple[str, ...], str], ...], ...]
    # per scene, in file order: (tool, its line as it lies in the scene, its action line)
    scene_tools: tuple[tuple[tuple[int, str, str], ...], ...]
    # per scene: (line, target scene index) of the links whose target exists, in file order
    link_targets: tuple[tuple[tuple[str, int], ...], ...]
    tool_bag_lines: tuple[tuple[str, ...], ...]  # per tool, per state


def texts_for(defn: GameDefinition) -> ObservationTexts:
    """The fixed pieces of every observation, built once per definition and kept with it."""
    texts = defn.derived.get("observation")
    if texts is None:
        texts = defn.derived["observation"] = _build_texts(defn)
    return texts


def _build_texts(defn: GameDefinition) -> ObservationTexts:
    idx = defn.scene_index
    items, tools = defn.items, defn.tools
    return ObservationTexts(
        scene_head=tuple(
            f"Scene Description:\nYou are in the scene '{s.name}'. {s.desc}".rstrip() + "\n\n"
            for s in defn.scenes
        ),
        scene_items=tuple(
            tuple(
                (
                    i,
                    tuple("\n" + _seen_line(items[i].position, items[i].name, st.desc)
                          for st in items[i].states),
                    f"\n{ITEM_TAG} {items[i].name}",
                )
                for i in s.items
            )
            for s in defn.scenes
        ),
        scene_tools=tuple(
            tuple(
                (
                    t,
                    "\n" + _seen_line(tools[t].position, tools[t].name, tools[t].states[0].desc),
                    f"\n{ITEM_TAG} {tools[t].name}",
                )
                for t in s.tools
            )
            for s in defn.scenes
        ),
        link_targets=tuple(
            tuple(
                (f"\n{SCENE_TAG} {ln.label}: It leads to {ln.target}", idx[ln.target])
                for ln in s.links
                if ln.target in idx
            )
            for s in defn.scenes
        ),
        tool_bag_lines=tuple(
            tuple(f"\n{TOOL_TAG} {t.name}: {st.desc}" for st in t.states) for t in tools
        ),
    )


class ScreenCache:
    """One game's observation, kept in parts until the engine reports that one changed.

    ``bodies[scene]`` is the scene's head, what is seen and what can be acted on; ``links
    [scene]`` its exits; ``bag`` the bag; ``text`` the whole observation of ``text_scene``.
    None means "render again". The engine calls the ``*_changed`` methods (or clears the
    entries itself on its hot paths) whenever it changes what a part shows.
    """

    __slots__ = ("texts", "bodies", "links", "bag", "text", "text_scene")

    def __init__(self, defn: GameDefinition) -> None:
        self.texts = texts_for(defn)
        self.bodies: list[str | None] = [None] * len(defn.scenes)
        self.links: list[str | None] = [None] * len(defn.scenes)
        self.bag: str | None = None
        self.text: str | None = None
        self.text_scene = -1

    def forget(self) -> None:
        """Everything may have changed (reset, restore, a state set from outside)."""
        n = len(self.bodies)
        self.bodies = [None] * n
        self.links = [None] * n
        self.bag = None
        self.text = None

    def scene_changed(self, scene: int) -> None:
        """An item or a tool lying in ``scene`` changed."""
        self.bodies[scene] = None
        self.text = None

    def links_changed(self) -> None:
        """A scene's visibility changed: any scene's exits may show differently."""
        self.links = [None] * len(self.links)
        self.text = None

    def bag_changed(self) -> None:
        self.bag = None
        self.text = None


def render(game: EscapeGame) -> str:
    """The full observation text of the current state."""
    cache: ScreenCache = game._screen
    sc = game.scene
    text = cache.text
    if text is not None and cache.text_scene == sc:
        return text
    body = cache.bodies[sc]
    if body is None:
        body = cache.bodies[sc] = _render_body(game, cache.texts, sc)
    links = cache.links[sc]
    if links is None:
        links = cache.links[sc] = _render_links(game, cache.texts, sc)
    bag = cache.bag
    if bag is None:
        bag = cache.bag = _render_bag(game, cache.texts)
    cache.text_scene = sc
    text = cache.text = body + links + bag
    return text


def _render_body(game: EscapeGame, tx: ObservationTexts, sc: int) -> str:
    # What is seen: visible items (their current state's line), then the tools lying here;
    # what can be acted on: the interactable ones among the items, then the same tools.
    out = [tx.scene_head[sc], _SEEN]
    acts = [_ACTIONS]
    visible, present, state, interact = (
        game.item_visible, game.item_present, game.item_state, game.item_interact
    )
    for i, lines, act in tx.scene_items[sc]:
        if visible[i] and present[i]:
            out.append(lines[state[i]])
            if interact[i]:
                acts.append(act)
    tool_visible, where = game.tool_visible, game.tool_where
    for t, line, act in tx.scene_tools[sc]:
        if tool_visible[t] and where[t] == TOOL_IN_SCENE:
            out.append(line)
            acts.append(act)
    if len(out) == 2:
        out[1] = NOTHING_SEEN
    out.append(_POSSIBLE_ACTIONS)
    if len(acts) == 1:
        out.append(NO_ACTIONS)
    else:
        out += acts
    return "".join(out)


def _render_links(game: EscapeGame, tx: ObservationTexts, sc: int) -> str:
    scene_visible = game.scene_visible
    links = [line for line, target in tx.link_targets[sc] if scene_visible[target]]
    return _LINKS + "".join(links) if links else ""


def _render_bag(game: EscapeGame, tx: ObservationTexts) -> str:
    if not game.bag:
        return _BAG_TITLE + EMPTY_BAG
    tool_state, bag_lines = game.tool_state, tx.tool_bag_lines
    return _BAG_TITLE + _BAG + "".join([bag_lines[t][tool_state[t]] for t in game.bag])
