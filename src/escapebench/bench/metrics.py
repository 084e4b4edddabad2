"""Per-episode metrics (paper section 5.1), their aggregation (Table 3) and the result files.

* :class:`EpisodeMetrics` accumulates one episode from its step records (the dicts written to
  ``steps.jsonl``), live or when an interrupted episode is resumed from its log, and produces an
  :class:`EpisodeResult`.
* :func:`aggregate` groups results per agent x model x rules x difficulty (plus "all"
  difficulties; results of different rules are never averaged together) and averages them as
  the paper's figures imply: hints and steps are means over episodes, and so are the shares
  and the early-exit progress (means of per-episode shares; the pooled forms, sums of
  numerators over sums of denominators, are kept as ``*_pooled`` columns). Every mean has a
  95% bootstrap interval (:func:`bootstrap_ci`), and :func:`paired_compare` gives paired
  per-setting differences of two groups with an interval and a sign-flip test
  (docs/metrics.md).
* :func:`format_table` prints the Table-3 columns; :func:`write_results_csv`,
  :func:`write_summary_csv` and :func:`write_summary_md` write the result files.

Fractions are stored as fractions (0..1) everywhere and shown as percentages only in tables.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from escapebench.bench.hints import ReferenceEffect
from escapebench.engine.actions import VERBS
from escapebench.engine.model import GameDefinition

RESULT_VERSION = 1
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
)

#: Columns that describe the transport or the clock, not the play: they may differ between
#: two runs whose results are the same (retries after server faults, wall time).
ACCOUNTING_COLUMNS: frozenset[str] = frozenset({"retries", "wall_time_s"})

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
    version: int = RESULT_VERSION

    @property
    def total_units(self) -> int:
        return self.total_key_steps + self.total_tools

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
        return cls(**values)

    def row(self) -> dict[str, Any]:
        """The ``results.csv`` row."""
        data = self.to_dict()
        return {c: data[c] for c in RESULT_COLUMNS}


def _reference_key_steps_by_verb(effects: Sequence[ReferenceEffect]) -> dict[str, int]:
    out = {v: 0 for v in KEY_STEP_VERBS}
    for e in effects:
        if e.verb in out:
            out[e.verb] += e.key_steps
    return out


class EpisodeMetrics:
    """Builds an :class:`EpisodeResult` from an episode's step records, one at a time.

    A step record needs: ``step``, ``key_steps`` and ``tools_collected`` (totals after the
    step), ``progress``, ``progressed``, ``success``, ``error``, ``hint`` (None or a dict with
    ``index``, ``steps_in_help`` and ``forced``), ``calls`` (dicts with ``tokens_in``,
    ``tokens_out``, ``cached``, ``retries``), ``wall_s`` and, on the last step, ``game_end``.
    """

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
        self.retries = 0
        self.wall_s = 0.0
        self.curve: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)]
        self.intervals: list[int] = []
        self._last_progress_step = 0

    def add(self, record: dict[str, Any]) -> None:
        """Account for one step record (in step order)."""
        hint = record.get("hint")
        if hint is not None:
            if int(hint.get("steps_in_help", 0)) == 0:
                self._start_hint(record["step"], int(hint["index"]))
            if hint.get("forced"):
                self.forced_steps += 1
                self.hints[-1].forced = True
        self.steps += 1
        key_steps, tools = int(record["key_steps"]), int(record["tools_collected"])
        changed = key_steps != self.key_steps or tools != self.tools
        self.key_steps, self.tools = key_steps, tools
        self.progress = float(record["progress"])
        if record.get("progressed"):
            self.intervals.append(self.steps - self._last_progress_step)
            self._last_progress_step = self.steps
        if record.get("success"):
            self.successful += 1
        if record.get("error"):
            self.errors += 1
        for call in record.get("calls") or ():
            self.model_calls += 1
            self.cached_calls += bool(call.get("cached"))
            self.tokens_in += int(call.get("tokens_in", 0))
            self.tokens_out += int(call.get("tokens_out", 0))
            self.retries += int(call.get("retries", 0))
        self.wall_s += float(record.get("wall_s", 0.0))
        if hint is not None and record.get("hint_done"):
            self.hints[-1].ended_step = int(record["step"])
            self.hints[-1].outcome = str(record["hint_done"])
        if changed:
            self.curve.append((self.steps, key_steps, tools, len(self.hints)))
        if record.get("game_end"):
            self.escaped = True

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
        )


# ---------------------------------------------------------------------- aggregation
ALL = "all"
CI_LEVEL = 0.95
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 13
"""The bootstrap is seeded: the same results always give the same interval."""


@dataclass(frozen=True)
class Coverage:
    """What a row of a table covers: which settings, how many episodes of each, and the
    rules they were played under. Rows are ranked or subtracted only when these agree."""

    settings: tuple[str, ...]
    repeats: tuple[int, ...]  # the distinct numbers of episodes per setting, ascending
    protocol: str
    protocol_version: str
    action_format: str
    max_steps: int
    patience: int | None
    help_steps: int | None

    @property
    def settings_hash(self) -> str:
        """A short hash of the settings set: equal hashes, the same settings."""
        return hashlib.sha256("\n".join(self.settings).encode()).hexdigest()[:8]

    def rules(self) -> tuple[Any, ...]:
        """Everything but the settings and repeats: what one episode's numbers depend on."""
        return (self.protocol, self.protocol_version, self.action_format, self.max_steps,
                self.patience, self.help_steps)

    def work(self) -> tuple[Any, ...]:
        """What two rows must share to be ranked against each other: the settings and the
        rules. The repeats are not part of it: more repeats of the same work measure the
        same mean more precisely (its interval says how precisely)."""
        return (self.settings, *self.rules())

    def repeats_label(self) -> str:
        low, high = self.repeats[0], self.repeats[-1]
        count = str(low) if low == high else f"{low}-{high}"
        return f"{count} repeat{'' if count == '1' else 's'}"

    def rules_label(self) -> str:
        """The rules in words: ``escapebench, max 200 steps, patience 50, help 10, text
        actions``."""
        protocol = self.protocol + (f" v{self.protocol_version}" if self.protocol_version else "")
        return (
            f"{protocol}, max {self.max_steps} steps, patience {_unknown(self.patience)}, "
            f"help {_unknown(self.help_steps)}, {self.action_format} actions"
        )

    def label(self) -> str:
        """One line: ``21 settings #1a2b3c4d, escapebench, max 200 steps, ..., 5 repeats,
        text actions``."""
        rules, _, actions = self.rules_label().rpartition(", ")
        return (
            f"{len(self.settings)} settings #{self.settings_hash}, {rules}, "
            f"{self.repeats_label()}, {actions}"
        )

    def differences(self, other: Coverage, *, settings: bool = True) -> list[str]:
        """Why rows of ``self`` and ``other`` do not cover the same work (empty: they do)."""
        out = []
        if settings and self.settings != other.settings:
            out.append(
                f"settings {len(self.settings)} #{self.settings_hash} vs "
                f"{len(other.settings)} #{other.settings_hash}"
            )
        if settings and self.repeats != other.repeats:
            out.append(f"{self.repeats_label()} vs {other.repeats_label()}")
        pairs = (
            ("protocol", self.protocol, other.protocol),
            ("protocol version", self.protocol_version, other.protocol_version),
            ("action format", self.action_format, other.action_format),
            ("max steps", self.max_steps, other.max_steps),
            ("patience", self.patience, other.patience),
            ("help steps", self.help_steps, other.help_steps),
        )
        out += [f"{name} {_unknown(a)} vs {_unknown(b)}" for name, a, b in pairs if a != b]
        return out


