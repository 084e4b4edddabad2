"""What the player sees: the scene text in the layout of the paper's appendix C.1.

Rendering is on the hot path of every step, so the per-item lines are built once per
definition (:class:`ObservationTexts`) and a render only joins the lines that are visible now.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

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


@dataclass(frozen=True)
class ObservationTexts:
    """Pre-rendered pieces of a definition's observations."""

    scene_head: tuple[str, ...]  # per scene
    item_lines: tuple[tuple[str, ...], ...]  # per item, per state
    item_action_lines: tuple[str, ...]  # per item
    tool_scene_lines: tuple[str, ...]  # per tool (its state 0 as it lies in the scene)
    tool_action_lines: tuple[str, ...]  # per tool
    tool_bag_lines: tuple[tuple[str, ...], ...]  # per tool, per state
    link_lines: tuple[tuple[str, ...], ...]  # per scene, per link
    # per scene: (line, target scene index) of the links whose target exists, in file order
    link_targets: tuple[tuple[tuple[str, int], ...], ...] = ()


def texts_for(defn: GameDefinition) -> ObservationTexts:
    """The fixed pieces of every observation, built once per definition and kept with it."""
    texts = defn.derived.get("observation")
    if texts is None:
        texts = defn.derived["observation"] = _build_texts(defn)
    return texts


def _build_texts(defn: GameDefinition) -> ObservationTexts:
    link_lines = tuple(
        tuple(f"{SCENE_TAG} {ln.label}: It leads to {ln.target}" for ln in s.links)
        for s in defn.scenes
    )
    idx = defn.scene_index
    return ObservationTexts(
        scene_head=tuple(
            f"Scene Description:\nYou are in the scene '{s.name}'. {s.desc}".rstrip()
            for s in defn.scenes
        ),
        item_lines=tuple(
            tuple(_seen_line(it.position, it.name, st.desc) for st in it.states)
            for it in defn.items
        ),
        item_action_lines=tuple(f"{ITEM_TAG} {it.name}" for it in defn.items),
        tool_scene_lines=tuple(
            _seen_line(t.position, t.name, t.states[0].desc) for t in defn.tools
        ),
        tool_action_lines=tuple(f"{ITEM_TAG} {t.name}" for t in defn.tools),
        tool_bag_lines=tuple(
            tuple(f"{TOOL_TAG} {t.name}: {st.desc}" for st in t.states) for t in defn.tools
        ),
        link_lines=link_lines,
        link_targets=tuple(
            tuple(
                (line, idx[ln.target])
                for line, ln in zip(lines, s.links, strict=True)
                if ln.target in idx
            )
            for lines, s in zip(link_lines, defn.scenes, strict=True)
        ),
    )


def render(game: EscapeGame) -> str:
    """The full observation text of the current state."""
    d = game.defn
    tx = texts_for(d)
    sc = game.scene
    items = game.visible_items()
    tools = game.visible_scene_tools()
    seen = [tx.item_lines[i][game.item_state[i]] for i in items]
    seen += [tx.tool_scene_lines[t] for t in tools]
    acts = [tx.item_action_lines[i] for i in items if game.item_interact[i]]
    acts += [tx.tool_action_lines[t] for t in tools]
    sv = game.scene_visible
    links = [line for line, target in tx.link_targets[sc] if sv[target]]
    bag = [tx.tool_bag_lines[t][game.tool_state[t]] for t in game.bag]
    parts = [tx.scene_head[sc], ""]
    if seen:
        parts.append("Here are the items you can see in this scene:")
        parts.extend(seen)
    else:
        parts.append("You see nothing in particular here.")
    parts.append("")
    parts.append("Possible Actions:")
    if acts:
        parts.append(
            "Here are all the items in the scene that you can perform 'click', 'apply' or "
            "'input':"
        )
        parts.extend(acts)
    else:
        parts.append("There is nothing in this scene you can click, apply or input to.")
    if links:
        parts.append("Here are nearby scenes that you can perform 'move' to further explore:")
        parts.extend(links)
    parts.append("")
    parts.append("Tools in Bag:")
    if bag:
        parts.append(
            "Here are the tools in your bag. You can perform 'craft' to use two tools in your "
            "bag to craft a new one, or perform 'apply' to apply one tool in your bag to an "
            "item in the scene:"
        )
        parts.extend(bag)
    else:
        parts.append("Your bag is empty.")
    return "\n".join(parts)
