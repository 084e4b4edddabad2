"""Figure 14 with a chance line: tries before success per tool solve, against a blind pick."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.bench.metrics import EpisodeResult
from escapebench.report.figures import _tries_shares, tries_before_success


def test_the_blind_line_spreads_each_solve_evenly_over_its_candidates() -> None:
    seen, blind = _tries_shares([(0, 2), (3, 4)])
    assert seen[0] == 50 and seen[3] == 50
    # k=2: tries 0 or 1 (half each); k=4: 0..3 (a quarter each); over two solves
    assert blind[:4] == pytest.approx([37.5, 37.5, 12.5, 12.5]) and sum(blind) == 100
    seen, blind = _tries_shares([(25, 30)])
    assert seen[-1] == 100 and blind[-1] == pytest.approx(100 * 20 / 30)  # the 10+ bin


def _result(agent: str, solves: list[tuple[int, int]]) -> EpisodeResult:
    return EpisodeResult(
        f"g__{agent}__none__r0", "g", "g", "normal", agent, "none", escaped=True,
        tool_solves=len(solves), tool_choice=0.5,
        tool_solve_log=[{"step": n, "verb": "apply", "tool": "t", "target": "i", "tries": t,
                         "candidates": k, "creative": False} for n, (t, k) in enumerate(solves)],
    )


def test_fig14_is_drawn_per_agent_and_skipped_without_solves(tmp_path: Path) -> None:
    results = [_result("explorer", [(0, 3), (2, 5), (1, 4)]), _result("oracle", [(0, 6)])]
    fig = tries_before_success(results, tmp_path)
    assert fig is not None and fig.id == "fig14"
    assert (tmp_path / fig.filename).read_bytes().startswith(b"\x89PNG")
    assert tries_before_success([_result("random", [(0, 1)])], tmp_path) is None  # k < 2