def _unknown(value: object) -> str:
    return "?" if value is None or value == "" else str(value)


def rules_of(r: EpisodeResult) -> tuple[Any, ...]:
    """The rules an episode was played under (see :meth:`Coverage.rules`)."""
    return (r.protocol, r.protocol_version, r.action_format, r.max_steps, r.patience,
            r.help_steps)


def coverage_of(results: Sequence[EpisodeResult]) -> Coverage:
    """The :class:`Coverage` of a group of results played under one set of rules."""
    per_setting: dict[str, int] = {}
    for r in results:
        per_setting[r.setting] = per_setting.get(r.setting, 0) + 1
    first = results[0]
    return Coverage(
        settings=tuple(sorted(per_setting)),
        repeats=tuple(sorted(set(per_setting.values()))),
        protocol=first.protocol,
        protocol_version=first.protocol_version,
        action_format=first.action_format,
        max_steps=first.max_steps,
        patience=first.patience,
        help_steps=first.help_steps,
    )


def _ratio(num: float, den: float) -> float:
    return num / den if den else math.nan


#: Per-episode values that the tables average, each a function of one result. Shares are
#: per episode (NaN where the game has nothing to share, e.g. no tools: left out of the mean).
EPISODE_VALUES: dict[str, Callable[[EpisodeResult], float]] = {
    "escaped": lambda r: float(r.escaped),
    "hints_used": lambda r: float(r.hints_used),
    "total_steps": lambda r: float(r.total_steps),
    "early_exit_progress": lambda r: _ratio(r.early_exit_units, r.total_units),
    "tool_hints": lambda r: float(r.tool_hints),
    "tool_hint_share": lambda r: _ratio(r.tool_hints, r.total_tools),
    "key_step_hints": lambda r: float(r.key_step_hints),
    "key_step_hint_share": lambda r: _ratio(r.key_step_hints, r.total_key_steps),
    "progress": lambda r: _ratio(r.key_steps + r.tools_collected, r.total_units),
    "model_calls": lambda r: float(r.model_calls),
    "tokens_in": lambda r: float(r.tokens_in),
    "tokens_out": lambda r: float(r.tokens_out),
}
CI_METRICS: tuple[str, ...] = tuple(EPISODE_VALUES)
"""Metrics with a 95% interval in :attr:`Summary.ci` (``escaped`` as the escaped share)."""


