"""``escapebench verify``: result folders replayed from their logs, with no model call.

The folders are made by the real harness (scripted models that fumble into hints and forced
steps, that solve, the EscapeAgent with its reflection and foresight calls, the explorer);
each is verified as written, and each hand edit (a number in a result, a feedback line, a game
file, the results table) makes it fail, naming the first step that differs.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from escapebench.bench.verify import (
    BUNDLE_MANIFEST,
    VERIFIED_FILE,
    verification_status,
    verify_run,
)
from escapebench.cli import main
from tests.support.report_runs import CLOSET, FUMBLING, SOLUTION, harness_runs, run_harness

__all__ = ["harness_runs"]  # the session fixture, imported for pytest


def verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["verify", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def copy_of(folder: Path, tmp_path: Path) -> Path:
    out = tmp_path / folder.name
    shutil.copytree(folder, out)
    return out


def episode_folder(run: Path) -> Path:
    return sorted((run / "episodes").iterdir())[0]


def test_every_harness_run_verifies(harness_runs: dict[str, Path], tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    runs = [copy_of(p, tmp_path) for p in harness_runs.values()]
    code, out = verify(capsys, *map(str, runs))
    assert code == 0, out
    for run in runs:
        assert f"{run}: VERIFIED: 3 episodes" in out
        assert verification_status(run) == "verified"
        mark = json.loads((run / VERIFIED_FILE).read_text())
        assert "run.json" in mark["files"] and len(mark["files"]) == 2 + 2 * 3
    assert "verdict: all verified (4 folders, 12 episodes, 0 failed)" in out


def test_the_fumbling_run_replays_its_hints_and_forced_steps(
        harness_runs: dict[str, Path]) -> None:
    run = harness_runs["base-fumbler"]
    records = [json.loads(line) for f in (run / "episodes").glob("*/steps.jsonl")
               for line in f.read_text().splitlines()]
    assert any(r["hint"] and r["hint"]["forced"] for r in records)  # the case is covered
    assert any(r["error"] for r in records)
    check = verify_run(run)
    assert check.ok and check.steps == len(records)


def test_a_number_changed_in_a_result_fails(harness_runs: dict[str, Path], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    run = copy_of(harness_runs["base-fumbler"], tmp_path)
    path = episode_folder(run) / "result.json"
    data = json.loads(path.read_text())
    data["hints_used"] -= 1
    path.write_text(json.dumps(data, indent=1))
    code, out = verify(capsys, str(run))
    assert code == 1
    assert f"{episode_folder(run).name}: result.json: hints_used: logged " in out
    assert f"{run}: NOT VERIFIED: 1 of 3 episodes" in out
    assert not (run / VERIFIED_FILE).exists()


def test_a_feedback_line_changed_fails_at_its_step(harness_runs: dict[str, Path],
                                                   tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run = copy_of(harness_runs["base-solver"], tmp_path)
    path = episode_folder(run) / "steps.jsonl"
    lines = path.read_text().splitlines()
    record = json.loads(lines[3])
    record["feedback"] += " It was easy."
    lines[3] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    code, out = verify(capsys, str(run))
    assert code == 1
    assert f"{episode_folder(run).name}: step 3: feedback: logged " in out


def test_an_action_changed_in_the_log_fails(harness_runs: dict[str, Path], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    run = copy_of(harness_runs["explorer"], tmp_path)
    path = episode_folder(run) / "steps.jsonl"
    lines = path.read_text().splitlines()
    record = json.loads(lines[0])
    record["key_steps"] += 1  # claims a key step the action does not make
    lines[0] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    code, out = verify(capsys, str(run))
    assert code == 1 and "step 0: key_steps: logged 1, replayed 0" in out


def test_a_changed_game_file_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "closet.yaml"
    shutil.copy(CLOSET, game)
    import tests.support.report_runs as runs

    original = runs.CLOSET
    runs.CLOSET = game
    try:
        run = run_harness(tmp_path / "run", "base", "solver", SOLUTION)
    finally:
        runs.CLOSET = original
    assert verify(capsys, str(run))[0] == 0
    game.write_text(game.read_text().replace("keypad", "keypad ", 1))
    code, out = verify(capsys, str(run))
    assert code == 1
    assert "has changed since the run (sha256" in out
    # the folder itself did not change, but it no longer verifies: no longer shown verified
    assert "its verified.json of an earlier check is removed" in out
    assert verification_status(run) is None


def test_a_results_table_edited_fails(harness_runs: dict[str, Path], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    run = copy_of(harness_runs["explorer"], tmp_path)
    table = run / "results.csv"
    lines = table.read_text().splitlines()
    lines[1] = lines[1].replace(",True,", ",False,", 1)
    table.write_text("\n".join(lines) + "\n")
    code, out = verify(capsys, str(run))
    assert code == 1 and "results.csv line 2 is not the table of the results" in out


def test_a_verified_folder_changed_afterwards_is_no_longer_verified(
        harness_runs: dict[str, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    run = copy_of(harness_runs["escape-solver"], tmp_path)
    assert verify(capsys, str(run))[0] == 0
    path = episode_folder(run) / "result.json"
    path.write_text(path.read_text().replace('"escaped": true', '"escaped": false'))
    assert verification_status(run) == "changed since verified"
    assert verification_status(harness_runs["explorer"]) in (None, "verified")


def test_bundle_packs_the_run_its_game_and_a_manifest(harness_runs: dict[str, Path],
                                                      tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    run = copy_of(harness_runs["base-fumbler"], tmp_path)
    out = tmp_path / "submission.zip"
    code, text = verify(capsys, str(run), "--bundle", str(out))
    assert code == 0, text
    with zipfile.ZipFile(out) as z:
        manifest = json.loads(z.read(BUNDLE_MANIFEST))
        names = set(z.namelist()) - {BUNDLE_MANIFEST}
        assert names == set(manifest["files"])
        assert "games/closet.yaml" in names and "run/run.json" in names
        assert z.read("games/closet.yaml") == CLOSET.read_bytes()
        import hashlib

        for name, sha in manifest["files"].items():
            assert hashlib.sha256(z.read(name)).hexdigest() == sha
    # never overwritten
    code, text = verify(capsys, str(run), "--bundle", str(out))
    assert code == 2 and "exists" in text


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = verify(capsys, str(tmp_path / "nowhere"))
    assert code == 2 and out.count("\n") == 1 and "neither a result folder nor a bundle" in out
    code, out = verify(capsys, str(tmp_path))
    assert code == 1 and "is not a result folder (no run.json)" in out
    assert "Traceback" not in out


def test_an_unfinished_episode_is_not_verified(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    run = run_harness(tmp_path / "run", "base", "fumbler", FUMBLING)
    (episode_folder(run) / "result.json").unlink()
    code, out = verify(capsys, str(run))
    assert code == 1 and "unfinished (no result.json)" in out


def test_a_run_of_native_function_calls_verifies(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Broken calls (text, not JSON, a missing argument, no such function) and the solution,
    from a real OpenAI-compatible server on 127.0.0.1."""
    import asyncio

    from escapebench.bench.suite import run_suite
    from tests.bench.test_run_tools import settings, tutorial_answers
    from tests.support.fake_openai_server import FakeOpenAIServer

    with FakeOpenAIServer(answer=tutorial_answers()) as server:
        outcome = asyncio.run(run_suite(settings(tmp_path / "run", server)))
    assert outcome.exit_code == 0
    code, out = verify(capsys, str(tmp_path / "run"))
    assert code == 0, out


