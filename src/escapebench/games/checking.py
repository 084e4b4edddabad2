"""Checks of game files: static ones over a :class:`GameDefinition`, dynamic ones by playing it.

Static checks find names that point nowhere (triggers, waits, ``apply_to``/``wait_for``, scene
links, reference actions), tools and items whose ``apply_to`` and ``wait_for`` do not pair up,
states that do not exist, duplicate names, things nothing can ever reveal, and games without a
``GAME END``. Dynamic checks replay the reference chain as the hint system does (teleporting to
each step's scene) to ``GAME END`` with full progress, count the oracle steps (reference actions
plus the shortest walks between them), and search the game's states for any way to ``GAME END``.

Every problem is a :class:`CheckIssue` naming the file, the YAML line where it can be found, the
setting and the place (scene / item / state / transition). :func:`check_paths` is what
``escapebench check`` runs; :meth:`SettingReport.to_json` is its ``--json`` schema.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import yaml

from escapebench.engine.actions import (
    Action,
    comma_cuts,
    most_commas,
    normalize_name,
    parse_call,
    split_candidates,
)
from escapebench.engine.env import EscapeGame
from escapebench.engine.model import GAME_END_MARK, BrokenGameError, GameDefinition, Item, Tool
from escapebench.games.loading import (
    MEANT_TRUE,
    ORIGINAL_NAME,
    GameFileError,
    deepest_node,
    load_file,
    load_games_reporting,
)

try:  # composing with libyaml is much faster; only done when an issue needs its line
    from yaml import CSafeLoader as _ComposeLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _ComposeLoader  # type: ignore[assignment]

Severity = Literal["error", "warning"]
YamlPath = tuple[str | int, ...]

# States the solver may visit before it gives up (a warning, not an error).
SOLVER_STATE_LIMIT = 5_000


@dataclass(frozen=True, slots=True)
class CheckIssue:
    """One problem found in a game: where it is and what is wrong."""

    severity: Severity
    check: str  # short id of the check, e.g. "unknown-name", "pairing", "reference"
    message: str
    source: str  # the file the problem is in
    line: int | None = None
    setting: str = ""  # the setting it was found in ("" for a file that did not load)

    @property
    def where(self) -> str:
        return self.source if self.line is None else f"{self.source}:{self.line}"

    def __str__(self) -> str:
        tag = f"[{self.setting}] " if self.setting else ""
        return f"{self.where}: {self.severity}: {tag}{self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "check": self.check,
            "message": self.message,
            "source": self.source,
            "line": self.line,
            "setting": self.setting,
        }


@dataclass
class SettingReport:
    """Counts and issues of one setting (or of one file that could not be loaded)."""

    setting: str
    game: str
    difficulty: str
    title: str
    source: str
    scenes: int = 0
    hidden_scenes: int = 0
    items: int = 0
    tools: int = 0
    key_steps: int = 0  # total key steps of the setting
    total_tools: int = 0
    reference_length: int = 0
    oracle_steps: int | None = None  # None when the reference does not replay
    crafts: int = 0  # verbs of the reference actions
    inputs: int = 0
    applies: int = 0
    clicks: int = 0
    moves: int = 0
    solver: str = "not run"  # "reached", "unreachable", "gave up", "not run"
    loaded: bool = True
    issues: list[CheckIssue] = field(default_factory=list)

    @property
    def errors(self) -> list[CheckIssue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[CheckIssue]:
        return [i for i in self.issues if i.severity == "warning"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, Any]:
        """The ``check --json`` record of this setting."""
        return {
            "setting": self.setting,
            "game": self.game,
            "difficulty": self.difficulty,
            "title": self.title,
            "source": self.source,
            "ok": self.ok,
            "loaded": self.loaded,
            "scenes": self.scenes,
            "hidden_scenes": self.hidden_scenes,
            "items": self.items,
            "tools": self.tools,
            "key_steps": self.key_steps,
            "total_tools": self.total_tools,
            "reference_length": self.reference_length,
            "oracle_steps": self.oracle_steps,
            "crafts": self.crafts,
            "inputs": self.inputs,
            "applies": self.applies,
            "clicks": self.clicks,
            "moves": self.moves,
            "solver": self.solver,
            "errors": [i.to_json() for i in self.errors],
            "warnings": [i.to_json() for i in self.warnings],
        }


# ------------------------------------------------------------------ where things are
class _Locator:
    """Finds the YAML line of a place in a game file; the file is composed once, on demand."""

    def __init__(self, source: str, text: str | None):
        self.source = source
        self._text = text
        self._root: yaml.Node | None = None
        self._composed = False

    def _compose(self) -> yaml.Node | None:
        if not self._composed:
            self._composed = True
            if self._text is not None:
                try:
                    self._root = yaml.compose(self._text, Loader=_ComposeLoader)
                except (yaml.YAMLError, RecursionError):
                    self._root = None
        return self._root

    @property
    def scenes_base(self) -> YamlPath:
        """Our format nests the scenes under ``scenes:``; the original is a bare list."""
        return ("scenes",) if isinstance(self._compose(), yaml.MappingNode) else ()

    def line(self, path: YamlPath) -> int | None:
        node = self._compose()
        if node is None:
            return None
        node = deepest_node(node, path)
        return node.start_mark.line + 1


def _reference_log_of(defn: GameDefinition) -> Path | None:
    """The ``key_log`` file an original-layout setting took its reference from."""
    m = ORIGINAL_NAME.match(Path(defn.source).stem)
    if not m:
        return None
    log = Path(defn.source).parent / "reference" / f"key_log_{m.group(1)}-{m.group(2)}.txt"
    return log if log.exists() else None


def _action_lines(text: str) -> list[int]:
    """Line of each step's ``action_answer`` in a ``key_log`` stream of JSON objects."""
    decoder = json.JSONDecoder()
    lines: list[int] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        start = i
        try:
            _, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            break
        at = text.find('"action_answer"', start, i)
        lines.append(text.count("\n", 0, at if at >= 0 else start) + 1)
    return lines