def _by_setting(results: Sequence[EpisodeResult]) -> list[list[EpisodeResult]]:
    groups: dict[str, list[EpisodeResult]] = {}
    for r in sorted(results, key=lambda r: (r.setting, r.repeat, r.episode_id)):
        groups.setdefault(r.setting, []).append(r)
    return [groups[k] for k in sorted(groups)]


def _values(groups: Sequence[Sequence[EpisodeResult]], names: Sequence[str]) -> list[Any]:
    """Per setting, an array (episodes x metrics) of the per-episode values."""
    import numpy as np

    funcs = [EPISODE_VALUES[n] for n in names]
    return [np.array([[f(r) for f in funcs] for r in g], dtype=float) for g in groups]


def _resampled_sums(groups: Sequence[Any], picks: Any, rng: Any) -> tuple[Any, Any]:
    """Two-stage bootstrap draw: for each resample the settings ``picks`` (resamples x
    settings), and within each picked setting its episodes drawn with replacement.

    Returns (sums, counts), each resamples x settings x metrics, over the drawn episodes
    whose value is defined (not NaN)."""
    import numpy as np

    counts = np.array([len(g) for g in groups])
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    flat = np.concatenate(groups)
    most = int(counts.max())
    chosen = counts[picks]  # resamples x settings
    draw = np.floor(rng.random((*picks.shape, most)) * chosen[..., None]).astype(int)
    used = np.arange(most) < chosen[..., None]
    index = offsets[picks][..., None] + np.minimum(draw, chosen[..., None] - 1)
    values = flat[index]  # resamples x settings x most x metrics
    ok = used[..., None] & ~np.isnan(values)
    return np.where(ok, values, 0.0).sum(axis=2), ok.sum(axis=2)


def _interval(stats: Any, level: float) -> list[tuple[float, float] | None]:
    import numpy as np

    out: list[tuple[float, float] | None] = []
    tail = (1 - level) / 2
    for column in stats.T:
        column = column[~np.isnan(column)]
        if column.size == 0:
            out.append(None)
        else:
            low, high = np.quantile(column, [tail, 1 - tail])
            out.append((float(low), float(high)))
    return out