def test_the_report_shows_which_runs_are_verified(harness_runs: dict[str, Path],
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    checked = copy_of(harness_runs["explorer"], tmp_path)
    unchecked = copy_of(harness_runs["base-solver"], tmp_path)
    assert verify(capsys, str(checked))[0] == 0
    code, out = main(["report", str(checked), str(unchecked), "--out", str(tmp_path / "site")]), \
        capsys.readouterr().out
    assert code == 0
    assert f"{checked}: verified" in out
    assert f"{unchecked}: not verified" in out
    html = (tmp_path / "site" / "index.html").read_text()
    assert '<td class="verified"><b>verified</b></td>' in html
    assert '<td class="verified">not verified</td>' in html


def test_a_folder_written_before_the_tool_choice_score_still_verifies(
        harness_runs: dict[str, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Its result.json files and results.csv lack the tool-choice fields: checked as written."""
    import csv

    from escapebench.bench.metrics import TOOL_CHOICE_FIELDS

    run = copy_of(harness_runs["explorer"], tmp_path)
    for path in (run / "episodes").glob("*/result.json"):
        data = json.loads(path.read_text())
        path.write_text(json.dumps({k: v for k, v in data.items()
                                    if k not in TOOL_CHOICE_FIELDS}, indent=1))
    with (run / "results.csv").open(newline="") as f:
        rows = list(csv.reader(f))
    keep = [i for i, name in enumerate(rows[0]) if name not in TOOL_CHOICE_FIELDS]
    with (run / "results.csv").open("w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([[r[i] for i in keep] for r in rows])
    code, out = verify(capsys, str(run))
    assert code == 0, out
    # an old table edited is still caught
    lines = (run / "results.csv").read_text().splitlines()
    lines[1] = lines[1].replace(",True,", ",False,", 1)
    (run / "results.csv").write_text("\n".join(lines) + "\n")
    code, out = verify(capsys, str(run))
    assert code == 1 and "results.csv line 2 is not the table of the results" in out


def rewrite_member(bundle: Path, name: str, change, *, manifest: bool) -> Path:
    """A copy of ``bundle`` with member ``name`` changed (and, with ``manifest``, its hash in
    the manifest too, as someone who edits a result and packs it again would)."""
    import hashlib

    out = bundle.with_name("edited-" + bundle.name)
    with zipfile.ZipFile(bundle) as src, zipfile.ZipFile(out, "w") as dst:
        files = json.loads(src.read(BUNDLE_MANIFEST))
        for info in src.infolist():
            data = src.read(info)
            if info.filename == name:
                data = change(data)
                if manifest:
                    files["files"][name] = hashlib.sha256(data).hexdigest()
            if info.filename != BUNDLE_MANIFEST:
                dst.writestr(info.filename, data)
        dst.writestr(BUNDLE_MANIFEST, json.dumps(files))
    return out


def test_a_bundle_verifies_and_an_edited_one_fails(harness_runs: dict[str, Path],
                                                   tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run = copy_of(harness_runs["escape-solver"], tmp_path)
    bundle = tmp_path / "submission.zip"
    assert verify(capsys, str(run), "--bundle", str(bundle))[0] == 0
    code, out = verify(capsys, str(bundle))
    assert code == 0 and f"{bundle}: VERIFIED: 3 episodes" in out, out
    name = next(n for n in zipfile.ZipFile(bundle).namelist() if n.endswith("result.json"))

    def fewer_steps(data: bytes) -> bytes:
        result = json.loads(data)
        result["total_steps"] -= 1
        return json.dumps(result).encode()

    edited = rewrite_member(bundle, name, fewer_steps, manifest=False)
    code, out = verify(capsys, str(edited))
    assert code == 1 and "does not have the sha256 its manifest records" in out
    repacked = rewrite_member(bundle, name, fewer_steps, manifest=True)
    code, out = verify(capsys, str(repacked))
    assert code == 1 and "result.json: total_steps: logged" in out


def test_a_run_of_the_original_protocol_verifies_with_its_checkout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The original harness's texts and answer parser, read from the checkout run.json names:
    answers it cannot read, hints and forced steps included."""
    import asyncio
    import io

    from escapebench.bench.settings import RunSettings
    from escapebench.bench.suite import run_suite
    from escapebench.llm.scripted import ScriptedChatModel
    from tests.conftest import UPSTREAM
    from tests.support.original_harness import make_checkout

    if not (UPSTREAM / "original" / "src").is_dir():
        pytest.skip("needs ../shared/upstream (the original code and data)")
    checkout = make_checkout(tmp_path)
    game = checkout / "data" / "game1-1.yaml"
    answers = ["Action: click(nothing)", "I do not know.", *FUMBLING]
    settings = RunSettings(
        agent="base", model="fumbler", games=[str(game)], out=tmp_path / "run", max_steps=14,
        quiet=True, fsync=False, no_cache=True, protocol="original", patience=3, help_steps=2,
    )
    model = ScriptedChatModel(answers, name="fumbler", cycle=True)
    outcome = asyncio.run(run_suite(settings, model=model, stream=io.StringIO()))
    assert not outcome.failed
    run = tmp_path / "run"
    assert json.loads((run / "run.json").read_text())["protocol"]["name"] == "original"
    code, out = verify(capsys, str(run))
    assert code == 0, out
    # without the checkout it names what to pass
    moved = tmp_path / "moved"
    checkout.rename(moved)
    code, out = verify(capsys, str(run), "--games", str(moved / "data"))
    assert code == 1 and "the run's protocol 'original'" in out
    code, out = verify(capsys, str(run), "--games", str(moved / "data"), "--original-source",
                       str(moved))
    assert code == 0, out


@pytest.mark.parametrize("ask_for_a_hint", [False, True])
def test_a_persons_play_verifies_with_the_hints_they_asked_for(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], ask_for_a_hint: bool) -> None:
    import subprocess
    import sys

    from escapebench.bench.records import STEPS_FILE
    from escapebench.play.session import PlaySession
    from tests.play.test_play import numbered, tutorial

    defn = tutorial()
    sim = PlaySession(defn)
    script = ["click 99"]  # a typo costs no step
    for index, ref in enumerate(defn.reference):
        if ask_for_a_hint and index == 1:  # asked mid-game, between two steps
            sim.request_hint()
            script.append("hint")
        command = numbered(sim, ref.action)
        sim.act(command)
        script.append(command)
    out = tmp_path / "human"
    done = subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "play", "tutorial", "--out", str(out),
         "--player", "ada"],
        input="\n".join(script) + "\n", capture_output=True, text=True, cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (result,) = (out / "episodes").glob("*/result.json")
    assert json.loads(result.read_text())["hints_used"] == int(ask_for_a_hint)
    code, text = verify(capsys, str(out))
    assert code == 0, text
    if ask_for_a_hint:
        # the log says where the person asked; without it the play does not replay
        steps = result.parent / STEPS_FILE
        records = [json.loads(line) for line in steps.read_text().splitlines()]
        assert [k for k, rec in enumerate(records) if (rec["hint"] or {}).get("requested")] == [1]
        del records[1]["hint"]["requested"]
        steps.write_text("".join(json.dumps(rec) + "\n" for rec in records))
        code, text = verify(capsys, str(out))
        assert code == 1 and "step 1: hint" in text


def _as_version_1(run: Path) -> None:
    """Make ``run`` a folder of result version 1: each result.json says version 1 and holds
    the tool choice counted by rule 1, and the tables are rebuilt."""
    from dataclasses import asdict

    from escapebench.bench.folders import collect_results, write_tables
    from escapebench.bench.records import read_episode_steps
    from escapebench.bench.tool_choice import score_records

    for path in (run / "episodes").glob("*/result.json"):
        data = json.loads(path.read_text())
        # the closet marks no creative step, so no game definition is needed here
        choice, solves = score_records(read_episode_steps(path.parent), version=1)
        data.update(asdict(choice), tool_solve_log=[s.to_dict() for s in solves])
        data["version"] = 1
        path.write_text(json.dumps(data, indent=1))
    write_tables(run, collect_results(run))


def test_results_of_version_1_verify_by_their_own_rule(
        harness_runs: dict[str, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A folder scored by the first tool-choice rule still verifies and is said to be of
    result version 1; its numbers are checked (by that rule: the closet game scores the same
    by both, tests/bench/test_tool_choice.py tells the rules apart)."""
    run = copy_of(harness_runs["base-fumbler"], tmp_path)
    _as_version_1(run)
    code, out = verify(capsys, str(run))
    assert code == 0, out
    assert "3 result(s) of result version 1, scored by that version's tool-choice rule" in out
    path = next((run / "episodes").glob("*/result.json"))
    data = json.loads(path.read_text())
    data["tool_tries"] += 1
    path.write_text(json.dumps(data, indent=1))
    code, out = verify(capsys, str(run))
    assert code == 1 and "result.json: tool_tries: logged" in out, out
