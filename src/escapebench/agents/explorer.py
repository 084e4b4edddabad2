"""A systematic explorer without a language model: the brute-force baseline.

It walks every scene it can reach, picks up every tool, clicks every item, applies every tool in
the bag to every item, crafts every pair of tools, and types strings it has read (numbers, words
in capitals, letter-digit codes, quoted words) into things that look like locks. It never
repeats an action that achieved nothing while what the action involves is in the same state.

**The state of an action** (what "the same state" means): the state index of the item (for
``click`` and ``input``), of the item and the tool (``apply``), of both tools (``craft``).
Items are told apart by scene and name; an input also by its text, compared without case.
These indices decide the engine's verdict completely, so a failed action would fail again until
one of them changes. An action that made progress may be tried again in the same state, since
an item can wait for several clicks or tools before it changes state.

**Cost order** ("cheapest first"). Work comes in levels, and the explorer finishes a level
everywhere it knows before starting the next, always in the current scene first and then in the
nearest scene (by moves over the map it has seen):

0. pick up tools lying around, click items, visit scenes never visited;
1. craft untried pairs of bag tools, apply bag tools to items (newest tools first);
2. revisit scenes that may have changed since the last look (a key step, a changed item or a
   revealed scene happened since);
3. type candidate strings into items that look like they take input (their description or a
   complaint mentions a code, digits, a password, keypad, dial, combination or lock), strings
   from the item's own description first, then the most recently read;
4. type candidate strings into every other item (long shots).

With nothing left it paces between two scenes until the hint system helps; with a hint it takes
the hinted action at once.

All memory is plain JSON data (:meth:`ExplorerAgent.snapshot`) and :meth:`ExplorerAgent.decide`
depends only on that memory and the game, so a resumed run continues exactly as the
uninterrupted one. The harness logs the memory at every step, so it is kept small: strings are
stored once and referred to by index, and what was tried with a tool is forgotten once the tool
is used up (it never comes back).
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any

from escapebench.agents.base import Agent, AgentMode, Decision, TurnContext
from escapebench.agents.screen import Screen, candidate_strings, read_screen
from escapebench.engine.actions import Action, normalize_name
from escapebench.engine.env import EscapeGame, StepResult

# Words that make an item look like something you type into.
LOCK_WORDS = re.compile(
    r"\b(codes?|digits?|password|passcode|passphrase|pin|keypad|combination|dials?|lock|cipher)\b",
    re.IGNORECASE,
)
_SEP = "\x1f"  # joins the parts of a memory key; never part of a name

# Events after which scenes other than the current one may look different.
_WORLD_EVENTS = frozenset({"item_changed", "scene_revealed"})

PICK_AND_CLICK, USE_TOOLS, REVISIT, TYPE_CLUES, LONG_SHOTS = range(5)
LEVEL_NAMES = ("pick up and click", "use tools", "revisit", "type clues", "long shot")

MEMORY_VERSION = 2


def _key(*parts: object) -> str:
    return _SEP.join(str(p) for p in parts)


def action_key(action: Action, screen: Screen) -> str | None:
    """The memory key of ``action`` in the state shown on ``screen``.

    None for moves and for picking up a tool lying in the scene (which always works, once).
    """
    kind, args = action.kind, action.args
    items = {i.name: i.state for i in screen.items}
    bag = {t.name: t.state for t in screen.bag}
    if kind == "click":
        if args[0] not in items:
            return None
        return _key("click", screen.scene, args[0], items[args[0]])
    if kind == "apply":
        tool, item = args
        return _key("apply", screen.scene, item, items.get(item), tool, bag.get(tool))
    if kind == "input":
        text, item = args
        return _key("input", screen.scene, item, items.get(item), normalize_name(text))
    if kind == "craft":
        (a, sa), (b, sb) = sorted(((args[0], bag.get(args[0])), (args[1], bag.get(args[1]))))
        return _key("craft", a, sa, b, sb)
    return None


class ExplorerAgent(Agent):
    """Systematic exploration with a memory of what did nothing (see the module docstring)."""

    name = "explorer"

    def __init__(self) -> None:
        self._clear()

    def settings(self) -> dict[str, Any]:
        return {"agent": self.name, "memory_version": MEMORY_VERSION}

    # ------------------------------------------------------------------ memory
    def _clear(self) -> None:
        # action-in-state keys that achieved nothing: never tried again (insertion ordered)
        self.tried: dict[str, None] = {}
        # scene -> what was seen at the last visit:
        #   {"exits": [[label, target]], "items": [[name, state, interactable]], "tools": [name],
        #    "seen": value of `changes` at that visit}
        self.scenes: dict[str, dict[str, Any]] = {}
        self.changes = 0  # how many times the world changed beyond the bag
        self.clues: dict[str, None] = {}  # candidate input strings, in order of discovery
        self.lockish: dict[str, None] = {}  # scene/item keys that look like they take input
        self.target: str | None = None  # scene being walked to
        self.target_level = PICK_AND_CLICK  # the level of work that scene was chosen for
        self.pending: str | None = None  # key of the action decided, until observed
        self.pending_item: str | None = None  # scene/item key the pending action touches
        # The harness logs the memory at every step, so the snapshot names every string by
        # its index in one table, and the encoded forms are kept up to date as memory grows.
        self._names: dict[str, int] = {}
        self._tried_ids: list[list[int]] = []
        self._scene_ids: dict[str, list[Any]] = {}

    def reset(self, game: EscapeGame) -> None:
        self._clear()

    def _id(self, text: str) -> int:
        return self._names.setdefault(text, len(self._names))

    def _ids(self, key: str) -> list[int]:
        return [self._id(p) for p in key.split(_SEP)]

    def _remember(self, key: str) -> None:
        if key not in self.tried:
            self.tried[key] = None
            self._tried_ids.append(self._ids(key))

    def _forget_tool(self, tool: str) -> None:
        """Drop the keys of a tool that left the bag for good (a used-up tool never returns)."""
        def uses(key: str) -> bool:
            parts = key.split(_SEP)
            return (parts[0] == "apply" and parts[4] == tool) or (
                parts[0] == "craft" and tool in (parts[1], parts[3])
            )

        kept = [k for k in self.tried if not uses(k)]
        if len(kept) != len(self.tried):
            self.tried = dict.fromkeys(kept)
            self._tried_ids = [self._ids(k) for k in kept]

    def snapshot(self) -> dict[str, Any]:
        """The memory as JSON data; strings appear once, in ``names``, and are used by index."""
        def opt(key: str | None) -> list[int] | None:
            return None if key is None else self._ids(key)

        return {
            "version": MEMORY_VERSION,
            "tried": list(self._tried_ids),
            # [scene, seen, [label, target, ...], [item, state, interactable, ...], [tool, ...]]
            "scenes": list(self._scene_ids.values()),
            "changes": self.changes,
            "clues": [self._id(c) for c in self.clues],
            "lockish": [self._ids(k) for k in self.lockish],
            "target": None if self.target is None else self._id(self.target),
            "target_level": self.target_level,
            "pending": opt(self.pending),
            "pending_item": opt(self.pending_item),
            "names": list(self._names),  # last: the calls above may have added names
        }

    def restore(self, data: dict[str, Any]) -> None:
        if data.get("version") != MEMORY_VERSION:
            raise ValueError(f"unsupported explorer memory version {data.get('version')!r}")
        self._clear()
        names = [str(n) for n in data["names"]]
        # The same name table, in the same order: interning the strings again as they are
        # met below would number them differently, and the snapshot (and the memory hash in
        # the step log) of a resumed episode would differ from the original's.
        self._names = {name: index for index, name in enumerate(names)}

        def key(ids: list[int] | None) -> str | None:
            return None if ids is None else _SEP.join(names[int(i)] for i in ids)

        for ids in data["tried"]:
            self._remember(str(key(ids)))
        for scene, seen, exits, items, tools in data["scenes"]:
            self.scenes[names[scene]] = {
                "exits": [[names[exits[k]], names[exits[k + 1]]] for k in range(0, len(exits), 2)],
                "items": [
                    [names[items[k]], int(items[k + 1]), bool(items[k + 2])]
                    for k in range(0, len(items), 3)
                ],
                "tools": [names[t] for t in tools],
                "seen": int(seen),
            }
            self._encode_scene(names[scene])
        self.changes = int(data["changes"])
        self.clues = dict.fromkeys(names[i] for i in data["clues"])
        self.lockish = dict.fromkeys(str(key(ids)) for ids in data["lockish"])
        self.target = None if data["target"] is None else names[data["target"]]
        self.target_level = int(data["target_level"])
        self.pending = key(data["pending"])
        self.pending_item = key(data["pending_item"])

    def _encode_scene(self, scene: str) -> None:
        known = self.scenes[scene]
        self._scene_ids[scene] = [
            self._id(scene),
            known["seen"],
            [self._id(x) for e in known["exits"] for x in e],
            [v for name, st, inter in known["items"] for v in (self._id(name), st, int(inter))],
            [self._id(t) for t in known["tools"]],
        ]

    # ------------------------------------------------------------------ seeing
    def _look(self, screen: Screen) -> None:
        """Remember the current scene as it is now, and the strings it shows."""
        self.scenes[screen.scene] = {
            "exits": [[e.label, e.target] for e in screen.exits],
            "items": [[i.name, i.state, i.interactable] for i in screen.items],
            "tools": [t.name for t in screen.scene_tools],
            "seen": self.changes,
        }
        self._encode_scene(screen.scene)
        for item in screen.items:
            if LOCK_WORDS.search(item.desc):
                self.lockish.setdefault(_key(screen.scene, item.name))
        for text in screen.texts:
            self._read(text)

    def _read(self, text: str) -> None:
        for s in candidate_strings(text):
            self.clues.setdefault(s)

    # ------------------------------------------------------------------ work
    def _ordered_clues(self, own_text: str) -> list[str]:
        """Strings to type into an item: those in its own description first, then newest first."""
        own = [s for s in candidate_strings(own_text) if s in self.clues]
        return own + [s for s in reversed(self.clues) if s not in own]

    def _types_input(self, scene: str, item: str, level: int) -> bool:
        """Whether inputs to this item belong to ``level`` (3: lock-like items, 4: the rest)."""
        lockish = _key(scene, item) in self.lockish
        return (level == TYPE_CLUES and lockish) or (level == LONG_SHOTS and not lockish)

    def _work_here(self, screen: Screen, level: int) -> str | None:
        """The cheapest untried action of ``level`` in the current scene, or None."""
        scene, tried = screen.scene, self.tried
        items = [i for i in screen.items if i.interactable]
        if level == PICK_AND_CLICK:
            if screen.scene_tools:
                return f"click({screen.scene_tools[0].name})"
            for it in items:
                if _key("click", scene, it.name, it.state) not in tried:
                    return f"click({it.name})"
        elif level == USE_TOOLS:
            bag = screen.bag
            for k, a in enumerate(bag):
                for b in bag[k + 1 :]:
                    (na, sa), (nb, sb) = sorted(((a.name, a.state), (b.name, b.state)))
                    if _key("craft", na, sa, nb, sb) not in tried:
                        return f"craft({a.name}, {b.name})"
            for it in items:
                # Newest tools first: what was just found is the likeliest missing piece.
                for tool in reversed(bag):
                    key = _key("apply", scene, it.name, it.state, tool.name, tool.state)
                    if key not in tried:
                        return f"apply({tool.name}, {it.name})"
        elif level in (TYPE_CLUES, LONG_SHOTS) and self.clues:
            for it in items:
                if not self._types_input(scene, it.name, level):
                    continue
                for text in self._ordered_clues(it.desc):
                    if _key("input", scene, it.name, it.state, normalize_name(text)) not in tried:
                        return f"input({text}, {it.name})"
        return None

    def _has_work(self, scene: str, bag: list[tuple[str, int]], level: int) -> bool:
        """Whether the remembered view of another scene has untried work of ``level``."""
        known = self.scenes.get(scene)
        if known is None:
            return level == PICK_AND_CLICK  # never visited: go and look
        if level == REVISIT:
            return known["seen"] < self.changes
        if level == PICK_AND_CLICK and known["tools"]:
            return True
        tried = self.tried
        clue_keys = [normalize_name(c) for c in self.clues]
        for name, state, interactable in known["items"]:
            if not interactable:
                continue
            if level == PICK_AND_CLICK:
                if _key("click", scene, name, state) not in tried:
                    return True
            elif level == USE_TOOLS:
                for tool, tstate in bag:
                    if _key("apply", scene, name, state, tool, tstate) not in tried:
                        return True
            elif self._types_input(scene, name, level):
                for text in clue_keys:
                    if _key("input", scene, name, state, text) not in tried:
                        return True
        return False

    # ------------------------------------------------------------------ walking
    def _first_steps(self, screen: Screen) -> dict[str, str]:
        """Breadth first over the remembered map: scene -> label of the first exit to take.

        The current scene's exits come from the screen (always right); the others from the
        last visit of each scene. Scenes come out nearest first.
        """
        first: dict[str, str] = {screen.scene: ""}
        queue: deque[str] = deque()
        for e in screen.exits:
            if e.target not in first:
                first[e.target] = e.label
                queue.append(e.target)
        while queue:
            cur = queue.popleft()
            known = self.scenes.get(cur)
            if known is None:
                continue
            for _label, target in known["exits"]:
                if target not in first:
                    first[target] = first[cur]
                    queue.append(target)
        return first

    # ------------------------------------------------------------------ deciding
    async def decide(self, ctx: TurnContext) -> Decision:
        game = ctx.game
        screen = read_screen(game)
        self._look(screen)
        if ctx.hint is not None:
            return self._decision(ctx.hint.action, screen, game, "help", "following the hint")
        if self.target == screen.scene:
            self.target = None
        first = self._first_steps(screen)
        if self.target is not None and self.target not in first:
            self.target = None  # no longer reachable by what we know
        if self.target is not None:
            # On the way, still do anything here as cheap as what we walk for.
            for level in range(self.target_level + 1):
                action = self._work_here(screen, level) if level != REVISIT else None
                if action is not None:
                    return self._decision(action, screen, game, "try action", LEVEL_NAMES[level])
            return self._walk(first, screen, game)
        bag = [(t.name, t.state) for t in screen.bag]
        for level in range(len(LEVEL_NAMES)):
            action = self._work_here(screen, level) if level != REVISIT else None
            if action is not None:
                return self._decision(action, screen, game, "try action", LEVEL_NAMES[level])
            for scene in first:
                if scene != screen.scene and self._has_work(scene, bag, level):
                    self.target, self.target_level = scene, level
                    return self._walk(first, screen, game)
        # Nothing left anywhere: pace to a neighbour and back until the hint system helps.
        if screen.exits:
            action = f"move({screen.exits[0].label})"
        else:
            action = f"click({screen.clickables[0] if screen.clickables else 'anything'})"
        return self._decision(action, screen, game, "free explore", "nothing left to try")

    def _walk(self, first: dict[str, str], screen: Screen, game: EscapeGame) -> Decision:
        assert self.target is not None
        why = f"walking to {self.target} to {LEVEL_NAMES[self.target_level]}"
        return self._decision(f"move({first[self.target]})", screen, game, "free explore", why)

    def _decision(
        self, action: str, screen: Screen, game: EscapeGame, mode: AgentMode, why: str
    ) -> Decision:
        resolved = game.resolve(action)
        if isinstance(resolved, Action):
            self.pending = action_key(resolved, screen)
            item = resolved.args[-1] if resolved.kind in ("click", "apply", "input") else None
            self.pending_item = _key(screen.scene, item) if item is not None else None
        else:
            self.pending = self.pending_item = None
        return Decision(action, reasoning=why, mode=mode, notes={"target": self.target})

    def observe(
        self, ctx: TurnContext, decision: Decision, result: StepResult, position_after: str
    ) -> dict[str, Any]:
        if self.pending is not None and not result.progressed:
            self._remember(self.pending)
        # A lock's complaint ("wrong code", "needs 4 digits") marks the item as taking input.
        failed = not result.success and not result.error
        if self.pending_item is not None and failed and LOCK_WORDS.search(result.feedback):
            self.lockish.setdefault(self.pending_item)
        kinds = {e.kind for e in result.events}
        bag = {t.name for t in read_screen(ctx.game).bag}
        for event in result.events:
            if event.kind == "tool_used" and event.name not in bag:
                self._forget_tool(event.name)
        if kinds & _WORLD_EVENTS or (result.key_steps_gained and "tool_crafted" not in kinds):
            self.changes += 1
        self._read(result.feedback)
        self.pending = self.pending_item = None
        return {"tried": len(self.tried), "clues": len(self.clues)}