def bootstrap_ci(
    results: Sequence[EpisodeResult],
    names: Sequence[str] = CI_METRICS,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = CI_LEVEL,
) -> dict[str, tuple[float, float]]:
    """95% percentile-bootstrap intervals of the episode means of ``names``.

    Each resample draws the settings with replacement, then each drawn setting's episodes
    (its repeats) with replacement, and takes the mean over the drawn episodes, so the
    interval reflects both which settings a suite has and how much a setting varies between
    repeats. Seeded: the same results give the same interval. Fewer than two episodes give
    no interval (an empty dict).
    """
    import numpy as np

    if len(results) < 2:
        return {}
    groups = _values(_by_setting(results), names)
    rng = np.random.default_rng(seed)
    out: dict[str, tuple[float, float]] = {}
    stats = []
    for start in range(0, resamples, 500):  # in chunks: bounded memory on big suites
        n = min(500, resamples - start)
        picks = rng.integers(len(groups), size=(n, len(groups)))
        sums, counts = _resampled_sums(groups, picks, rng)
        with np.errstate(invalid="ignore", divide="ignore"):
            stats.append(sums.sum(axis=1) / counts.sum(axis=1))
    for name, ci in zip(names, _interval(np.concatenate(stats), level), strict=True):
        if ci is not None:
            out[name] = ci
    return out


@dataclass
class PairedDifference:
    """B minus A for one metric over the settings both played (see :func:`paired_compare`)."""

    metric: str
    settings: int  # settings where both have a defined value
    mean_a: float
    mean_b: float
    difference: float  # mean over settings of (B's setting mean - A's setting mean)
    ci: tuple[float, float] | None
    p_value: float | None  # two-sided sign-flip permutation test over settings

    @property
    def interval_excludes_zero(self) -> bool:
        return self.ci is not None and (self.ci[0] > 0 or self.ci[1] < 0)

    @property
    def distinguishable(self) -> bool:
        """Whether the difference is larger than the noise: its interval excludes zero and
        the sign-flip test agrees (p < :data:`SIGNIFICANCE`). With few settings a bootstrap
        interval is too narrow, and the test cannot reach significance (4 settings: p is at
        least 2/16), so both must hold."""
        return self.interval_excludes_zero and self.p_value is not None and (
            self.p_value < SIGNIFICANCE)


SIGNIFICANCE = 0.05
"""The sign-flip p-value below which a difference whose interval excludes zero is called
distinguishable."""
PERMUTATIONS = 20_000
"""Random sign flips when the settings are too many to flip every way (more than 16)."""


def sign_flip_p_value(diffs: Sequence[float], *, seed: int = BOOTSTRAP_SEED) -> float | None:
    """Two-sided p-value of "the mean of ``diffs`` is 0" by flipping signs per setting.

    Under the null hypothesis that A and B are exchangeable on every setting, each setting's
    difference is as likely positive as negative. Exact (all 2^n flips) up to 16 settings,
    otherwise :data:`PERMUTATIONS` seeded random flips (counting the observed one).
    """
    import numpy as np

    d = np.asarray([x for x in diffs if not math.isnan(x)], dtype=float)
    n = d.size
    if n == 0:
        return None
    observed = abs(d.mean()) - 1e-12
    if n <= 16:
        signs = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2 - 1
        return float((np.abs((signs * d).mean(axis=1)) >= observed).mean())
    rng = np.random.default_rng(seed)
    signs = rng.integers(0, 2, size=(PERMUTATIONS, n)) * 2 - 1
    hits = int((np.abs((signs * d).mean(axis=1)) >= observed).sum())
    return (hits + 1) / (PERMUTATIONS + 1)


