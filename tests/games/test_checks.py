"""The static checks (:mod:`escapebench.games.checks`): precise errors for broken games, with
file and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from escapebench.games.issues import CheckIssue
from escapebench.games.validation import SettingReport, check_paths
from tests.games.shed import SHED_YAML, line_of, write_shed


def _only(reports: list[SettingReport]) -> SettingReport:
    assert len(reports) == 1
    return reports[0]


def _errors(report: SettingReport, check: str) -> list[CheckIssue]:
    return [i for i in report.errors if i.check == check]


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
        "            - desc: A trowel, ready to dig.",
        "            - name: handle\n              desc: A trowel, ready to dig.",
        "state-name", "name: handle\n              desc: A trowel, ready",
        ["tool 'trowel', state 1", "'handle' is already the name of tool 'handle'"],
        id="state-name-of-another-tool",
    ),
    pytest.param(
        "            - desc: A trowel blade without a handle.",
        "            - name: blade\n              desc: A trowel blade without a handle.",
        "state-name", "name: blade", ["first state", "name the tool 'blade'"],
        id="state-name-on-the-first-state",
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


def test_scene_nothing_reaches_and_no_reference_step_needs_is_an_error(tmp_path: Path) -> None:
    text = SHED_YAML.replace("      Behind the curtain: workbench\n", "      Nowhere: shed\n")
    text = text.split("reference:")[0]  # (no reference step is made there, nor anywhere)
    path = tmp_path / "shed.yaml"
    path.write_text(text)
    report = _only(check_paths([str(path)]))
    (issue,) = _errors(report, "unreachable")
    assert "scene 'workbench': no scene links to it, so it can never be entered" in issue.message


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


def test_misspelt_keys_are_reported_with_their_line(tmp_path) -> None:
    """A misspelt key would silently do nothing; check names it, its line and the fix."""
    from escapebench.games.validation import check_file

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


def test_a_suggested_name_with_a_look_alike_letter_shows_it_escaped() -> None:
    # Before: "did you mean 'kеy'?" with a Cyrillic е, which reads as the name written.
    from escapebench.games.issues import _suggest

    assert _suggest("key", ["k\u0435y", "door"]) == " (did you mean 'k\\u0435y'?)"
    assert _suggest("doro", ["key", "door"]) == " (did you mean 'door'?)"
