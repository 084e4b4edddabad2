"""What the player sees: the scene text in the layout of the paper's appendix C.1.

Rendering is on the hot path of every step, so the per-item lines are built once per
definition (:class:`ObservationTexts`) and a render only joins the lines that are visible now.
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


@dataclass(frozen=True)
class ObservationTexts:
    """Pre-rendered pieces of a definition's observations."""

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
                    tuple(_seen_line(items[i].position, items[i].name, st.desc)
                          for st in items[i].states),
                    f"{ITEM_TAG} {items[i].name}",
                )
                for i in s.items
            )
            for s in defn.scenes
        ),
        scene_tools=tuple(
            tuple(
                (
                    t,
                    _seen_line(tools[t].position, tools[t].name, tools[t].states[0].desc),
                    f"{ITEM_TAG} {tools[t].name}",
                )
                for t in s.tools
            )
            for s in defn.scenes
        ),
        link_targets=tuple(
            tuple(
                (f"{SCENE_TAG} {ln.label}: It leads to {ln.target}", idx[ln.target])
                for ln in s.links
                if ln.target in idx
            )
            for s in defn.scenes
        ),
        tool_bag_lines=tuple(
            tuple(f"{TOOL_TAG} {t.name}: {st.desc}" for st in t.states) for t in tools
        ),
    )


def render(game: EscapeGame) -> str:
    """The full observation text of the current state."""
    tx = texts_for(game.defn)
    sc = game.scene
    # What is seen: visible items (their current state's line), then the tools lying here;
    # what can be acted on: the interactable ones among the items, then the same tools.
    seen: list[str] = []
    acts: list[str] = []
    visible, present, state, interact = (
        game.item_visible, game.item_present, game.item_state, game.item_interact
    )
    for i, lines, act in tx.scene_items[sc]:
        if visible[i] and present[i]:
            seen.append(lines[state[i]])
            if interact[i]:
                acts.append(act)
    tool_visible, where = game.tool_visible, game.tool_where
    for t, line, act in tx.scene_tools[sc]:
        if tool_visible[t] and where[t] == TOOL_IN_SCENE:
            seen.append(line)
            acts.append(act)
    scene_visible = game.scene_visible
    links = [line for line, target in tx.link_targets[sc] if scene_visible[target]]
    if game.bag:
        tool_state, bag_lines = game.tool_state, tx.tool_bag_lines
        bag = BAG_HEAD + "\n".join([bag_lines[t][tool_state[t]] for t in game.bag])
    else:
        bag = EMPTY_BAG
    return "".join((
        tx.scene_head[sc],
        SEEN_HEAD + "\n".join(seen) if seen else NOTHING_SEEN,
        "\n\nPossible Actions:\n",
        ACTIONS_HEAD + "\n".join(acts) if acts else NO_ACTIONS,
        LINKS_HEAD + "\n".join(links) if links else "",
        "\n\nTools in Bag:\n",
        bag,
    ))