def paired_compare(
    a: Sequence[EpisodeResult],
    b: Sequence[EpisodeResult],
    names: Sequence[str],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = CI_LEVEL,
) -> list[PairedDifference]:
    """Paired per-setting differences (B - A) of ``names`` on the settings both played.

    A setting's value is the mean over its repeats; the difference is the mean over
    settings of the per-setting differences. Its interval is a two-stage bootstrap (the
    settings with replacement, and each side's repeats within them), its p-value a sign-flip
    permutation test over settings (:func:`sign_flip_p_value`).
    """
    import numpy as np

    common = sorted({r.setting for r in a} & {r.setting for r in b})
    if not common:
        return []
    ga = _values([g for g in _by_setting(a) if g[0].setting in common], names)
    gb = _values([g for g in _by_setting(b) if g[0].setting in common], names)
    mean_a = np.array([np.nanmean(g, axis=0) if not np.isnan(g).all() else g[0] for g in ga])
    mean_b = np.array([np.nanmean(g, axis=0) if not np.isnan(g).all() else g[0] for g in gb])
    with np.errstate(invalid="ignore"):
        per_setting = mean_b - mean_a  # settings x metrics
    rng = np.random.default_rng(seed)
    stats = []
    for start in range(0, resamples, 500):
        n = min(500, resamples - start)
        picks = rng.integers(len(common), size=(n, len(common)))
        sa, ca = _resampled_sums(ga, picks, rng)
        sb, cb = _resampled_sums(gb, picks, rng)
        with np.errstate(invalid="ignore", divide="ignore"):
            stats.append(np.nanmean(sb / cb - sa / ca, axis=1))
    intervals = _interval(np.concatenate(stats), level) if len(common) > 1 or max(
        len(g) for g in ga + gb) > 1 else [None] * len(names)
    out = []
    for m, name in enumerate(names):
        column = per_setting[:, m]
        defined = ~np.isnan(column)
        out.append(PairedDifference(
            metric=name,
            settings=int(defined.sum()),
            mean_a=float(np.nanmean(mean_a[defined, m])) if defined.any() else math.nan,
            mean_b=float(np.nanmean(mean_b[defined, m])) if defined.any() else math.nan,
            difference=float(column[defined].mean()) if defined.any() else math.nan,
            ci=intervals[m],
            p_value=sign_flip_p_value(column.tolist(), seed=seed),
        ))
    return out