# ------------------------------------------------------------------ the static checks
def _suggest(name: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


_TOP_KEYS = frozenset(
    {"escapebench", "id", "title", "notes", "difficulty", "scenes", "reference", "author"}
)
_SCENE_KEYS = frozenset({"name", "desc", "visible", "scene_relations", "items", "tools"})
_ITEM_ENTRY_KEYS = frozenset({"position", "item"})
_TOOL_ENTRY_KEYS = frozenset({"position", "tool"})
_ITEM_KEYS = frozenset({"name", "visible", "interactable", "states"})
_TOOL_KEYS = frozenset({"name", "visible", "states"})
_ITEM_STATE_KEYS = frozenset({"desc", "neg_reward", "transitions"})
_TOOL_STATE_KEYS = frozenset({"desc", "apply_to", "wait_for"})
_TRANSITION_KEYS = frozenset({"wait_for", "trigger", "reward"})


def _value_of(node: yaml.Node | None, key: str) -> yaml.Node | None:
    """The value under ``key`` of a YAML mapping node (None where absent)."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if k.value == key:
                return v
    return None


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
        without a word (a second ``desc:`` replaces the first), so it is an error."""
        root = self.loc._compose()
        stack = [root] if root is not None else []
        seen: set[int] = set()  # an alias makes the node graph share (even contain) nodes
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, yaml.MappingNode):
                first_line: dict[str, int] = {}
                for key, value in node.value:
                    name, line = str(key.value), key.start_mark.line + 1
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
                    "warning", "unknown key",
                    f"unknown key {name!r} in {what}{_suggest(name, allowed)}; "
                    f"known keys: {', '.join(sorted(allowed))}",
                    self.loc.source, key.start_mark.line + 1,
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
            why = ("no scene links to it" if not any(
                link.target == s.name for other in d.scenes for link in other.links
            ) else "no walk from the first scene leads there")
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


# ------------------------------------------------------------------ reference actions
@dataclass(frozen=True, slots=True)
class _RefPlace:
    source: str
    line: int | None
    label: str  # "reference step 3"


def _reference_places(defn: GameDefinition, locator: _Locator) -> list[_RefPlace]:
    n = len(defn.reference)
    # Only the original layout (a bare list of scenes) keeps its reference in a key_log file.
    log = _reference_log_of(defn) if not locator.scenes_base else None
    if log is not None:
        try:
            lines: list[int | None] = list(_action_lines(log.read_text(encoding="utf-8")))
        except OSError:
            lines = []
        lines += [None] * (n - len(lines))
        return [_RefPlace(str(log), lines[k], f"reference step {k + 1}") for k in range(n)]
    return [
        _RefPlace(
            locator.source, locator.line(("reference", k, "action")), f"reference step {k + 1}"
        )
        for k in range(n)
    ]


