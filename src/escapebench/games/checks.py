"""Static checks of a game file: what can be found wrong without playing it.

They find names that point nowhere (triggers, waits, ``apply_to``/``wait_for``, scene links),
tools and items whose ``apply_to`` and ``wait_for`` do not pair up, states that do not exist,
duplicate names, unknown and repeated keys, things nothing can ever reveal, scenes no walk
reaches, and games without a ``GAME END``. :class:`_StaticChecker` walks a definition once;
each problem is a :class:`~escapebench.games.issues.CheckIssue` with its YAML line. The names of
the reference actions are checked in :mod:`escapebench.games.reference`.
"""

from __future__ import annotations

import functools
from collections import deque
from typing import Any

import yaml

from escapebench.engine.actions import normalize_name
from escapebench.engine.model import GAME_END_MARK, GameDefinition, Item
from escapebench.games.issues import (
    CheckIssue,
    Severity,
    YamlPath,
    _line_of,
    _Locator,
    _suggest,
)
from escapebench.games.loading import MEANT_TRUE

_TOP_KEYS = frozenset(
    {"escapebench", "id", "title", "notes", "difficulty", "scenes", "reference", "author"}
)
_SCENE_KEYS = frozenset({"name", "desc", "visible", "scene_relations", "items", "tools"})
_ITEM_ENTRY_KEYS = frozenset({"position", "item"})
_TOOL_ENTRY_KEYS = frozenset({"position", "tool"})
_ITEM_KEYS = frozenset({"name", "visible", "interactable", "states"})
_TOOL_KEYS = frozenset({"name", "visible", "states"})
_ITEM_STATE_KEYS = frozenset({"desc", "neg_reward", "transitions"})
_TOOL_STATE_KEYS = frozenset({"desc", "apply_to", "wait_for", "creative", "name", "neg_reward"})
_TRANSITION_KEYS = frozenset({"wait_for", "trigger", "reward", "creative"})


