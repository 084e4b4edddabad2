"""The state-space solver (:mod:`escapebench.games.solver`): dead games proved, and its fast
save/restore of the play state."""

from __future__ import annotations

from pathlib import Path

from escapebench.games.issues import CheckIssue
from escapebench.games.loading import load_file
from escapebench.games.solver import solve
from escapebench.games.validation import SettingReport, check_paths
from tests.games.shed import SHED_YAML, line_of, write_shed


def _only(reports: list[SettingReport]) -> SettingReport:
    assert len(reports) == 1
    return reports[0]


def _errors(report: SettingReport, check: str) -> list[CheckIssue]:
    return [i for i in report.errors if i.check == check]


def test_no_game_end_is_an_error_and_the_solver_proves_it(tmp_path: Path) -> None:
    path = write_shed(tmp_path, "GAME END", "The end.")
    report = _only(check_paths([str(path)]))
    assert _errors(report, "no-game-end")
    assert "'GAME END'" in _errors(report, "no-game-end")[0].message
    assert report.solver == "unreachable"
    assert _errors(report, "solver")
    (ref,) = _errors(report, "reference")
    assert "ends without reaching 'GAME END'" in ref.message
    assert ref.line == line_of(path.read_text(), "action: click(padlocked door)")


def test_solver_finds_dead_games_the_reference_cannot_show(tmp_path: Path) -> None:
    # The padlock still opens but the door then stops reacting, and there is no reference:
    # only the search can tell that GAME END is out of reach.
    text = SHED_YAML.split("reference:")[0].replace(
        'trigger: ["change_state, 1"]', 'trigger: ["change_interact, False"]'
    )
    path = tmp_path / "shed.yaml"
    path.write_text(text)
    report = _only(check_paths([str(path)]))
    assert report.solver == "unreachable"
    assert "no reference solution" in _errors(report, "reference")[0].message
    sound = tmp_path / "sound"
    sound.mkdir()
    (defn,) = load_file(write_shed(sound))
    assert solve(defn)[0] == "reached"


def test_solver_state_copies_cover_the_whole_play_state(tmp_path: Path) -> None:
    """The solver's fast save/restore must follow the engine if it gains state."""
    from escapebench.engine import EscapeGame
    from escapebench.games import solver

    covered = {
        *solver._LIST_FIELDS, *solver._SET_MAP_FIELDS, *solver._VALUE_FIELDS,
        *solver._SET_FIELDS,
    }
    # defn and the rule tables are the definition's; a watcher (a screen) is told to forget
    assert covered | {"defn", "_tables", "watcher"} == set(EscapeGame.__slots__)
    (defn,) = load_file(write_shed(tmp_path))
    game = EscapeGame(defn)
    for step in defn.reference[:4]:
        game.teleport(step.scene)
        game.step(step.action)
    before = game.snapshot()
    saved = solver._save(game)
    for step in defn.reference[4:]:
        game.teleport(step.scene)
        game.step(step.action)
    assert game.ended
    solver._load(game, saved)
    assert game.snapshot() == before