def _names_exist(defn: GameDefinition, verb: str, text: str) -> str | None:
    """Why a reference action's names cannot exist anywhere in the game (None when fine)."""
    item_names = [it.name for it in defn.items]
    tool_names = [t.name for t in defn.tools]
    items = {normalize_name(n) for n in item_names}
    tools = {normalize_name(n) for n in tool_names}

    def missing(what: str, name: str, known: list[str]) -> str:
        return f"no {what} {name.strip()!r} in this game{_suggest(name.strip(), known)}"

    if verb == "move":
        places = [s.name for s in defn.scenes] + [ln.label for s in defn.scenes for ln in s.links]
        if normalize_name(text) in {normalize_name(p) for p in places}:
            return None
        return missing("scene", text, places)
    if verb == "click":
        key = normalize_name(text)
        return None if key in items or key in tools else missing(
            "item or tool", text, item_names + tool_names
        )
    cuts = comma_cuts(text)
    if not cuts:
        return f"{verb} needs two arguments"
    right_ok, right_names = (tools, tool_names) if verb == "craft" else (items, item_names)
    # only the cuts whose parts can be names (no more commas than a name holds): every cut of
    # a long list of commas would be quadratic
    left_commas = None if verb == "input" else most_commas(tools)
    for left, right in split_candidates(
        text, left_commas=left_commas, right_commas=most_commas(right_ok)
    ):
        if normalize_name(right) in right_ok and (
            verb == "input" or normalize_name(left) in tools
        ):
            return None
    left, right = text[: cuts[0]], text[cuts[0] + 1 :]
    if verb != "input" and normalize_name(left) not in tools:
        return missing("tool", left, tool_names)
    return missing("tool" if verb == "craft" else "item", right, right_names)


def _check_reference_names(
    defn: GameDefinition, places: Sequence[_RefPlace], issues: list[CheckIssue]
) -> None:
    scene_names = {s.name for s in defn.scenes}
    for step, place in zip(defn.reference, places, strict=True):
        what = f"{place.label} {step.action!r}"
        for name in step.path:
            if name not in scene_names:
                issues.append(CheckIssue(
                    "error", "reference",
                    f"{what}: position names unknown scene {name!r}"
                    f"{_suggest(name, scene_names)}",
                    place.source, place.line,
                ))
        call = parse_call(step.action)
        if call is None:
            issues.append(CheckIssue(
                "error", "reference", f"{what}: not an action of the form verb(arguments)",
                place.source, place.line,
            ))
            continue
        problem = _names_exist(defn, call.verb, call.arg_text)
        if problem:
            issues.append(CheckIssue(
                "error", "reference", f"{what}: {problem}", place.source, place.line,
            ))


# ------------------------------------------------------------------ replay and oracle
def walk_length(game: EscapeGame, start: int, goal: int) -> int | None:
    """Fewest moves from scene ``start`` to ``goal`` over links whose target is visible now."""
    if start == goal:
        return 0
    d = game.defn
    dist = {start: 0}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        for link in d.scenes[cur].links:
            nxt = d.scene_index.get(link.target)
            if nxt is None or nxt in dist or not game.scene_visible[nxt]:
                continue
            dist[nxt] = dist[cur] + 1
            if nxt == goal:
                return dist[nxt]
            queue.append(nxt)
    return None


@dataclass
class ReplayOutcome:
    """How the reference chain played: the oracle count and the first problem, if any."""

    oracle_steps: int | None
    ended: bool
    progress: float
    issues: list[CheckIssue]


