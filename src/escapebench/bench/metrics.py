"""Per-episode metrics (paper section 5.1) and the episode's result file.

* :class:`EpisodeMetrics` accumulates one episode from its step records (the dicts written to
  ``steps.jsonl``), live or when an interrupted episode is resumed from its log, and produces an
  :class:`EpisodeResult`.
* :func:`write_result_json` and :func:`read_result_json` write and read its ``result.json``
  (:func:`atomic_write_text`: readers see the old file or the new one, never half).

Groups of results are averaged in :mod:`escapebench.bench.summaries` (Table 3, with intervals
and paired comparisons) and shown in :mod:`escapebench.bench.result_tables` (the terminal table
and the CSV / Markdown result files).

Fractions are stored as fractions (0..1) everywhere and shown as percentages only in tables.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from escapebench.bench.costs import Prices
from escapebench.bench.hints import ReferenceEffect
from escapebench.bench.records import StepRecord
from escapebench.bench.tool_choice import ToolChoiceCounter, creative_keys
from escapebench.engine.actions import VERBS
from escapebench.engine.model import GameDefinition

RESULT_VERSION = 3
"""The version of ``result.json``'s numbers. 3: the tool-choice score counts the apply of a
crafted tool that follows a hint naming its craft as hinted, not as the player's own solve
(results of 2 counted it); 2: it counts as an apply's candidates only the tools held in the
item's scene (bench/tool_choice.py); results of 1 were scored by the earlier rule (every tool
held since the solving tool came). Two results of
different versions are never averaged, ranked or compared together (their rows' Covers say
``results v1``); ``escapebench verify`` checks each by its own version's rule."""
DEFAULT_PROTOCOL = "escapebench"
"""The protocol of a result that does not name one (results written before protocols)."""
DEFAULT_ACTION_FORMAT = "text"
"""How answers give actions, for results that do not say (plain text, before tool calls)."""

#: Columns of ``results.csv``, in order (the shared result-folder layout).
RESULT_COLUMNS: tuple[str, ...] = (
    "episode_id",
    "setting",
    "game",
    "difficulty",
    "agent",
    "model",
    "player",
    "repeat",
    "escaped",
    "hints_used",
    "total_steps",
    "early_exit_progress",
    "tool_hints",
    "tool_hint_share",
    "key_step_hints",
    "key_step_hint_share",
    "progress",
    "model_calls",
    "tokens_in",
    "tokens_cached",
    "tokens_out",
    "retries",
    "wall_time_s",
    "prompt_version",
    "protocol",
    "protocol_version",
    "action_format",
    "max_steps",
    "patience",
    "help_steps",
    "tool_solves",
    "tool_tries",
    "tool_chance",
    "tool_choice",
    "apply_choice",
    "craft_choice",
    "creative_solves",
    "creative_choice",
)

#: Result fields and ``results.csv`` columns added with the tool-choice score: a result written
#: before them lacks them (``escapebench verify`` accepts such a folder as it was written).
TOOL_CHOICE_FIELDS: tuple[str, ...] = (
    "tool_solves", "tool_tries", "tool_chance", "tool_choice", "apply_choice", "craft_choice",
    "creative_solves", "creative_choice", "tool_solve_log",
)

#: Columns that describe the transport or the clock, not the play: they may differ between
#: two runs whose results are the same (retries after server faults, wall time).
ACCOUNTING_COLUMNS: frozenset[str] = frozenset({
    "retries", "wall_time_s", "tokens_cached", "sent_tokens_in", "sent_tokens_cached",
    "sent_tokens_out",
})
"""(``tokens_cached`` depends on what the server's prefix cache held; the ``sent_tokens_*``
fields of ``result.json`` on which calls the response cache answered. ``cost_usd``, a column
only when priced, depends on both.)"""

_UMASK = os.umask(0o022)
os.umask(_UMASK)  # read the process umask (there is no way to read it without setting it)

KEY_STEP_VERBS: tuple[str, ...] = tuple(v for v in VERBS if v != "move")


@dataclass
class HintRecord:
    """One hint of an episode."""

    step: int  # the step at which it started (0-based)
    index: int  # reference action index
    action: str
    kind: str  # "tool", "key_step" or "other" (a move or no-progress target: neither)
    verb: str
    forced: bool = False  # its action had to be played for the player
    ended_step: int | None = None  # the step at which it ended (None: still open)
    outcome: str = ""  # "completed" or "skipped" (a forced action that no longer applied)


