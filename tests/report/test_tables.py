"""The report's tables show the numbers of ``bench.summaries.aggregate`` (means of per-episode
shares, with intervals), never a second computation of their own; rankings and changes only
between rows that cover the same work; humans in their own table."""

from __future__ import annotations

import dataclasses
import re

from escapebench.bench.metrics import EpisodeResult
from escapebench.bench.result_tables import table_cells
from escapebench.bench.summaries import ALL, Summary, aggregate
from escapebench.report.tables import (
    PAPER_HUMAN_LABEL,
    by_difficulty,
    human_table,
    leaderboard,
    leaderboards,
    table3,
    table5,
)


def episode(
    n: int, agent: str, *, difficulty: str, tools: int, tool_hints: int, key_steps: int,
    key_step_hints: int, steps: int, early_units: int,
) -> EpisodeResult:
    return EpisodeResult(
        episode_id=f"g{n}__{agent}__m__r0", setting=f"g{n}", game=f"g{n}",
        difficulty=difficulty, agent=agent, model="m", escaped=True,
        hints_used=tool_hints + key_step_hints, total_steps=steps,
        early_exit_units=early_units, tool_hints=tool_hints, key_step_hints=key_step_hints,
        total_tools=tools, total_key_steps=key_steps, key_steps=key_steps,
        tools_collected=tools,
    )


# A small game where every unit needed a hint and a big one solved without hints: the mean of
# the per-episode shares (50%) is not the paper's pooled share (hints over totals).
RESULTS = [
    episode(1, "base", difficulty="easy", tools=1, tool_hints=1, key_steps=2,
            key_step_hints=2, steps=40, early_units=0),
    episode(2, "base", difficulty="hard", tools=9, tool_hints=0, key_steps=18,
            key_step_hints=0, steps=300, early_units=27),
    episode(1, "escape", difficulty="easy", tools=1, tool_hints=0, key_steps=2,
            key_step_hints=1, steps=30, early_units=2),
    episode(2, "escape", difficulty="hard", tools=9, tool_hints=1, key_steps=18,
            key_step_hints=0, steps=200, early_units=20),
]


def summary(agent: str, difficulty: str = ALL) -> Summary:
    (found,) = [s for s in aggregate(RESULTS) if (s.agent, s.difficulty) == (agent, difficulty)]
    return found


def test_table3_shows_means_of_per_episode_shares_with_intervals() -> None:
    (row,) = table3(RESULTS).rows
    assert row.cells == table_cells(summary("base"))[3:]
    # tool hints: the mean of 100% (1 of 1) and 0% (0 of 9), not the pooled 1 of 10
    assert row.cells[0] == "2/2"  # escaped / episodes
    assert re.fullmatch(r"0\.50 \[\d+\.\d\d, \d+\.\d\d\] \(50\.00%\)", row.cells[4])
    assert row.cells[5].endswith("(50.00%)")  # key steps: 2 of 2 and 0 of 18
    assert row.cells[3].startswith("50.00 [")  # early exit: 0 of 3 and 27 of 27 units
    assert summary("base").tool_hint_share_pooled == 1 / 10  # the pooled form is kept
    assert row.cells[-1].startswith("2 settings #")  # what the row covers


def test_every_table_shows_the_same_numbers_for_the_same_rows() -> None:
    # (the leaderboard adds one column before Covers: where a row falls between the floor
    # and the oracle)
    board = {r.summary.agent: r.cells[:-2] + r.cells[-1:] for r in leaderboard(RESULTS).rows}
    assert board == {a: table_cells(summary(a))[3:] for a in ("base", "escape")}
    per_difficulty = {(r.summary.agent, r.summary.difficulty): r.cells
                      for r in by_difficulty(RESULTS).rows}
    assert per_difficulty == {
        (a, d): table_cells(summary(a, d))[3:]
        for a in ("base", "escape") for d in ("easy", "hard")
    }


def test_table5_changes_are_differences_of_aggregate() -> None:
    (row,) = table5(RESULTS).rows
    # no change for the escaped count, nor for tool choice where neither row has one
    assert [d is not None for d in row.deltas] == [False, True, True, True, True, True, False]
    escape, base = summary("escape"), summary("base")
    assert row.cells == table_cells(escape)[3:]
    hints = escape.hints_used - base.hints_used
    assert row.deltas[0] is None  # no change shown for the escaped count
    assert row.deltas[1] == (f"{'↓' if hints < 0 else '↑'}{abs(hints):.2f}", hints < 0)
    early = 100 * (escape.early_exit_progress - base.early_exit_progress)
    assert row.deltas[3] == (f"{'↓' if early < 0 else '↑'}{abs(early):.2f}", early > 0)


def test_the_leaderboard_ranks_escaping_runs_above_capped_ones_and_shows_escaped() -> None:
    """A capped run that never escaped used fewer hints only because it stopped early."""
    import dataclasses

    capped = [
        dataclasses.replace(r, agent="random", episode_id=r.episode_id.replace("base", "random"),
                            escaped=False, hints_used=0, tool_hints=0, key_step_hints=0)
        for r in RESULTS if r.agent == "base"
    ]
    board = leaderboard([*RESULTS, *capped])
    assert board.headers[1] == "Escaped"
    assert [(r.summary.agent, r.cells[0]) for r in board.rows] == [
        ("escape", "2/2"), ("base", "2/2"), ("random", "0/2"),
    ]


