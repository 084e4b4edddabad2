"""The reference chain of a game: where its steps are written, whether the names they use
exist, and replaying it.

:func:`replay_reference` plays the reference as the hint system does (teleporting to each
step's scene) to ``GAME END`` with full progress, and counts the oracle steps (reference
actions plus the shortest walks between them). Each step's place is its line in the game file
(our format) or in the ``key_log`` file it came from (the original layout).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from escapebench.engine.actions import (
    comma_cuts,
    most_commas,
    normalize_name,
    parse_call,
    split_candidates,
)
from escapebench.engine.env import EscapeGame
from escapebench.engine.model import GAME_END_MARK, BrokenGameError, GameDefinition
from escapebench.games.issues import CheckIssue, _Locator, _suggest
from escapebench.games.loading import ORIGINAL_NAME
from escapebench.protocols.escapebench.feedback import feedback_text


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


# ------------------------------------------------------------------ reference actions
class _RefPlace:
    """Where a reference step is written: its file, its line and its label ("reference step
    3"). Given a locator and a YAML path instead of a line, the line is looked up only when
    an issue asks for it (a clean file is then never composed, see ``_Locator``)."""

    __slots__ = ("_line", "_locator", "_path", "label", "source")

    def __init__(self, source: str, line: int | None, label: str,
                 locator: _Locator | None = None, path: tuple[str | int, ...] = ()) -> None:
        self.source = source
        self.label = label
        self._line = line
        self._locator = locator
        self._path = path

    @property
    def line(self) -> int | None:
        if self._locator is not None:
            self._line, self._locator = self._locator.line(self._path), None
        return self._line


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
        _RefPlace(locator.source, None, f"reference step {k + 1}", locator,
                  ("reference", k, "action"))
        for k in range(n)
    ]


@dataclass(frozen=True, slots=True)
class _Names:
    """A game's names as the reference check compares them, worked out once per setting."""

    item_names: list[str]
    tool_names: list[str]
    items: set[str]
    tools: set[str]
    places: list[str]
    place_keys: set[str]
    tool_commas: int
    item_commas: int

    @classmethod
    def of(cls, defn: GameDefinition) -> _Names:
        item_names = [it.name for it in defn.items]
        tool_names = [t.name for t in defn.tools]
        items = {normalize_name(n) for n in item_names}
        tools = {normalize_name(n) for n in tool_names}
        places = [s.name for s in defn.scenes] + [ln.label for s in defn.scenes for ln in s.links]
        return cls(item_names, tool_names, items, tools, places,
                   {normalize_name(p) for p in places}, most_commas(tools), most_commas(items))


def _names_exist(defn: GameDefinition, verb: str, text: str,
                 names: _Names | None = None) -> str | None:
    """Why a reference action's names cannot exist anywhere in the game (None when fine).
    ``names`` is :meth:`_Names.of` ``defn``, when the caller checks many steps."""
    n = names if names is not None else _Names.of(defn)
    item_names, tool_names, items, tools = n.item_names, n.tool_names, n.items, n.tools

    def missing(what: str, name: str, known: list[str]) -> str:
        return f"no {what} {name.strip()!r} in this game{_suggest(name.strip(), known)}"

    if verb == "move":
        if normalize_name(text) in n.place_keys:
            return None
        return missing("scene", text, n.places)
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
    left_commas = None if verb == "input" else n.tool_commas
    right_commas = n.tool_commas if verb == "craft" else n.item_commas
    for left, right in split_candidates(
        text, left_commas=left_commas, right_commas=right_commas
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
    names = _Names.of(defn)
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
        problem = _names_exist(defn, call.verb, call.arg_text, names)
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
                f"{what} fails: {feedback_text(result.outcome)}", place.source, place.line,
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
