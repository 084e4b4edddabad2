"""The rules of play: a small mutable state over an immutable :class:`GameDefinition`.

``EscapeGame`` never reads files, prints or keeps global state; many games can run in one
process. ``reset()`` only refills a few flat lists from the definition.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from escapebench.engine.actions import (
    ARITY,
    Action,
    Call,
    clean_input_text,
    clear_parse_memo,
    comma_cuts,
    most_commas,
    normalize_name,
    parse_call,
    split_candidates,
)
from escapebench.engine.model import (
    TOOL_GONE,
    TOOL_IN_BAG,
    TOOL_IN_SCENE,
    WAIT_KINDS,
    BrokenGameError,
    GameDefinition,
    PastStateError,
    Transition,
    Trigger,
)
from escapebench.engine.outcome import GAME_OVER, Outcome
from escapebench.engine.watch import NO_WATCHER, StateWatcher

EventKind = Literal[
    "moved",
    "teleported",
    "tool_collected",
    "tool_crafted",
    "tool_used",
    "key_step",
    "item_changed",
    "scene_revealed",
    "game_end",
]

_IN_SCENE, _IN_BAG, _GONE = TOOL_IN_SCENE, TOOL_IN_BAG, TOOL_GONE

SNAPSHOT_VERSION = 1

# An action resolved to indices: (kind, a, b); see EscapeGame._resolve.
_Resolved = tuple[str, int, "int | str"]


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened during a step, for metrics and logs."""

    kind: EventKind
    name: str = ""


class StepResult(NamedTuple):
    """What one action did: an immutable value, so the engine may hand out the same one twice.

    ``success`` is the engine's verdict on a well-formed action; ``error`` means the action could
    not be carried out at all (malformed, or naming something not on screen) and changed nothing.
    ``outcome`` says what happened as data (see :mod:`escapebench.engine.outcome`); the engine
    leaves ``feedback`` empty, and a protocol's ``Session.play`` fills it with its own words.
    """

    action: str
    success: bool
    error: bool
    feedback: str
    events: tuple[Event, ...] = ()
    key_steps_gained: int = 0
    tools_gained: int = 0
    game_end: bool = False
    outcome: Outcome = GAME_OVER

    @property
    def progressed(self) -> bool:
        """A new key step or a newly collected tool: the paper's notion of progress."""
        return self.key_steps_gained > 0 or self.tools_gained > 0


# Trigger operations, compiled once per definition (see _RuleTables._compile), by what they change.
_OP_ITEM_VISIBLE, _OP_ITEM_INTERACT = "item visible", "item interactable"
_OP_ITEM_STATE, _OP_ITEM_TOUCH = "item state", "item touched"
_OP_TOOL_VISIBLE, _OP_TOOL_STATE = "tool visible", "tool state"
_OP_SCENE_VISIBLE, _OP_BECOME_TOOL = "scene visible", "become tool"
_OP_NOTHING, _OP_BROKEN = "nothing", "broken"
# A state past the target's last one: set as it is, as the original engine does; the step fails
# only where the target would then be shown (see EscapeGame._check_past).
_OP_ITEM_STATE_PAST, _OP_TOOL_STATE_PAST = "item_state_past_last", "tool_state_past_last"
_GAME_END_EVENT = Event("game_end")
_NORM_MEMO_LIMIT = 4096
# Recipes are kept per scene and verb, for argument texts of a sensible length only.
_RECIPE_MEMO_LIMIT = 512
_RECIPE_MAX_TEXT = 200
_Op = tuple[str, int, Any, Any]  # (operation, target index, value, event to report)


class _StartState(NamedTuple):
    """The initial values of the state lists (see ``EscapeGame.reset``)."""

    scene_visible: tuple[bool, ...]
    item_visible: tuple[bool, ...]
    item_interact: tuple[bool, ...]
    item_state: tuple[int, ...]
    item_present: tuple[bool, ...]
    tool_visible: tuple[bool, ...]
    tool_where: tuple[int, ...]
    tool_state: tuple[int, ...]


class _OfferedWait(NamedTuple):
    """A wait of an item's transition as an offer meets it, with what the step needs."""

    wait: int  # its index among the transition's waits
    satisfied_key: tuple[int, int, int, int]  # (0, item, state, transition), see reset()
    counted_key: tuple[int, int, int, int, int]  # the same with the wait
    waits: int  # how many the transition has
    outcome: Outcome  # what the step reports when the transition fires
    ends_game: bool
    ops: tuple[_Op, ...]  # the transition's compiled triggers
    # Whether a step must note this wait in ``satisfied``: the transition waits for several
    # things, or the offer meets several waits (and the first not yet satisfied is preferred).
    # Otherwise the note could never be read: the transition fires at once, every time.
    tracked: bool


