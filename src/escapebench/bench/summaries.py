"""Table-3 aggregation of episode results, with intervals and paired comparisons.

* :func:`aggregate` groups results per agent x model x rules x difficulty (plus "all"
  difficulties; results of different rules are never averaged together) and averages them as
  the paper's figures imply: hints and steps are means over episodes, and so are the shares
  and the early-exit progress (means of per-episode shares; the pooled forms, sums of
  numerators over sums of denominators, are kept as ``*_pooled`` columns). Every mean has a
  95% bootstrap interval (:func:`bootstrap_ci`), and :func:`paired_compare` gives paired
  per-setting differences of two groups with an interval and a sign-flip test
  (docs/metrics.md).
* :class:`Coverage` says what a row covers (settings, repeats, rules).

This is the one place where numbers are averaged: ``escapebench run``'s tables, the report,
``escapebench compare`` and the Inspect scorer all call it.
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from escapebench.bench.costs import Prices
from escapebench.bench.metrics import KEY_STEP_VERBS, RESULT_VERSION, EpisodeResult

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
    result_version: int = RESULT_VERSION  # how the numbers were scored (the tool-choice rule)

    @property
    def settings_hash(self) -> str:
        """A short hash of the settings set: equal hashes, the same settings."""
        return hashlib.sha256("\n".join(self.settings).encode()).hexdigest()[:8]

    def rules(self) -> tuple[Any, ...]:
        """Everything but the settings and repeats: what one episode's numbers depend on
        (how it was played, and the result version its numbers were scored by)."""
        return (self.protocol, self.protocol_version, self.action_format, self.max_steps,
                self.patience, self.help_steps, self.result_version)

    def work(self) -> tuple[Any, ...]:
        """What two rows must share to be ranked against each other: the settings and the
        rules. The repeats are not part of it: more repeats of the same work measure the
        same mean more precisely (its interval says how precisely)."""
        return (self.settings, *self.rules())

    def repeats_label(self) -> str:
        low, high = self.repeats[0], self.repeats[-1]
        count = str(low) if low == high else f"{low}-{high}"
        return f"{count} repeat{'' if count == '1' else 's'}"

    def protocol_label(self) -> str:
        """The protocol and its version, the name said once: ``escapebench/2`` for version
        ``escapebench-2+PROMPTS+OBSERVATION`` (the ``+`` parts, which change with the prompt
        texts, are in ``summary.csv``'s ``protocol_version`` and in ``run.json``); a version
        that does not start with the name is shown whole (``custom/v7``)."""
        version = self.protocol_version.split("+", 1)[0]
        name = self.protocol
        if name and version.startswith(name + "-"):
            version = version[len(name) + 1:]
        if not version:
            return name
        return f"{name}/{version}" if name else version

    def rules_label(self) -> str:
        """The rules in words: ``escapebench/2, max 200 steps, patience 50, help 10, text
        actions``; results of an older result version end with it (``..., text actions,
        results v1``: their tool choice was scored by an earlier rule)."""
        scored = (f", results v{self.result_version}"
                  if self.result_version != RESULT_VERSION else "")
        return (
            f"{self.protocol_label()}, max {self.max_steps} steps, "
            f"patience {_unknown(self.patience)}, help {_unknown(self.help_steps)}, "
            f"{self.action_format} actions{scored}"
        )

    def label(self) -> str:
        """One line: ``21 settings #1a2b3c4d, escapebench/2, max 200 steps, ..., 5 repeats,
        text actions``."""
        rules, _, actions = self.rules_label().rpartition(", ")
        if actions.startswith("results v"):
            rules, _, actions = rules.rpartition(", ")
            actions += f", results v{self.result_version}"
        return (
            f"{len(self.settings)} setting{'s' if len(self.settings) != 1 else ''} "
            f"#{self.settings_hash}, {rules}, "
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
            ("result version (tool-choice rule)", self.result_version, other.result_version),
        )
        out += [f"{name} {_unknown(a)} vs {_unknown(b)}" for name, a, b in pairs if a != b]
        return out


def _unknown(value: object) -> str:
    return "?" if value is None or value == "" else str(value)


def rules_of(r: EpisodeResult) -> tuple[Any, ...]:
    """The rules an episode was played under (see :meth:`Coverage.rules`)."""
    return (r.protocol, r.protocol_version, r.action_format, r.max_steps, r.patience,
            r.help_steps, r.version)


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
        result_version=first.version,
    )


def _ratio(num: float, den: float) -> float:
    return num / den if den else math.nan


def _defined(value: float | None) -> float:
    return math.nan if value is None else float(value)


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
    "tokens_cached": lambda r: float(r.tokens_cached),
    # the tool-choice score (bench/tool_choice.py): NaN where an episode has no solve with two
    # candidates or more (left out of the mean)
    "tool_solves": lambda r: float(r.tool_solves),
    "tool_choice": lambda r: _defined(r.tool_choice),
    "apply_choice": lambda r: _defined(r.apply_choice),
    "craft_choice": lambda r: _defined(r.craft_choice),
    "creative_choice": lambda r: _defined(r.creative_choice),
}
CI_METRICS: tuple[str, ...] = tuple(EPISODE_VALUES)
"""Metrics with a 95% interval in :attr:`Summary.ci` (``escaped`` as the escaped share)."""
TOOL_CHOICE_METRICS: tuple[str, ...] = ("tool_choice", "apply_choice", "craft_choice",
                                        "creative_choice")
"""The tool-choice means: None in a :class:`Summary` where no episode of its group has one."""


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
    with warnings.catch_warnings():  # a metric no episode of a setting defines: NaN, quietly
        warnings.simplefilter("ignore", RuntimeWarning)
        mean_a = np.array([np.nanmean(g, axis=0) for g in ga])
        mean_b = np.array([np.nanmean(g, axis=0) for g in gb])
    with np.errstate(invalid="ignore"):
        per_setting = mean_b - mean_a  # settings x metrics
    rng = np.random.default_rng(seed)
    stats = []
    for start in range(0, resamples, 500):
        n = min(500, resamples - start)
        picks = rng.integers(len(common), size=(n, len(common)))
        sa, ca = _resampled_sums(ga, picks, rng)
        sb, cb = _resampled_sums(gb, picks, rng)
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
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
    tokens_cached: float = 0.0
    """Mean per episode of the input tokens the server read from its prefix cache."""
    sent_tokens_in: float = 0.0
    """Means per episode of tokens in, cached and out of the calls sent to the model (those
    the response cache answered left out): what :meth:`cost` prices."""
    sent_tokens_cached: float = 0.0
    sent_tokens_out: float = 0.0
    early_exit_progress_pooled: float = 0.0
    tool_hint_share_pooled: float = 0.0
    key_step_hint_share_pooled: float = 0.0
    progress_pooled: float = 0.0
    hint_share_by_action: dict[str, float] = field(default_factory=dict)
    ci: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Metric name -> (low, high) 95% interval (no entry: too few episodes)."""
    coverage: Coverage | None = None
    tool_solves: float = 0.0
    """Mean tool solves per episode; the tool-choice means below are means of the episodes'
    own means (docs/metrics.md), None where no episode had a solve to choose in."""
    tool_choice: float | None = None
    apply_choice: float | None = None
    craft_choice: float | None = None
    creative_solves: float = 0.0
    creative_choice: float | None = None

    def cost(self, prices: Prices) -> float:
        """Mean USD per episode at ``prices`` (times :attr:`episodes` for the total)."""
        return prices.cost(self.sent_tokens_in, self.sent_tokens_cached, self.sent_tokens_out)

    def row(self, prices: Prices | None = None) -> dict[str, Any]:
        """A flat row for ``summary.csv`` (with the cost per episode and in total when
        priced)."""
        data = asdict(self)
        if prices is not None:
            data["cost_usd_per_episode"] = round(self.cost(prices), 6)
            data["cost_usd"] = round(self.cost(prices) * self.episodes, 6)
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
                result_version=c.result_version,
            )
        return data


