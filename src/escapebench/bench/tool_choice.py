"""The tool-choice score: did the agent choose its tool by understanding, or by trying?

The one place the score is computed, from an episode's step records alone (the ``steps.jsonl``
lines, as dicts or typed records): the harness counts it live (:class:`EpisodeMetrics` feeds
every record to a :class:`ToolChoiceCounter`), a resumed episode counts it again from its log,
and any tool can score a finished episode folder (:func:`score_episode_folder`) or a whole
result folder (:func:`score_run_folder`). docs/metrics.md defines it with a worked example.

**A tool solve** is a key step the agent made itself (no hint showing, not a hinted action
played for it) by applying a tool to an item, or by crafting two tools. The first apply solve
of a tool crafted under a hint that named its craft is not the agent's own either: the hint
gave the product away with its craft (rule version 3; version 2 counted it). For each:

* ``tries``: the agent's failed attempts at that solve since the solving tool took its
  solving form (was collected, or last crafted into) -- for a craft, since the later of the two
  parts did. For an apply: the failed applies of any tool to that item in its current state
  (an item that changes state starts afresh, and an item that waits for several tools starts
  a new count after each of them); for a craft: the failed crafts involving one of
  the two parts.
* ``candidates`` (k): what a blind player could have picked from. For an apply: the tools
  held at the start of some step taken in the item's scene (the scene of the solve) from then
  until the solve, less those already tried on that item in that state (the solving tool always
  counts). A blind player standing at the obstacle picks among the tools in its bag *there*: a
  key that came and was used up while the player was elsewhere was never a tool it could have
  tried on the item, so it is no candidate. (Rule version 1 counted every tool held at any
  time from then until the solve: when tools are held long before their obstacle is seen,
  every tool that came and went in between counted, and even a blind player scored above 0.)
  A step record's ``scene`` is where its action was played; records say nothing of when a
  hidden item came into view, so every step in its scene counts. Every step log escapebench
  has written names the scene of each step; records without one (made by hand or by another
  tool) all count as in the scene, which gives the version-1 count.
  For a craft (crafting needs no place): the pairs of a part with a tool held at some time
  from then until the solve, less the pairs already tried. The parts are held throughout that
  time, so each such tool was held together with them at some moment: the version-1 rule was
  already that, and crafts score as before.
* ``chance`` = (k - 1) / 2: the expected failures of a blind player who picks uniformly among
  the k candidates and never repeats a failure.
* ``choice`` = 1 - tries / chance, clipped to [-1, 1]: 1 for a first try, 0 for a blind pick
  without repetition, -1 for a memoryless random pick (expected k - 1 failures), below 0 for
  repeating failures. A solve with k < 2 had nothing to choose between: it is counted in
  ``solves`` but has no choice and stays out of the means.

**An episode's score** (and each verb's, and the creative steps') is :func:`pooled_choice`:
1 - (sum of tries) / (sum of chance) over its solves with k >= 2, clipped to [-1, 1], which
keeps the three anchors in expectation (see its docstring for why not the plain mean).

Names are compared as the engine compares them (:func:`normalize_name`), so the score is the
same for both protocols (the original protocol logs the answer's own spelling). The bag is
followed through the records' events (``tool_collected``, ``tool_crafted``, ``tool_used``)
and an item's state through its ``item_changed`` events.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from escapebench.bench.records import StepRecord
from escapebench.engine.actions import extract_call, normalize_name, parse_call
from escapebench.engine.model import GameDefinition

__all__ = [
    "TOOL_CHOICE_VERSION",
    "CreativeKey",
    "ToolChoice",
    "ToolChoiceCounter",
    "ToolSolve",
    "chance_of",
    "choice_of",
    "creative_keys",
    "pooled_choice",
    "score_episode_folder",
    "score_records",
    "score_run_folder",
    "tool_choice_version",
]

TOOL_CHOICE_VERSION = 3
"""The rule: 3 is 2 and an apply of a crafted tool that follows a hint naming its craft counts
as hinted (2 counted it as the player's own solve); 2 counts as an apply's candidates the
tools held in the item's scene, 1 every tool held since the solving tool came.
:class:`ToolChoiceCounter` counts by any of them; a result says which through its ``version``
(:func:`tool_choice_version`)."""


def tool_choice_version(result_version: int) -> int:
    """The tool-choice rule a result of ``result_version`` was scored by (results of version
    1 by rule 1, of version 2 by rule 2, later ones by rule 3)."""
    return max(1, min(result_version, TOOL_CHOICE_VERSION))

CreativeKey = tuple[str, str, str]
"""A creative step: ``("apply", tool, item)`` or ``("craft", tool, tool)`` (the two tools in
sorted order), names normalized."""


def chance_of(candidates: int) -> float:
    """Expected failed attempts of a blind player without repetition among ``candidates``."""
    return max(candidates - 1, 0) / 2


def choice_of(tries: int, candidates: int) -> float | None:
    """1 - tries / chance, clipped to [-1, 1]; None when there was nothing to choose (k < 2)."""
    chance = chance_of(candidates)
    if chance <= 0:
        return None
    return max(-1.0, min(1.0, 1.0 - tries / chance))


@dataclass(frozen=True)
class ToolSolve:
    """One tool solve of an episode (see the module docstring)."""

    step: int
    verb: str  # "apply" or "craft"
    tool: str  # the solving tool (a craft: the part that arrived last)
    target: str  # the item (apply) or the other tool (craft)
    tries: int
    candidates: int
    creative: bool = False

    @property
    def chance(self) -> float:
        return chance_of(self.candidates)

    @property
    def choice(self) -> float | None:
        return choice_of(self.tries, self.candidates)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def pooled_choice(solves: Iterable[ToolSolve]) -> float | None:
    """1 - (sum of tries) / (sum of chance) over the solves that had a choice (k >= 2),
    clipped to [-1, 1]; None when none had. This is the mean of the solves' unclipped
    choices weighted by their chance, so the anchors hold for a group as they do for one
    solve: a blind player scores 0 and a memoryless random one -1 in expectation (a mean of
    clipped per-solve choices would not: a memoryless player's long runs of failures are cut
    at -1 while its lucky first tries count 1 in full, and it would average well above -1)."""
    tries = chance = 0.0
    for s in solves:
        if s.candidates >= 2:
            tries += s.tries
            chance += s.chance
    if chance <= 0:
        return None
    return max(-1.0, min(1.0, 1.0 - tries / chance))


@dataclass(frozen=True)
class ToolChoice:
    """An episode's tool-choice numbers (the ``results.csv`` columns of the same names)."""

    tool_solves: int = 0
    tool_tries: int = 0
    tool_chance: float = 0.0
    tool_choice: float | None = None  # pooled_choice over all solves
    apply_choice: float | None = None
    craft_choice: float | None = None
    creative_solves: int = 0
    creative_choice: float | None = None

    @classmethod
    def of(cls, solves: Iterable[ToolSolve]) -> ToolChoice:
        solves = list(solves)

        def mean(keep: Any) -> float | None:
            return pooled_choice(s for s in solves if keep(s))

        return cls(
            tool_solves=len(solves),
            tool_tries=sum(s.tries for s in solves),
            tool_chance=sum(s.chance for s in solves),
            tool_choice=mean(lambda s: True),
            apply_choice=mean(lambda s: s.verb == "apply"),
            craft_choice=mean(lambda s: s.verb == "craft"),
            creative_solves=sum(s.creative for s in solves),
            creative_choice=mean(lambda s: s.creative),
        )


def _get(record: Any, key: str, default: Any = None) -> Any:
    """A field of a step record: a dict (``steps.jsonl``) or a typed record."""
    if isinstance(record, Mapping):
        return record.get(key, default)
    return getattr(record, key, default)


def _events(record: Any) -> list[tuple[str, str]]:
    out = []
    for e in _get(record, "events") or ():
        kind = _get(e, "kind", "")
        out.append((str(kind), normalize_name(str(_get(e, "name", "") or ""))))
    return out


def creative_keys(defn: GameDefinition) -> frozenset[CreativeKey]:
    """The tool solves ``defn`` marks as creative: every ``apply, <tool>`` wait of a transition
    marked ``creative: true`` (or the tools its ``creative`` list names), and every craft into
    a tool state marked ``creative``."""
    keys: set[CreativeKey] = set()
    for item in defn.items:
        for state in item.states:
            for tr in state.transitions:
                marked = getattr(tr, "creative", False)
                if marked:
                    for w in tr.waits:
                        if w.kind == "apply" and (marked is True or w.arg in marked):
                            keys.add(("apply", normalize_name(w.arg), normalize_name(item.name)))
    for tool in defn.tools:
        for tstate in tool.states:
            if getattr(tstate, "creative", False):
                for part in tstate.wait_for:
                    a, b = sorted((normalize_name(part), normalize_name(tool.name)))
                    keys.add(("craft", a, b))
    return frozenset(keys)


class ToolChoiceCounter:
    """Counts an episode's tool solves, one step record at a time (in step order).

    ``creative`` holds the game's creative steps (:func:`creative_keys`). :meth:`add` returns
    the solve a record made, if any; :attr:`solves` holds them all and :meth:`result` sums
    them up. ``version`` 1 counts candidates as results of :data:`TOOL_CHOICE_VERSION` 1 did
    (every step as if in the item's scene), and 1 and 2 count the apply of a crafted tool that
    follows a hint for its craft as the player's own, to check results written so.
    """

    def __init__(self, creative: Iterable[CreativeKey] = (),
                 version: int = TOOL_CHOICE_VERSION) -> None:
        if version not in (1, 2, TOOL_CHOICE_VERSION):
            raise ValueError(f"unknown tool-choice version {version!r}")
        self.creative = frozenset(creative)
        self.version = version
        self.solves: list[ToolSolve] = []
        self._tools: set[str] = set()  # every tool seen in the bag (to read actions)
        # tool -> [collected step, left step or None], for every stay in the bag
        self._stays: dict[str, list[list[int | None]]] = {}
        self._arrived: dict[str, int] = {}  # tool -> step it took its current form
        self._item_since: dict[str, int] = {}  # item -> step it entered its current state
        self._item_solved: dict[str, int] = {}  # item -> step of its latest apply solve
        self._visits: dict[str, list[int]] = {}  # scene -> the steps taken there, ascending
        self._failed_applies: dict[str, list[tuple[int, str]]] = {}  # item -> (step, tool)
        self._failed_crafts: list[tuple[int, frozenset[str]]] = []
        # rule 3: tools crafted under a hint that named their craft; the next apply solve
        # of such a tool counts as hinted (the hint gave the product away with its craft)
        self._hinted_crafts: set[str] = set()

    # ------------------------------------------------------------------ reading actions
    def _split(self, arg_text: str, both_tools: bool) -> tuple[str, str] | None:
        """The two names of an apply (tool, item) or craft (tool, tool): the cut at a comma
        whose left part is a known tool (and right part too, for a craft)."""
        cuts = [i for i, ch in enumerate(arg_text) if ch == ","]
        for i in reversed(cuts):
            left = normalize_name(arg_text[:i])
            right = normalize_name(arg_text[i + 1:])
            if left in self._tools and (not both_tools or right in self._tools):
                return left, right
        if cuts:  # an unknown tool: the last comma (what the engine would try first)
            i = cuts[-1]
            return normalize_name(arg_text[:i]), normalize_name(arg_text[i + 1:])
        return None

    def _parse(self, record: Any) -> tuple[str, str, str] | None:
        """The verb and two names of a record's apply or craft: the call a live record
        played, else its logged action read once."""
        if isinstance(record, StepRecord):
            call = record.played_call
        else:
            action = str(_get(record, "action", "") or "")
            call = parse_call(action) or extract_call(action)
        if call is None or call.verb not in ("apply", "craft"):
            return None
        pair = self._split(call.arg_text, call.verb == "craft")
        if pair is None:
            return None
        return call.verb, pair[0], pair[1]

    # ------------------------------------------------------------------ the bag
    def _held_between(self, since: int, step: int) -> set[str]:
        """The tools in the bag at some time after step ``since`` and before step ``step``."""
        held = set()
        for tool, stays in self._stays.items():
            for came, left in stays:
                assert came is not None
                if came < step and (left is None or left > since):
                    held.add(tool)
                    break
        return held

    def _held_in_scene(self, scene: str, since: int, step: int) -> set[str]:
        """The tools in the bag at the start of some step taken in ``scene`` after step
        ``since`` and up to step ``step`` (the bag at the start of step t: collected before
        it, and not used up before it)."""
        visits = self._visits.get(scene, [])
        held = set()
        for tool, stays in self._stays.items():
            for came, left in stays:
                assert came is not None
                # the first step in the scene after both ``since`` and the tool's arrival
                k = bisect.bisect_right(visits, max(since, came))
                if k < len(visits) and visits[k] <= step and (left is None or visits[k] <= left):
                    held.add(tool)
                    break
        return held

    # ------------------------------------------------------------------ counting
    def add(self, record: Any) -> ToolSolve | None:
        """Account for one step record; the tool solve it made, if any."""
        step = int(_get(record, "step", 0))
        scene = str(_get(record, "scene", "") or "") if self.version > 1 else ""
        self._visits.setdefault(scene, []).append(step)  # the player stood there, bag in hand
        if _get(record, "error"):
            return None  # changed nothing (a name not on screen, a malformed answer)
        events = _events(record)
        parsed = self._parse(record)
        solve = None
        if parsed is not None:
            verb, a, b = parsed
            key_steps = {name for kind, name in events if kind == "key_step"}
            if verb == "apply":
                if b in key_steps:
                    solve = self._apply_solve(step, scene, a, b)
                elif not _get(record, "success"):
                    self._failed_applies.setdefault(b, []).append((step, a))
            elif key_steps & {a, b}:
                solve = self._craft_solve(step, a, b)
            elif not _get(record, "success"):
                self._failed_crafts.append((step, frozenset((a, b))))
        hint = _get(record, "hint")
        given = False
        if solve is not None and solve.verb == "apply" and solve.tool in self._hinted_crafts:
            self._hinted_crafts.discard(solve.tool)
            given = self.version >= 3
        if solve is not None and hint is None and not given:
            self.solves.append(solve)
        else:
            solve = None
        if hint is not None:
            self._note_hinted_craft(hint, events)
        self._update(step, events)
        return solve

    def _note_hinted_craft(self, hint: Any, events: list[tuple[str, str]]) -> None:
        """Remember the tools a step crafted while a hint naming that craft was in force."""
        call = parse_call(str(_get(hint, "action", "") or ""))
        if call is None or call.verb != "craft":
            return
        named = {normalize_name(p) for p in call.arg_text.split(",")}
        pair = self._split(call.arg_text, True)
        if pair is not None:
            named |= set(pair)
        for kind, name in events:
            if kind == "tool_crafted" and name in named:
                self._hinted_crafts.add(name)

    def _update(self, step: int, events: list[tuple[str, str]]) -> None:
        for kind, name in events:
            if kind == "tool_collected":
                self._tools.add(name)
                self._stays.setdefault(name, []).append([step, None])
                self._arrived[name] = step
            elif kind == "tool_crafted":
                self._arrived[name] = step  # a new form: what it can do starts now
            elif kind == "tool_used":
                stays = self._stays.get(name)
                if stays and stays[-1][1] is None:
                    stays[-1][1] = step
            elif kind == "item_changed":
                self._item_since[name] = step
                self._failed_applies.pop(name, None)

    def _apply_solve(self, step: int, scene: str, tool: str, item: str) -> ToolSolve:
        since = max(self._arrived.get(tool, -1), self._item_since.get(item, -1),
                    self._item_solved.get(item, -1))
        self._item_solved[item] = step
        failed = self._failed_applies.get(item, [])
        ruled_out = {t for s, t in failed if s <= since} - {tool}
        candidates = (self._held_in_scene(scene, since, step) | {tool}) - ruled_out
        tries = sum(1 for s, _ in failed if s > since)
        return ToolSolve(step, "apply", tool, item, tries, len(candidates),
                         ("apply", tool, item) in self.creative)

    def _craft_solve(self, step: int, a: str, b: str) -> ToolSolve:
        since = max(self._arrived.get(a, -1), self._arrived.get(b, -1))
        last, other = (a, b) if self._arrived.get(a, -1) >= self._arrived.get(b, -1) else (b, a)
        parts = {a, b}
        bag = self._held_between(since, step) | parts
        pairs = {frozenset((p, t)) for p in parts for t in bag if t != p}
        ruled_out = {pair for s, pair in self._failed_crafts if s <= since}
        candidates = (pairs - ruled_out) | {frozenset(parts)}
        tries = sum(1 for s, pair in self._failed_crafts if s > since and pair & parts)
        first, second = sorted(parts)
        return ToolSolve(step, "craft", last, other, tries, len(candidates),
                         ("craft", first, second) in self.creative)

    def result(self) -> ToolChoice:
        return ToolChoice.of(self.solves)


def score_records(records: Iterable[Any], creative: Iterable[CreativeKey] = (),
                  version: int = TOOL_CHOICE_VERSION) -> tuple[ToolChoice, list[ToolSolve]]:
    """The tool-choice numbers and the solves of an episode's step records (in step order),
    counted by the rule of ``version`` (see :data:`TOOL_CHOICE_VERSION`)."""
    counter = ToolChoiceCounter(creative, version)
    for record in records:
        counter.add(record)
    return counter.result(), list(counter.solves)


def score_episode_folder(folder: Path, creative: Iterable[CreativeKey] = ()
                         ) -> tuple[ToolChoice, list[ToolSolve]]:
    """Score an episode folder's step log (``steps.jsonl``, plus steps only its checkpoint
    journal holds yet). Creative solves need the game's marks: pass ``creative_keys(defn)``."""
    from escapebench.bench.records import read_episode_steps

    return score_records(read_episode_steps(folder), creative)


def score_run_folder(folder: Path) -> dict[str, ToolChoice]:
    """Every episode of a result folder, by episode id, by this escapebench's rule. Creative
    numbers come from the episode's ``result.json`` when it has them and was scored by the same
    rule (the game's marks are known only to the run; a result of an older rule keeps none);
    the rest is counted from the step logs."""
    from escapebench.bench.records import EPISODES_DIR, RESULT_FILE

    out: dict[str, ToolChoice] = {}
    root = Path(folder) / EPISODES_DIR
    if not root.is_dir():
        return out
    for ep in sorted(p for p in root.iterdir() if p.is_dir()):
        score, _ = score_episode_folder(ep)
        result = ep / RESULT_FILE
        if result.is_file():
            try:
                data = json.loads(result.read_text(encoding="utf-8"))
                if (isinstance(data, dict) and "creative_solves" in data
                        and tool_choice_version(int(data.get("version", 1)))
                        == TOOL_CHOICE_VERSION):
                    score = ToolChoice(**{**asdict(score),
                                          "creative_solves": int(data["creative_solves"]),
                                          "creative_choice": data.get("creative_choice")})
            except (OSError, ValueError, TypeError):
                pass
        out[ep.name] = score
    return out

