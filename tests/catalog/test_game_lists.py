"""``--games lab,tutorial``: a comma list of game specs wherever game specs are taken, as
Inspect's ``-T games=lab,ship``; a ``gen:`` spec keeps its own commas."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from escapebench.catalog import SOURCES, load_games, split_specs
from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_USAGE
from escapebench.generate.make import SPEC_PREFIX
from escapebench.play.browser_sessions import PlayStore

FORGE = Path(__file__).resolve().parents[1] / "games" / "forge.yaml"
CLOSET = Path(__file__).resolve().parents[1] / "support" / "games" / "closet.yaml"
GEN = "gen:tier=1,count=1,seed=0"


def _settings(run_dir: Path) -> list[str]:
    with (run_dir / "results.csv").open(encoding="utf-8") as f:
        return sorted(row["setting"] for row in csv.DictReader(f))


def test_run_plays_every_game_of_a_comma_list(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert cli_main(["run", "--agent", "explorer", "--games", "lab-hard, tutorial-easy",
                     "--max-steps", "3", "--out", str(out)]) == 0
    assert _settings(out) == ["lab-hard", "tutorial-easy"]
    # the same as naming them one by one
    again = tmp_path / "again"
    assert cli_main(["run", "--agent", "explorer", "--games", "lab-hard", "--games",
                     "tutorial-easy", "--max-steps", "3", "--out", str(again)]) == 0
    assert _settings(again) == _settings(out)


def test_check_and_games_take_comma_lists_and_a_gen_spec_keeps_its_commas(capsys) -> None:
    assert cli_main(["check", "-q", "--no-solver", f"{GEN},tutorial"]) == 0
    out = capsys.readouterr().out
    assert "6 setting(s) checked: all passed" in out  # three generated, three tutorial
    assert cli_main(["games", "--no-builtin", "--json", f"{FORGE},{CLOSET}"]) == 0
    listed = capsys.readouterr().out
    assert '"game": "forge"' in listed and '"game": "closet"' in listed


def test_a_wrong_name_in_a_list_is_named_alone(capsys) -> None:
    assert cli_main(["run", "--agent", "explorer", "--games", "lab,labb"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "labb: no game file, folder or built-in game by this name" in err
    assert "lab,labb" not in err


def test_serve_offers_the_games_of_a_comma_list(tmp_path: Path) -> None:
    store = PlayStore(tmp_path / "data", [f"{GEN},{FORGE}"])
    extra = {g["game"] for g in store.games() if not g["builtin"]}
    assert extra == {"gen-t1-s0-000", "forge"}


def test_a_file_whose_name_holds_a_comma_is_one_game(tmp_path: Path, capsys) -> None:
    odd = tmp_path / "forge,copy.yaml"
    shutil.copy(FORGE, odd)
    assert cli_main(["check", "-q", "--no-solver", str(odd)]) == 0
    assert "1 setting(s) checked: all passed" in capsys.readouterr().out


@pytest.mark.parametrize(("values", "specs"), [
    (["lab,tutorial"], ["lab", "tutorial"]),
    (["lab, tutorial,"], ["lab", "tutorial"]),
    ([f"{GEN},knots=2,lab"], [f"{GEN},knots=2", "lab"]),
    (["gen:tier=1", "count=2", "lab"], ["gen:tier=1,count=2", "lab"]),  # as Inspect splits
    (["lab", "count=2"], ["lab", "count=2"]),  # name=value only belongs to a gen: spec
    ([","], [","]),  # nothing but commas: kept, to be refused by name
])
def test_split_specs(values: list[str], specs: list[str]) -> None:
    assert split_specs(values) == specs


def test_the_catalog_knows_the_generators_prefix() -> None:
    assert SPEC_PREFIX in SOURCES
    assert {d.setting for d in load_games(["tutorial,lab"], ["hard"])} == {
        "tutorial-hard", "lab-hard"}


def test_a_generated_game_says_where_it_comes_from() -> None:
    from escapebench.engine.model import GeneratedFrom
    from escapebench.generate.make import GENERATOR_VERSION, generate_games

    made = load_games([f"{GEN},tutorial"], ["normal"])
    assert [d.setting for d in made] == ["gen-t1-s0-000", "tutorial"]
    assert made[0].generated == GeneratedFrom(GEN, GENERATOR_VERSION,
                                              generate_games(1, 1, 0)[0].sha256,
                                              "gen-t1-s0-000.yaml")
    assert made[1].generated is None