class _RuleTables:
    """What the engine derives once per definition to keep ``step`` and lookups cheap.

    Kept in ``defn.caches`` and shared by every game of the definition (read-only, except the
    bounded memos of normalized names and of recipes, which depend on the definition alone).
    Name groups keep file order, so the first visible match is the one a scan over the screen
    would find; trigger targets are resolved in advance the way the engine always resolved them
    (same scene first, then the first in the file); the events, canonical action strings and
    outcomes a step reports are made once, since they are immutable values.
    """

    __slots__ = (
        "items_in_scene", "tools_in_scene", "tools_by_name", "link_labels", "link_scenes",
        "norm_memo", "recipes", "wait_index", "item_key_step",
        "item_changed", "tool_key_step", "tool_collected", "tool_used", "tool_crafted",
        "partial_outcome", "stuck_outcome", "collected_outcome", "moved_outcome", "past_possible",
        "item_names", "tool_names", "tool_target_counts", "item_scene",
        "tool_scene", "start",
    )

    def __init__(self, d: GameDefinition) -> None:
        self.norm_memo: dict[str, str] = {}

        def group(pairs: Iterable[tuple[str, int]]) -> dict[str, tuple[int, ...]]:
            out: dict[str, list[int]] = {}
            for name, idx in pairs:
                out.setdefault(normalize_name(name), []).append(idx)
            return {k: tuple(v) for k, v in out.items()}

        self.items_in_scene = tuple(group((d.items[i].name, i) for i in s.items) for s in d.scenes)
        self.tools_in_scene = tuple(group((d.tools[t].name, t) for t in s.tools) for s in d.scenes)
        # a tool answers to its own name and to the names its states give it (a crafted
        # product's), whatever its state: the name is only a handle, the rules stay the tool's
        self.tools_by_name = group(
            (name, k) for k, t in enumerate(d.tools)
            for name in dict.fromkeys((t.name, *(st.name for st in t.states if st.name)))
        )
        idx = d.scene_index
        self.link_labels = tuple(
            group((ln.label, idx[ln.target]) for ln in s.links if ln.target in idx)
            for s in d.scenes
        )
        self.link_scenes = tuple(
            group((ln.target, idx[ln.target]) for ln in s.links if ln.target in idx)
            for s in d.scenes
        )
        # per scene, per verb: argument text -> recipe (see recipe())
        self.recipes: tuple[dict[str, dict[str, Any]], ...] = tuple(
            {verb: {} for verb in ARITY} for _ in d.scenes
        )
        self.item_key_step = tuple(Event("key_step", it.name) for it in d.items)
        self.item_changed = tuple(Event("item_changed", it.name) for it in d.items)
        self.tool_key_step = tuple(Event("key_step", t.name) for t in d.tools)
        self.tool_collected = tuple(Event("tool_collected", t.name) for t in d.tools)
        self.tool_used = tuple(Event("tool_used", t.name) for t in d.tools)
        self.tool_crafted = tuple(Event("tool_crafted", t.name) for t in d.tools)
        self.partial_outcome = tuple(Outcome("partial", "", (it.name,)) for it in d.items)
        self.stuck_outcome = tuple(Outcome("not_interactable", "", (it.name,)) for it in d.items)
        self.collected_outcome = tuple(Outcome("collected", "click", (t.name,)) for t in d.tools)
        self.moved_outcome = tuple(Outcome("moved", "move", (s.name,)) for s in d.scenes)
        self.item_names = tuple(it.name for it in d.items)
        self.tool_names = tuple(t.name for t in d.tools)
        self.item_scene = tuple(it.scene for it in d.items)
        self.tool_scene = tuple(t.scene for t in d.tools)
        self.start = _StartState(
            scene_visible=tuple(s.visible for s in d.scenes),
            item_visible=tuple(it.visible for it in d.items),
            item_interact=tuple(it.interactable for it in d.items),
            item_state=(0,) * len(d.items),
            item_present=(True,) * len(d.items),
            tool_visible=tuple(t.visible for t in d.tools),
            tool_where=(_IN_SCENE,) * len(d.tools),
            tool_state=(0,) * len(d.tools),
        )
        # per tool, per state: the names its apply_to lists, with how often each is listed
        # (a use strikes one: a name listed twice can be used twice in that state)
        self.tool_target_counts = tuple(
            tuple({x: st.apply_to.count(x) for x in st.apply_to} for st in t.states)
            for t in d.tools
        )
        # per item, per state: {(wait kind, tool name or the input text normalized, "" for a
        # click): the waits that offer matches, in file order, each as an _OfferedWait}
        self.wait_index = tuple(
            tuple(self._index_waits(d, i, s, st.transitions) for s, st in enumerate(it.states))
            for i, it in enumerate(d.items)
        )
        # Whether a trigger sets a state past the last: then a step that fires triggers is
        # undone if it would show such a state (see EscapeGame._offer).
        self.past_possible = any(
            op[0] in (_OP_ITEM_STATE_PAST, _OP_TOOL_STATE_PAST)
            for per_item in self.wait_index for per_state in per_item
            for per_kind in per_state.values() for offers in per_kind.values()
            for offer in offers for op in offer.ops
        )

    def _index_waits(
        self, d: GameDefinition, i: int, s: int, transitions: tuple[Transition, ...]
    ) -> dict[str, dict[str, tuple[_OfferedWait, ...]]]:
        """The waits of item ``i`` in state ``s``, by what an offer must bring to meet them:
        {wait kind: {tool name, or the input text normalized, or "" for a click: waits}}.
        Every wait kind has an entry (a dict per kind, so a step looks up no new tuple)."""
        out: dict[str, dict[str, list[_OfferedWait]]] = {kind: {} for kind in WAIT_KINDS}
        for ti, tr in enumerate(transitions):
            ops = tuple(self._compile(d, i, g) for g in tr.triggers)
            # an empty reward counts as none
            for wi, w in enumerate(tr.waits):
                outcome = Outcome("triggered", w.kind, (d.items[i].name,), tr.reward or "")
                arg = normalize_name(w.arg) if w.kind == "input" else w.arg
                out[w.kind].setdefault("" if w.kind == "click" else arg, []).append(
                    _OfferedWait(
                        wi, (0, i, s, ti), (0, i, s, ti, wi), len(tr.waits), outcome,
                        tr.ends_game, ops, len(tr.waits) > 1,
                    )
                )
        return {
            kind: {
                arg: tuple(m._replace(tracked=True) for m in v) if len(v) > 1 else tuple(v)
                for arg, v in by_arg.items()
            }
            for kind, by_arg in out.items()
        }

    def _compile(self, d: GameDefinition, i: int, g: Trigger) -> _Op:
        """One trigger of item ``i`` as (operation, target index, value, event).

        A trigger the definition cannot carry out (a missing scene, a state the target does
        not have) becomes an operation that raises :class:`BrokenGameError` with what is
        wrong when it fires, as the original engine failed then too; ``check`` reports it
        before play, and every command that plays refuses such a game.
        """
        scene = d.items[i].scene
        kind, tk, value = g.kind, g.target_kind, g.value

        def broken(problem: str) -> _Op:
            where = f"{d.items[i].name!r} in scene {d.scenes[scene].name!r}"
            return (_OP_BROKEN, -1, f"{d.setting} ({d.source}): a trigger of {where} {problem}",
                    None)

        if kind == "become_tool":
            t = _near(str(value), d.scenes[scene].tools, d.tools, d.tool_index)
            return (_OP_BECOME_TOOL, -1 if t is None else t, None,
                    None if t is None else self.tool_collected[t])
        if tk == "scene":
            sc = d.scene_index.get(g.target)
            if sc is None:
                return broken(f"names scene {g.target!r}, which does not exist")
            if kind == "change_visible":
                return (_OP_SCENE_VISIBLE, sc, bool(value), Event("scene_revealed", g.target))
            return (_OP_NOTHING, -1, None, None)
        if tk == "tool":
            t = _near(g.target, d.scenes[scene].tools, d.tools, d.tool_index)
            if t is None:
                return (_OP_NOTHING, -1, None, None)
            if kind == "change_visible":
                return (_OP_TOOL_VISIBLE, t, bool(value), None)
            if kind == "change_state":
                if not 0 <= int(value) < len(d.tools[t].states):
                    return (_OP_TOOL_STATE_PAST, t, int(value), None)
                return (_OP_TOOL_STATE, t, int(value), None)
            return (_OP_NOTHING, -1, None, None)
        target = (
            i if tk == "self" else _near(g.target, d.scenes[scene].items, d.items, d.item_index)
        )
        if target is None:
            return (_OP_NOTHING, -1, None, None)
        if kind == "change_state" and not 0 <= int(value) < len(d.items[target].states):
            return (_OP_ITEM_STATE_PAST, target, int(value), self.item_changed[target])
        op = {
            "change_visible": (_OP_ITEM_VISIBLE, bool(value)),
            "change_interact": (_OP_ITEM_INTERACT, bool(value)),
            "change_state": (_OP_ITEM_STATE, int(value)),
        }.get(kind, (_OP_ITEM_TOUCH, None))
        return (op[0], target, op[1], self.item_changed[target])

    def norm(self, text: str) -> str:
        """``normalize_name(text)``, memoized: the same strings come back step after step."""
        memo = self.norm_memo
        key = memo.get(text)
        if key is None:
            key = normalize_name(text)
            if len(text) <= _RECIPE_MAX_TEXT:  # a long text (a runaway answer) is not kept
                if len(memo) >= _NORM_MEMO_LIMIT:
                    memo.clear()
                memo[text] = key
        return key

    def recipe(self, scene: int, verb: str, text: str) -> Any:
        """What ``verb(text)`` can mean in ``scene``, whatever is visible: memoized.

        The names in an action depend only on the definition; which of them are on screen
        depends on the state. So the string work (comma splits, normalizing) is done once per
        (scene, verb, text), and a step only checks visibility. A recipe keeps every candidate
        in the order the lookup tries them and drops the splits that can never match, so the
        first visible candidate is what the full search would find:

        - move: the target scenes, exits by label first, then by scene name;
        - click: (items, tools) named by the text;
        - apply, craft: ((left tools, right items or tools), ...) per comma split;
        - input: ((items, the input text), ...) per comma split.
        """
        memo = self.recipes[scene][verb]
        found = memo.get(text)
        if found is not None:
            return found
        # (plain loops, not comprehensions: those would make this function create closure
        # cells on every call, and recipes are built for most steps of a first play)
        norm = self.norm
        if verb == "move":
            key = norm(text)
            found = self.link_labels[scene].get(key, ()) + self.link_scenes[scene].get(key, ())
        elif verb == "click":
            key = norm(text)
            found = (
                self.items_in_scene[scene].get(key, ()), self.tools_in_scene[scene].get(key, ())
            )
        elif verb == "input":
            items = self.items_in_scene[scene]
            readings = []
            for left, right in split_candidates(text, right_commas=_most_commas(text, items)):
                group = items.get(norm(right))
                if group:
                    readings.append((group, clean_input_text(left)))
            found = tuple(readings)
        else:
            lefts = self.tools_by_name
            rights = self.items_in_scene[scene] if verb == "apply" else lefts
            readings = []
            cuts = split_candidates(
                text, left_commas=_most_commas(text, lefts), right_commas=_most_commas(text, rights)
            )
            for left, right in cuts:
                left_group = lefts.get(norm(left))
                if left_group:
                    right_group = rights.get(norm(right))
                    if right_group:
                        readings.append((left_group, right_group))
            found = tuple(readings)
        if len(text) <= _RECIPE_MAX_TEXT:
            if len(memo) >= _RECIPE_MEMO_LIMIT:
                memo.clear()
            memo[text] = found
        return found

    def clear_memos(self) -> None:
        """Forget memoized names and recipes (they are rebuilt on demand)."""
        self.norm_memo.clear()
        for per_verb in self.recipes:
            for memo in per_verb.values():
                memo.clear()


