"""The reference replay and oracle (:mod:`escapebench.games.reference`): the first failing
step, and walks only the hint teleport makes."""

from __future__ import annotations

from pathlib import Path

from escapebench.games.issues import CheckIssue
from escapebench.games.validation import SettingReport, check_paths
from tests.games.shed import line_of, write_shed


def _only(reports: list[SettingReport]) -> SettingReport:
    assert len(reports) == 1
    return reports[0]


def _errors(report: SettingReport, check: str) -> list[CheckIssue]:
    return [i for i in report.errors if i.check == check]


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
