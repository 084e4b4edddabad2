"""What ``escapebench serve`` keeps between report builds (it rebuilds whenever a step of a live
run is written): figures per set of results, each episode's viewer data per state of its files.
A build with the cache must equal one without, file for file."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.report import figures, site
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
                         cache_dir=cache)
    again = build_report(load_runs([harness_runs["explorer"]]), tmp_path / "b",
                         cache_dir=cache)
    assert len(drawn) == 2  # the second build with the cache drew nothing
    assert first.figures == again.figures == plain.figures
    for f in plain.figures:  # the same pictures as a report drawn without the cache
        reference = (tmp_path / "plain" / f.filename).read_bytes()
        assert (tmp_path / "a" / f.filename).read_bytes() == reference
        assert (tmp_path / "b" / f.filename).read_bytes() == reference

    # Other results are drawn afresh; the sets used last are kept, a few of them.
    def build(*names: str) -> None:
        build_report(load_runs([harness_runs[n] for n in names]), tmp_path / "-".join(names),
                     cache_dir=cache)

    for name in ["base-fumbler", "base-solver", "escape-solver"]:
        build(name, "explorer")
    assert len(drawn) == 5 and len(list((cache / "figures").iterdir())) == figures.FIGURE_CACHE_SETS
    build("explorer")  # (kept, and now the newest)
    build("base-fumbler", "base-solver", "escape-solver", "explorer")
    assert len(drawn) == 6 and len(list((cache / "figures").iterdir())) == figures.FIGURE_CACHE_SETS
    build("explorer")
    assert len(drawn) == 6
    build("base-fumbler", "explorer")  # the one used longest ago was removed
    assert len(drawn) == 7


def test_viewer_data_is_made_again_only_for_episodes_whose_files_changed(
    runs_copy: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = []
    payload = site.viewer_payload
    monkeypatch.setattr(site, "viewer_payload", lambda ep: made.append(ep.key) or payload(ep))
    runs, cache = [runs_copy["base-fumbler"], runs_copy["explorer"]], tmp_path / "cache"

    def same_files(a: Path, b: Path) -> None:
        files = sorted(p.relative_to(a) for p in (a / "data").rglob("*") if p.is_file())
        assert files == sorted(p.relative_to(b) for p in (b / "data").rglob("*") if p.is_file())
        for f in files:
            assert (a / f).read_bytes() == (b / f).read_bytes(), f

    build_report(load_runs(runs), tmp_path / "first", cache_dir=cache)
    episodes = len(made)
    assert episodes >= 4
    build_report(load_runs(runs), tmp_path / "second", cache_dir=cache)
    assert len(made) == episodes  # nothing made again
    same_files(tmp_path / "first", tmp_path / "second")

    # A live run writes a step: that episode alone is made again, and shows it.
    log = next((runs_copy["explorer"] / "episodes").iterdir()) / "steps.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    build_report(load_runs(runs), tmp_path / "third", cache_dir=cache)
    assert len(made) == episodes + 1
    build_report(load_runs(runs), tmp_path / "plain")  # no cache
    same_files(tmp_path / "third", tmp_path / "plain")