@dataclass
class EpisodeResult:
    """Everything measured about one finished episode (``result.json``)."""

    episode_id: str
    setting: str
    game: str
    difficulty: str
    agent: str
    model: str
    player: str = "agent"  # "agent" for the harness; human play writes "human"
    repeat: int = 0
    escaped: bool = False
    ended_by: str = ""  # "escaped" or "max_steps"
    hints_used: int = 0
    total_steps: int = 0
    early_exit_progress: float = 0.0  # progress when the first hint started (final if none)
    early_exit_units: int = 0  # key steps + tools collected before the first hint
    tool_hints: int = 0
    tool_hint_share: float = 0.0  # tool_hints / total_tools
    key_step_hints: int = 0
    key_step_hint_share: float = 0.0  # key_step_hints / total_key_steps
    progress: float = 0.0
    key_steps: int = 0
    tools_collected: int = 0
    total_key_steps: int = 0
    total_tools: int = 0
    forced_steps: int = 0
    successful_actions: int = 0
    error_actions: int = 0
    model_calls: int = 0
    cached_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0
    """The part of ``tokens_in`` the server read from its prefix cache (where it says)."""
    sent_tokens_in: int | None = None
    """Tokens in, cached and out of the calls sent to the model: the calls answered from
    escapebench's response cache left out, as they cost nothing (None: not recorded,
    results written before; taken as all calls)."""
    sent_tokens_cached: int | None = None
    sent_tokens_out: int | None = None
    retries: int = 0
    wall_time_s: float = 0.0
    prompt_version: str = ""
    max_steps: int = 0
    patience: int | None = None  # hint patience and help steps (None: not recorded)
    help_steps: int | None = None
    protocol: str = DEFAULT_PROTOCOL
    protocol_version: str = ""
    action_format: str = DEFAULT_ACTION_FORMAT
    hints_by_action: dict[str, int] = field(default_factory=dict)
    """Key-step hints per verb (figure 5's numerators)."""
    key_steps_by_action: dict[str, int] = field(default_factory=dict)
    """Key steps of the reference chain per verb (figure 5's denominators)."""
    hint_steps: list[int] = field(default_factory=list)
    hints: list[HintRecord] = field(default_factory=list)
    progress_curve: list[tuple[int, int, int, int]] = field(default_factory=list)
    """(steps taken, key steps, tools, hints) at the start, after every change, and at the end."""
    progress_intervals: list[int] = field(default_factory=list)
    """Steps between consecutive progress events (figure 8), the first from the start."""
    # The tool-choice score against chance (bench/tool_choice.py; docs/metrics.md). A mean is
    # None where the episode had no solve with two candidates or more.
    tool_solves: int = 0
    tool_tries: int = 0
    tool_chance: float = 0.0
    tool_choice: float | None = None
    apply_choice: float | None = None
    craft_choice: float | None = None
    creative_solves: int = 0
    creative_choice: float | None = None
    tool_solve_log: list[dict[str, Any]] = field(default_factory=list)
    """Every tool solve: step, verb, tool, target, tries, candidates, creative (figure 14)."""
    version: int = RESULT_VERSION

    @property
    def total_units(self) -> int:
        return self.total_key_steps + self.total_tools

    def sent_tokens(self) -> tuple[int, int, int]:
        """Tokens (in, cached, out) of the calls sent to the model, which is what costs."""
        if self.sent_tokens_in is None:
            return self.tokens_in, self.tokens_cached, self.tokens_out
        return (self.sent_tokens_in, self.sent_tokens_cached or 0,
                self.sent_tokens_out or 0)

    def cost(self, prices: Prices) -> float:
        """USD spent on this episode's model calls at ``prices``."""
        return prices.cost(*self.sent_tokens())

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        data = asdict(self)
        data["progress_curve"] = [list(p) for p in self.progress_curve]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EpisodeResult:
        """The inverse of :meth:`to_dict`; unknown keys are ignored (newer writers)."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["hints"] = [HintRecord(**h) for h in data.get("hints", [])]
        values["progress_curve"] = [tuple(p) for p in data.get("progress_curve", [])]
        values.setdefault("version", 1)  # every result.json has one; 1 was the first
        return cls(**values)

    def row(self, prices: Prices | None = None) -> dict[str, Any]:
        """The ``results.csv`` row (with ``cost_usd`` when priced)."""
        data = self.to_dict()
        row = {c: data[c] for c in RESULT_COLUMNS}
        if prices is not None:
            row["cost_usd"] = round(self.cost(prices), 6)
        return row


def _reference_key_steps_by_verb(effects: Sequence[ReferenceEffect]) -> dict[str, int]:
    out = {v: 0 for v in KEY_STEP_VERBS}
    for e in effects:
        if e.verb in out:
            out[e.verb] += e.key_steps
    return out


class EpisodeMetrics:
    """Builds an :class:`EpisodeResult` from an episode's step records
    (:class:`~escapebench.bench.records.StepRecord`), one at a time."""

    def __init__(self, defn: GameDefinition, effects: Sequence[ReferenceEffect]) -> None:
        self.defn = defn
        self.effects = tuple(effects)
        self.steps = 0
        self.key_steps = 0
        self.tools = 0
        self.progress = 0.0
        self.escaped = False
        self.hints: list[HintRecord] = []
        self.early_exit: tuple[int, float] | None = None  # (units, progress) at the first hint
        self.forced_steps = 0
        self.successful = 0
        self.errors = 0
        self.model_calls = 0
        self.cached_calls = 0
        self.tokens_in = 0
        self.tokens_out = 0
        self.tokens_cached = 0
        self.sent = [0, 0, 0]  # tokens in, cached, out of the calls sent to the model
        self.sent_calls = 0  # calls sent to the model (not answered by the response cache)
        self.model_wait_s = 0.0  # seconds those calls took (the live display's s/call)
        self.retries = 0
        self.wall_s = 0.0
        self.curve: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)]
        self.intervals: list[int] = []
        self._last_progress_step = 0
        self.tool_choice = ToolChoiceCounter(creative_keys(defn))

    def add(self, record: StepRecord) -> None:
        """Account for one step record (in step order)."""
        hint = record.hint
        if hint is not None:
            if hint.steps_in_help == 0:
                self._start_hint(record.step, hint.index)
            if hint.forced:
                self.forced_steps += 1
                self.hints[-1].forced = True
        self.steps += 1
        key_steps, tools = record.key_steps, record.tools_collected
        changed = key_steps != self.key_steps or tools != self.tools
        self.key_steps, self.tools = key_steps, tools
        self.progress = record.progress
        if record.progressed:
            self.intervals.append(self.steps - self._last_progress_step)
            self._last_progress_step = self.steps
        if record.success:
            self.successful += 1
        if record.error:
            self.errors += 1
        for call in record.calls:
            self.model_calls += 1
            self.cached_calls += bool(call.cached)
            tokens = (call.tokens_in, call.tokens_cached, call.tokens_out)
            self.tokens_in += tokens[0]
            self.tokens_cached += tokens[1]
            self.tokens_out += tokens[2]
            if not call.cached:
                self.sent = [a + b for a, b in zip(self.sent, tokens, strict=True)]
                self.sent_calls += 1
                self.model_wait_s += call.latency_s
            self.retries += call.retries
        self.wall_s += record.wall_s
        if hint is not None and record.hint_done:
            self.hints[-1].ended_step = record.step
            self.hints[-1].outcome = record.hint_done
        if changed:
            self.curve.append((self.steps, key_steps, tools, len(self.hints)))
        if record.game_end:
            self.escaped = True
        self.tool_choice.add(record)

    def _start_hint(self, step: int, index: int) -> None:
        if self.early_exit is None:
            self.early_exit = (self.key_steps + self.tools, self.progress)
        e = self.effects[index]
        self.hints.append(HintRecord(step, index, e.action, e.kind, e.verb))
        # A hint is a point of the curve even when it comes without progress (red dots of
        # the paper's figure 7).
        self.curve.append((self.steps, self.key_steps, self.tools, len(self.hints)))

    def result(
        self,
        *,
        episode_id: str,
        agent: str,
        model: str,
        repeat: int,
        prompt_version: str,
        max_steps: int,
        player: str = "agent",
        action_format: str = "text",
        patience: int | None = None,
        help_steps: int | None = None,
        protocol: str = DEFAULT_PROTOCOL,
        protocol_version: str = "",
    ) -> EpisodeResult:
        """The finished episode's result (``patience`` and ``help_steps``: the hint options
        it was played with)."""
        d = self.defn
        total_key_steps, total_tools = d.total_key_steps, d.total_tools
        if self.early_exit is None:
            early_units, early_progress = self.key_steps + self.tools, self.progress
        else:
            early_units, early_progress = self.early_exit
        tool_hints = sum(h.kind == "tool" for h in self.hints)
        key_step_hints = sum(h.kind == "key_step" for h in self.hints)
        by_verb = {v: 0 for v in KEY_STEP_VERBS}
        for h in self.hints:
            if h.kind == "key_step" and h.verb in by_verb:
                by_verb[h.verb] += 1
        choice = self.tool_choice.result()
        curve = list(self.curve)
        final = (self.steps, self.key_steps, self.tools, len(self.hints))
        if curve[-1] != final:
            curve.append(final)
        return EpisodeResult(
            episode_id=episode_id,
            setting=d.setting,
            game=d.game,
            difficulty=d.difficulty,
            agent=agent,
            model=model,
            player=player,
            repeat=repeat,
            escaped=self.escaped,
            ended_by="escaped" if self.escaped else "max_steps",
            hints_used=len(self.hints),
            total_steps=self.steps,
            early_exit_progress=early_progress,
            early_exit_units=early_units,
            tool_hints=tool_hints,
            tool_hint_share=tool_hints / total_tools if total_tools else 0.0,
            key_step_hints=key_step_hints,
            key_step_hint_share=key_step_hints / total_key_steps if total_key_steps else 0.0,
            progress=self.progress,
            key_steps=self.key_steps,
            tools_collected=self.tools,
            total_key_steps=total_key_steps,
            total_tools=total_tools,
            forced_steps=self.forced_steps,
            successful_actions=self.successful,
            error_actions=self.errors,
            model_calls=self.model_calls,
            cached_calls=self.cached_calls,
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            tokens_cached=self.tokens_cached,
            sent_tokens_in=self.sent[0],
            sent_tokens_cached=self.sent[1],
            sent_tokens_out=self.sent[2],
            retries=self.retries,
            wall_time_s=round(self.wall_s, 6),
            prompt_version=prompt_version,
            protocol=protocol,
            protocol_version=protocol_version,
            max_steps=max_steps,
            action_format=action_format,
            patience=patience,
            help_steps=help_steps,
            hints_by_action=by_verb,
            key_steps_by_action=_reference_key_steps_by_verb(self.effects),
            hint_steps=[h.step for h in self.hints],
            hints=[HintRecord(**asdict(h)) for h in self.hints],
            progress_curve=curve,
            progress_intervals=list(self.intervals),
            tool_solves=choice.tool_solves,
            tool_tries=choice.tool_tries,
            tool_chance=choice.tool_chance,
            tool_choice=choice.tool_choice,
            apply_choice=choice.apply_choice,
            craft_choice=choice.craft_choice,
            creative_solves=choice.creative_solves,
            creative_choice=choice.creative_choice,
            tool_solve_log=[s.to_dict() for s in self.tool_choice.solves],
        )


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old or the new file, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file private (0600); give it the usual permissions instead.
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename in (None, tmp):
            exc.filename = str(path)  # the file meant, not its temporary twin
        raise


def write_result_json(path: Path, result: EpisodeResult) -> None:
    """``result.json``, written atomically (its presence marks the episode finished)."""
    atomic_write_text(path, json.dumps(result.to_dict(), indent=1, ensure_ascii=False) + "\n")


class ResultFileError(ValueError):
    """A ``result.json`` that cannot be read: damaged, or not an episode result."""


def read_result_json(path: Path) -> EpisodeResult:
    """Load a ``result.json``; :class:`ResultFileError` names the file if it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise TypeError(f"a JSON {type(data).__name__}, not an object")
        return EpisodeResult.from_dict(data)
    except (ValueError, TypeError, KeyError) as exc:  # bad UTF-8 and JSON are ValueErrors
        raise ResultFileError(
            f"{path}: not a readable episode result ({exc}); it was written whole, so "
            "something else changed it: restore it, or move its episode folder away to "
            "play the episode again"
        ) from None