def replay_reference(
    defn: GameDefinition, places: Sequence[_RefPlace] | None = None
) -> ReplayOutcome:
    """Play the reference as the hint system does and count the oracle's steps.

    Before each action the player is teleported to the step's scene; the oracle instead walks
    there from where the previous action was made (shortest walk over visible links at that
    moment), so oracle steps = reference actions + those walks, starting in the first scene.
    """
    if places is None:
        places = [_RefPlace(defn.source, None, f"reference step {k + 1}")
                  for k in range(len(defn.reference))]
    issues: list[CheckIssue] = []
    game = EscapeGame(defn)
    oracle = 0
    position = 0
    for k, (step, place) in enumerate(zip(defn.reference, places, strict=True)):
        what = f"{place.label} {step.action!r} in scene {step.scene!r}"
        goal = defn.scene_index.get(step.scene)
        if goal is None:
            issues.append(CheckIssue(
                "error", "reference", f"{what}: the scene does not exist", place.source,
                place.line,
            ))
            return ReplayOutcome(None, False, game.progress, issues)
        if game.ended:
            issues.append(CheckIssue(
                "error", "reference",
                f"{what}: the game already ended at the step before; "
                f"{len(defn.reference) - k} reference step(s) are never played",
                place.source, place.line,
            ))
            return ReplayOutcome(None, True, game.progress, issues)
        walk = walk_length(game, position, goal)
        if walk is None:
            # The hint system teleports, so the chain still plays; a player could not walk it.
            here = defn.scenes[position].name
            issues.append(CheckIssue(
                "warning", "walk",
                f"{what}: cannot walk there from {here!r} over the scenes visible at that "
                "moment (only the hint teleport gets there); counted as the position's path",
                place.source, place.line,
            ))
            walk = max(len(step.path) - 1, 0)
        oracle += walk + 1
        game.teleport(step.scene)
        try:
            result = game.step(step.action)
        except BrokenGameError as exc:
            issues.append(CheckIssue(
                "error", "reference", f"{what} fails: {exc}", place.source, place.line,
            ))
            return ReplayOutcome(None, game.ended, game.progress, issues)
        if result.error or not result.success:
            issues.append(CheckIssue(
                "error", "reference",
                f"{what} fails: {result.feedback}", place.source, place.line,
            ))
            return ReplayOutcome(None, game.ended, game.progress, issues)
        position = game.scene
    if not defn.reference:
        issues.append(CheckIssue(
            "error", "reference",
            "the game has no reference solution (hints and the oracle step count need one)",
            defn.source, None,
        ))
        return ReplayOutcome(None, False, game.progress, issues)
    if not game.ended:
        issues.append(CheckIssue(
            "error", "reference",
            f"the reference chain ends without reaching {GAME_END_MARK!r} "
            f"(progress {game.progress:.3f}){_missing(game)}",
            places[-1].source, places[-1].line,
        ))
        return ReplayOutcome(None, False, game.progress, issues)
    if game.progress < 1.0:
        issues.append(CheckIssue(
            "error", "reference",
            f"the reference reaches {GAME_END_MARK!r} with progress {game.progress:.3f}, "
            f"not 1.0{_missing(game)}",
            places[-1].source, places[-1].line,
        ))
        return ReplayOutcome(oracle, True, game.progress, issues)
    return ReplayOutcome(oracle, True, 1.0, issues)


def _missing(game: EscapeGame, limit: int = 8) -> str:
    """Which tools and key steps a play-through left out, for the message."""
    d = game.defn
    out: list[str] = []
    out += [f"tool {t.name!r} never collected" for i, t in enumerate(d.tools)
            if i not in game.bag and game.tool_where[i] == 0]
    for i, it in enumerate(d.items):
        for s, st in enumerate(it.states):
            for ti, tr in enumerate(st.transitions):
                for wi, w in enumerate(tr.waits):
                    if (0, i, s, ti, wi) not in game.counted:
                        out.append(f"item {it.name!r} state {s} never got '{w}'")
    for t, tool in enumerate(d.tools):
        for s, st in enumerate(tool.states):
            for wi, src in enumerate(st.wait_for):
                if (1, t, s, 0, wi) not in game.counted:
                    out.append(f"tool {tool.name!r} state {s} never got {src!r} crafted in")
    if not out:
        return ""
    more = f" and {len(out) - limit} more" if len(out) > limit else ""
    return ": " + "; ".join(out[:limit]) + more


# ------------------------------------------------------------------ solver
def _state_key(game: EscapeGame) -> tuple[Any, ...]:
    return (
        game.scene,
        tuple(game.scene_visible),
        tuple(game.item_visible),
        tuple(game.item_interact),
        tuple(game.item_state),
        tuple(game.item_present),
        tuple(game.tool_visible),
        tuple(game.tool_where),
        tuple(game.tool_state),
        frozenset(game.bag),
        frozenset((k, frozenset(v)) for k, v in game.satisfied.items() if v),
        frozenset((k, frozenset(v)) for k, v in game.used.items() if v),
    )


