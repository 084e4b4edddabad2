"""`escapebench check`: counts of sound games, precise errors for broken ones."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from escapebench.games.checking import CheckIssue, SettingReport, check_paths, solve
from escapebench.games.loading import load_file
from tests.games.shed import SHED_COUNTS, SHED_YAML, line_of, write_shed

# Figures of the original settings in ../shared/upstream/data (reference actions and the oracle:
# reference actions plus the shortest walks between their scenes).
UPSTREAM_FIGURES = {
    "game1-1": (40, 93),
    "game1-2": (45, 93),
    "game1-3": (38, 54),
    "game2-1": (45, 79),
    "game2-2": (66, 105),
    "game3-1": (72, 162),
}


def _only(reports: list[SettingReport]) -> SettingReport:
    assert len(reports) == 1
    return reports[0]


def _errors(report: SettingReport, check: str) -> list[CheckIssue]:
    return [i for i in report.errors if i.check == check]


def test_shed_passes_with_its_counts(tmp_path: Path) -> None:
    report = _only(check_paths([str(write_shed(tmp_path))]))
    assert report.ok, [str(i) for i in report.issues]
    assert report.issues == []
    assert report.solver == "reached"
    record = report.to_json()
    assert {k: record[k] for k in SHED_COUNTS} == SHED_COUNTS
    assert record["setting"] == "shed" and record["difficulty"] == "normal"
    assert record["errors"] == [] and record["warnings"] == [] and record["ok"] is True


def test_original_settings_pass_with_plausible_oracle(upstream_dir: Path) -> None:
    reports = check_paths([str(upstream_dir / "data")])
    assert len(reports) == 18
    for r in reports:
        assert r.ok, [str(i) for i in r.issues]
        assert r.solver == "reached"
        assert (r.reference_length, r.oracle_steps) == UPSTREAM_FIGURES[r.game], r.setting
        (defn,) = load_file(r.source)
        assert (r.key_steps, r.total_tools) == (defn.total_key_steps, defn.total_tools)
        assert r.crafts + r.inputs + r.applies + r.clicks == r.reference_length
    # The upstream README gives 106.1 as the mean over all 36 settings; these 18 are a subset
    # with some of the smaller games, so the mean is lower but of the same size.
    mean = sum(r.oracle_steps or 0 for r in reports) / len(reports)
    assert 80 <= mean <= 120


# (what to replace, with what, the check that must fire, the text whose line it must name,
#  words the message must contain)
MUTATIONS = [
    pytest.param(
        "change_visible, item, note, True", "change_visible, item, nute, True",
        "unknown-name", "change_visible, item, nute, True", ["flower pot", "'nute'", "'note'"],
        id="typo-in-trigger-target",
    ),
    pytest.param(
        "Behind the curtain: workbench", "Behind the curtain: workbnch",
        "unknown-name", "Behind the curtain: workbnch", ["'workbnch'", "'workbench'"],
        id="typo-in-scene-link",
    ),
    pytest.param(
        "change_visible, scene, workbench, True", "change_visible, scene, workbnch, True",
        "unknown-name", "change_visible, scene, workbnch, True", ["unknown scene 'workbnch'"],
        id="typo-in-trigger-scene",
    ),
    pytest.param(
        'wait_for: ["apply, trowel"]', 'wait_for: ["apply, trowl"]',
        "unknown-name", "apply, trowl", ["'trowl'", "'trowel'", "state 0, transition 0"],
        id="typo-in-wait-tool",
    ),
    pytest.param(
        "apply_to: [flower pot]", "apply_to: [flower pott]",
        "unknown-name", "apply_to: [flower pott]", ["tool 'trowel', state 1", "'flower pott'"],
        id="typo-in-apply-to",
    ),
    pytest.param(
        "wait_for: [handle]", "wait_for: [handel]",
        "unknown-name", "wait_for: [handel]", ["tool 'trowel', state 0", "'handel'"],
        id="typo-in-craft-wait-for",
    ),
    pytest.param(
        "apply_to: [trowel]", "apply_to: [flower pot]",
        "pairing", "wait_for: [handle]", ["'handle'", "apply_to"],
        id="craft-does-not-pair",
    ),
    pytest.param(
        "trigger: [\"become_tool, handle\"]", "trigger: [\"become_tool, trowel\"]",
        "unknown-name", "become_tool, trowel", ["no tool of scene 'workbench'", "another scene"],
        id="become-tool-from-another-scene",
    ),
    pytest.param(
        'trigger: ["change_state, 1"]', 'trigger: ["change_state, 5"]',
        "bad-state", "change_state, 5", ["padlocked door", "state 5", "2 state(s)"],
        id="change-state-out-of-range",
    ),
    pytest.param(
        "          name: toolbox", "          name: curtain",
        "reference", "action: click(toolbox)", ["reference step 3", "'toolbox'"],
        id="reference-names-missing-item",
    ),
    pytest.param(
        "  - name: workbench", "  - name: shed",
        "duplicate-name", "  - name: shed\n    desc: A cluttered", ["scene 'shed'", "twice"],
        id="duplicate-scene",
    ),
    pytest.param(
        "          name: handle", "          name: trowel",
        "duplicate-name", "          name: trowel\n          visible", ["tool named 'trowel'"],
        id="duplicate-tool",
    ),
    pytest.param(
        "                    - change_visible, item, note, True\n", "",
        "never-revealed", "          visible: false\n          states:\n            - desc: A note",
        ["item 'note'", "no trigger ever makes it visible"],
        id="hidden-item-never-revealed",
    ),
    pytest.param(
        'wait_for: ["input, 42"]', 'wait_for: ["input, 43"]',
        "reference", "action: input(42, padlocked door)",
        ["reference step 6", "fails", "The padlock holds."],
        id="reference-step-fails",
    ),
]


@pytest.mark.parametrize(("old", "new", "check", "at", "words"), MUTATIONS)
def test_mutated_game_gets_a_precise_error(
    tmp_path: Path, old: str, new: str, check: str, at: str, words: list[str]
) -> None:
    path = write_shed(tmp_path, old, new)
    report = _only(check_paths([str(path)]))
    assert not report.ok
    found = _errors(report, check)
    assert found, [str(i) for i in report.issues]
    issue = found[0]
    assert issue.source == str(path)
    assert issue.line == line_of(path.read_text(), at), str(issue)
    for word in words:
        assert word in issue.message, str(issue)


def test_a_failing_reference_step_is_the_first_one_that_fails(tmp_path: Path) -> None:
    # Without the craft, the trowel cannot dig: that step is the first to fail, not the input.
    craft_step = "  - position: shed -> workbench\n    action: craft(handle, trowel)\n"
    path = write_shed(tmp_path, craft_step, "")
    report = _only(check_paths([str(path)]))
    (issue,) = _errors(report, "reference")
    assert "reference step 4 'apply(trowel, flower pot)'" in issue.message
    assert "fails" in issue.message and "too hard for bare hands" in issue.message
    assert issue.line == line_of(path.read_text(), "action: apply(trowel, flower pot)")
    assert report.oracle_steps is None


@pytest.mark.parametrize(
    ("old", "new", "problem", "line_text"),
    [
        ('wait_for: ["input, 42"]', 'wait_for: ["input, 42"', "invalid YAML", 'wait_for: ["input'),
        (
            '          states:\n            - desc: A note that reads "six times seven".',
            "          states: a note",
            "expected a list", "states: a note",
        ),
        (
            'trigger: ["change_state, 1"]', 'trigger: ["change_colour, 1"]',
            "unknown trigger 'change_colour'", "change_colour",
        ),
        (
            "      Behind the curtain: workbench", "      - workbench",
            "expected a mapping, got list", "      - workbench",
        ),
        (
            "    desc: A cluttered workbench.", "   desc: A cluttered",
            "invalid YAML", "   desc: A cluttered",
        ),
    ],
    ids=[
        "broken-yaml", "states-is-a-string", "unknown-trigger-kind", "relations-as-a-list",
        "bad-indentation",
    ],
)
def test_files_that_do_not_load_get_file_line_and_problem(
    tmp_path: Path, old: str, new: str, problem: str, line_text: str
) -> None:
    path = write_shed(tmp_path, old, new)
    report = _only(check_paths([str(path)]))
    assert not report.loaded and not report.ok
    (issue,) = report.errors
    assert issue.check == "load" and issue.source == str(path)
    assert problem in issue.message
    assert issue.line is not None
    assert abs(issue.line - line_of(path.read_text(), line_text)) <= 1, str(issue)


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


def test_walk_that_needs_a_teleport_is_a_warning(tmp_path: Path) -> None:
    # The workbench is revealed but nothing links to it: the hint teleport still gets there.
    path = write_shed(tmp_path, "      Behind the curtain: workbench\n", "      Nowhere: shed\n")
    report = _only(check_paths([str(path)]))
    walks = [i for i in report.warnings if i.check == "walk"]
    assert walks and "cannot walk there from 'shed'" in walks[0].message
    # and the static check says why, as a warning: the game plays to its end with hints
    (only,) = [i for i in report.warnings if i.check == "teleport-only"]
    assert "scene 'workbench': no scene links to it; only the hint teleport" in only.message
    assert only.line == line_of(path.read_text(), "  - name: workbench")
    assert report.ok


def test_scene_nothing_reaches_and_no_reference_step_needs_is_an_error(tmp_path: Path) -> None:
    text = SHED_YAML.replace("      Behind the curtain: workbench\n", "      Nowhere: shed\n")
    text = text.split("reference:")[0]  # (no reference step is made there, nor anywhere)
    path = tmp_path / "shed.yaml"
    path.write_text(text)
    report = _only(check_paths([str(path)]))
    (issue,) = _errors(report, "unreachable")
    assert "scene 'workbench': no scene links to it, so it can never be entered" in issue.message


def test_missing_and_empty_paths_are_reported_not_raised(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    not_yaml = tmp_path / "notes.txt"
    not_yaml.write_text("hello")
    reports = check_paths([str(tmp_path / "absent.yaml"), str(empty), str(not_yaml)])
    messages = [r.errors[0].message for r in reports]
    assert messages == [
        "no such file or folder",
        "folder holds no game files (*.yaml, *.yml)",
        "game files are YAML (.yaml or .yml)",
    ]
    assert all(not r.ok for r in reports)


def test_mutated_original_file_names_file_and_line(tmp_path: Path, upstream_dir: Path) -> None:
    data = tmp_path / "data"
    (data / "reference").mkdir(parents=True)
    shutil.copy(upstream_dir / "data" / "game1-1.yaml", data)
    shutil.copy(upstream_dir / "data" / "reference" / "key_log_1-1.txt", data / "reference")
    yaml_path = data / "game1-1.yaml"
    text = yaml_path.read_text()
    assert "apply, hairpin" in text
    yaml_path.write_text(text.replace("apply, hairpin", "apply, hairpn", 1))
    log = data / "reference" / "key_log_1-1.txt"
    log.write_text(log.read_text().replace("click(hairpin)", "click(hairpen)", 1))
    report = _only(check_paths([str(data)]))
    (wait,) = [i for i in _errors(report, "unknown-name") if "'hairpn'" in i.message]
    assert wait.source == str(yaml_path)
    assert wait.line == line_of(yaml_path.read_text(), "apply, hairpn")
    assert "did you mean 'hairpin'?" in wait.message
    (ref,) = _errors(report, "reference")
    assert ref.source == str(log) and "'hairpen'" in ref.message
    assert ref.line == line_of(log.read_text(), "click(hairpen)")


def test_solver_state_copies_cover_the_whole_play_state(tmp_path: Path) -> None:
    """The solver's fast save/restore must follow the engine if it gains state."""
    from escapebench.engine import EscapeGame
    from escapebench.games import checking

    covered = {
        *checking._LIST_FIELDS, *checking._SET_MAP_FIELDS, *checking._VALUE_FIELDS,
        *checking._SET_FIELDS,
    }
    # defn and the plan are the definition's; the screen cache is rebuilt from the state
    assert covered | {"defn", "_plan", "_screen"} == set(EscapeGame.__slots__)
    (defn,) = load_file(write_shed(tmp_path))
    game = EscapeGame(defn)
    for step in defn.reference[:4]:
        game.teleport(step.scene)
        game.step(step.action)
    before = game.snapshot()
    saved = checking._save(game)
    for step in defn.reference[4:]:
        game.teleport(step.scene)
        game.step(step.action)
    assert game.ended
    checking._load(game, saved)
    assert game.snapshot() == before


def test_misspelt_keys_are_reported_with_their_line(tmp_path) -> None:
    """A misspelt key would silently do nothing; check names it, its line and the fix."""
    from escapebench.games.checking import check_file

    path = tmp_path / "typo.yaml"
    path.write_text(
        "- name: room\n"
        "  desc: A room.\n"
        "  items:\n"
        "  - position: here\n"
        "    item:\n"
        "      name: door\n"
        "      visble: false\n"
        "      states:\n"
        "      - desc: A door.\n"
        "        neg_rewrd: Locked.\n"
        "        transitions:\n"
        "        - wait_for: [click]\n"
        "          trigger: ['change_interact, false']\n"
        "          reward: Open. GAME END\n"
    )
    (report,) = check_file(path, run_solver=False)
    found = {(i.line, i.message.split(";")[0]) for i in report.warnings}
    assert (7, "unknown key 'visble' in an item (did you mean 'visible'?)") in found
    assert (10, "unknown key 'neg_rewrd' in a state (did you mean 'neg_reward'?)") in found