@dataclass
class Summary:
    """Metrics of a group of episodes (one row of Table 3): means over episodes with their
    95% bootstrap intervals; shares are means of per-episode shares, as in the paper's
    tables, and their pooled forms (sum of numerators over sum of denominators) are kept
    under ``*_pooled``."""

    agent: str
    model: str
    difficulty: str
    episodes: int
    escaped: int
    hints_used: float
    total_steps: float
    early_exit_progress: float
    tool_hints: float
    tool_hint_share: float
    key_step_hints: float
    key_step_hint_share: float
    progress: float
    model_calls: float
    tokens_in: float
    tokens_out: float
    early_exit_progress_pooled: float = 0.0
    tool_hint_share_pooled: float = 0.0
    key_step_hint_share_pooled: float = 0.0
    progress_pooled: float = 0.0
    hint_share_by_action: dict[str, float] = field(default_factory=dict)
    ci: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Metric name -> (low, high) 95% interval (no entry: too few episodes)."""
    coverage: Coverage | None = None

    def row(self) -> dict[str, Any]:
        """A flat row for ``summary.csv``."""
        data = asdict(self)
        data.pop("coverage")
        data.pop("ci")
        by_action = data.pop("hint_share_by_action")
        for verb in KEY_STEP_VERBS:
            data[f"{verb}_hint_share"] = by_action.get(verb, 0.0)
        for name in CI_METRICS:
            low, high = self.ci.get(name, (None, None))
            data[f"{name}_ci_low"], data[f"{name}_ci_high"] = low, high
        c = self.coverage
        if c is not None:
            data.update(
                settings=len(c.settings), settings_hash=c.settings_hash,
                repeats=c.repeats_label().split()[0], protocol=c.protocol,
                protocol_version=c.protocol_version, action_format=c.action_format,
                max_steps=c.max_steps, patience=c.patience, help_steps=c.help_steps,
            )
        return data


_COVERAGE_COLUMNS = ("settings", "settings_hash", "repeats", "protocol", "protocol_version",
                     "action_format", "max_steps", "patience", "help_steps")
SUMMARY_COLUMNS: tuple[str, ...] = (
    *(f.name for f in fields(Summary) if f.name not in ("hint_share_by_action", "ci",
                                                         "coverage")),
    *(f"{v}_hint_share" for v in KEY_STEP_VERBS),
    *(f"{name}_ci_{end}" for name in CI_METRICS for end in ("low", "high")),
    *_COVERAGE_COLUMNS,
)


def _summarize(agent: str, model: str, difficulty: str, group: list[EpisodeResult],
               *, intervals: bool = True) -> Summary:
    n = len(group)

    def mean(values: Iterable[float]) -> float:
        return sum(values) / n

    def mean_defined(name: str) -> float:
        values = [v for v in (EPISODE_VALUES[name](r) for r in group) if not math.isnan(v)]
        return sum(values) / len(values) if values else 0.0

    def pooled(num: float, den: float) -> float:
        return num / den if den else 0.0

    by_action: dict[str, float] = {}
    for verb in KEY_STEP_VERBS:
        by_action[verb] = pooled(
            sum(r.hints_by_action.get(verb, 0) for r in group),
            sum(r.key_steps_by_action.get(verb, 0) for r in group),
        )
    return Summary(
        agent=agent,
        model=model,
        difficulty=difficulty,
        episodes=n,
        escaped=sum(r.escaped for r in group),
        hints_used=mean(r.hints_used for r in group),
        total_steps=mean(r.total_steps for r in group),
        early_exit_progress=mean_defined("early_exit_progress"),
        tool_hints=mean(r.tool_hints for r in group),
        tool_hint_share=mean_defined("tool_hint_share"),
        key_step_hints=mean(r.key_step_hints for r in group),
        key_step_hint_share=mean_defined("key_step_hint_share"),
        progress=mean_defined("progress"),
        model_calls=mean(r.model_calls for r in group),
        tokens_in=mean(r.tokens_in for r in group),
        tokens_out=mean(r.tokens_out for r in group),
        early_exit_progress_pooled=pooled(
            sum(r.early_exit_units for r in group), sum(r.total_units for r in group)
        ),
        tool_hint_share_pooled=pooled(
            sum(r.tool_hints for r in group), sum(r.total_tools for r in group)
        ),
        key_step_hint_share_pooled=pooled(
            sum(r.key_step_hints for r in group), sum(r.total_key_steps for r in group)
        ),
        progress_pooled=pooled(
            sum(r.key_steps + r.tools_collected for r in group),
            sum(r.total_units for r in group),
        ),
        hint_share_by_action=by_action,
        ci=bootstrap_ci(group) if intervals else {},
        coverage=coverage_of(group),
    )


_DIFFICULTY_ORDER = {"easy": 0, "normal": 1, "hard": 2, ALL: 3}


def aggregate(results: Iterable[EpisodeResult], *, intervals: bool = True) -> list[Summary]:
    """One summary per agent x model x rules x difficulty, then one per agent x model x
    rules over all difficulties.

    Results played under different rules (protocol, action format, step limit, hint
    options: :func:`rules_of`) are never averaged together: each set of rules is its own
    row, and :attr:`Summary.coverage` says which. ``intervals=False`` skips the bootstrap.
    """
    groups: dict[tuple[Any, ...], list[EpisodeResult]] = {}
    for r in results:
        rules = rules_of(r)
        groups.setdefault((r.agent, r.model, r.difficulty, rules), []).append(r)
        groups.setdefault((r.agent, r.model, ALL, rules), []).append(r)
    keys = sorted(groups, key=lambda k: (k[0], k[1], repr(k[3]), _DIFFICULTY_ORDER.get(k[2], 9),
                                         k[2]))
    return [_summarize(k[0], k[1], k[2], groups[k], intervals=intervals) for k in keys]


# ---------------------------------------------------------------------- tables and files
TABLE_HEADERS: tuple[str, ...] = (
    "Agent",
    "Model",
    "Difficulty",
    "Escaped",
    "Hints Used",
    "Total Steps",
    "Early Exit Progress (%)",
    "Tool Hints Used (percentage)",
    "Key Steps Hints Used (percentage)",
    "Covers",
)


def with_interval(s: Summary, name: str, value: float, scale: float = 1.0) -> str:
    """``"4.70 [3.90, 5.50]"``: a mean and its 95% interval (the mean alone without one)."""
    ci = s.ci.get(name)
    text = f"{scale * value:.2f}"
    return text if ci is None else f"{text} [{scale * ci[0]:.2f}, {scale * ci[1]:.2f}]"


def table_cells(s: Summary) -> list[str]:
    """The cells of one Table-3 row: means with their 95% interval in brackets; the shares
    in parentheses are means of per-episode shares (their intervals are in summary.csv)."""
    return [
        s.agent,
        s.model,
        s.difficulty,
        f"{s.escaped}/{s.episodes}",
        with_interval(s, "hints_used", s.hints_used),
        with_interval(s, "total_steps", s.total_steps),
        with_interval(s, "early_exit_progress", s.early_exit_progress, 100),
        f"{with_interval(s, 'tool_hints', s.tool_hints)} ({100 * s.tool_hint_share:.2f}%)",
        f"{with_interval(s, 'key_step_hints', s.key_step_hints)} "
        f"({100 * s.key_step_hint_share:.2f}%)",
        s.coverage.label() if s.coverage is not None else "",
    ]


def format_table(summaries: Sequence[Summary]) -> str:
    """A plain-text table in the columns of the paper's Table 3, plus what each row covers."""
    rows = [list(TABLE_HEADERS)] + [table_cells(s) for s in summaries]
    widths = [max(len(r[i]) for r in rows) for i in range(len(TABLE_HEADERS))]
    last = len(TABLE_HEADERS) - 1
    lines = []
    for n, r in enumerate(rows):
        pairs = enumerate(zip(r, widths, strict=True))
        cells = [c.ljust(w) if i < 3 or i == last else c.rjust(w) for i, (c, w) in pairs]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n" + TABLE_FOOTNOTE