# The play state the solver saves and restores between branches. snapshot()/restore() would
# do, but they build JSON-ready data and validate it, which made them most of the search's
# time; tests/games/test_checking.py checks this list against EscapeGame.__slots__.
_LIST_FIELDS = (
    "scene_visible", "item_visible", "item_interact", "item_state", "item_present",
    "tool_visible", "tool_where", "tool_state", "bag",
)
_SET_MAP_FIELDS = ("satisfied", "used")
_VALUE_FIELDS = ("scene", "key_steps", "tools_collected", "ended")
_SET_FIELDS = ("counted",)


def _save(game: EscapeGame) -> tuple[Any, ...]:
    return (
        tuple(getattr(game, f)[:] for f in _LIST_FIELDS),
        tuple({k: set(v) for k, v in getattr(game, f).items()} for f in _SET_MAP_FIELDS),
        tuple(getattr(game, f) for f in _VALUE_FIELDS),
        tuple(set(getattr(game, f)) for f in _SET_FIELDS),
    )


def _load(game: EscapeGame, saved: tuple[Any, ...]) -> None:
    lists, set_maps, values, sets = saved
    for f, v in zip(_LIST_FIELDS, lists, strict=True):
        setattr(game, f, v[:])
    for f, v in zip(_SET_MAP_FIELDS, set_maps, strict=True):
        setattr(game, f, {k: set(x) for k, x in v.items()})
    for f, v in zip(_VALUE_FIELDS, values, strict=True):
        setattr(game, f, v)
    for f, v in zip(_SET_FIELDS, sets, strict=True):
        setattr(game, f, set(v))
    game.state_changed()  # the observation it caches is of the state replaced here


def _reachable_scenes(game: EscapeGame) -> list[int]:
    d = game.defn
    seen = {game.scene}
    order = [game.scene]
    queue = deque(order)
    while queue:
        cur = queue.popleft()
        for link in d.scenes[cur].links:
            nxt = d.scene_index.get(link.target)
            if nxt is not None and nxt not in seen and game.scene_visible[nxt]:
                seen.add(nxt)
                order.append(nxt)
                queue.append(nxt)
    return order


def _candidates(game: EscapeGame) -> Iterator[tuple[int, Action]]:
    """Every (scene, action) that could change the state: those are the only ones to try.

    A step changes the state only by collecting a tool, matching a wait of an item's current
    state, or a craft whose ``apply_to``/``wait_for`` pair up, so nothing else is generated.
    Tool pick-ups come first: they never hurt, which keeps the depth-first search short.
    """
    d = game.defn
    bag_tools: list[Tool] = [d.tools[t] for t in game.bag]
    scenes = _reachable_scenes(game)
    saved = game.scene
    for sc in scenes:
        game.scene = sc
        for t in game.visible_scene_tools():
            yield sc, Action("click", (d.tools[t].name,))
    for sc in scenes:
        game.scene = sc
        for i in game.visible_items():
            if not game.item_interact[i]:
                continue
            it = d.items[i]
            for tr in it.states[game.item_state[i]].transitions:
                for w in tr.waits:
                    if w.kind == "click":
                        yield sc, Action("click", (it.name,))
                    elif w.kind == "input":
                        yield sc, Action("input", (w.arg, it.name))
                    else:
                        for t, tool in zip(game.bag, bag_tools, strict=True):
                            if tool.name == w.arg and it.name in tool.states[
                                game.tool_state[t]
                            ].apply_to:
                                yield sc, Action("apply", (tool.name, it.name))
    game.scene = saved
    for a, ta in zip(game.bag, bag_tools, strict=True):
        for b, tb in zip(game.bag, bag_tools, strict=True):
            if a != b and tb.name in ta.states[game.tool_state[a]].apply_to and ta.name in (
                tb.states[game.tool_state[b]].wait_for
            ):
                yield saved, Action("craft", (ta.name, tb.name))


