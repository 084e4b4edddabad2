"""The shape of a game's reference chain: what a player holds and faces at each step.

Pure measures over any loaded game (generated, built-in or original), replaying its reference
chain with the engine: the mix of key steps by verb, how many tools a player holds when a
tool must be chosen, how many obstacles wait at that moment, and where the first code lock
comes. ``benchmarks/generate.py`` prints them per tier beside the original games' figures
(docs/generator.md).

A creative step's **later share** is the share of its other candidates that came into the bag
after its solving tool (a crafted tool counts from its craft): about a half when the order
tools came in tells nothing of which fits, near 0 when the solving tool tends to be the newest.

A **candidate** at an apply is a tool in the bag just before the step that is not a key (a
name ending in "key"): keys are tried as keys, so a reader does not weigh them for a hinge or
a drain. A craft's candidates are the pairs of tools in the bag. An obstacle **waits** when it
is visible, has an apply transition not yet made, and its tool is not a key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from escapebench.engine.env import EscapeGame
from escapebench.engine.model import GameDefinition

__all__ = ["VERBS", "ChainShape", "chain_shape"]

VERBS = ("click", "apply", "input", "craft")
_CALL = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*$", re.DOTALL)


def _is_key(name: str) -> bool:
    return name.strip().lower().split(" ")[-1] == "key"


@dataclass
class ChainShape:
    """What the reference chain of one game asks of a player, step by step."""

    key_steps: dict[str, int] = field(default_factory=dict)  # per verb: click apply input craft
    # per apply key step with a tool that is not a key: the candidates held (solver included)
    apply_candidates: list[int] = field(default_factory=list)
    # the same at the steps marked creative (``creative``: (tool, item) pairs)
    creative_candidates: list[int] = field(default_factory=list)
    # obstacles waiting for a tool (visible, not yet solved) at each creative step
    creative_waiting: list[int] = field(default_factory=list)
    # per creative step with two candidates or more: the share of the others that came after
    # the solving tool
    creative_later: list[float] = field(default_factory=list)
    craft_pairs: list[int] = field(default_factory=list)  # pairs in the bag at each craft
    first_input: float | None = None  # reference index of the first code / chain length
    reference: int = 0

    def share(self, verb: str) -> float:
        """The share of key steps made with ``verb`` (0 when there are none)."""
        total = sum(self.key_steps.values())
        return self.key_steps.get(verb, 0) / total if total else 0.0


def chain_shape(d: GameDefinition, creative: set[tuple[str, str]] | None = None) -> ChainShape:
    """Replay ``d``'s reference chain (teleporting, as the hint system does) and measure it.

    ``creative`` names the creative steps as ``(tool, item)`` pairs (lower case), e.g. from a
    generated game's design. A step the engine refuses ends the measure there.
    """
    creative = {(a.lower(), b.lower()) for a, b in creative or set()}
    out = ChainShape(key_steps=dict.fromkeys(VERBS, 0), reference=len(d.reference))
    game = EscapeGame(d)
    # items that wait for a tool that is not a key: (item index, state index)
    tool_waits = {
        (i, s) for i, it in enumerate(d.items) for s, st in enumerate(it.states)
        for tr in st.transitions for w in tr.waits if w.kind == "apply" and not _is_key(w.arg)}
    scene_of = {i: n for n, sc in enumerate(d.scenes) for i in sc.items}
    came: dict[str, int] = {}  # tool name -> the step it came (or was crafted) at
    for k, step in enumerate(d.reference):
        if game.ended:
            break
        m = _CALL.match(step.action)
        verb = m.group(1).lower() if m else ""
        args = [a.strip() for a in m.group(2).split(",")] if m else []
        bag = [d.tools[t].name for t in game.bag]
        held = sum(not _is_key(b) for b in bag)
        game.teleport(step.scene)
        result = game.step(step.action)
        if result.error or not result.success:
            break
        for t in game.bag:
            came.setdefault(d.tools[t].name.lower(), k)
        if verb == "craft" and len(args) == 2:
            for a in args:
                if a.lower() in came and any(d.tools[t].name.lower() == a.lower()
                                             for t in game.bag):
                    came[a.lower()] = k
        if not result.key_steps_gained or verb not in out.key_steps:
            continue
        out.key_steps[verb] += 1
        if verb == "input" and out.first_input is None:
            out.first_input = k / max(len(d.reference), 1)
        elif verb == "craft":
            out.craft_pairs.append(len(bag) * (len(bag) - 1) // 2)
        elif verb == "apply" and len(args) >= 2 and not _is_key(args[0]):
            out.apply_candidates.append(held)
            if (args[0].lower(), args[-1].lower()) in creative:
                out.creative_candidates.append(held)
                others = [came.get(b.lower(), -1) for b in bag
                          if not _is_key(b) and b.lower() != args[0].lower()]
                mine = came.get(args[0].lower(), -1)
                if others:
                    out.creative_later.append(sum(c > mine for c in others) / len(others))
                waiting = sum(
                    1 for i, _ in enumerate(d.items)
                    if game.item_visible[i] and game.item_present[i]
                    and game.scene_visible[scene_of.get(i, 0)]
                    and (i, game.item_state[i]) in tool_waits)
                # the step just made solved one: count it as waiting at the moment of choice
                out.creative_waiting.append(waiting + 1)
    return out