def _value_of(node: yaml.Node | None, key: str) -> yaml.Node | None:
    """The value under ``key`` of a YAML mapping node (None where absent)."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if k.value == key:
                return v
    return None


@functools.lru_cache(maxsize=1024)
def _unknown_key(name: str, allowed: frozenset[str], what: str) -> str:
    """The warning for an unknown key (cached: a file repeats its misspelt key in every entry,
    and finding the closest known key is the slow part)."""
    return (f"unknown key {name!r} in {what}{_suggest(name, allowed)}; "
            f"known keys: {', '.join(sorted(allowed))}")


# check_repeated_keys's last finding: [composed root, source, issues] (kept alive with it)
_REPEATED_LAST: list[Any] = []
_KEYS_LAST: list[Any] = []


class _StaticChecker:
    """Walks a definition once and records every static problem with its YAML place."""

    def __init__(self, defn: GameDefinition, locator: _Locator):
        self.d = defn
        self.loc = locator
        self.issues: list[CheckIssue] = []
        # Set by problems the engine cannot play through (a trigger naming a missing scene, a
        # state that does not exist): the dynamic checks are then skipped.
        self.unplayable = False
        self.base = locator.scenes_base
        self.item_names = {it.name for it in defn.items}
        self.tool_names = {t.name for t in defn.tools}
        self.scene_names = {s.name for s in defn.scenes}
        self.misread = self._misread_triggers()

    # -- places
    def item_path(self, i: int) -> YamlPath:
        it = self.d.items[i]
        k = self.d.scenes[it.scene].items.index(i)
        return (*self.base, it.scene, "items", k, "item")

    def tool_path(self, t: int) -> YamlPath:
        tool = self.d.tools[t]
        k = self.d.scenes[tool.scene].tools.index(t)
        return (*self.base, tool.scene, "tools", k, "tool")

    def item_place(self, i: int, state: int | None = None, transition: int | None = None) -> str:
        it = self.d.items[i]
        out = f"scene {self.d.scenes[it.scene].name!r}, item {it.name!r}"
        if state is not None:
            out += f", state {state}"
        if transition is not None:
            out += f", transition {transition}"
        return out

    def tool_place(self, t: int, state: int | None = None) -> str:
        tool = self.d.tools[t]
        out = f"scene {self.d.scenes[tool.scene].name!r}, tool {tool.name!r}"
        return out if state is None else f"{out}, state {state}"

    def add(self, severity: Severity, check: str, message: str, path: YamlPath | None) -> None:
        line = self.loc.line(path) if path is not None else None
        self.issues.append(
            CheckIssue(severity, check, message, self.loc.source, line)
        )

    # -- the checks
    def run(self) -> list[CheckIssue]:
        self.check_keys()
        self.check_repeated_keys()
        self.check_duplicates()
        self.check_links()
        self.check_items()
        self.check_tools()
        self.check_reveals()
        self.check_game_end()
        self.check_readings()
        return self.issues

    def check_readings(self) -> None:
        """Where the file relies on the original engine's lenient reading rules (a boolean
        written ``False.``, a trailing comma...): warnings saying how it was read."""
        for path, note in self.d.readings:
            self.add("warning", "reading", note, path)

    def check_keys(self) -> None:
        """Unknown keys: a misspelt ``visble: false`` would otherwise silently do nothing.

        Warnings rather than errors, because released game files carry a few (a ``reward`` at
        state level, ``neg_rewards``) and still play as their engine played them.
        """
        root = self.loc._compose()
        last = _KEYS_LAST  # (as for repeated keys: the last file's finding is kept)
        if last and last[0] is root and root is not None and last[1] == self.loc.source:
            self.issues.extend(last[2])
            return
        before = len(self.issues)
        self._check_keys_in(root)
        if len(self.issues) > before and root is not None and root.start_mark is None:
            # nodes made without the text (see _Locator): walk the text's again, for lines
            del self.issues[before:]
            self._check_keys_in(self.loc.marked())
        _KEYS_LAST[:] = [root, self.loc.source, tuple(self.issues[before:])]

    def _check_keys_in(self, root: yaml.Node | None) -> None:
        if root is None:
            return
        if isinstance(root, yaml.MappingNode):
            self._keys(root, _TOP_KEYS, "the file")
            root = _value_of(root, "scenes")
        if not isinstance(root, yaml.SequenceNode):
            return
        for scene in root.value:
            self._keys(scene, _SCENE_KEYS, "a scene")
            for kind, keys, body_keys, state_keys in (
                ("items", _ITEM_ENTRY_KEYS, _ITEM_KEYS, _ITEM_STATE_KEYS),
                ("tools", _TOOL_ENTRY_KEYS, _TOOL_KEYS, _TOOL_STATE_KEYS),
            ):
                entries = _value_of(scene, kind)
                for entry in entries.value if isinstance(entries, yaml.SequenceNode) else ():
                    self._keys(entry, keys, f"an entry of {kind}")
                    body = _value_of(entry, kind[:-1])
                    self._keys(body, body_keys, f"an {kind[:-1]}" if kind == "items" else "a tool")
                    states = _value_of(body, "states")
                    for st in states.value if isinstance(states, yaml.SequenceNode) else ():
                        self._keys(st, state_keys, "a state")
                        trans = _value_of(st, "transitions")
                        for tr in trans.value if isinstance(trans, yaml.SequenceNode) else ():
                            self._keys(tr, _TRANSITION_KEYS, "a transition")

    def check_repeated_keys(self) -> None:
        """A key given twice in one mapping: YAML keeps the last value and drops the first
        without a word (a second ``desc:`` replaces the first), so it is an error.

        The finding depends only on the file's nodes and its name, so the last file's is kept:
        a file's three difficulties are checked one after the other.
        """
        root = self.loc._compose()
        last = _REPEATED_LAST
        if last and last[0] is root and root is not None and last[1] == self.loc.source:
            self.issues.extend(last[2])
            return
        before = len(self.issues)
        self._walk_repeated_keys(root)
        if len(self.issues) > before and root is not None and root.start_mark is None:
            # nodes made without the text (see _Locator): walk the text's again, for lines
            del self.issues[before:]
            self._walk_repeated_keys(self.loc.marked())
        _REPEATED_LAST[:] = [root, self.loc.source, tuple(self.issues[before:])]

    def _walk_repeated_keys(self, root: yaml.Node | None) -> None:
        stack = [root] if root is not None else []
        seen: set[int] = set()  # an alias makes the node graph share (even contain) nodes
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, yaml.MappingNode):
                if len({str(key.value) for key, _value in node.value}) == len(node.value):
                    stack.extend(value for _key, value in node.value)  # (most mappings)
                    continue
                first_line: dict[str, int | None] = {}
                for key, value in node.value:
                    name, line = str(key.value), _line_of(key)
                    if name in first_line:
                        self.issues.append(CheckIssue(
                            "error", "duplicate key",
                            f"key {name!r} is given twice in this mapping (lines "
                            f"{first_line[name]} and {line}); YAML keeps only the last one",
                            self.loc.source, line,
                        ))
                    else:
                        first_line[name] = line
                    stack.append(value)
            elif isinstance(node, yaml.SequenceNode):
                stack.extend(node.value)

    def _keys(self, node: yaml.Node | None, allowed: frozenset[str], what: str) -> None:
        if not isinstance(node, yaml.MappingNode):
            return
        for key, _value in node.value:
            name = str(key.value)
            if name not in allowed:
                self.issues.append(CheckIssue(
                    "warning", "unknown key", _unknown_key(name, allowed, what),
                    self.loc.source, _line_of(key),
                ))

    def check_duplicates(self) -> None:
        d = self.d
        seen: dict[str, int] = {}
        for si, s in enumerate(d.scenes):
            if s.name in seen:
                self.add(
                    "error", "duplicate-name",
                    f"scene {s.name!r} is defined twice (first as scene {seen[s.name] + 1})",
                    (*self.base, si, "name"),
                )
            seen.setdefault(s.name, si)
        first_tool: dict[str, int] = {}
        for t, tool in enumerate(d.tools):
            if tool.name in first_tool:
                other = d.scenes[d.tools[first_tool[tool.name]].scene].name
                self.add(
                    "error", "duplicate-name",
                    f"{self.tool_place(t)}: a tool named {tool.name!r} already exists in scene "
                    f"{other!r}; the bag and 'apply, <tool>' waits tell tools apart by name",
                    (*self.tool_path(t), "name"),
                )
            first_tool.setdefault(tool.name, t)
        self.check_state_names(first_tool)
        for s in d.scenes:
            names: dict[str, int] = {}
            for i in s.items:
                key = normalize_name(d.items[i].name)
                if key in names:
                    self.add(
                        "error", "duplicate-name",
                        f"{self.item_place(i)}: the scene already has an item of this name; "
                        "players cannot tell them apart",
                        (*self.item_path(i), "name"),
                    )
                names.setdefault(key, i)
            for t in s.tools:
                key = normalize_name(d.tools[t].name)
                if key in names:
                    self.add(
                        "error", "duplicate-name",
                        f"{self.tool_place(t)}: the scene also has an item of this name; "
                        "click() cannot tell them apart",
                        (*self.tool_path(t), "name"),
                    )

    def check_state_names(self, first_tool: dict[str, int]) -> None:
        """A tool state's ``name`` (what a crafted product is called in the bag) is a handle
        of that tool alone: never on the first state (name the tool so), never the name of
        another tool or of another tool's state, since a player calls the tool by it."""
        d = self.d
        owner = {normalize_name(n): t for n, t in first_tool.items()}
        for t, tool in enumerate(d.tools):
            for k, st in enumerate(tool.states):
                if not st.name:
                    continue
                path = (*self.tool_path(t), "states", k, "name")
                if k == 0:
                    self.add("error", "state-name",
                             f"{self.tool_place(t, k)}: the first state cannot have a name of "
                             f"its own; name the tool {st.name!r} instead", path)
                    continue
                key = normalize_name(st.name)
                other = owner.setdefault(key, t)
                if other != t:
                    self.add("error", "state-name",
                             f"{self.tool_place(t, k)}: the name {st.name!r} is already the "
                             f"name of tool {d.tools[other].name!r} (or of one of its states); "
                             "a player calls a tool by it", path)

    def check_links(self) -> None:
        for si, s in enumerate(self.d.scenes):
            for link in s.links:
                if link.target not in self.scene_names:
                    self.add(
                        "error", "unknown-name",
                        f"scene {s.name!r}: link {link.label!r} leads to unknown scene "
                        f"{link.target!r}{_suggest(link.target, self.scene_names)}",
                        (*self.base, si, "scene_relations", link.label),
                    )

    def check_items(self) -> None:
        d = self.d
        for i, it in enumerate(d.items):
            ipath = self.item_path(i)
            for s, st in enumerate(it.states):
                for ti, tr in enumerate(st.transitions):
                    tpath = (*ipath, "states", s, "transitions", ti)
                    place = self.item_place(i, s, ti)
                    for wi, w in enumerate(tr.waits):
                        if w.kind != "apply":
                            continue
                        wpath = (*tpath, "wait_for", wi)
                        if w.arg not in self.tool_names:
                            self.add(
                                "error", "unknown-name",
                                f"{place}: waits for 'apply, {w.arg}' but there is no tool "
                                f"{w.arg!r}{_suggest(w.arg, self.tool_names)}",
                                wpath,
                            )
                        elif not any(
                            it.name in ts.apply_to for t in d.tools if t.name == w.arg
                            for ts in t.states
                        ):
                            self.add(
                                "error", "pairing",
                                f"{place}: waits for 'apply, {w.arg}' but no state of tool "
                                f"{w.arg!r} lists {it.name!r} in apply_to, so the apply "
                                "can never succeed",
                                wpath,
                            )
                    for gi, g in enumerate(tr.triggers):
                        self.check_trigger(i, g, place, (*tpath, "trigger", gi), tr.triggers)

    def check_trigger(
        self, i: int, g: Any, place: str, path: YamlPath, siblings: tuple[Any, ...] = ()
    ) -> None:
        d = self.d
        it = d.items[i]
        if g.kind == "become_tool":
            here = [d.tools[t].name for t in d.scenes[it.scene].tools]
            if g.target not in here:
                elsewhere = " (it is in another scene)" if g.target in self.tool_names else ""
                self.add(
                    "error", "unknown-name",
                    f"{place}: 'become_tool, {g.target}' names no tool of scene "
                    f"{d.scenes[it.scene].name!r}{elsewhere}{_suggest(g.target, here)}",
                    path,
                )
            return
        tk = g.target_kind
        if tk == "scene":
            if g.target not in self.scene_names:
                self.unplayable = True
                self.add(
                    "error", "unknown-name",
                    f"{place}: trigger names unknown scene {g.target!r}"
                    f"{_suggest(g.target, self.scene_names)}",
                    path,
                )
            return
        if tk == "tool":
            if g.target not in self.tool_names:
                self.add(
                    "error", "unknown-name",
                    f"{place}: trigger names unknown tool {g.target!r}"
                    f"{_suggest(g.target, self.tool_names)}",
                    path,
                )
            elif g.kind == "change_state":
                n = len(d.tools[d.tool_index[g.target]].states)
                if not 0 <= int(g.value) < n:
                    self.add(
                        "warning", "bad-state",
                        f"{place}: 'change_state' sets tool {g.target!r} to state {g.value}, "
                        f"but it has {n} state(s) (0 to {n - 1}); it is set as it is, and a "
                        "step that shows the tool in that state (in the bag, or visible in "
                        "its scene) ends with an error",
                        path,
                    )
            return
        if tk == "item" and g.target not in self.item_names:
            self.add(
                "error", "unknown-name",
                f"{place}: trigger names unknown item {g.target!r}"
                f"{_suggest(g.target, self.item_names)}",
                path,
            )
            return
        if g.kind == "change_state":
            target = it if tk == "self" else self._item_near(g.target, it.scene)
            n = len(target.states)
            if not 0 <= int(g.value) < n:
                who = "this item" if tk == "self" else f"item {target.name!r}"
                said = (f"{place}: 'change_state' sets {who} to state {g.value}, but it has "
                        f"{n} state(s) (0 to {n - 1})")
                if self._hidden_by(target, it, siblings):
                    # The original engine sets it as it is; nothing fails while it is hidden.
                    self.add(
                        "warning", "bad-state",
                        f"{said}; the same transition hides it, so the state is set as it is "
                        "(as the original engine does) and only showing the item again in "
                        "that state would end the step with an error",
                        path,
                    )
                elif tk == "self":  # it is on screen when its own transition fires
                    self.unplayable = True
                    self.add("error", "bad-state", f"{said}: the step would fail", path)
                else:
                    self.add(
                        "warning", "bad-state",
                        f"{said}; it is set as it is, and a step that shows the item in that "
                        "state ends with an error",
                        path,
                    )

    def _hidden_by(self, target: Item, owner: Item, triggers: tuple[Any, ...]) -> bool:
        """Whether ``triggers`` (of ``owner``'s transition) hide ``target`` or turn it into a
        tool."""
        for g in triggers:
            if g.kind == "become_tool" and target is owner:
                return True
            if g.kind == "change_visible" and g.value is False:
                if g.target_kind == "self" and target is owner:
                    return True
                if g.target_kind == "item" and g.target == target.name:
                    return True
        return False

    def _item_near(self, name: str, scene: int) -> Item:
        """The item a trigger means: as the engine resolves it (same scene first)."""
        d = self.d
        for j in d.scenes[scene].items:
            if d.items[j].name == name:
                return d.items[j]
        return d.items[d.item_index[name]]

    def check_tools(self) -> None:
        d = self.d
        waited_by_item: dict[str, set[str]] = {}  # tool -> items waiting for 'apply, tool'
        for it in d.items:
            for st in it.states:
                for tr in st.transitions:
                    for w in tr.waits:
                        if w.kind == "apply":
                            waited_by_item.setdefault(w.arg, set()).add(it.name)
        for t, tool in enumerate(d.tools):
            tpath = self.tool_path(t)
            for s, st in enumerate(tool.states):
                spath = (*tpath, "states", s)
                place = self.tool_place(t, s)
                for k, target in enumerate(st.apply_to):
                    apath = (*spath, "apply_to", k)
                    if target in self.tool_names:
                        if not any(
                            tool.name in os.wait_for for o in d.tools if o.name == target
                            for os in o.states
                        ):
                            self.add(
                                "error", "pairing",
                                f"{place}: apply_to lists tool {target!r}, but no state of "
                                f"{target!r} has {tool.name!r} in wait_for, so this craft "
                                "can never succeed",
                                apath,
                            )
                    elif target in self.item_names:
                        if target not in waited_by_item.get(tool.name, set()):
                            self.add(
                                "error", "pairing",
                                f"{place}: apply_to lists item {target!r}, but no state of "
                                f"{target!r} waits for 'apply, {tool.name}', so the tool can "
                                "never be used there",
                                apath,
                            )
                    else:
                        self.add(
                            "error", "unknown-name",
                            f"{place}: apply_to names {target!r}, which is neither an item "
                            f"nor a tool{_suggest(target, self.item_names | self.tool_names)}",
                            apath,
                        )
                for k, src in enumerate(st.wait_for):
                    wpath = (*spath, "wait_for", k)
                    if src not in self.tool_names:
                        self.add(
                            "error", "unknown-name",
                            f"{place}: wait_for names unknown tool {src!r}"
                            f"{_suggest(src, self.tool_names)}",
                            wpath,
                        )
                    elif not any(
                        tool.name in os.apply_to for o in d.tools if o.name == src
                        for os in o.states
                    ):
                        self.add(
                            "error", "pairing",
                            f"{place}: wait_for lists tool {src!r}, but no state of {src!r} "
                            f"has {tool.name!r} in apply_to, so this craft can never happen",
                            wpath,
                        )

    def check_reveals(self) -> None:
        """Hidden scenes, items and tools need a trigger that makes them visible."""
        d = self.d
        shown_scenes: set[str] = set()
        shown_items: set[str] = set()
        shown_tools: set[str] = set()
        for it in d.items:
            for st in it.states:
                for tr in st.transitions:
                    for g in tr.triggers:
                        if g.kind == "become_tool":
                            shown_tools.add(g.target)  # goes straight into the bag
                        elif g.kind == "change_visible" and g.value is True:
                            {"scene": shown_scenes, "item": shown_items, "tool": shown_tools}.get(
                                g.target_kind, set()
                            ).add(g.target)
        walkable = self._walkable_scenes()
        acted_in = {step.scene for step in d.reference}
        linked_to = {link.target for other in d.scenes for link in other.links}
        for si, s in enumerate(d.scenes):
            path = (*self.base, si, "visible")
            if si == 0:
                continue  # the player starts there
            if not s.visible and s.name not in shown_scenes:
                self.add(
                    *self._severity_of_hidden("scene", s.name),
                    f"scene {s.name!r} is hidden (visible: false) and no trigger ever makes it "
                    f"visible{self._misread_note('scene', s.name)}",
                    path,
                )
            if si in walkable:
                continue
            why = ("no scene links to it" if s.name not in linked_to
                   else "no walk from the first scene leads there")
            if s.name in acted_in:
                # The original's hint system teleports to each reference step's scene, so the
                # game still plays to its end, with hints; a player cannot walk there.
                self.add(
                    "warning", "teleport-only",
                    f"scene {s.name!r}: {why}; only the hint teleport reaches it (a reference "
                    "step is made there), so a player without hints cannot",
                    (*self.base, si, "name"),
                )
            else:
                self.add(
                    "error", "unreachable",
                    f"scene {s.name!r}: {why}, so it can never be entered",
                    (*self.base, si, "name"),
                )
        for i, it in enumerate(d.items):
            if not it.visible and it.name not in shown_items:
                self.add(
                    *self._severity_of_hidden("item", it.name),
                    f"{self.item_place(i)}: hidden (visible: false) and no trigger ever makes "
                    f"it visible{self._misread_note('item', it.name)}",
                    (*self.item_path(i), "visible"),
                )
        for t, tool in enumerate(d.tools):
            if not tool.visible and tool.name not in shown_tools:
                self.add(
                    *self._severity_of_hidden("tool", tool.name),
                    f"{self.tool_place(t)}: hidden (visible: false) and no trigger ever makes "
                    f"it visible or turns an item into it{self._misread_note('tool', tool.name)}",
                    (*self.tool_path(t), "visible"),
                )

    def _misread_triggers(self) -> dict[tuple[str, str], YamlPath]:
        """(target kind, name) -> place of each ``change_visible`` whose value most likely
        meant true but is read as false by the original's rules ('True.', 'yes', '1')."""
        misread = {path for path, note in self.d.readings if note.endswith(MEANT_TRUE)}
        out: dict[tuple[str, str], YamlPath] = {}
        if not misread:
            return out
        d = self.d
        for i, it in enumerate(d.items):
            for s, st in enumerate(it.states):
                for ti, tr in enumerate(st.transitions):
                    for gi, g in enumerate(tr.triggers):
                        path = (*self.item_path(i), "states", s, "transitions", ti, "trigger", gi)
                        if path in misread and g.kind == "change_visible":
                            target = it.name if g.target_kind == "self" else g.target
                            kind = "item" if g.target_kind == "self" else g.target_kind
                            out.setdefault((kind, target), path)
        return out

    def _severity_of_hidden(self, kind: str, name: str) -> tuple[Severity, str]:
        """A thing never revealed is an error, unless the file means to reveal it and only
        the original's reading of a boolean keeps it hidden: the original engine plays the
        file so, and so do we (a warning)."""
        if (kind, name) in self.misread:
            return "warning", "never-revealed"
        return "error", "never-revealed"

    def _misread_note(self, kind: str, name: str) -> str:
        path = self.misread.get((kind, name))
        if path is None:
            return ""
        line = self.loc.line(path)
        return (f": the trigger that would reveal it{f' (line {line})' if line else ''} has a "
                "boolean read as false (see the 'reading' warning); the original engine plays "
                "the file so")

    def _walkable_scenes(self) -> set[int]:
        """Scenes a walk over links (visible or not) can reach from the first scene."""
        d = self.d
        seen = {0}
        queue = deque([0])
        while queue:
            for link in d.scenes[queue.popleft()].links:
                nxt = d.scene_index.get(link.target)
                if nxt is not None and nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return seen

    def check_game_end(self) -> None:
        d = self.d
        if not any(tr.ends_game for it in d.items for st in it.states for tr in st.transitions):
            self.add(
                "error", "no-game-end",
                f"no transition has {GAME_END_MARK!r} in its reward, so the game can never end",
                None,
            )