def _collect_all(game: EscapeGame) -> None:
    """Pick up every tool lying in a scene the player can walk to and back from.

    Collecting a tool never closes a way forward, so the search does it at once instead of
    branching on the order of pick-ups. Scenes behind one-way links are left to the search:
    going there may be a commitment.
    """
    d = game.defn
    here = game.scene
    for sc in _reachable_scenes(game):
        game.scene = sc
        tools = game.visible_scene_tools()
        if tools and (sc == here or here in _reachable_scenes(game)):
            for t in tools:
                game.step(Action("click", (d.tools[t].name,)))
    game.scene = here


def solve(defn: GameDefinition, state_limit: int = SOLVER_STATE_LIMIT) -> tuple[str, int]:
    """Search the game's states for any way to ``GAME END`` (walking, never teleporting).

    Returns ``("reached" | "unreachable" | "gave up", states visited)``. Only actions that
    cannot change the state are left out, so "unreachable" is a proof, not a guess; a game
    whose end cannot be reached usually has too many states to prove it, hence "gave up".
    """
    game = EscapeGame(defn)
    _collect_all(game)
    visited = {_state_key(game)}
    stack: list[tuple[tuple[Any, ...], Iterator[tuple[int, Action]]]] = []
    stack.append((_save(game), iter(list(_candidates(game)))))
    while stack:
        saved, todo = stack[-1]
        nxt = next(todo, None)
        if nxt is None:
            stack.pop()
            continue
        _load(game, saved)
        game.scene, action = nxt
        try:
            result = game.step(action)
        except BrokenGameError:  # a thing shown in a state it does not have: a dead end
            continue
        if result.error or not result.success:
            continue
        if result.game_end:
            return "reached", len(visited)
        _collect_all(game)
        key = _state_key(game)
        if key in visited:
            continue
        visited.add(key)
        if len(visited) >= state_limit:
            return "gave up", len(visited)
        stack.append((_save(game), iter(list(_candidates(game)))))
    return "unreachable", len(visited)


# ------------------------------------------------------------------ putting it together
def _count_verbs(report: SettingReport, defn: GameDefinition) -> None:
    for step in defn.reference:
        call = parse_call(step.action)
        if call is None:
            continue
        attr = {"craft": "crafts", "input": "inputs", "apply": "applies", "click": "clicks",
                "move": "moves"}[call.verb]
        setattr(report, attr, getattr(report, attr) + 1)


MAX_LISTED_GAME_ERRORS = 10


class BrokenGamesError(ValueError):
    """Settings with check errors, which no command plays: ``summary`` says how many,
    ``details`` lists them (file:line, setting, problem) and the command for the full report."""

    def __init__(self, errors: Sequence[CheckIssue]) -> None:
        files = sorted({e.source for e in errors})
        listed = [str(e) for e in errors[:MAX_LISTED_GAME_ERRORS]]
        if len(errors) > len(listed):
            listed.append(f"... and {len(errors) - len(listed)} more")
        self.errors = list(errors)
        self.summary = f"{len(errors)} error{'s' if len(errors) != 1 else ''} in the game files"
        self.details = (
            "  " + "\n  ".join(listed)
            + f"\nRun 'escapebench check {' '.join(files)}' for the full report."
        )
        super().__init__(f"{self.summary}:\n{self.details}")


@dataclass(frozen=True, slots=True)
class Unplayable:
    """A setting (or a file) that no command plays, and why: its first error with its place,
    and how many errors it has in all."""

    setting: str
    source: str
    reason: str
    errors: int = 1

    def __str__(self) -> str:
        more = f" (and {self.errors - 1} more error(s))" if self.errors > 1 else ""
        return f"{self.setting}: {self.reason}{more}"

    def to_json(self) -> dict[str, Any]:
        return {"setting": self.setting, "source": self.source, "reason": self.reason,
                "errors": self.errors}


def unplayable_file(exc: GameFileError) -> Unplayable:
    """A file that did not load, as an :class:`Unplayable` named by its file's stem."""
    stem = Path(exc.source).name.rsplit(".", 1)[0] or exc.source
    return Unplayable(stem, exc.source, str(exc))


