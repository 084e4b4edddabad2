"""``escapebench report --out DIR`` writes only into a folder that is new, empty or its own:
the user's files survive, a second report at once is refused, a kill leaves the old report."""

from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path

import pytest

from escapebench.cli import main as cli_main
from escapebench.report import site
from escapebench.report.figures import Figure

MARKER = ".escapebench-report.json"  # the list of files the last report wrote
LOCK = ".escapebench-report.lock"


@pytest.fixture(autouse=True)
def quick_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    """A figure per series of results, a few bytes each: drawing the real ones is most of a
    report's time, and these tests are about which files land where."""

    def draw_all(results, out_dir: Path, *, cache_dir=None) -> list[Figure]:
        (out_dir / "figures").mkdir(parents=True, exist_ok=True)
        figures = []
        for series in sorted({(r.agent, r.model) for r in results}):
            name = f"figures/fig-{'-'.join(series)}.png"
            (out_dir / name).write_bytes(b"\x89PNG " + repr(series).encode())
            figures.append(Figure(name, name, "", name))
        return figures

    monkeypatch.setattr(site, "draw_all", draw_all)


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file of the report folder (its own bookkeeping left out), with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and not p.relative_to(folder).as_posix().startswith(".escapebench")}


def test_a_folder_of_the_users_files_is_refused_and_kept(harness_runs, tmp_path, capsys) -> None:
    out = tmp_path / "paper"
    (out / "games").mkdir(parents=True)
    (out / "figures").mkdir()
    (out / "games" / "my-custom-game.yaml").write_text("title: mine\n")
    (out / "games" / "README.txt").write_text("my notes\n")
    (out / "figures" / "fig1-my-paper.png").write_bytes(b"\x89PNG mine")
    before = files_of(out)
    code = cli_main(["report", str(harness_runs["explorer"]), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert "not empty and was not written by escapebench report" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert files_of(out) == before
    assert sorted(p.name for p in out.iterdir()) == ["figures", "games"]  # nothing added


def test_its_own_folder_keeps_the_users_files_and_loses_only_its_stale_ones(
    harness_runs, tmp_path, capsys
) -> None:
    out = tmp_path / "site"
    assert cli_main(["report", str(harness_runs["explorer"]), str(harness_runs["base-fumbler"]),
                     "--out", str(out)]) == 0
    two = files_of(out)
    (out / "notes.txt").write_text("mine\n")
    (out / "figures" / "my-figure.png").write_bytes(b"\x89PNG mine")
    (out / "data" / "episodes" / "mine.js").write_text("// mine\n")
    assert cli_main(["report", str(harness_runs["explorer"]), "--out", str(out)]) == 0
    one = files_of(out)
    assert one["notes.txt"] == b"mine\n"
    assert one["figures/my-figure.png"] == b"\x89PNG mine"
    assert one["data/episodes/mine.js"] == b"// mine\n"
    # the episodes and figure of the run no longer shown are gone, and only those
    gone = {f for f in two if f not in one}
    assert len(gone) == 4 and "figures/fig-base-fumbler.png" in gone
    assert all(f.startswith("data/episodes/1-") for f in gone - {"figures/fig-base-fumbler.png"})
    assert "3 finished of 3 episodes" in capsys.readouterr().out


def test_a_file_of_the_users_in_the_way_is_refused_not_overwritten(
    harness_runs, tmp_path, capsys
) -> None:
    both = [str(harness_runs["explorer"]), str(harness_runs["base-fumbler"])]
    assert cli_main(["report", *both, "--out", str(tmp_path / "both")]) == 0
    out = tmp_path / "site"
    assert cli_main(["report", str(harness_runs["explorer"]), "--out", str(out)]) == 0
    capsys.readouterr()
    # a file the report of both runs writes, put there by hand before it
    extra = sorted(set(files_of(tmp_path / "both")) - set(files_of(out)))[0]
    (out / extra).write_bytes(b"mine")
    before = files_of(out)
    code = cli_main(["report", *both, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and extra in err and "would overwrite" in err
    assert files_of(out) == before


def test_a_second_report_into_the_same_folder_at_once_is_refused(
    harness_runs, tmp_path, capsys
) -> None:
    out = tmp_path / "site"
    assert cli_main(["report", str(harness_runs["explorer"]), "--out", str(out)]) == 0
    before = files_of(out)
    capsys.readouterr()
    with open(out / LOCK, "a+") as held:  # the lock of a report still writing
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        code = cli_main(["report", str(harness_runs["base-fumbler"]), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "being written by another escapebench report" in err
    assert files_of(out) == before


KILL = """
import os, sys
import escapebench.report.site as site
from escapebench.cli import main
site.draw_all = lambda *a, **k: os._exit(9)  # killed while drawing the figures
main(["report", sys.argv[1], "--out", sys.argv[2]])
"""


@pytest.mark.slow
def test_a_kill_during_report_leaves_the_old_report_whole(harness_runs, tmp_path) -> None:
    out = tmp_path / "site"
    assert cli_main(["report", str(harness_runs["explorer"]), str(harness_runs["base-fumbler"]),
                     "--out", str(out)]) == 0
    before = files_of(out)
    done = subprocess.run([sys.executable, "-c", KILL, str(harness_runs["escape-solver"]),
                           str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 9, done.stderr
    assert files_of(out) == before
    # and the next report finishes the job
    assert cli_main(["report", str(harness_runs["escape-solver"]), "--out", str(out)]) == 0
    assert (out / MARKER).is_file() and not any((out / ".escapebench-report-work").glob("new"))
