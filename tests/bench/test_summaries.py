"""Table-3 aggregation: means of per-episode shares, bootstrap intervals, paired comparisons."""

from __future__ import annotations

import pytest

from escapebench.bench.metrics import EpisodeResult
from escapebench.bench.result_tables import format_markdown, format_table
from escapebench.bench.summaries import aggregate


def result(**kw) -> EpisodeResult:
    base = dict(episode_id="x", setting="s", game="g", difficulty="easy", agent="base",
                model="m", total_key_steps=30, total_tools=10)
    base.update(kw)
    return EpisodeResult(**base)


def test_shares_are_means_of_per_episode_shares_with_pooled_ones_kept() -> None:
    results = [
        result(episode_id="a", hints_used=4, total_steps=100, tool_hints=1, key_step_hints=3,
               early_exit_units=20, key_steps=30, tools_collected=10,
               hints_by_action={"apply": 3}, key_steps_by_action={"apply": 10}),
        result(episode_id="b", hints_used=0, total_steps=50, total_key_steps=10, total_tools=0,
               early_exit_units=10, key_steps=10, escaped=True,
               key_steps_by_action={"apply": 5}),
        result(episode_id="c", difficulty="hard", hints_used=2, total_steps=300, tool_hints=2,
               early_exit_units=0),
    ]
    rows = {s.difficulty: s for s in aggregate(results)}
    assert list(rows) == ["easy", "hard", "all"]
    easy = rows["easy"]
    assert (easy.episodes, easy.escaped, easy.hints_used, easy.total_steps) == (2, 1, 2.0, 75.0)
    # Per episode: a uses 1 of 10 tools and 3 of 30 key steps; b has no tools (left out of
    # the tool share) and used 0 of 10 key steps.
    assert easy.tool_hint_share == 1 / 10 and easy.key_step_hint_share == (0.1 + 0) / 2
    assert easy.early_exit_progress == (20 / 40 + 10 / 10) / 2
    # The pooled forms stay, named so: 1 of 10 tools, 3 of 40 key steps, 30 of 50 units.
    assert easy.tool_hint_share_pooled == 1 / 10 and easy.key_step_hint_share_pooled == 3 / 40
    assert easy.early_exit_progress_pooled == 30 / 50
    assert easy.hint_share_by_action["apply"] == 3 / 15
    assert rows["all"].episodes == 3
    assert rows["all"].tool_hint_share == pytest.approx((0.1 + 0.2) / 2)
    assert rows["all"].tool_hint_share_pooled == 3 / 20

    table = format_table(aggregate(results))
    assert "Early Exit Progress (%)" in table.splitlines()[0]
    all_line = next(line for line in table.splitlines() if " all " in line)
    # Tool hints 1+0+2 over 3 episodes (15% per episode); key-step hints 3+0+0 (10%, 0%, 0%)
    assert "(15.00%)" in all_line and "(3.33%)" in all_line
    assert "1 setting #" in all_line and "max 0 steps" in all_line  # not "1 settings"
    assert format_markdown(aggregate(results)).count("\n") == 2 + 3 + 2


def _episodes(agent: str, values: dict[str, list[int]]) -> list[EpisodeResult]:
    """One result per (setting, repeat) with ``hints_used`` from ``values``."""
    return [
        result(episode_id=f"{s}__{agent}__m__r{n}", setting=s, agent=agent, hints_used=v,
               total_steps=10 * v)
        for s, repeats in values.items() for n, v in enumerate(repeats)
    ]


def test_the_bootstrap_interval_is_seeded_and_resamples_settings_and_repeats() -> None:
    from escapebench.bench.summaries import bootstrap_ci

    spread = _episodes("a", {"s1": [1, 3], "s2": [5, 7], "s3": [2, 2]})
    first, again = bootstrap_ci(spread), bootstrap_ci(spread)
    assert first == again  # deterministic
    low, high = first["hints_used"]
    assert low < 10 / 3 < high and low >= 1 and high <= 7
    # settings that agree, each with identical repeats: no uncertainty at all
    assert bootstrap_ci(_episodes("a", {"s1": [4, 4], "s2": [4, 4]}))["hints_used"] == (4, 4)
    # repeats that differ within one setting give an interval although there is one setting
    low, high = bootstrap_ci(_episodes("a", {"s1": [0, 10, 0, 10]}))["hints_used"]
    assert low < 5 < high
    assert bootstrap_ci(_episodes("a", {"s1": [3]})) == {}  # one episode: no interval


def test_paired_compare_sees_a_consistent_difference_and_not_noise() -> None:
    from escapebench.bench.summaries import paired_compare, sign_flip_p_value

    settings = [f"s{i}" for i in range(8)]
    a = _episodes("a", {s: [10 + i % 3] for i, s in enumerate(settings)})
    better = _episodes("b", {s: [5 + i % 3] for i, s in enumerate(settings)})
    (d,) = paired_compare(a, better, ["hints_used"])
    assert d.settings == 8 and d.difference == -5 and d.ci == (-5, -5)
    assert d.distinguishable and d.p_value == 2 / 2**8  # every flip but two is smaller
    noisy = _episodes("b", {s: [10 + i % 3 + (1 if i % 2 else -1)]
                            for i, s in enumerate(settings)})
    (d,) = paired_compare(a, noisy, ["hints_used"])
    assert d.difference == 0 and not d.distinguishable and d.p_value == 1.0
    # the exact test: three settings all one way are 2 of the 8 sign patterns
    assert sign_flip_p_value([1.0, 2.0, 3.0]) == 0.25
    assert sign_flip_p_value([]) is None
    # only settings both played are paired
    (d,) = paired_compare(a, better[:3], ["hints_used"])
    assert d.settings == 3


def test_the_worked_example_of_docs_metrics_md() -> None:
    from escapebench.bench.summaries import bootstrap_ci, paired_compare

    a = _episodes("base", {"s1": [4, 6], "s2": [10, 12], "s3": [7, 7], "s4": [3, 5]})
    b = _episodes("escape", {"s1": [2, 4], "s2": [9, 9], "s3": [5, 7], "s4": [2, 2]})
    low, high = bootstrap_ci(a)["hints_used"]
    assert (round(low, 2), high) == (4.49, 9.75)
    (d,) = paired_compare(a, b, ["hints_used"])
    assert (d.mean_a, d.mean_b, d.difference, d.ci, d.p_value) == (6.75, 5.0, -1.75,
                                                                   (-2.75, -1.0), 0.125)
    assert d.interval_excludes_zero and not d.distinguishable