def split_playable(
    definitions: Sequence[GameDefinition],
) -> tuple[list[GameDefinition], list[Unplayable], list[CheckIssue]]:
    """The settings without check errors, those with errors (one :class:`Unplayable` each),
    and every error found. These are the checks of ``escapebench check`` without its state
    search (about 10 ms per setting); warnings pass."""
    texts: dict[str, str | None] = {}
    playable: list[GameDefinition] = []
    unplayable: list[Unplayable] = []
    errors: list[CheckIssue] = []
    for defn in definitions:
        if defn.source not in texts:  # the YAML text gives the issues their line numbers
            try:
                texts[defn.source] = Path(defn.source).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                texts[defn.source] = None
        found = check_definition(defn, texts[defn.source], run_solver=False).errors
        if found:
            first = found[0]
            unplayable.append(
                Unplayable(defn.setting, defn.source, f"{first.where}: {first.message}",
                           len(found))
            )
            errors += found
        else:
            playable.append(defn)
    return playable, unplayable, errors


class UnplayableGamesError(ValueError):
    """Settings no command plays (files that do not load, settings with check errors), every
    one listed with its reason."""

    def __init__(self, unplayable: Sequence[Unplayable]) -> None:
        self.unplayable = list(unplayable)
        listed = "\n  ".join(str(u) for u in self.unplayable)
        files = " ".join(sorted({u.source for u in self.unplayable}))
        super().__init__(
            f"{len(self.unplayable)} setting(s) cannot be played:\n  {listed}\n"
            f"Run 'escapebench check {files}' for the full report."
        )


def load_playable(specs: Sequence[str], difficulties: Sequence[str] | None = None
                  ) -> list[GameDefinition]:
    """The settings ``specs`` name, all of them playable; else :class:`UnplayableGamesError`
    listing every setting (and file) that is not, with its reason, at once."""
    definitions, failed = load_games_reporting(specs, difficulties)
    _, unplayable, _ = split_playable(definitions)
    unplayable = [unplayable_file(e) for e in failed] + unplayable
    if unplayable:
        raise UnplayableGamesError(unplayable)
    return definitions


def require_playable(definitions: Sequence[GameDefinition]) -> None:
    """Raise :class:`BrokenGamesError` if a setting has check errors.

    These are the checks of ``escapebench check`` without its state search (names that point
    nowhere, states that do not exist, a reference chain that does not replay, ...): a game
    with such errors can stop in the middle of play, and its hints and numbers mean nothing.
    Every command that plays (``run``, ``play``, ``serve``, ``replay``) calls this first.
    Warnings pass (the original games have a few). About 10 ms per setting.
    """
    _, _, errors = split_playable(definitions)
    if errors:
        raise BrokenGamesError(errors)


def check_definition(
    defn: GameDefinition, text: str | None = None, *, run_solver: bool = True
) -> SettingReport:
    """All checks of one setting. ``text`` is the file's YAML, used to find lines."""
    report = _check_definition(defn, text, run_solver=run_solver)
    report.issues = [replace(i, setting=defn.setting) for i in report.issues]
    return report


def _check_definition(
    defn: GameDefinition, text: str | None, *, run_solver: bool
) -> SettingReport:
    locator = _Locator(defn.source, text)
    report = SettingReport(
        setting=defn.setting,
        game=defn.game,
        difficulty=defn.difficulty,
        title=defn.title,
        source=defn.source,
        scenes=len(defn.scenes),
        hidden_scenes=sum(not s.visible for s in defn.scenes),
        items=len(defn.items),
        tools=len(defn.tools),
        key_steps=defn.total_key_steps,
        total_tools=defn.total_tools,
        reference_length=len(defn.reference),
    )
    _count_verbs(report, defn)
    static = _StaticChecker(defn, locator)
    report.issues.extend(static.run())
    places = _reference_places(defn, locator)
    ref_issues: list[CheckIssue] = []
    _check_reference_names(defn, places, ref_issues)
    report.issues.extend(ref_issues)
    if static.unplayable:
        report.issues.append(CheckIssue(
            "warning", "skipped",
            "the reference replay and the solver were skipped: the errors "
            "above must be fixed before the game can be played",
            defn.source, None,
        ))
        return report
    try:
        before = len(report.issues)
        _dynamic_checks(report, defn, places, run_solver=run_solver, replay=not ref_issues)
        if any(note.endswith(MEANT_TRUE) for _, note in defn.readings):
            # The file most likely meant a boolean as true that the original's rules read as
            # false: the original engine plays it as read, and so do we. What then fails is
            # the file's meaning under those rules, said as a warning, not a broken game.
            report.issues[before:] = [
                replace(i, severity="warning", message=i.message + _AS_READ)
                if i.severity == "error" else i
                for i in report.issues[before:]
            ]
    except Exception as exc:  # an engine bug must not hide the other findings in a traceback
        report.issues.append(CheckIssue(
            "error", "internal",
            f"the engine failed while playing this game "
            f"({type(exc).__name__}: {exc}); please report this as a bug",
            defn.source, None,
        ))
    return report