_COVERAGE_COLUMNS = ("settings", "settings_hash", "repeats", "protocol", "protocol_version",
                     "action_format", "max_steps", "patience", "help_steps", "result_version")
_TOOL_CHOICE_FIELDS = ("tool_solves", "tool_choice", "apply_choice", "craft_choice",
                       "creative_solves", "creative_choice")
_TOOL_CHOICE_CI = ("tool_solves", *TOOL_CHOICE_METRICS)
SUMMARY_COLUMNS: tuple[str, ...] = (
    *(f.name for f in fields(Summary) if f.name not in ("hint_share_by_action", "ci",
                                                         "coverage", *_TOOL_CHOICE_FIELDS)),
    *(f"{v}_hint_share" for v in KEY_STEP_VERBS),
    *(f"{name}_ci_{end}" for name in CI_METRICS if name not in _TOOL_CHOICE_CI
      for end in ("low", "high")),
    *_COVERAGE_COLUMNS,
    # added with the tool-choice score: after the earlier columns, which keep their places
    *_TOOL_CHOICE_FIELDS,
    *(f"{name}_ci_{end}" for name in _TOOL_CHOICE_CI for end in ("low", "high")),
)


def _summarize(agent: str, model: str, difficulty: str, group: list[EpisodeResult],
               *, intervals: bool = True) -> Summary:
    n = len(group)

    def mean(values: Iterable[float]) -> float:
        return sum(values) / n

    def mean_defined(name: str) -> float:
        values = [v for v in (EPISODE_VALUES[name](r) for r in group) if not math.isnan(v)]
        return sum(values) / len(values) if values else 0.0

    def mean_or_none(name: str) -> float | None:
        values = [v for v in (EPISODE_VALUES[name](r) for r in group) if not math.isnan(v)]
        return sum(values) / len(values) if values else None

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
        tokens_cached=mean(r.tokens_cached for r in group),
        sent_tokens_in=mean(r.sent_tokens()[0] for r in group),
        sent_tokens_cached=mean(r.sent_tokens()[1] for r in group),
        sent_tokens_out=mean(r.sent_tokens()[2] for r in group),
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
        tool_solves=mean(r.tool_solves for r in group),
        tool_choice=mean_or_none("tool_choice"),
        apply_choice=mean_or_none("apply_choice"),
        craft_choice=mean_or_none("craft_choice"),
        creative_solves=mean(r.creative_solves for r in group),
        creative_choice=mean_or_none("creative_choice"),
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