def test_average_human_leaves_out_games_the_player_stopped() -> None:
    import dataclasses

    finished = dataclasses.replace(RESULTS[0], agent="human", player="ada", ended_by="escaped",
                                   episode_id="g1__human__none__r0")
    stopped = dataclasses.replace(RESULTS[1], agent="human", player="bo", escaped=False,
                                  ended_by="quit", episode_id="g2__human__none__r0")
    (human, paper) = human_table([*RESULTS, finished, stopped]).rows
    assert human.summary.episodes == 1 and human.cells[0] == "1/1"
    assert paper.reference and paper.label == PAPER_HUMAN_LABEL


def test_humans_are_never_ranked_among_models() -> None:
    human = dataclasses.replace(RESULTS[0], agent="human", player="ada", ended_by="escaped",
                                episode_id="g1__human__none__r0")
    mixed = [*RESULTS, human]
    assert all(not r.is_human for t in (table3(mixed), table5(mixed)) for r in t.rows)
    assert all(not r.is_human for t in leaderboards(mixed) for r in t.rows)
    labels = [r.label for r in human_table(mixed).rows]
    assert labels == ["Average Human", PAPER_HUMAN_LABEL]
    assert human_table(RESULTS).rows == []  # no human played: no table


def _as(agent: str, results: list[EpisodeResult], **changes: object) -> list[EpisodeResult]:
    return [dataclasses.replace(r, agent=agent, episode_id=r.episode_id.replace(r.agent, agent),
                                **changes) for r in results]


BASE = [r for r in RESULTS if r.agent == "base"]


def test_rows_of_other_limits_settings_or_protocols_are_not_ranked_together() -> None:
    explorer = _as("explorer", BASE, max_steps=200)
    random_short = _as("random", BASE, max_steps=120)
    other_games = _as("foo", BASE[:1], max_steps=200)
    other_protocol = _as("bar", BASE, max_steps=200, protocol="original")
    boards = leaderboards([*explorer, *random_short, *other_games, *other_protocol])
    assert sorted([r.summary.agent for r in b.rows] for b in boards) == [
        ["bar"], ["explorer"], ["foo"], ["random"]]
    captions = " ".join(b.caption for b in boards)
    assert "max steps 200 vs 120" in captions and "protocol escapebench vs original" in captions
    assert "settings 2 #" in captions  # the settings sets differ: 2 settings vs 1
    # rows of the same work are ranked together
    (one,) = leaderboards([*explorer, *_as("random", BASE, max_steps=200)])
    assert {r.summary.agent for r in one.rows} == {"explorer", "random"}
    assert all("max 200 steps" in r.cells[-1] for r in one.rows)
    # more repeats of the same work are the same work, measured more precisely
    repeated = [dataclasses.replace(r, repeat=1, episode_id=r.episode_id[:-1] + "1")
                for r in _as("random", BASE, max_steps=200)]
    (one,) = leaderboards([*explorer, *_as("random", BASE, max_steps=200), *repeated])
    covers = {r.summary.agent: r.cells[-1] for r in one.rows}
    assert "1 repeat," in covers["explorer"] and "2 repeats" in covers["random"]


def test_table5_shows_no_change_against_a_base_run_of_other_limits() -> None:
    base = _as("base", BASE, max_steps=200)
    escape = _as("escape", [r for r in RESULTS if r.agent == "escape"], max_steps=120)
    (row,) = table5([*base, *escape]).rows
    assert row.deltas == []
    assert "no change shown" in row.note and "max steps 120 vs 200" in row.note


def test_the_leaderboard_places_rows_between_the_random_floor_and_the_oracle() -> None:
    def played(agent: str, hints: int, choice: float) -> list[EpisodeResult]:
        return [dataclasses.replace(r, agent=agent, hints_used=hints, tool_choice=choice,
                                    episode_id=r.episode_id.replace("base", agent))
                for r in RESULTS if r.agent == "base"]

    results = [*played("random", 20, -0.2), *played("oracle", 0, 1.0),
               *played("base", 5, 0.4)]
    board = leaderboard(results)
    assert board.headers[-2] == "Random → Oracle"
    cells = {r.summary.agent: r.cells[-2] for r in board.rows}
    # hints: 15 of the 20 between the floor and the oracle; choice: 0.6 of 1.2
    assert cells == {"random": "floor (0%)", "oracle": "oracle (100%)",
                     "base": "hints 75%, choice 50%"}
    alone = leaderboard(played("base", 5, 0.4))
    assert alone.rows[0].cells[-2] == "—" and "--agent oracle" in alone.caption


def test_rows_scored_by_an_older_tool_choice_rule_are_not_ranked_with_new_ones() -> None:
    """A result of version 1 had its tool choice scored by the first rule: its rows get a
    leaderboard of their own that says so, and compare refuses the pair."""
    from escapebench.bench.metrics import RESULT_VERSION
    from escapebench.bench.summaries import coverage_of

    now = RESULT_VERSION  # today's version: 3 since a hinted craft gives its product's use away
    old = _as("escape", BASE, version=1, tool_choice=0.6)
    new = _as("base", BASE, tool_choice=0.1)
    boards = leaderboards([*old, *new])
    assert len(boards) == 2
    titles = " ".join(b.title for b in boards)
    assert "results v1" in titles
    assert any(f"result version (tool-choice rule) 1 vs {now}" in b.caption
               or f"result version (tool-choice rule) {now} vs 1" in b.caption for b in boards)
    assert coverage_of(old).differences(coverage_of(new), settings=False) == [
        f"result version (tool-choice rule) 1 vs {now}"]
    assert "results v" not in coverage_of(new).label()  # today's results say nothing more
