"""``escapebench report``: tables against results.csv, figures, viewer data, bad input."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from escapebench.bench.folders import collect_results
from escapebench.bench.metrics import EpisodeResult
from escapebench.bench.result_tables import table_cells
from escapebench.bench.summaries import ALL, aggregate
from escapebench.cli import main as cli_main
from escapebench.play import PlayStore
from escapebench.report.site import build_report
from tests.support.report_runs import CLOSET, SOLUTION, report_tables

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FIGURE_FILES = (
    "fig5-hints-by-action-type.png",
    "fig6-completed-vs-steps.png",
    "fig7-progress-per-game.png",
    "fig8-progress-intervals.png",
    "fig12-hints-by-difficulty.png",
    "fig13-steps-by-difficulty.png",
)


def csv_rows(*run_dirs: Path) -> list[dict[str, str]]:
    rows = []
    for d in run_dirs:
        with (d / "results.csv").open(newline="", encoding="utf-8") as fh:
            rows.extend(csv.DictReader(fh))
    return rows


def aggregate_cells(results: list[EpisodeResult]) -> list[str]:
    """The Table-3 cells (escaped/episodes, then the paper's five) that
    :func:`escapebench.bench.summaries.aggregate` gives for ``results`` (one agent and model,
    all difficulties): the report must show exactly these."""
    (summary,) = [s for s in aggregate(results) if s.difficulty == ALL]
    return table_cells(summary)[3:]


def eval_share(cell: str) -> float:
    """``"2/3"`` -> 2/3 (the Escaped column)."""
    escaped, episodes = cell.split("/")
    return int(escaped) / int(episodes)


def mean_of(rows: list[dict[str, str]], column: str) -> float:
    return sum(float(r[column]) for r in rows) / len(rows)


def play_human(data_dir: Path, player: str) -> None:
    """A human escapes every closet setting through the play store the server uses."""
    store = PlayStore(data_dir, [str(CLOSET)])
    for setting in ("closet-easy", "closet", "closet-hard"):
        view = store.start(setting, player)
        store.act(view["id"], "click(front door)")  # one slip
        store.hint(view["id"])  # and one hint
        for action in SOLUTION:
            if store.view(view["id"])["ended"]:
                break
            store.act(view["id"], action)
        assert store.view(view["id"])["ended"]


@pytest.fixture(scope="module")
def human_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("human")
    play_human(data, "Alice")
    return data


@pytest.fixture(scope="module")
def report(
    harness_runs: dict[str, Path], human_dir: Path, tmp_path_factory: pytest.TempPathFactory
):
    out = tmp_path_factory.mktemp("report")
    runs = [harness_runs[k] for k in ("base-fumbler", "base-solver", "escape-solver", "explorer")]
    result = build_report([*runs, human_dir], out)
    return out, result


def test_table3_matches_results_csv(report, harness_runs, human_dir) -> None:
    out, _ = report
    tables = report_tables((out / "index.html").read_text(encoding="utf-8"))
    table3 = {row[0]: row[1:] for row in tables["Table 3: BaseAgent"]}
    # humans have their own table, never among the models
    assert set(table3) == {"fumbler", "solver"}
    assert table3["fumbler"] == aggregate_cells(collect_results(harness_runs["base-fumbler"]))
    assert table3["solver"] == aggregate_cells(collect_results(harness_runs["base-solver"]))
    humans = {row[0]: row[1:] for row in tables["Human players"]}
    assert humans["Average Human"] == aggregate_cells(collect_results(human_dir))
    paper = humans["Average Human (paper, reference)"]
    assert paper[1:3] == ["4.33", "257.83"] and "not measured here" in paper[-1]
    # the means over episodes are those of results.csv, with their interval after them
    rows = csv_rows(harness_runs["base-fumbler"])
    assert [cell.split()[0] for cell in table3["fumbler"][1:3]] == [
        f"{mean_of(rows, 'hints_used'):.2f}", f"{mean_of(rows, 'total_steps'):.2f}"
    ]
    assert table3["fumbler"][1].split(" ", 1)[1].startswith("[")
    # every row says what it covers
    assert "settings #" in table3["fumbler"][-1] and "escapebench" in table3["fumbler"][-1]
    # the fumbler needs hints for everything; the human asked for exactly one per game
    assert float(table3["fumbler"][1].split()[0]) > float(table3["solver"][1].split()[0])
    assert humans["Average Human"][1].split()[0] == "1.00"


def test_table5_shows_change_against_base(report, harness_runs) -> None:
    out, _ = report
    tables = report_tables((out / "index.html").read_text(encoding="utf-8"))
    table5 = {row[0]: row[1:] for row in tables["Table 5: EscapeAgent"]}
    escape = csv_rows(harness_runs["escape-solver"])
    base = csv_rows(harness_runs["base-solver"])
    cells = table5["solver"]
    # value, then the change against BaseAgent with the same model as a subscript
    want_steps = aggregate_cells(collect_results(harness_runs["escape-solver"]))[2]
    diff = mean_of(escape, "total_steps") - mean_of(base, "total_steps")
    arrow = "↓" if diff < 0 else "↑"
    assert cells[2] == f"{want_steps} {arrow}{abs(diff):.2f}"
    assert "Average Human" not in table5


def test_leaderboard_lists_every_agent(report) -> None:
    out, _ = report
    tables = report_tables((out / "index.html").read_text(encoding="utf-8"))
    # every run covers the same work, so one leaderboard ranks them all; humans are not in it
    board = tables["Leaderboard"]
    labels = [row[0] for row in board]
    assert set(labels) == {"base / fumbler", "base / solver", "escape / solver", "explorer"}
    # most escaped episodes first, then fewest hints
    ranks = [(-eval_share(row[1]), float(row[2].split()[0])) for row in board]
    assert ranks == sorted(ranks)


def test_figures_are_png_files(report) -> None:
    out, result = report
    assert [Path(f.filename).name for f in result.figures] == list(FIGURE_FILES)
    html = (out / "index.html").read_text(encoding="utf-8")
    for name in FIGURE_FILES:
        data = (out / "figures" / name).read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 5000
        assert f'src="figures/{name}"' in html


def test_report_is_self_contained(report) -> None:
    out, _ = report
    html = (out / "index.html").read_text(encoding="utf-8")
    # no network: every script, style and image is a relative file that exists
    refs = re.findall(r'(?:src|href)="([^"#]+)"', html)
    assert refs
    for ref in refs:
        assert "://" not in ref and not ref.startswith("//"), ref
        assert (out / ref).exists(), ref
    # the viewer needs the shared DOM helper loaded before it
    scripts = re.findall(r'<script src="([^"]+)"', html)
    assert scripts.index("assets/dom.js") < scripts.index("assets/viewer.js")


def test_viewer_data_holds_every_step(report, harness_runs) -> None:
    out, _ = report
    index = (out / "data" / "index.js").read_text(encoding="utf-8")
    entries = json.loads(index.split("=", 1)[1].rstrip().rstrip(";"))["episodes"]
    fumbler = [e for e in entries if e["model"] == "fumbler" and e["setting"] == "closet"][0]
    text = (out / "data" / "episodes" / f"{fumbler['key']}.js").read_text(encoding="utf-8")
    payload = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    result = json.loads(
        (harness_runs["base-fumbler"] / "episodes" / fumbler["episode_id"] / "result.json")
        .read_text(encoding="utf-8")
    )
    assert len(payload["steps"]) == result["total_steps"]
    # the viewer counts steps from 1; the harness logs them from 0
    assert payload["hint_steps"] == [s + 1 for s in result["hint_steps"]]
    first_hint = payload["steps"][payload["hint_steps"][0] - 1]
    assert first_hint["hint"]["steps_in_help"] == 0
    for step in payload["steps"]:
        assert {"observation", "action", "feedback", "reasoning", "position"} <= set(step)
        assert "agent_state" not in step  # resume data stays out of the report


def test_unfinished_episode_with_torn_log_is_shown(runs_copy, tmp_path) -> None:
    run = runs_copy["base-fumbler"]
    episode = run / "episodes" / "closet__base__fumbler__r0"
    (episode / "result.json").unlink()
    with (episode / "steps.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"step": 999, "acti')  # a kill in the middle of a write
    result = build_report([run], tmp_path / "out")
    assert result.episodes == 3 and result.finished == 2
    tables = report_tables((tmp_path / "out" / "index.html").read_text(encoding="utf-8"))
    note_free = tables["Table 3: BaseAgent"][0]
    assert note_free[0] == "fumbler"
    assert note_free[1:] == aggregate_cells(collect_results(run))
    assert {r.setting for r in collect_results(run)} == {"closet-easy", "closet-hard"}


def test_text_from_results_is_escaped(tmp_path) -> None:
    from tests.support.report_runs import run_harness

    run = run_harness(tmp_path / "run", "base", "<img src=x onerror=alert(1)>", SOLUTION)
    build_report([run], tmp_path / "out")
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_cli_writes_report(harness_runs, tmp_path, capsys) -> None:
    code = cli_main(["report", str(harness_runs["explorer"]), "--out", str(tmp_path / "r")])
    assert code == 0
    assert (tmp_path / "r" / "index.html").is_file()
    assert "3 finished of 3 episodes" in capsys.readouterr().out


def test_a_folder_of_result_folders_suggests_its_result_folders(harness_runs, tmp_path,
                                                                capsys) -> None:
    import shutil

    runs = tmp_path / "runs"  # where `escapebench run` puts its folders: `report runs` is near
    for name in ("a", "b"):
        shutil.copytree(harness_runs["explorer"], runs / name)
    (runs / "notes").mkdir()  # not a result folder: not suggested
    code = cli_main(["report", str(runs), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err.strip().endswith(f"; it holds 2 result folders ({runs / 'a'}, {runs / 'b'}): "
                                f"did you mean {runs}/*?")
    assert not (tmp_path / "out").exists()
    assert cli_main(["report", str(runs / "a"), str(runs / "b"), "--out",
                     str(tmp_path / "out")]) == 0


@pytest.mark.parametrize("kind", ["missing", "not-a-run", "bad-result"])
def test_cli_bad_input_is_a_clear_error(kind, harness_runs, tmp_path, capsys) -> None:
    if kind == "missing":
        target = tmp_path / "nothing-here"
        expected = "no such result folder"
    elif kind == "not-a-run":
        target = tmp_path / "plain"
        target.mkdir()
        (target / "notes.txt").write_text("hi")
        expected = "not a result folder"
    else:
        target = tmp_path / "run"
        import shutil

        shutil.copytree(harness_runs["explorer"], target)
        bad = next((target / "episodes").iterdir()) / "result.json"
        bad.write_text("{not json")
        expected = "not valid JSON"
    code = cli_main(["report", str(target), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert expected in err and "Traceback" not in err
