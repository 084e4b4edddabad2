"""``escapebench compare A B``: paired per-setting differences with an interval and a test,
on result folders written by real runs of the built-in agents (easy settings, for speed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.cli import main as cli


def _run(out: Path, *flags: str) -> Path:
    code = cli(["run", *flags, "--difficulty", "easy", "--out", str(out), "--quiet",
                "--no-fsync"])
    assert code == 0
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("paired")
    return {
        "random0": _run(root / "random0", "--agent", "random", "--seed", "0", "--repeats", "2"),
        "random1": _run(root / "random1", "--agent", "random", "--seed", "1"),
        "explorer": _run(root / "explorer", "--agent", "explorer"),
        "explorer-short": _run(root / "explorer-short", "--agent", "explorer",
                               "--max-steps", "60"),
    }


def _rows(out: str) -> dict[str, str]:
    return {line.split("  ")[0]: line for line in out.splitlines() if "  " in line}


def test_random_against_explorer_is_a_clear_difference(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["compare", str(runs["random0"]), str(runs["explorer"])]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Paired comparison: B = explorer")
    assert "on the 7 settings both played" in out
    hints = _rows(out)["Hints Used"]
    # the explorer needs far fewer hints on every setting: the interval is below zero
    assert hints.rstrip().endswith("B lower (better)")
    low, high = (float(x) for x in hints.split("[")[1].split("]")[0].split(","))
    assert low < high < 0
    # seven settings, none the other way: the exact sign-flip test over the 2^7 flips
    p_value = float(hints.split("]")[1].split()[0])
    assert p_value <= 4 / 2**7


def test_two_seeds_of_the_random_agent_are_not_distinguishable(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["compare", str(runs["random0"]), str(runs["random1"])]) == 0
    out = capsys.readouterr().out
    rows = _rows(out)
    for metric in ("Hints Used", "Total Steps", "Key Steps Hints Used"):
        assert rows[metric].rstrip().endswith("not distinguishable"), rows[metric]
    # the same folders give the same numbers: the bootstrap is seeded
    assert cli(["compare", str(runs["random0"]), str(runs["random1"])]) == 0
    assert capsys.readouterr().out == out


def test_runs_under_other_limits_are_refused_with_the_reason(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["compare", str(runs["explorer"]), str(runs["explorer-short"])]) == 1
    err = capsys.readouterr().err
    assert "different rules" in err and "max steps 4000 vs 60" in err


def test_repeats_give_intervals_in_the_table_and_csv(runs: dict[str, Path]) -> None:
    import csv

    with open(runs["random0"] / "summary.csv", newline="", encoding="utf-8") as f:
        rows = {r["difficulty"]: r for r in csv.DictReader(f)}
    row = rows["all"]
    assert row["repeats"] == "2" and row["settings"] == "7"
    low, high = float(row["hints_used_ci_low"]), float(row["hints_used_ci_high"])
    assert low <= float(row["hints_used"]) <= high and low < high
    md = (runs["random0"] / "summary.md").read_text(encoding="utf-8")
    assert f"{float(row['hints_used']):.2f} [{low:.2f}, {high:.2f}]" in md
    assert "7 settings #" in md and "2 repeats" in md