def _most_commas(text: str, names: dict[str, Any]) -> int | None:
    """The most commas a part of ``text`` can hold and still be one of ``names``, for a long
    argument text (None: no bound, for the short texts of every usual step): splitting a long
    list of commas at every comma would be quadratic."""
    if len(text) <= _RECIPE_MAX_TEXT:
        return None
    return most_commas(names)


def _near(
    name: str, here: tuple[int, ...], things: tuple[Any, ...], index: dict[str, int]
) -> int | None:
    """The thing a trigger names: one in the owner's scene first, else the first in the file."""
    for j in here:
        if things[j].name == name:
            return j
    return index.get(name)


def clear_memos(*definitions: GameDefinition) -> None:
    """Forget what was memoized from action strings: the parsed calls, and for each of
    ``definitions`` the normalized names and recipes.

    Never needed for correctness (memos hold only what the definition implies); benchmarks
    call it so that each run starts cold.
    """
    clear_parse_memo()
    for d in definitions:
        tables = d.caches.get("rule tables")
        if tables is not None:
            tables.clear_memos()


def _tables_of(d: GameDefinition) -> _RuleTables:
    tables = d.caches.get("rule tables")
    if tables is None:
        tables = d.caches["rule tables"] = _RuleTables(d)
    return tables


class EscapeGame:
    """One play-through of a setting. Create many from one definition; they share nothing."""

    __slots__ = (
        "defn",
        "scene",
        "scene_visible",
        "item_visible",
        "item_interact",
        "item_state",
        "item_present",
        "tool_visible",
        "tool_where",
        "tool_state",
        "bag",
        "satisfied",
        "counted",
        "used",
        "key_steps",
        "tools_collected",
        "ended",
        "_tables",
        "watcher",
    )

    def __init__(self, defn: GameDefinition) -> None:
        self.defn = defn
        self._tables = _tables_of(defn)
        self.watcher: StateWatcher = NO_WATCHER
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Start over from the definition's initial state."""
        start = self._tables.start  # the initial state, read once from the definition
        self.scene = 0
        self.scene_visible = list(start.scene_visible)
        self.item_visible = list(start.item_visible)
        self.item_interact = list(start.item_interact)
        self.item_state = list(start.item_state)
        self.item_present = list(start.item_present)
        self.tool_visible = list(start.tool_visible)
        self.tool_where = list(start.tool_where)
        self.tool_state = list(start.tool_state)
        self.bag: list[int] = []
        # (kind, owner, state, transition) -> satisfied wait indices; kind 0 = item, 1 = tool
        self.satisfied: dict[tuple[int, int, int, int], set[int]] = {}
        # waits that already counted as a key step: (kind, owner, state, transition, wait)
        self.counted: set[tuple[int, int, int, int, int]] = set()
        # (tool, tool state) -> the targets of its apply_to used so far, one entry per use: as
        # in the original engine, a use strikes the target off the state's list (a second
        # apply to the same item in the same tool state is refused, unless it is listed
        # twice), and the tool leaves the bag once its last state's list is used up.
        self.used: dict[tuple[int, int], list[str]] = {}
        self.key_steps = 0
        self.tools_collected = 0
        self.ended = False
        self.watcher.start()

    @property
    def progress(self) -> float:
        """(key steps + tools collected) / (total key steps + total tools), in [0, 1]."""
        total = self.defn.total_key_steps + self.defn.total_tools
        return (self.key_steps + self.tools_collected) / total if total else 1.0

    @property
    def scene_name(self) -> str:
        return self.defn.scenes[self.scene].name

    def snapshot(self) -> dict[str, Any]:
        """The whole play state as plain JSON-able data."""
        return {
            "version": SNAPSHOT_VERSION,
            "setting": self.defn.setting,
            "scene": self.scene,
            "scene_visible": list(self.scene_visible),
            "item_visible": list(self.item_visible),
            "item_interact": list(self.item_interact),
            "item_state": list(self.item_state),
            "item_present": list(self.item_present),
            "tool_visible": list(self.tool_visible),
            "tool_where": list(self.tool_where),
            "tool_state": list(self.tool_state),
            "bag": list(self.bag),
            "satisfied": [[*k, sorted(v)] for k, v in self.satisfied.items()],
            "counted": sorted(list(k) for k in self.counted),
            "used": [[t, st, sorted(v)] for (t, st), v in self.used.items()],
            "key_steps": self.key_steps,
            "tools_collected": self.tools_collected,
            "ended": self.ended,
        }

    def restore(self, snap: dict[str, Any]) -> None:
        """Load a state made by :meth:`snapshot` of the same setting."""
        d = self.defn
        if snap.get("version") != SNAPSHOT_VERSION:
            raise ValueError(f"unsupported snapshot version {snap.get('version')!r}")
        if snap.get("setting") != d.setting:
            raise ValueError(f"snapshot is of {snap.get('setting')!r}, not {d.setting!r}")
        sizes = {
            "scene_visible": len(d.scenes),
            "item_visible": len(d.items),
            "item_interact": len(d.items),
            "item_state": len(d.items),
            "item_present": len(d.items),
            "tool_visible": len(d.tools),
            "tool_where": len(d.tools),
            "tool_state": len(d.tools),
        }
        for key, n in sizes.items():
            if len(snap[key]) != n:
                raise ValueError(f"snapshot field {key} has {len(snap[key])} entries, not {n}")
        self.scene = int(snap["scene"])
        self.scene_visible = [bool(x) for x in snap["scene_visible"]]
        self.item_visible = [bool(x) for x in snap["item_visible"]]
        self.item_interact = [bool(x) for x in snap["item_interact"]]
        self.item_state = [int(x) for x in snap["item_state"]]
        self.item_present = [bool(x) for x in snap["item_present"]]
        self.tool_visible = [bool(x) for x in snap["tool_visible"]]
        self.tool_where = [int(x) for x in snap["tool_where"]]
        self.tool_state = [int(x) for x in snap["tool_state"]]
        self.bag = [int(x) for x in snap["bag"]]
        self.satisfied = {
            (int(a), int(b), int(c), int(e)): set(w) for a, b, c, e, w in snap["satisfied"]
        }
        self.counted = {tuple(int(x) for x in k) for k in snap["counted"]}  # type: ignore[misc]
        self.used = {(int(t), int(st)): [str(x) for x in v] for t, st, v in snap["used"]}
        self.key_steps = int(snap["key_steps"])
        self.tools_collected = int(snap["tools_collected"])
        self.ended = bool(snap["ended"])
        self.watcher.forget()

    def state_changed(self) -> None:
        """Say that the state lists were changed from outside ``step``/``reset``/``restore``.

        The engine keeps the parts of the observation until a step changes what they show;
        code that sets the state directly (the checker's solver restoring a saved state) calls
        this so that the next observation is rendered afresh.
        """
        self.watcher.forget()

    def state_dict(self) -> dict[str, Any]:
        """The observable state in the conformance schema of the original engine's traces."""
        d = self.defn
        items = {}
        for i, it in enumerate(d.items):
            if self.item_present[i]:
                key = f"{d.scenes[it.scene].name}/{it.name}"
                items[key] = [self.item_visible[i], self.item_interact[i], self.item_state[i]]
        scene_tools = {
            f"{d.scenes[t.scene].name}/{t.name}": self.tool_visible[i]
            for i, t in enumerate(d.tools)
            if self.tool_where[i] == _IN_SCENE
        }
        return {
            "scene": self.scene_name,
            "scenes": {s.name: self.scene_visible[i] for i, s in enumerate(d.scenes)},
            "items": items,
            "scene_tools": scene_tools,
            "bag": {d.tools[t].name: self.tool_state[t] for t in self.bag},
            "key_steps": self.key_steps,
            "tools_collected": self.tools_collected,
        }

    def watch(self, watcher: StateWatcher) -> None:
        """Have ``watcher`` told of every change from now on (one watcher per game; a new one
        replaces the last). It is told to forget first: it may hold another state's view."""
        self.watcher = watcher
        watcher.forget()

    # ------------------------------------------------------------- what is on screen
    def visible_items(self) -> list[int]:
        """Items of the current scene the player can see, in file order."""
        iv, ip = self.item_visible, self.item_present
        return [i for i in self.defn.scenes[self.scene].items if iv[i] and ip[i]]

    def clickable_items(self) -> list[int]:
        """Items of the current scene the player can see and act on, in file order."""
        iv, ip, ii = self.item_visible, self.item_present, self.item_interact
        return [i for i in self.defn.scenes[self.scene].items if iv[i] and ip[i] and ii[i]]

    def visible_scene_tools(self) -> list[int]:
        """Tools lying visible in the current scene, not yet collected."""
        tv, tw = self.tool_visible, self.tool_where
        return [t for t in self.defn.scenes[self.scene].tools if tv[t] and tw[t] == _IN_SCENE]

    def open_links(self) -> list[tuple[str, int]]:
        """(label, scene index) of the exits of the current scene whose target is visible."""
        d = self.defn
        out = []
        for link in d.scenes[self.scene].links:
            target = d.scene_index.get(link.target)
            if target is not None and self.scene_visible[target]:
                out.append((link.label, target))
        return out

    # A name group (see _RuleTables) holds every thing of that name; these pick the one on screen.
    def _first_item(self, group: tuple[int, ...]) -> int | None:
        """The first item of ``group`` that is visible (and not turned into a tool)."""
        iv, ip = self.item_visible, self.item_present
        for i in group:
            if iv[i] and ip[i]:
                return i
        return None

    def _first_scene_tool(self, group: tuple[int, ...]) -> int | None:
        """The first tool of ``group`` lying visible in its scene."""
        tv, tw = self.tool_visible, self.tool_where
        for t in group:
            if tv[t] and tw[t] == _IN_SCENE:
                return t
        return None

    def _first_bag_tool(self, group: tuple[int, ...]) -> int | None:
        """The tool of ``group`` in the bag; with several of that name, the first in the bag."""
        if len(group) == 1:
            return group[0] if group[0] in self.bag else None
        for t in self.bag:
            if t in group:
                return t
        return None

    def _first_open_link(self, targets: tuple[int, ...]) -> int | None:
        """The first of ``targets`` (scene indices) that is visible."""
        sv = self.scene_visible
        for target in targets:
            if sv[target]:
                return target
        return None

    def _find_item(self, name: str) -> int | None:
        """The first visible item of the current scene with this name (in any case)."""
        tables = self._tables
        return self._first_item(tables.items_in_scene[self.scene].get(tables.norm(name), ()))

    def _find_scene_tool(self, name: str) -> int | None:
        tables = self._tables
        return self._first_scene_tool(tables.tools_in_scene[self.scene].get(tables.norm(name), ()))

    def _find_bag_tool(self, name: str) -> int | None:
        found = self._tables.tools_by_name.get(self._tables.norm(name))
        return self._first_bag_tool(found) if found else None

    def resolve(self, action: str | Call | Action) -> Action | Outcome:
        """Match an action's names against what is on screen.

        Returns the resolved :class:`Action`, or the :class:`Outcome` of the error: what is
        wrong (malformed, wrong number of arguments, a name not on screen) and the names that
        are valid.
        """
        if isinstance(action, Action):
            return action
        found = self._resolve(action)
        if isinstance(found, Outcome):
            return found
        return self._as_action(found)

    def _resolve(self, action: str | Call) -> _Resolved | Outcome:
        """Like :meth:`resolve`, but with indices: ``(kind, a, b)`` or the error's outcome.

        ``kind`` is ``move`` (a = scene), ``click_item`` (a = item), ``click_tool`` (a = tool),
        ``apply`` (a = tool, b = item), ``input`` (a = item, b = the text) or ``craft``
        (a, b = tools).
        """
        call = action if isinstance(action, Call) else parse_call(action)
        if call is None:
            return Outcome("malformed", "", (), str(action))
        found = self._match(call.verb, call.arg_text)
        return found if found is not None else self._explain(call.verb, call.arg_text)

    def _match(self, verb: str, text: str) -> _Resolved | None:
        """The first reading of ``verb(text)`` whose names are all on screen, or None.

        Two-argument actions try every comma, last first, so names with commas still resolve;
        for ``input`` the text may hold commas too, and the item is what follows the last
        usable comma.
        """
        recipe = self._tables.recipe(self.scene, verb, text)
        if verb == "click":
            items, tools = recipe
            i = self._first_item(items)
            if i is not None:
                return ("click_item", i, "")
            t = self._first_scene_tool(tools)
            return None if t is None else ("click_tool", t, "")
        if verb == "apply":
            for lefts, rights in recipe:
                a = self._first_bag_tool(lefts)
                if a is not None:
                    b = self._first_item(rights)
                    if b is not None:
                        return ("apply", a, b)
            return None
        if verb == "input":
            for items, input_text in recipe:
                i = self._first_item(items)
                if i is not None:
                    return ("input", i, input_text)
            return None
        if verb == "craft":
            for lefts, rights in recipe:
                a = self._first_bag_tool(lefts)
                if a is not None:
                    b = self._first_bag_tool(rights)
                    if b is not None:
                        return ("craft", a, b)
            return None
        target = self._first_open_link(recipe)
        return None if target is None else ("move", target, "")

    def _explain(self, verb: str, text: str) -> Outcome:
        """Why ``verb(text)`` matches nothing on screen, with the names that are valid."""
        if verb == "move":
            labels = tuple(label for label, _ in self.open_links())
            return Outcome("unknown_scene", verb, (), text.strip(), labels)
        if verb == "click":
            if "," in text and self._split(text, self._find_item, self._find_item):
                return Outcome("wrong_arity", verb)
            return Outcome("unknown_item", verb, (), text.strip(), self._clickable_names())
        if verb == "apply":
            return self._explain_pair(verb, text, self._find_bag_tool, self._find_item)
        if verb == "craft":
            return self._explain_pair(verb, text, self._find_bag_tool, self._find_bag_tool)
        if not comma_cuts(text):
            return Outcome("wrong_arity", verb)
        written = text.rsplit(",", 1)[-1].strip()
        return Outcome("unknown_item", verb, (), written, self._item_names())

    def _as_action(self, found: _Resolved) -> Action:
        d = self.defn
        kind, a, b = found
        if kind == "move":
            return Action("move", (d.scenes[a].name,))
        if kind == "click_item":
            return Action("click", (d.items[a].name,))
        if kind == "click_tool":
            return Action("click", (d.tools[a].name,))
        if kind == "apply":
            return Action("apply", (d.tools[a].name, d.items[b].name))
        if kind == "input":
            return Action("input", (str(b), d.items[a].name))
        return Action("craft", (d.tools[a].name, d.tools[b].name))

    def _indices_of(self, action: Action) -> _Resolved:
        """Indices of an already resolved action, found by its canonical names."""
        kind, args = action.kind, action.args
        if kind == "move":
            return ("move", self.defn.scene_index[args[0]], "")
        if kind == "click":
            i = self._find_item(args[0])
            if i is not None:
                return ("click_item", i, "")
            t = self._find_scene_tool(args[0])
            assert t is not None
            return ("click_tool", t, "")
        if kind == "apply":
            t, i = self._find_bag_tool(args[0]), self._find_item(args[1])
            assert t is not None and i is not None
            return ("apply", t, i)
        if kind == "input":
            i = self._find_item(args[1])
            assert i is not None
            return ("input", i, args[0])
        a, b = self._find_bag_tool(args[0]), self._find_bag_tool(args[1])
        assert a is not None and b is not None
        return ("craft", a, b)

    def _split(self, text: str, find_left: Any, find_right: Any) -> tuple[int, int] | None:
        bound = _most_commas(text, self._tables.items_in_scene[self.scene])  # click: items only
        for left, right in split_candidates(text, left_commas=bound, right_commas=bound):
            a = find_left(left)
            if a is not None:
                b = find_right(right)
                if b is not None:
                    return a, b
        return None

    def _explain_pair(self, verb: str, text: str, find_left: Any, find_right: Any) -> Outcome:
        cuts = comma_cuts(text)
        if not cuts:
            return Outcome("wrong_arity", verb)
        left, right = text[: cuts[-1]], text[cuts[-1] + 1 :]  # at the first usable comma
        if find_left(left) is None:
            return Outcome("unknown_tool", verb, (), left.strip(), self._bag_names())
        if verb == "craft":
            return Outcome("unknown_tool", verb, (), right.strip(), self._bag_names())
        return Outcome("unknown_item", verb, (), right.strip(), self._item_names())

    def _item_names(self) -> tuple[str, ...]:
        return tuple(self.defn.items[i].name for i in self.visible_items())

    def _clickable_names(self) -> tuple[str, ...]:
        d = self.defn
        return self._item_names() + tuple(d.tools[t].name for t in self.visible_scene_tools())

    def _bag_names(self) -> tuple[str, ...]:
        return tuple(self.tool_name(t) for t in self.bag)

    def tool_name(self, t: int) -> str:
        """The name tool ``t`` goes by now: its current state's name (a crafted product's),
        else its own (see :meth:`Tool.name_in`)."""
        return self.defn.tools[t].name_in(self.tool_state[t])

    def step(self, action: str | Call | Action) -> StepResult:
        """Carry out one action and report what happened."""
        if self.ended:
            return StepResult(str(action), False, True, "", (), 0, 0, False, GAME_OVER)
        if type(action) is Call:
            call = action
        elif isinstance(action, Action):
            return self._play(self._indices_of(action))
        else:
            parsed = action if isinstance(action, Call) else parse_call(action)
            if parsed is None:
                malformed = Outcome("malformed", "", (), str(action))
                return StepResult(str(action), False, True, "", (), 0, 0, False, malformed)
            call = parsed
        found = self._match(call.verb, call.arg_text)
        if found is None:
            why = self._explain(call.verb, call.arg_text)
            return StepResult(str(call), False, True, "", (), 0, 0, False, why)
        return self._play(found)

    def _play(self, found: _Resolved) -> StepResult:
        """Carry out an action matched to indices (see :meth:`_resolve`)."""
        tables = self._tables
        kind, a, b = found
        if kind == "click_item":
            return self._offer(f"click({tables.item_names[a]})", a, "click", "")
        if kind == "apply":
            tool = tables.tool_names[a]
            return self._offer(f"apply({tool}, {tables.item_names[b]})", b, "apply", tool, a)
        if kind == "click_tool":
            return self._collect(a)
        if kind == "input":
            return self._offer(
                f"input({b}, {tables.item_names[a]})", a, "input", tables.norm(str(b))
            )
        if kind == "move":
            self.scene = a
            name = self.defn.scenes[a].name
            return StepResult(
                f"move({name})", True, False, "", (Event("moved", name),), 0, 0, False,
                tables.moved_outcome[a],
            )
        return self._craft(a, b)  # type: ignore[arg-type]

    def teleport(self, scene: str) -> None:
        """Put the player in ``scene`` (the hint system's move); visibility is left unchanged,
        as the original engine does."""
        try:  # (no test before the lookup: the hint system teleports before every step)
            self.scene = self.defn.scene_index[scene]
        except KeyError:
            raise KeyError(f"no scene named {scene!r} in {self.defn.setting}") from None

    # ------------------------------------------------------------------ questions about the rules
    # What a protocol that words the rules in its own way asks (the original's texts follow
    # its own lists, which lose an entry at each use); nothing here changes the state.
    def refusal(self, kind: str, item: int, tool: int = -1) -> Outcome:
        """What giving ``item`` a ``kind`` ("click", "apply" with ``tool``, "input") it does
        not take says: the item may wait for a tool (an input), only not this one (then the
        outcome says so, as the original does; in hard settings it is the only clue), or for
        nothing of the kind."""
        it = self.defn.items[item]
        state = it.states[self.item_state[item]]
        wants = any(w.kind == kind for tr in state.transitions for w in tr.waits)
        names = (it.name,) if tool < 0 else (self.tool_name(tool), it.name)
        failure = "no_effect"
        if wants and kind == "apply":
            failure = "wrong_tool"
        elif wants and kind == "input":
            failure = "wrong_input"
        return Outcome(failure, kind, names, state.neg_reward or "")  # type: ignore[arg-type]

    def waits_met(self, item: int, transition: int) -> frozenset[int]:
        """The waits (their indices) of transition ``transition`` of ``item``'s current state
        met so far (a transition fires once all are)."""
        key = (0, item, self.item_state[item], transition)
        return frozenset(self.satisfied.get(key, ()))

    def targets_left(self, tool: int) -> list[str]:
        """The names ``tool`` in its current state can still be applied or crafted to: its
        state's list, one entry struck off per use."""
        s = self.tool_state[tool]
        left = list(self.defn.tools[tool].states[s].apply_to)
        for target in self.used.get((tool, s), ()):
            left.remove(target)
        return left

    def crafts_awaited(self, tool: int) -> list[str]:
        """The tools still to be crafted into ``tool`` for its current state to advance."""
        s = self.tool_state[tool]
        done = self.satisfied.get((1, tool, s, 0), ())
        return [x for n, x in enumerate(self.defn.tools[tool].states[s].wait_for) if n not in done]

    def moved_to(self, scene: str) -> EscapeGame:
        """A copy of this play with the player in ``scene``: what a player would see there
        (an agent looking before it asks to be moved). This game does not change; the copy
        shares nothing with it and has no watcher."""
        other = EscapeGame(self.defn)
        other.restore(self.snapshot())
        other.teleport(scene)
        return other

    def _collect(self, t: int) -> StepResult:
        """Put tool ``t``, lying in its scene, at the end of the bag (a pick-up, or an item
        that becomes the tool)."""
        self.tool_where[t] = _IN_BAG
        self.bag.append(t)
        self.tools_collected += 1
        self.watcher.tool_collected(self, t)
        name = self._tables.tool_names[t]
        event = self._tables.tool_collected[t]
        return StepResult(
            f"click({name})", True, False, "", (event,), 0, 1, False,
            self._tables.collected_outcome[t],
        )

    def _offer(self, action: str, i: int, kind: str, arg: str, tool: int = -1) -> StepResult:
        """Give a click / tool / text to item ``i``; fire the transition it completes.

        ``arg`` is what the item's waits are indexed by: "" for a click, the tool's name, or the
        input text normalized. Marking the tool used and releasing it are written out here
        rather than called: this is the body of most successful steps.
        """
        tables = self._tables
        if tables.past_possible:
            saved = self.snapshot()  # (see below: a step that would show a state past the last)
        if not self.item_interact[i]:
            # The original engine refuses these outright; nothing changes.
            return StepResult(action, False, True, "", (), 0, 0, False, tables.stuck_outcome[i])
        if tool >= 0:
            tool_state = self.tool_state[tool]
            target = tables.item_names[i]
            if not self._uses_left(tool, target):  # not on its list, or struck off it
                return self._fail(action, kind, i, tool)
        # The first transition wait matching the offer, preferring one not yet satisfied. Clicks
        # match any click wait, tools their own name; inputs compare without case or
        # surrounding space (the original's case-sensitive comparison is a documented bug, and
        # models cannot see the expected case).
        matches = tables.wait_index[i][self.item_state[i]][kind].get(arg)
        if matches is None:
            return self._fail(action, kind, i, tool)
        _, _, counted_key, _, fired, ends_game, ops, tracked = matches[0]
        complete = True
        if tracked:
            offered, complete = self._satisfy(matches)
            _, _, counted_key, _, fired, ends_game, ops, _ = offered
        counted = self.counted
        if counted_key in counted:
            gained = 0
            events: list[Event] = []
        else:
            counted.add(counted_key)
            self.key_steps += 1
            gained = 1
            events = [tables.item_key_step[i]]
        if tool >= 0:
            used_key = (tool, tool_state)
            used = self.used.get(used_key)
            if used is None:
                self.used[used_key] = [target]
            else:
                used.append(target)
        if not complete:
            if tool >= 0:
                self._release_if_spent(tool, events)
            return StepResult(
                action, True, False, "", tuple(events), gained, 0, False, tables.partial_outcome[i]
            )
        # The original engine's rule: a tool spent in its last state leaves the bag before the
        # triggers fire; one spent in an earlier state stays, and a trigger may move it on.
        if tool >= 0:
            self._release_if_spent(tool, events)
        tools_before = self.tools_collected
        if ops and tables.past_possible:
            try:
                self._fire(i, ops, events)
            except PastStateError as exc:
                # A state that does not exist would be shown: the step ends with that error
                # and changes nothing (the original engine failed there).
                self.restore(saved)
                broken = Outcome("broken_game", kind, (), str(exc))
                return StepResult(action, False, True, "", (), 0, 0, False, broken)
        elif ops:
            self._fire(i, ops, events)
        if ends_game:
            self.ended = True
            events.append(_GAME_END_EVENT)
        return StepResult(
            action, True, False, "", tuple(events), gained,
            self.tools_collected - tools_before, ends_game, fired,
        )

    def _satisfy(self, matches: tuple[_OfferedWait, ...]) -> tuple[_OfferedWait, bool]:
        """Note the wait an offer meets in ``satisfied``: the first of ``matches`` not yet
        satisfied, else the first. Returns it, and whether its transition now has all it
        waits for."""
        satisfied = self.satisfied
        offered = matches[0]
        done = satisfied.get(offered.satisfied_key)
        if done is not None and offered.wait in done:
            for other in matches[1:]:
                other_done = satisfied.get(other.satisfied_key)
                if other_done is None or other.wait not in other_done:
                    offered, done = other, other_done
                    break
        if done is None:
            done = satisfied[offered.satisfied_key] = set()
        done.add(offered.wait)
        return offered, len(done) >= offered.waits

    def _fail(self, action: str, kind: str, i: int, tool: int = -1) -> StepResult:
        """Nothing happened (see :meth:`refusal`)."""
        return StepResult(action, False, False, "", (), 0, 0, False, self.refusal(kind, i, tool))

    def _uses_left(self, t: int, target: str) -> bool:
        """Whether ``target`` is still on tool ``t``'s list in its current state (listed, and
        not yet struck off as often as it is listed)."""
        s = self.tool_state[t]
        listed = self._tables.tool_target_counts[t][s].get(target, 0)
        if not listed:
            return False
        struck = self.used.get((t, s))
        return struck is None or struck.count(target) < listed

    def _mark_used(self, t: int, target: str) -> None:
        """Tool ``t`` has been used on ``target`` in its current state."""
        key = (t, self.tool_state[t])
        used = self.used.get(key)
        if used is None:
            self.used[key] = [target]
        else:
            used.append(target)

    def _release_if_spent(self, t: int, events: list[Event]) -> None:
        """A tool leaves the bag once it is in its last state and that state has nothing left
        to be used on. A tool spent in an earlier state stays in the bag (as in the original
        engine), where a trigger may still move it to a state with new uses."""
        if self.tool_where[t] != _IN_BAG:
            return
        s = self.tool_state[t]
        if s + 1 < len(self.defn.tools[t].states):
            return
        used = self.used.get((t, s))
        # (every use was checked against the list, so the list is used up when as many uses
        # as it has entries were made)
        if len(used or ()) >= len(self.defn.tools[t].states[s].apply_to):
            self._release(t, events)

    def _release(self, t: int, events: list[Event]) -> None:
        """Tool ``t`` leaves the bag, used up."""
        self.tool_where[t] = _GONE
        position = self.bag.index(t)
        del self.bag[position]
        self.watcher.bag_removed(position)
        events.append(self._tables.tool_used[t])

    def _craft(self, a: int, b: int) -> StepResult:
        d = self.defn
        action = f"craft({d.tools[a].name}, {d.tools[b].name})"
        if a == b:
            same = Outcome("craft_same", "craft", (d.tools[a].name,))
            return StepResult(action, False, False, "", (), 0, 0, False, same)
        for src, dst in ((a, b), (b, a)):
            dst_state = d.tools[dst].states[self.tool_state[dst]]
            src_name, dst_name = d.tools[src].name, d.tools[dst].name
            if src_name in dst_state.wait_for and self._uses_left(src, dst_name):
                shown = (self.tool_name(src), self.tool_name(dst))  # the names the player saw
                s = self.tool_state[dst]
                wi = dst_state.wait_for.index(src_name)
                key = (1, dst, s, 0)
                done = self.satisfied.setdefault(key, set())
                done.add(wi)
                events = [self._tables.tool_crafted[dst]]
                self._mark_used(src, dst_name)
                self._release_if_spent(src, events)
                gained = 0
                if (1, dst, s, 0, wi) not in self.counted:
                    self.counted.add((1, dst, s, 0, wi))
                    self.key_steps += 1
                    gained = 1
                    events.insert(0, self._tables.tool_key_step[dst])
                if len(done) >= len(dst_state.wait_for) and s + 1 < len(d.tools[dst].states):
                    self.tool_state[dst] = s + 1
                    self.watcher.bag_changed()
                made = self.tool_name(dst)  # a product with a name of its own: named too
                crafted = Outcome("crafted", "craft", shown + ((made,) if made not in shown
                                                              else ()))
                return StepResult(action, True, False, "", tuple(events), gained, 0, False, crafted)
        # a tool's own refusal (our format: "... will go with one thing here"), first part first
        why = next((x for x in (d.tools[t].states[self.tool_state[t]].neg_reward
                                for t in (a, b)) if x), "")
        mismatch = Outcome("craft_mismatch", "craft", (d.tools[a].name, d.tools[b].name), why)
        return StepResult(action, False, False, "", (), 0, 0, False, mismatch)

    # ------------------------------------------------------------------ triggers
    def _fire(self, i: int, ops: tuple[_Op, ...], events: list[Event]) -> None:
        """Apply the compiled triggers of a transition of item ``i`` (see ``_RuleTables``), telling
        the screen what changed (see ``ScreenCache``). Once a state past the last is in play,
        the rest goes through :meth:`_fire_past`, and the step is checked at the end."""
        screen = self.watcher
        item_scene = self._tables.item_scene
        past: list[tuple[str, int]] = []  # (operation, target) set to a state past the last
        for op, target, value, event in ops:
            if past:
                # A state past the last is in play: the screen is built again when next shown
                # (the line of such a state does not exist).
                self._fire_past(op, target, value, event, i, events, past)
            elif op in (_OP_ITEM_STATE, _OP_ITEM_INTERACT):
                if op == _OP_ITEM_STATE:
                    self.item_state[target] = value
                else:
                    self.item_interact[target] = value
                screen.item_changed(self, target, item_scene[target])
                events.append(event)
            elif op == _OP_TOOL_VISIBLE:
                if value and self.tool_state[target] >= len(self.defn.tools[target].states):
                    self._fire_past(op, target, value, event, i, events, past)
                    continue
                self.tool_visible[target] = value
                screen.tool_changed(self, target)
            elif op == _OP_SCENE_VISIBLE:
                if value and not self.scene_visible[target]:
                    events.append(event)
                if self.scene_visible[target] != value:
                    self.scene_visible[target] = value
                    screen.scene_visibility_changed(target)
            elif op == _OP_ITEM_VISIBLE:
                if value and self.item_state[target] >= len(self.defn.items[target].states):
                    self._fire_past(op, target, value, event, i, events, past)  # shown past?
                    continue
                self.item_visible[target] = value
                screen.item_changed(self, target, item_scene[target])
                events.append(event)
            elif op == _OP_BECOME_TOOL:
                if target >= 0 and self.tool_state[target] >= len(self.defn.tools[target].states):
                    self._fire_past(op, target, value, event, i, events, past)
                    continue
                self.item_present[i] = False
                screen.item_changed(self, i, item_scene[i])
                if target >= 0 and self.tool_where[target] == _IN_SCENE:
                    self._collect(target)
                    events.append(event)
            elif op == _OP_TOOL_STATE:
                self.tool_state[target] = value
                screen.bag_changed()  # a tool's state shows only in the bag
            elif op == _OP_ITEM_TOUCH:
                events.append(event)
            elif op == _OP_BROKEN:
                raise BrokenGameError(value)
            else:  # a state past the last
                self._fire_past(op, target, value, event, i, events, past)
        if past:
            self._check_past(past)

    def _fire_past(
        self, op: str, target: int, value: Any, event: Any, i: int, events: list[Event],
        past: list[tuple[str, int]],
    ) -> None:
        """One operation of a transition that sets a state past the last: the state lists
        change as in :meth:`_fire`, the screen is forgotten, and the targets to check noted."""
        if op in (_OP_ITEM_STATE_PAST, _OP_ITEM_STATE):
            self.item_state[target] = value
            past.append((_OP_ITEM_STATE_PAST, target))
            events.append(event)
        elif op in (_OP_TOOL_STATE_PAST, _OP_TOOL_STATE):
            self.tool_state[target] = value
            past.append((_OP_TOOL_STATE_PAST, target))
        elif op == _OP_ITEM_VISIBLE:
            self.item_visible[target] = value
            past.append((_OP_ITEM_STATE_PAST, target))
            events.append(event)
        elif op == _OP_ITEM_INTERACT:
            self.item_interact[target] = value
            events.append(event)
        elif op == _OP_TOOL_VISIBLE:
            self.tool_visible[target] = value
            past.append((_OP_TOOL_STATE_PAST, target))
        elif op == _OP_SCENE_VISIBLE:
            if value and not self.scene_visible[target]:
                events.append(event)
            self.scene_visible[target] = value
        elif op == _OP_BECOME_TOOL:
            self.item_present[i] = False
            if target >= 0 and self.tool_where[target] == _IN_SCENE:
                past.append((_OP_TOOL_STATE_PAST, target))
                self.tool_where[target] = _IN_BAG
                self.bag.append(target)
                self.tools_collected += 1
                events.append(event)
        elif op == _OP_ITEM_TOUCH:
            events.append(event)
        elif op == _OP_BROKEN:
            raise BrokenGameError(value)
        self.watcher.forget()

    def _check_past(self, past: list[tuple[str, int]]) -> None:
        """Raise :class:`BrokenGameError` if a thing a transition changed is now shown (or can
        be acted on) in a state past its last one: there is no text for that state. The
        original engine fails there too; while the thing is hidden, nothing fails."""
        d = self.defn
        for op, target in past:
            if op == _OP_ITEM_STATE_PAST:
                it = d.items[target]
                state = self.item_state[target]
                if state < len(it.states) or not (
                    self.item_visible[target] and self.item_present[target]
                ):
                    continue
                what = f"item {it.name!r} (scene {d.scenes[it.scene].name!r})"
                count = len(it.states)
            else:
                tool = d.tools[target]
                state = self.tool_state[target]
                where = self.tool_where[target]
                if state < len(tool.states) or not (
                    where == _IN_BAG or (where == _IN_SCENE and self.tool_visible[target])
                ):
                    continue
                what = f"tool {tool.name!r}"
                count = len(tool.states)
            raise PastStateError(
                f"This step cannot be played: it would show {what} in state {state}, which "
                f"it does not have (states 0-{count - 1}); a trigger of the game file "
                f"{d.source or d.setting} sets it past its last state. Nothing was changed."
            )

    # ------------------------------------------------------------------ paths
    def path_to(self, scene: str, *, only_visible: bool = True) -> list[str] | None:
        """Shortest list of scene names from the first scene to ``scene`` (breadth first)."""
        d = self.defn
        goal = d.scene_index.get(scene)
        if goal is None:
            return None
        prev: dict[int, int] = {0: -1}
        queue = deque([0])
        while queue:
            cur = queue.popleft()
            if cur == goal:
                break
            for link in d.scenes[cur].links:
                nxt = d.scene_index.get(link.target)
                if nxt is None or nxt in prev:
                    continue
                if only_visible and not self.scene_visible[nxt]:
                    continue
                prev[nxt] = cur
                queue.append(nxt)
        if goal not in prev:
            return None
        out = []
        node = goal
        while node != -1:
            out.append(d.scenes[node].name)
            node = prev[node]
        return out[::-1]
