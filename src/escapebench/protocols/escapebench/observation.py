"""What the player sees: the scene text in the layout of the paper's appendix C.1.

Rendering is on the hot path of every step. Every line is built once per definition
(:class:`ObservationTexts`), and each game watched keeps its screen in a :class:`ScreenCache`:
per scene, one slot per item and tool holding the line it shows now ("" when it shows none),
updated as the engine tells its watcher what it changes (``escapebench.engine.watch``); the
exits and the bag as finished texts. A render is then a few joins, and a step that changes
nothing costs nothing. :func:`observation_text` is the one call a caller needs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from escapebench.engine.env import EscapeGame
from escapebench.engine.model import TOOL_IN_SCENE, GameDefinition
from escapebench.engine.watch import StateWatcher

# Recorded next to results: a change to the layout below changes what models see.
OBSERVATION_VERSION = "layout-v2"

ITEM_TAG = "<interactable item>"
SCENE_TAG = "<interactable scene>"
TOOL_TAG = "<applicable tool>"


def _seen_line(position: str, name: str, desc: str) -> str:
    where = position[:1].upper() + position[1:] if position else "Here"
    return f"- {where}, there is {name}: {desc}"


SEEN_HEAD = "What you see:\n"
NOTHING_SEEN = "You see nothing in particular here."
ACTIONS_HEAD = "Items to click, apply a tool to, or input text into:\n"
NO_ACTIONS = "There is nothing in this scene you can click, apply or input to."
LINKS_HEAD = "\nScenes to move to:\n"
BAG_HEAD = "Your tools (craft two together, or apply one to an item):\n"
EMPTY_BAG = "Your bag is empty."
# The heads above without their last newline: each line brings its own.
_SEEN = SEEN_HEAD[:-1]
_ACTIONS = ACTIONS_HEAD[:-1]
_LINKS = LINKS_HEAD[:-1]
_BAG = BAG_HEAD[:-1]
_POSSIBLE_ACTIONS = "\n\nPossible Actions:\n"
# the title with each head, so a render joins fewer pieces
_ACTIONS_TITLED = _POSSIBLE_ACTIONS + _ACTIONS
_NO_ACTIONS_TITLED = _POSSIBLE_ACTIONS + NO_ACTIONS
_BAG_TITLE = "\n\nTools in Bag:\n"


@dataclass(frozen=True)
class ObservationTexts:
    """Pre-rendered pieces of a definition's observations.

    Lines start with their newline, so a part is its head followed by the lines that show.
    Within a scene, slot ``k`` of the seen and action lists belongs to the scene's ``k``-th
    item, then come its tools, in file order.
    """

    # per scene: its head (with the blank line that follows it) followed by the head of what
    # is seen, and by "nothing seen"
    head_seen: tuple[str, ...]
    head_nothing_seen: tuple[str, ...]
    item_lines: tuple[tuple[str, ...], ...]  # per item, per state: what is seen
    item_action: tuple[str, ...]  # per item: its line among the possible actions
    tool_line: tuple[str, ...]  # per tool: what is seen while it lies in its scene
    tool_action: tuple[str, ...]
    item_slot: tuple[int, ...]  # per item: its slot in its scene
    tool_slot: tuple[int, ...]
    # per scene: (line, target scene index) of the links whose target exists, in file order
    link_targets: tuple[tuple[tuple[str, int], ...], ...]
    linked_from: tuple[tuple[int, ...], ...]  # per scene: the scenes with an exit to it
    tool_bag_lines: tuple[tuple[str, ...], ...]  # per tool, per state
    # the screen of the initial state: per scene, the slots and the exits
    initial_seen: tuple[tuple[str, ...], ...]
    initial_actions: tuple[tuple[str, ...], ...]
    initial_links: tuple[str, ...]


def texts_for(defn: GameDefinition) -> ObservationTexts:
    """The fixed pieces of every observation, built once per definition and kept with it."""
    texts = defn.caches.get("observation")
    if texts is None:
        texts = defn.caches["observation"] = _build_texts(defn)
    return texts


def _build_texts(defn: GameDefinition) -> ObservationTexts:
    idx = defn.scene_index
    items, tools, scenes = defn.items, defn.tools, defn.scenes
    item_lines = tuple(
        tuple("\n" + _seen_line(it.position, it.name, st.desc) for st in it.states)
        for it in items
    )
    item_action = tuple(f"\n{ITEM_TAG} {it.name}" for it in items)
    tool_line = tuple("\n" + _seen_line(t.position, t.name, t.states[0].desc) for t in tools)
    tool_action = tuple(f"\n{ITEM_TAG} {t.name}" for t in tools)
    item_slot = [0] * len(items)
    tool_slot = [0] * len(tools)
    for s in scenes:
        for k, i in enumerate(s.items):
            item_slot[i] = k
        for k, t in enumerate(s.tools):
            tool_slot[t] = len(s.items) + k
    link_targets = tuple(
        tuple(
            (f"\n{SCENE_TAG} {ln.label}: It leads to {ln.target}", idx[ln.target])
            for ln in s.links
            if ln.target in idx
        )
        for s in scenes
    )
    linked_from: list[list[int]] = [[] for _ in scenes]
    for sc, links in enumerate(link_targets):
        for _, target in links:
            if sc not in linked_from[target]:
                linked_from[target].append(sc)
    scene_head = tuple(
        f"Scene Description:\nYou are in the scene '{s.name}'. {s.desc}".rstrip() + "\n\n"
        for s in scenes
    )
    return ObservationTexts(
        head_seen=tuple(head + _SEEN for head in scene_head),
        head_nothing_seen=tuple(head + NOTHING_SEEN for head in scene_head),
        item_lines=item_lines,
        item_action=item_action,
        tool_line=tool_line,
        tool_action=tool_action,
        item_slot=tuple(item_slot),
        tool_slot=tuple(tool_slot),
        link_targets=link_targets,
        linked_from=tuple(tuple(x) for x in linked_from),
        tool_bag_lines=tuple(
            tuple(f"\n{TOOL_TAG} {st.name or t.name}: {st.desc}" for st in t.states)
            for t in tools
        ),
        # Initially every item is present in state 0 and every tool lies in its scene.
        initial_seen=tuple(
            tuple(item_lines[i][0] if items[i].visible else "" for i in s.items)
            + tuple(tool_line[t] if tools[t].visible else "" for t in s.tools)
            for s in scenes
        ),
        initial_actions=tuple(
            tuple(item_action[i] if items[i].visible and items[i].interactable else ""
                  for i in s.items)
            + tuple(tool_action[t] if tools[t].visible else "" for t in s.tools)
            for s in scenes
        ),
        initial_links=tuple(
            _links_text(line for line, target in links if scenes[target].visible)
            for links in link_targets
        ),
    )


def _links_text(lines: Iterable[str]) -> str:
    text = "".join(lines)
    return _LINKS + text if text else ""


_BAG_HEAD = _BAG_TITLE + _BAG
_EMPTY_BAG = _BAG_TITLE + EMPTY_BAG


class PlayView(Protocol):
    """What the screen reads of a game in play: the state of an
    :class:`~escapebench.engine.env.EscapeGame` (named by its shape: what it reads, no more)."""

    defn: GameDefinition
    scene: int
    scene_visible: list[bool]
    item_visible: list[bool]
    item_interact: list[bool]
    item_state: list[int]
    item_present: list[bool]
    tool_visible: list[bool]
    tool_where: list[int]
    tool_state: list[int]
    bag: list[int]


class ScreenCache(StateWatcher):
    """One game's screen, kept up to date by the engine as it changes the state.

    ``seen[scene]`` and ``actions[scene]`` hold one slot per item and tool of the scene (see
    :class:`ObservationTexts`); ``links[scene]`` the exits text; ``bag_lines`` the line of each
    tool in the bag, in bag order, and ``bag`` those lines joined; ``text`` the whole observation of
    ``text_scene``. None means "build again from the state"; ``seen[scene]`` and
    ``actions[scene]`` are None together.

    The engine calls the methods below as it changes the state.
    """

    __slots__ = (
        "defn", "texts", "texts_tool_scene", "seen", "actions", "links", "bag_lines", "bag", "text",
        "text_scene",
    )

    def __init__(self, defn: GameDefinition) -> None:
        self.defn = defn
        self.texts = texts_for(defn)
        self.texts_tool_scene = tuple(t.scene for t in defn.tools)
        self.start()

    def start(self) -> None:
        """The screen of the initial state (after ``reset``)."""
        tx = self.texts
        self.seen: list[list[str] | None] = list(map(list, tx.initial_seen))
        self.actions: list[list[str] | None] = list(map(list, tx.initial_actions))
        self.links: list[str | None] = list(tx.initial_links)
        self.bag_lines: list[str] | None = []
        self.bag: str | None = ""
        self.text: str | None = None
        self.text_scene = -1

    def forget(self) -> None:
        """Everything may have changed (restore, a state set from outside)."""
        n = len(self.seen)
        self.seen = [None] * n
        self.actions = [None] * n
        self.links = [None] * n
        self.bag_lines = None
        self.bag = None
        self.text = None

    def item_changed(self, game: PlayView, i: int, scene: int) -> None:
        """Item ``i`` of ``scene`` changed its visibility, state or interactability."""
        self.text = None
        seen, actions = self.seen[scene], self.actions[scene]
        if seen is None or actions is None:
            return  # the scene is built afresh when next shown
        tx = self.texts
        k = tx.item_slot[i]
        if game.item_visible[i] and game.item_present[i]:
            seen[k] = tx.item_lines[i][game.item_state[i]]
            actions[k] = tx.item_action[i] if game.item_interact[i] else ""
        else:
            seen[k] = actions[k] = ""

    def tool_changed(self, game: PlayView, t: int) -> None:
        """Tool ``t`` changed its visibility or left its scene."""
        self.text = None
        scene = self.texts_tool_scene[t]
        seen, actions = self.seen[scene], self.actions[scene]
        if seen is None or actions is None:
            return
        k = self.texts.tool_slot[t]
        if game.tool_visible[t] and game.tool_where[t] == TOOL_IN_SCENE:
            seen[k], actions[k] = self.texts.tool_line[t], self.texts.tool_action[t]
        else:
            seen[k] = actions[k] = ""

    def tool_collected(self, game: PlayView, t: int) -> None:
        """Tool ``t`` left its scene for the end of the bag."""
        self.tool_changed(game, t)
        lines = self.bag_lines
        if lines is None:
            self.bag = None
        else:
            lines.append(self.texts.tool_bag_lines[t][game.tool_state[t]])
            self.bag = None

    def scene_visibility_changed(self, scene: int) -> None:
        """``scene`` was revealed or hidden: the exits leading to it show differently."""
        links = self.links
        for sc in self.texts.linked_from[scene]:
            links[sc] = None
        self.text = None

    def bag_removed(self, position: int) -> None:
        """The tool at ``position`` in the bag left it."""
        if self.bag_lines is not None:
            del self.bag_lines[position]
        self.bag = self.text = None

    def bag_changed(self) -> None:
        """A tool changed its state (and so maybe its line in the bag)."""
        self.bag_lines = self.bag = self.text = None

    def fill_scene(self, game: PlayView, scene: int) -> tuple[list[str], list[str]]:
        """Build the slots of ``scene`` from the state."""
        tx = self.texts
        d = game.defn
        iv, ip, ist, ii = game.item_visible, game.item_present, game.item_state, game.item_interact
        tv, tw = game.tool_visible, game.tool_where
        seen: list[str] = []
        actions: list[str] = []
        for i in d.scenes[scene].items:
            shown = iv[i] and ip[i]
            seen.append(tx.item_lines[i][ist[i]] if shown else "")
            actions.append(tx.item_action[i] if shown and ii[i] else "")
        for t in d.scenes[scene].tools:
            shown = tv[t] and tw[t] == TOOL_IN_SCENE
            seen.append(tx.tool_line[t] if shown else "")
            actions.append(tx.tool_action[t] if shown else "")
        self.seen[scene] = seen
        self.actions[scene] = actions
        return seen, actions


    # (The two below are functions of their own, not inline in render(): a comprehension in
    # render() would make it create closure cells on every call, a tenth of its cost.)
    def fill_links(self, game: PlayView, scene: int) -> str:
        """Build the exits text of ``scene`` from the state."""
        sv = game.scene_visible
        links = self.links[scene] = _links_text(
            line for line, target in self.texts.link_targets[scene] if sv[target]
        )
        return links

    def fill_bag(self, game: PlayView) -> str:
        """Build the bag text from the state (its lines too, if they are not known)."""
        lines = self.bag_lines
        if lines is None:
            tool_state, bag_lines = game.tool_state, self.texts.tool_bag_lines
            lines = self.bag_lines = [bag_lines[t][tool_state[t]] for t in game.bag]
        bag = self.bag = "".join(lines)
        return bag

    def render(self, game: PlayView) -> str:
        """The observation text of ``game``'s current state (appendix C.1 layout)."""
        sc = game.scene
        text = self.text
        if text is not None and self.text_scene == sc:
            return text
        seen = self.seen[sc]
        if seen is None:
            seen, actions = self.fill_scene(game, sc)
        else:
            actions = self.actions[sc]  # type: ignore[assignment]
        # What is seen: visible items (their current state's line), then the tools lying here;
        # what can be acted on: the interactable ones among the items, then the same tools.
        seen_text = "".join(seen)
        actions_text = "".join(actions)
        links = self.links[sc]
        if links is None:
            links = self.fill_links(game, sc)
        bag = self.bag
        if bag is None:
            bag = self.fill_bag(game)
        self.text_scene = sc
        text = self.text = "".join((
            self.texts.head_seen[sc] if seen_text else self.texts.head_nothing_seen[sc],
            seen_text,
            _ACTIONS_TITLED if actions_text else _NO_ACTIONS_TITLED,
            actions_text,
            links,
            _BAG_HEAD if bag else _EMPTY_BAG,
            bag,
        ))
        return text


def observation_text(game: EscapeGame) -> str:
    """The observation of ``game``'s current state in the escapebench layout.

    The first call watches the game with a :class:`ScreenCache` (kept as the game's watcher),
    so later calls rebuild only what steps changed.
    """
    screen = game.watcher
    if type(screen) is not ScreenCache or screen.defn is not game.defn:
        screen = ScreenCache(game.defn)
        game.watch(screen)
    return screen.render(game)