TABLE_FOOTNOTE = (
    "Means over episodes with 95% bootstrap intervals [low, high] (settings and repeats "
    "resampled); shares are means of per-episode shares. See docs/metrics.md."
)


def short_count(n: float) -> str:
    """A count, short: 950, 12.3k, 4.56M."""
    if abs(n) >= 1e6:
        return f"{n / 1e6:.3g}M"
    if abs(n) >= 1e4:
        return f"{n / 1e3:.3g}k"
    return f"{n:.0f}" if float(n).is_integer() else f"{n:.1f}"


def format_usage(summaries: Sequence[Summary]) -> str:
    """Model calls and tokens of each agent x model, in total and per episode (from the
    summaries over all difficulties); empty when no model was called."""
    lines = []
    for s in summaries:
        if s.difficulty != ALL or not s.model_calls:
            continue
        n = s.episodes
        lines.append(
            f"model usage, {s.agent} / {s.model}: {short_count(s.model_calls * n)} calls, "
            f"{short_count(s.tokens_in * n)} tokens in, {short_count(s.tokens_out * n)} out "
            f"in {n} episode{'s' if n != 1 else ''}; per episode {short_count(s.model_calls)} "
            f"calls, {short_count(s.tokens_in)} in, {short_count(s.tokens_out)} out"
        )
    return "\n".join(lines)


def format_markdown(summaries: Sequence[Summary]) -> str:
    """The same table in Markdown."""
    last = len(TABLE_HEADERS) - 1
    out = ["| " + " | ".join(TABLE_HEADERS) + " |"]
    out.append("|" + "|".join("---" if i < 3 or i == last else "---:"
                              for i in range(len(TABLE_HEADERS))) + "|")
    for s in summaries:
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in table_cells(s)) + " |")
    return "\n".join(out) + "\n\n" + TABLE_FOOTNOTE + "\n"


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


def _csv_text(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: _csv_value(row.get(c)) for c in columns})
    return buf.getvalue()


def _csv_value(value: Any) -> Any:
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) >= 1e6 else f"{round(value, 6)}"
    return value


def write_results_csv(path: Path, results: Iterable[EpisodeResult]) -> None:
    """``results.csv``: one row per episode, sorted by episode id."""
    rows = [r.row() for r in sorted(results, key=lambda r: r.episode_id)]
    atomic_write_text(path, _csv_text(RESULT_COLUMNS, rows))


def write_summary_csv(path: Path, summaries: Sequence[Summary]) -> None:
    """``summary.csv``: one row per agent x model x difficulty (and "all")."""
    atomic_write_text(path, _csv_text(SUMMARY_COLUMNS, (s.row() for s in summaries)))


def write_summary_md(path: Path, summaries: Sequence[Summary], title: str = "") -> None:
    """``summary.md``: the Table-3 columns as a Markdown table."""
    head = f"# {title}\n\n" if title else ""
    atomic_write_text(path, head + format_markdown(summaries))


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
