"""The report's tables show the numbers of ``bench.metrics.aggregate`` (the paper's pooled
shares), never a second computation of their own."""

from __future__ import annotations

from escapebench.bench.metrics import ALL, EpisodeResult, Summary, aggregate, table_cells
from escapebench.report.tables import by_difficulty, leaderboard, table3, table5


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


def test_table3_shows_the_pooled_shares_of_aggregate() -> None:
    (row,) = table3(RESULTS).rows
    assert row.cells == table_cells(summary("base"))[3:]
    # tool hints: 1 of 1 + 9 tools = 10%, not the mean of 100% and 0%
    assert row.cells[0] == "2/2"  # escaped / episodes
    assert row.cells[4] == "0.50 (10.00%)"
    assert row.cells[5] == "1.00 (10.00%)"
    assert row.cells[3] == "90.00"  # early exit: 27 of 30 units, pooled


def test_every_table_shows_the_same_numbers_for_the_same_rows() -> None:
    board = {r.summary.agent: r.cells for r in leaderboard(RESULTS).rows}
    assert board == {a: table_cells(summary(a))[3:] for a in ("base", "escape")}
    per_difficulty = {(r.summary.agent, r.summary.difficulty): r.cells
                      for r in by_difficulty(RESULTS).rows}
    assert per_difficulty == {
        (a, d): table_cells(summary(a, d))[3:]
        for a in ("base", "escape") for d in ("easy", "hard")
    }


def test_table5_changes_are_differences_of_aggregate() -> None:
    (row,) = table5(RESULTS).rows
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
    (human,) = [r for r in table3([*RESULTS, finished, stopped]).rows if r.is_human]
    assert human.summary.episodes == 1 and human.cells[0] == "1/1"