_AS_READ = (
    " (as the original engine reads the file: a boolean that was most likely meant as true "
    "is read as false, see the 'reading' warnings)"
)


def _dynamic_checks(
    report: SettingReport,
    defn: GameDefinition,
    places: Sequence[_RefPlace],
    *,
    run_solver: bool,
    replay: bool,
) -> None:
    if replay:  # a chain naming missing things would only fail again, less clearly
        outcome = replay_reference(defn, places)
        report.oracle_steps = outcome.oracle_steps
        report.issues.extend(outcome.issues)
    if run_solver:
        verdict, visited = solve(defn)
        report.solver = verdict
        # (a scene no walk reaches, or a reference step only the teleport gets to)
        teleport_only = [i for i in report.issues if i.check in ("teleport-only", "walk")]
        if verdict == "unreachable" and teleport_only:
            # The search walks; the hint system teleports to a scene no walk reaches.
            report.issues.append(CheckIssue(
                "warning", "solver",
                f"no sequence of actions reaches {GAME_END_MARK!r} by walking (searched all "
                f"{visited} reachable states); the hint teleport also reaches the scene(s) "
                "no walk reaches (see the 'teleport-only' or 'walk' warning)",
                defn.source, None,
            ))
        elif verdict == "unreachable":
            report.issues.append(CheckIssue(
                "error", "solver",
                f"no sequence of actions reaches {GAME_END_MARK!r} "
                f"(searched all {visited} reachable states)",
                defn.source, None,
            ))
        elif verdict == "gave up":
            report.issues.append(CheckIssue(
                "warning", "solver",
                f"the search for a way to {GAME_END_MARK!r} stopped after "
                f"{visited} states without finding one",
                defn.source, None,
            ))


def _failed_file(path: Path, exc: GameFileError) -> SettingReport:
    stem = path.name.rsplit(".", 1)[0]
    m = ORIGINAL_NAME.match(stem)
    report = SettingReport(
        setting=stem,
        game=f"game{m.group(1)}-{m.group(2)}" if m else stem,
        difficulty=(m.group(3) or "normal") if m else "",
        title="",
        source=exc.source,
        loaded=False,
    )
    report.issues.append(CheckIssue("error", "load", exc.problem, exc.source, exc.line))
    return report


def check_file(path: Path, *, run_solver: bool = True) -> list[SettingReport]:
    """Load one game file and check every setting it holds; load errors become a report."""
    try:
        definitions = load_file(path)
    except GameFileError as exc:
        return [_failed_file(path, exc)]
    except OSError as exc:  # e.g. vanished or unreadable between listing and loading
        return [_failed_file(path, GameFileError(str(path), f"cannot read file: {exc}"))]
    try:
        text: str | None = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = None
    return [check_definition(d, text, run_solver=run_solver) for d in definitions]


GAME_FILE = re.compile(r"\.ya?ml$", re.IGNORECASE)


def game_files(spec: str) -> list[Path]:
    """The game files a path names: the file itself, or the YAML files of a folder.

    Raises :class:`GameFileError` for a path that does not exist or holds no game files.
    """
    p = Path(spec)
    if p.is_dir():
        files = sorted(x for x in p.iterdir() if x.is_file() and GAME_FILE.search(x.name))
        if not files:
            raise GameFileError(spec, "folder holds no game files (*.yaml, *.yml)")
        return files
    if p.is_file():
        return [p]
    raise GameFileError(spec, "no such file or folder")


def check_paths(specs: Sequence[str], *, run_solver: bool = True) -> list[SettingReport]:
    """Check every setting of every file the paths name (a path that names nothing is a
    failed report, not an exception)."""
    out: list[SettingReport] = []
    for spec in specs:
        try:
            files = game_files(spec)
        except GameFileError as exc:
            out.append(_failed_file(Path(spec), exc))
            continue
        for f in files:
            out.extend(check_file(f, run_solver=run_solver))
    return out
