"""Every setting of a run gets its own episode folder: names that share their first 100
characters, or differ only in characters a file name cannot hold, no longer share a step log;
a folder played by an earlier escapebench (the old names) still resumes."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from escapebench.bench import plan
from escapebench.bench.plan import episode_id, slug
from escapebench.bench.settings import RunConfigError, RunSettings
from escapebench.cli import main as cli_main

LONG = "a-room-whose-name-goes-on-" * 5  # 130 characters


def legacy_episode_id(setting: str, agent: str, model: str, repeat: int) -> str:
    """The episode folder name of escapebench before names got a hash (cut at 100)."""
    return f"{slug(setting)}__{slug(agent)}__{slug(model)}__r{repeat}"


def game_copy(mini_game_file: Path, folder: Path, game_id: str) -> Path:
    text = mini_game_file.read_text(encoding="utf-8").replace("id: mini\n", f"id: {game_id}\n", 1)
    path = folder / f"{len(list(folder.glob('*.yaml')))}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def command(games: list[Path], out: Path) -> list[str]:
    args = ["run", "--agent", "random", "--seed", "1", "--difficulty", "easy",
            "--max-steps", "5", "--quiet", "--out", str(out)]
    for g in games:
        args += ["--games", str(g)]
    return args


def rows(out: Path) -> list[dict[str, str]]:
    with (out / "results.csv").open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_settings_sharing_their_first_100_characters_get_two_folders(
    mini_game_file, tmp_path, capsys
) -> None:
    games = [game_copy(mini_game_file, tmp_path, LONG + "first"),
             game_copy(mini_game_file, tmp_path, LONG + "second")]
    out = tmp_path / "run"
    assert cli_main(command(games, out)) == 0
    assert len(rows(out)) == 2
    assert {r["setting"] for r in rows(out)} == {LONG + "first-easy", LONG + "second-easy"}
    names = sorted(p.name for p in (out / "episodes").iterdir())
    assert len(names) == 2 and all(len(n) < 150 and "~" in n for n in names)
    assert "2 of 2 episodes finished" in capsys.readouterr().err


def test_a_folder_played_with_the_old_names_still_resumes(mini_game_file, tmp_path) -> None:
    game = game_copy(mini_game_file, tmp_path, LONG + "only")
    out = tmp_path / "run"
    assert cli_main(command([game], out)) == 0
    (new,) = (out / "episodes").iterdir()
    old = out / "episodes" / legacy_episode_id(LONG + "only-easy", "random", "none", 0)
    assert new.name != old.name
    new.rename(old)  # the folder as an earlier escapebench named it
    log = (old / "steps.jsonl").read_bytes()
    assert cli_main(command([game], out)) == 0
    assert [p.name for p in (out / "episodes").iterdir()] == [old.name]
    assert (old / "steps.jsonl").read_bytes() == log  # resumed as finished, not played again
    assert len(rows(out)) == 1


def test_plan_run_refuses_two_episodes_with_one_id(mini_game_file, tmp_path, monkeypatch) -> None:
    games = [game_copy(mini_game_file, tmp_path, LONG + "first"),
             game_copy(mini_game_file, tmp_path, LONG + "second")]
    monkeypatch.setattr(plan, "episode_id", legacy_episode_id)  # ids cut at 100 characters
    settings = RunSettings(agent="random", games=[str(g) for g in games],
                           difficulties=["easy"], out=tmp_path / "run")
    with pytest.raises(RunConfigError, match="would share the episode folder"):
        plan.plan_run(settings, "none", {}, "random")


@pytest.mark.parametrize("a, b", [("my game", "my_game"), ("x" * 101, "x" * 100 + "y"),
                                  ("a/b", "a_b")])
def test_ids_of_different_settings_differ(a: str, b: str) -> None:
    assert episode_id(a, "base", "m", 0) != episode_id(b, "base", "m", 0)
    assert episode_id("closet-easy", "base", "m", 0) == "closet-easy__base__m__r0"


def test_the_report_names_an_unfinished_long_setting_whole(mini_game_file, tmp_path) -> None:
    from escapebench.report.runs import load_runs

    game = game_copy(mini_game_file, tmp_path, LONG + "only")
    out = tmp_path / "run"
    assert cli_main(command([game], out)) == 0
    (episode,) = (out / "episodes").iterdir()
    (episode / "result.json").unlink()  # as if the run had stopped in the middle
    (run,) = load_runs([out])
    assert [e.describe()["setting"] for e in run.episodes] == [LONG + "only-easy"]
