"""Figures drawn once per set of results: ``escapebench serve`` rebuilds its report whenever a
step of a live run is written, and drawing is most of that time."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.report import figures
from escapebench.report.runs import load_runs
from escapebench.report.site import build_report


def test_figures_are_drawn_once_per_set_of_results(
    harness_runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn = []
    draw = figures._draw_all
    monkeypatch.setattr(figures, "_draw_all", lambda *a: drawn.append(1) or draw(*a))
    cache = tmp_path / "cache"
    plain = build_report(load_runs([harness_runs["explorer"]]), tmp_path / "plain")
    assert len(drawn) == 1 and plain.figures
    first = build_report(load_runs([harness_runs["explorer"]]), tmp_path / "a",
                         figure_cache=cache)
    again = build_report(load_runs([harness_runs["explorer"]]), tmp_path / "b",
                         figure_cache=cache)
    assert len(drawn) == 2  # the second build with the cache drew nothing
    assert first.figures == again.figures == plain.figures
    for f in plain.figures:  # the same pictures as a report drawn without the cache
        reference = (tmp_path / "plain" / f.filename).read_bytes()
        assert (tmp_path / "a" / f.filename).read_bytes() == reference
        assert (tmp_path / "b" / f.filename).read_bytes() == reference

    # Other results are drawn afresh; the sets used last are kept, a few of them.
    def build(*names: str) -> None:
        build_report(load_runs([harness_runs[n] for n in names]), tmp_path / "-".join(names),
                     figure_cache=cache)

    for name in ["base-fumbler", "base-solver", "escape-solver"]:
        build(name, "explorer")
    assert len(drawn) == 5 and len(list(cache.iterdir())) == figures.FIGURE_CACHE_SETS
    build("explorer")  # (kept, and now the newest)
    build("base-fumbler", "base-solver", "escape-solver", "explorer")
    assert len(drawn) == 6 and len(list(cache.iterdir())) == figures.FIGURE_CACHE_SETS
    build("explorer")
    assert len(drawn) == 6
    build("base-fumbler", "explorer")  # the one used longest ago was removed
    assert len(drawn) == 7
