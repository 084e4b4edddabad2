"""Files in the original format mean what the original engine's reading rules make of them:
commas, boolean spellings, states past the last, scenes only the hint teleport reaches. They are
played, `check` says where a file relies on the rules (warnings), and where a state past the last
would be shown, the step ends with a clear error and changes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from escapebench.cli import main
from escapebench.engine import EscapeGame
from escapebench.games.loading import GameFileError, load_file, load_games_reporting
from escapebench.games.validation import check_paths
from escapebench.protocols.escapebench.observation import observation_text
from tests.conftest import UPSTREAM
from tests.games.cottage import COTTAGE_YAML, line_of, write_cottage


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _normal(folder: Path):
    (defn,) = load_file(folder / "game7-1.yaml")
    return defn


# ------------------------------------------------------------------ reading
@pytest.mark.parametrize(
    ("written", "value"),
    [("True", True), ("true", True), ("TRUE", True), ("True ", True), ("True.", False),
     ("yes", False), ("1", False), ("False", False), ("False.", False), ("no", False),
     ("0", False), ("None", False)],
)
def test_a_boolean_is_true_exactly_when_it_reads_true_in_any_case(
    tmp_path: Path, written: str, value: bool
) -> None:
    text = COTTAGE_YAML.replace("change_interact, False.", f"change_interact, {written}")
    write_cottage(tmp_path, hard=False)
    (tmp_path / "game7-1.yaml").write_text(text)
    defn = _normal(tmp_path)
    game = EscapeGame(defn)
    game.step("click(doormat)")
    assert game.state_dict()["items"]["porch/doormat"][1] is value
    noted = [note for _, note in defn.readings if "change_interact" in note]
    # a reading is noted exactly where the text is not 'true' or 'false' in some case
    assert bool(noted) is (written.strip().lower() not in ("true", "false"))


def test_commas_are_cut_stripped_and_empty_parts_dropped(tmp_path: Path) -> None:
    text = COTTAGE_YAML.replace('["input, 2718"]', '["input , 2718, 3141"]').replace(
        "change_visible, scene, hall, True", "change_visible ,scene,,  hall , True,"
    )
    write_cottage(tmp_path, hard=False)
    (tmp_path / "game7-1.yaml").write_text(text)
    defn = _normal(tmp_path)
    game = EscapeGame(defn)
    for action in ("click(doormat)", "click(brass key)", "apply(brass key, cottage door)"):
        assert game.step(action).success, action
    assert game.state_dict()["scenes"]["hall"] is True
    assert game.state_dict()["items"]["porch/cottage door"][2] == 1  # 'change_state , 1,'
    game.teleport("attic")
    assert not game.step("input(3141, chest)").success  # only the first part is the answer
    assert game.step("input(2718, chest)").game_end
    notes = [note for _, note in defn.readings]
    assert "'input , 2718, 3141' is read as 'input, 2718' (the text after the second comma is " \
        "not used)" in notes
    assert any(n.startswith("'change_visible ,scene,,  hall , True,' is read as "
                            "'change_visible, scene, hall, True'") for n in notes)


@pytest.mark.parametrize("written", ["-1", "one", ""])
def test_a_state_that_is_no_number_is_a_load_error(tmp_path: Path, written: str) -> None:
    write_cottage(tmp_path, hard=False)
    text = COTTAGE_YAML.replace("change_state, 1\n", f"change_state, {written}\n")
    (tmp_path / "game7-1.yaml").write_text(text)
    with pytest.raises(GameFileError) as err:
        load_file(tmp_path / "game7-1.yaml")
    assert err.value.line == line_of(text, f"change_state, {written}")


# ------------------------------------------------------------------ states past the last
def test_a_state_past_the_last_is_set_while_the_item_is_hidden(tmp_path: Path) -> None:
    game = EscapeGame(_normal(write_cottage(tmp_path, hard=False)))
    for action in ("click(doormat)", "click(brass key)", "apply(brass key, cottage door)",
                   "move(front door)"):
        assert game.step(action).success, action
    result = game.step("click(vase)")
    assert result.success and not result.error
    assert game.state_dict()["items"]["hall/vase"] == [False, True, 1]  # as the original
    assert "vase" not in observation_text(game)


def test_showing_a_state_past_the_last_ends_the_step_with_an_error(tmp_path: Path) -> None:
    # The painting, once clicked, shows the vase again: in state 1, which it does not have.
    reveal = COTTAGE_YAML.replace(
        "      - desc: A painting of four birds on a branch, numbered 2, 7, 1 and 8.\n",
        "      - desc: A painting of four birds on a branch, numbered 2, 7, 1 and 8.\n"
        "        transitions:\n"
        "        - wait_for: [click]\n"
        "          trigger: [\"change_visible, item, vase, True\"]\n",
    )
    write_cottage(tmp_path, hard=False)
    (tmp_path / "game7-1.yaml").write_text(reveal)
    game = EscapeGame(_normal(tmp_path))
    for action in ("click(doormat)", "click(brass key)", "apply(brass key, cottage door)",
                   "move(front door)", "click(vase)"):
        assert game.step(action).success, action
    before = (game.state_dict(), observation_text(game))
    result = game.step("click(painting)")
    assert result.error and not result.success
    assert result.outcome.kind == "broken_game"
    why = result.outcome.text
    assert "item 'vase'" in why and "state 1" in why
    assert "states 0-0" in why and "Nothing was changed" in why
    assert (game.state_dict(), observation_text(game)) == before  # the step changed nothing
    assert game.step("input(2718, painting)").outcome.kind != "broken_game"  # the game goes on


# ------------------------------------------------------------------ check
def test_check_warns_where_a_file_relies_on_the_rules_and_exits_zero(
    tmp_path: Path, capsys
) -> None:
    folder = write_cottage(tmp_path / "data")
    code, out, _ = _run(["check", str(folder), "--json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["ok"] is True
    records = {r["setting"]: r for r in doc["settings"]}
    assert set(records) == {"game7-1", "game7-1-hard"}
    text = (folder / "game7-1.yaml").read_text()
    for record in records.values():
        assert record["ok"] and record["errors"] == []
        warned = {(w["check"], w["line"], w["message"]) for w in record["warnings"]}
        assert ("reading", line_of(text, "change_interact, False."),
                "'False.' is read as false (in 'change_interact, False.': only 'true', in any "
                "letter case, is true)") in warned
        assert ("reading", line_of(text, '"change_state , 1,"'),
                "'change_state , 1,' is read as 'change_state, 1' (empty parts between commas "
                "are dropped)") in warned
        (past,) = [w for w in record["warnings"] if w["check"] == "bad-state"]
        assert past["line"] == line_of(text, "- change_state, 1")
        assert "item 'vase'" in past["message"] and "the same transition hides it" in \
            past["message"]
        (attic,) = [w for w in record["warnings"] if w["check"] == "teleport-only"]
        assert attic["line"] == line_of(text, "- name: attic")
        assert "only the hint teleport reaches it" in attic["message"]
    assert records["game7-1"]["oracle_steps"] == 8  # the reference replays, by teleport
    hard = records["game7-1-hard"]
    (meant,) = [w for w in hard["warnings"]
                if w["check"] == "reading" and "'True.'" in w["message"]]
    assert "is read as false" in meant["message"] and "most likely meant as true" in \
        meant["message"]
    # so the key stays hidden and the chain fails: said, as the file is read, not refused
    assert any(w["check"] == "never-revealed" and "brass key" in w["message"]
               for w in hard["warnings"])
    assert any(w["check"] == "reference" and "as the original engine reads the file" in
               w["message"] for w in hard["warnings"])


def test_check_lists_the_problems_of_every_file_at_once(tmp_path: Path, capsys) -> None:
    folder = write_cottage(tmp_path / "data")
    (folder / "game7-1.yaml").write_text(
        COTTAGE_YAML.replace("scene, hall, True", "scene, hal, True")
    )
    (folder / "game8-1.yaml").write_text("- name: x\n  desc: [\n")
    code, out, _ = _run(["check", str(folder)], capsys)
    assert code == 1
    assert "unknown scene 'hal'" in out and "game8-1.yaml:3" in out
    assert "'True.' is read as false (in 'change_visible, tool, brass key, True.'" in out  # hard


# ------------------------------------------------------------------ commands over a folder
def _broken_folder(tmp_path: Path) -> Path:
    folder = write_cottage(tmp_path / "games")
    (folder / "game7-1.yaml").write_text(
        COTTAGE_YAML.replace("scene, hall, True", "scene, hal, True")
    )
    (folder / "game8-1.yaml").write_text("- name: x\n  desc: [\n")
    return folder


def test_load_games_reporting_returns_every_failure_next_to_the_rest(tmp_path: Path) -> None:
    found, failed = load_games_reporting([str(_broken_folder(tmp_path))])
    assert sorted(d.setting for d in found) == ["game7-1", "game7-1-hard"]
    assert [Path(e.source).name for e in failed] == ["game8-1.yaml"]


def test_games_lists_every_unplayable_setting_with_its_reason(tmp_path: Path, capsys) -> None:
    folder = _broken_folder(tmp_path)
    code, out, err = _run(["games", "--no-builtin", str(folder), "--json"], capsys)
    assert code == 1
    rows = {r["setting"]: r for r in map(json.loads, out.splitlines())}
    assert rows["game7-1-hard"]["playable"] is True and rows["game7-1"]["playable"] is False
    assert "2 setting(s) cannot be played" in err
    assert "game7-1: " in err and "unknown scene 'hal'" in err
    assert "game8-1: " in err and "invalid YAML" in err
    assert "Traceback" not in err


def test_run_lists_every_unplayable_setting_and_plays_nothing(tmp_path: Path, capsys) -> None:
    folder = _broken_folder(tmp_path)
    out_dir = tmp_path / "out"
    code, _, err = _run(["run", "--agent", "explorer", "--games", str(folder), "--out",
                         str(out_dir), "--quiet"], capsys)
    assert code == 2
    assert "2 setting(s) cannot be played" in err and "nothing was played" in err
    assert "game7-1: " in err and "unknown scene 'hal'" in err and "game8-1: " in err
    assert "--skip-unplayable" in err
    assert not (out_dir / "run.json").exists()


def test_run_skip_unplayable_plays_the_rest_and_records_the_skipped(
    tmp_path: Path, capsys
) -> None:
    folder = _broken_folder(tmp_path)
    out_dir = tmp_path / "out"
    code, _, err = _run(["run", "--agent", "explorer", "--games", str(folder), "--out",
                         str(out_dir), "--quiet", "--skip-unplayable", "--max-steps", "30"],
                        capsys)
    assert code == 0, err
    run = json.loads((out_dir / "run.json").read_text())
    assert [g["setting"] for g in run["games"]] == ["game7-1-hard"]
    skipped = {s["setting"]: s for s in run["skipped"]}
    assert set(skipped) == {"game7-1", "game8-1"}
    assert "unknown scene 'hal'" in skipped["game7-1"]["reason"]
    assert skipped["game8-1"]["source"].endswith("game8-1.yaml")
    assert "skipped 2 unplayable setting(s)" in err
    # and the report shows them
    site = tmp_path / "site"
    code, _, err = _run(["report", str(out_dir), "--out", str(site)], capsys)
    assert code == 0, err
    page = "".join(p.read_text() for p in site.rglob("*.html"))
    assert "skipped" in page and "unknown scene" in page


def test_play_of_a_folder_with_broken_files_lists_them_all(tmp_path: Path) -> None:
    folder = _broken_folder(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "play", str(folder), "--no-result"],
        capture_output=True, text=True, cwd=tmp_path, timeout=60, input="",
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "game8-1.yaml:3" in proc.stderr


def test_explorer_plays_every_setting_of_the_folder(tmp_path: Path, capsys) -> None:
    folder = write_cottage(tmp_path / "data")
    out_dir = tmp_path / "out"
    code, _, err = _run(["run", "--agent", "explorer", "--games", str(folder), "--out",
                         str(out_dir), "--quiet", "--max-steps", "200", "--patience", "5"],
                        capsys)
    assert code == 0, err
    results = [json.loads(p.read_text()) for p in (out_dir / "episodes").glob("*/result.json")]
    assert sorted(r["setting"] for r in results) == ["game7-1", "game7-1-hard"]


# ------------------------------------------------------------------ the original's data
MUTANTS = UPSTREAM / "mutants" / "data"


@pytest.mark.skipif(not MUTANTS.is_dir(), reason=f"mutants not present at {MUTANTS}")
def test_check_on_the_mutants_passes_with_warnings_naming_the_readings() -> None:
    reports = check_paths([str(MUTANTS)], run_solver=False)
    assert len(reports) == 18
    assert all(r.ok for r in reports), [str(i) for r in reports for i in r.errors]
    messages = [i.message for r in reports for i in r.warnings if i.check == "reading"]
    assert any(m.startswith("'False.' is read as false") for m in messages)
    assert any(m.startswith("'True.' is read as false") for m in messages)
    assert any("empty parts between commas are dropped" in m for m in messages)
    assert any(i.check == "bad-state" for r in reports for i in r.warnings)
    assert all(i.line for r in reports for i in r.warnings if i.check == "reading")


@pytest.mark.parametrize(("written", "shown"), [('"False"', True), ("0", False), ("", False)])
def test_original_layout_visible_values_are_read_as_the_original_engine_does(
    tmp_path: Path, written: str, shown: bool
) -> None:
    text = COTTAGE_YAML.replace(
        "    item:\n      name: doormat\n",
        f"    item:\n      name: doormat\n      visible: {written}\n",
    )
    write_cottage(tmp_path, hard=False)
    (tmp_path / "game7-1.yaml").write_text(text)
    defn = _normal(tmp_path)
    assert EscapeGame(defn).state_dict()["items"]["porch/doormat"][0] is shown
    (note,) = [note for _, note in defn.readings if note.startswith("visible:")]
    assert f"is read as {str(shown).lower()}" in note


@pytest.mark.skipif(not MUTANTS.is_dir(), reason=f"mutants not present at {MUTANTS}")
@pytest.mark.parametrize("folder", ["data", "mutants/data"])
def test_explorer_plays_every_setting_of_the_original_data_and_the_mutants(
    tmp_path: Path, capsys, folder: str
) -> None:
    out_dir = tmp_path / "out"
    code, _, err = _run(["run", "--agent", "explorer", "--games", str(UPSTREAM / folder),
                         "--out", str(out_dir), "--quiet", "--max-steps", "60",
                         "--concurrency", "2"], capsys)
    assert code == 0, err
    run = json.loads((out_dir / "run.json").read_text())
    assert len(run["games"]) == 18 and run["skipped"] == []
    results = list((out_dir / "episodes").glob("*/result.json"))
    assert len(results) == 18


def test_serve_store_lists_every_unplayable_setting_of_a_folder(tmp_path: Path) -> None:
    from escapebench.games.playable import UnplayableGamesError
    from escapebench.play import PlayStore

    folder = _broken_folder(tmp_path)
    with pytest.raises(UnplayableGamesError) as err:
        PlayStore(tmp_path / "data", [str(folder)])
    assert sorted(u.setting for u in err.value.unplayable) == ["game7-1", "game8-1"]
    assert "unknown scene 'hal'" in str(err.value) and "invalid YAML" in str(err.value)
    assert "escapebench check " in str(err.value)
