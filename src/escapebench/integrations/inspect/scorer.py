"""The scorer of the Inspect task: the paper's metrics of each episode, Table 3 over them.

The score's value is a dict of the episode's metrics (``escaped`` as 1/0, hints used, total
steps, early-exit progress, tool hints and their share, key-step hints and their share,
progress); its metadata holds the whole :class:`~escapebench.bench.metrics.EpisodeResult`.

Metrics, per key: the Table 3 figure and the standard error of the per-episode values.
Hints and steps are means over the episodes, as in the paper; the shares and the early-exit
progress pool their numerators and denominators over the episodes (``table3``, computed by
:func:`escapebench.bench.summaries.aggregate`, the same code as ``escapebench run``'s tables).

``tool_choice`` and ``creative_choice`` (the tool-choice score against chance, docs/metrics.md)
are the same means as the run's table, with their 95% bootstrap interval (``interval95``);
an episode without a tool solve to choose in is NaN there, which Inspect leaves unscored.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from escapebench.bench.metrics import EpisodeResult
from escapebench.bench.summaries import ALL, aggregate
from escapebench.terminal import counted

RESULT_KEY = "escapebench_result"
"""Where the solver leaves the episode's result (``state.store``)."""

MEAN_KEYS: tuple[str, ...] = ("escaped", "hints_used", "total_steps", "tool_hints",
                              "key_step_hints")
"""Score keys whose Table 3 figure is the mean over episodes."""
POOLED_KEYS: tuple[str, ...] = ("early_exit_progress", "tool_hint_share",
                                "key_step_hint_share", "progress")
"""Score keys whose Table 3 figure pools numerators and denominators over episodes."""
CHOICE_KEYS: tuple[str, ...] = ("tool_choice", "creative_choice")
"""Score keys of the tool-choice score: the table's mean with its 95% interval."""


def _overall(scores: list[SampleScore]) -> object | None:
    results = [
        EpisodeResult.from_dict(s.score.metadata["result"])
        for s in scores
        if s.score.metadata and "result" in s.score.metadata
    ]
    if not results:
        return None
    return [s for s in aggregate(results) if s.difficulty == ALL][0]


@metric
def table3(key: str) -> Metric:
    """The Table 3 figure of ``key`` over the scored episodes (pooled as the paper pools)."""

    def compute(scores: list[SampleScore]) -> float:
        results = [
            EpisodeResult.from_dict(s.score.metadata["result"])
            for s in scores
            if s.score.metadata and "result" in s.score.metadata
        ]
        if not results:
            return 0.0
        overall = [s for s in aggregate(results) if s.difficulty == ALL]
        value = getattr(overall[0], key)
        return math.nan if value is None else float(value)

    return compute


@metric
def interval95(key: str) -> Metric:
    """The 95% bootstrap interval of ``key``'s table mean (settings and repeats resampled,
    as in ``escapebench run``'s tables): ``{"low": ..., "high": ...}``, which Inspect shows
    as ``escapebench/interval95_low`` and ``escapebench/interval95_high``."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        overall = _overall(scores)
        ci = getattr(overall, "ci", {}).get(key) if overall is not None else None
        low, high = ci if ci is not None else (math.nan, math.nan)
        return {"low": float(low), "high": float(high)}

    return compute


def score_value(result: EpisodeResult) -> dict[str, float]:
    """The paper's metrics of one episode, as the score's value."""
    return {
        "escaped": 1.0 if result.escaped else 0.0,
        "hints_used": float(result.hints_used),
        "total_steps": float(result.total_steps),
        "early_exit_progress": result.early_exit_progress,
        "tool_hints": float(result.tool_hints),
        "tool_hint_share": result.tool_hint_share,
        "key_step_hints": float(result.key_step_hints),
        "key_step_hint_share": result.key_step_hint_share,
        "progress": result.progress,
        **{k: math.nan if getattr(result, k) is None else float(getattr(result, k))
           for k in CHOICE_KEYS},
    }


@scorer(
    metrics={
        **{k: [mean(), stderr()] for k in MEAN_KEYS},
        **{k: [table3(k), stderr()] for k in POOLED_KEYS},
        **{k: [table3(k), interval95(k)] for k in CHOICE_KEYS},
    }
)
def escape_metrics() -> Scorer:
    """Score an episode played by :func:`~escapebench.integrations.inspect.task.play_episode`."""

    async def score(state: TaskState, target: Target) -> Score:
        data = state.store.get(RESULT_KEY)
        if data is None:
            raise RuntimeError("no episode result: the escapebench solver did not run")
        result = EpisodeResult.from_dict(data)
        return Score(
            value=score_value(result),
            answer="escaped" if result.escaped else "not escaped",
            explanation=(
                f"{'Escaped' if result.escaped else 'Did not escape'} {result.setting} in "
                f"{counted(result.total_steps, 'step')} with {counted(result.hints_used, 'hint')} "
                f"({result.tool_hints} for tools, {result.key_step_hints} for key steps; "
                f"{result.forced_steps} actions played for the agent). "
                f"Tool choice {_choice_text(result.tool_choice)} over {result.tool_solves} "
                "tool solves (1: the right tool first, 0: blind trial, -1: random). "
                f"{result.model_calls} model calls, {result.tokens_in} tokens in, "
                f"{result.tokens_out} out."
            ),
            metadata={"result": result.to_dict()},
        )

    return score


def _choice_text(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"
