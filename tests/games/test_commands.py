"""The `check`, `games` and `replay` verbs as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from escapebench.cli import main
from escapebench.engine import EscapeGame
from escapebench.games.loading import builtin_files, load_file
from tests.games.shed import SHED_COUNTS, write_shed
from tests.support.hostile_inputs import folder_of_special_files

CHECK_FIELDS = {
    "setting", "game", "difficulty", "source", "ok", "errors", "warnings", "scenes",
    "hidden_scenes", "items", "tools", "key_steps", "total_tools", "reference_length",
    "oracle_steps", "crafts", "inputs", "applies", "clicks",
}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ check
def test_check_json_has_the_schema_and_exit_zero(tmp_path: Path, capsys) -> None:
    code, out, _ = _run(["check", "--json", str(write_shed(tmp_path))], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["ok"] is True
    (setting,) = doc["settings"]
    assert set(setting) >= CHECK_FIELDS
    assert {k: setting[k] for k in SHED_COUNTS} == SHED_COUNTS


def test_check_table_for_humans(tmp_path: Path, capsys) -> None:
    code, out, _ = _run(["check", str(write_shed(tmp_path))], capsys)
    assert code == 0
    header, rule, row = out.splitlines()[:3]
    assert header.split()[:3] == ["setting", "scenes", "hidden"]
    assert row.split()[:9] == ["shed", "2", "1", "5", "2", "6", "7", "9", "1"]
    assert "1 setting(s) checked: all passed" in out


def test_check_fails_with_errors_listed(tmp_path: Path, capsys) -> None:
    good = write_shed(tmp_path, name="good.yaml")
    bad = write_shed(tmp_path, 'wait_for: ["apply, trowel"]', 'wait_for: ["apply, trowl"]',
                     name="bad.yaml")
    code, out, _ = _run(["check", str(good), str(bad)], capsys)
    assert code == 1
    assert f"{bad}:43: error: [shed]" in out
    assert "FAILED" in out
    code, out, _ = _run(["check", "--json", str(good), str(bad)], capsys)
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False
    assert [s["ok"] for s in doc["settings"]] == [True, False]
    first = doc["settings"][1]["errors"][0]
    assert first["source"] == str(bad) and first["line"] == 43 and first["severity"] == "error"


def test_check_without_paths_checks_the_builtin_games(capsys) -> None:
    from escapebench.games.loading import BUILTIN_DIR, builtin_files

    if not builtin_files():
        pytest.skip("no built-in games yet")
    code, out, _ = _run(["check", "--json", "--no-solver"], capsys)
    sources = {Path(s["source"]).parent for s in json.loads(out)["settings"]}
    assert sources == {BUILTIN_DIR}
    assert code in (0, 1)  # whether they pass is the built-in games' own test


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: (p / "x.yaml").write_text("- name: [") and p / "x.yaml", "invalid YAML"),
        (lambda p: (p / "x.yaml").write_bytes(b"\xff\xfe\x00bad") and p / "x.yaml", "not UTF-8"),
        (lambda p: (p / "x.json").write_text("{}") and p / "x.json", "game files are YAML"),
        (lambda p: (p / "x.yaml").write_text("just text") and p / "x.yaml", "expected a list"),
    ],
    ids=["broken-yaml", "not-utf8", "not-yaml", "not-a-game"],
)
def test_check_user_errors_print_no_traceback(tmp_path: Path, make, message: str) -> None:
    path = make(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "check", str(path)],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    assert message in proc.stdout
    assert f"{path}" in proc.stdout


def _odd_folder(p: Path) -> Path:
    return folder_of_special_files(p, "odd", link="zero.yaml")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p / "absent.yaml", "no such file or folder"),
        (lambda p: os.mkfifo(p / "pipe.yaml") or p / "pipe.yaml",
         "not a regular file: a FIFO (named pipe)"),
        (lambda p: (p / "z.yaml").symlink_to("/dev/zero") or p / "z.yaml",
         "not a regular file: a link to a character device (/dev/zero)"),
        (_odd_folder, "folder holds no game files (*.yaml, *.yml); skipped pipe.yaml (a FIFO"),
    ],
    ids=["missing", "fifo", "link to /dev/zero", "folder of such entries"],
)
def test_check_on_a_path_that_is_no_game_file_exits_2_without_a_table_row(
    tmp_path: Path, make, message: str
) -> None:
    # Before: exit 1 with the path listed as a setting, and a FIFO or /dev/zero said to be
    # "no such file or folder" (run and play, which open files, would block on a FIFO).
    path = make(tmp_path)
    for verb in (["check", str(path)], ["run", "--games", str(path), "--out", "o", "--quiet"],
                 ["play", str(path), "--no-result"], ["games", str(path)]):
        proc = subprocess.run(
            [sys.executable, "-m", "escapebench.cli", *verb], capture_output=True, text=True,
            timeout=60, cwd=tmp_path, stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 2, (verb, proc.stderr)
        assert proc.stdout == "" and "Traceback" not in proc.stderr, (verb, proc.stderr)
        if message != "no such file or folder":
            assert message in proc.stderr, (verb, proc.stderr)
        else:  # every verb says it the same way, naming the built-in games (check did not)
            assert "no game file, folder or built-in game by this name (built-in games: " \
                "tutorial, " in proc.stderr, (verb, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_check_says_which_entries_of_a_folder_it_skipped(tmp_path: Path) -> None:
    folder = _odd_folder(tmp_path)
    (folder / "tutorial.yaml").write_text(
        next(p for p in builtin_files() if p.stem == "tutorial").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "check", "--no-solver", str(folder)],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"skipped {folder / 'pipe.yaml'} (not a regular file: a FIFO" in proc.stderr
    assert f"skipped {folder / 'zero.yaml'} (not a regular file: a link to" in proc.stderr


# ------------------------------------------------------------------ games
def test_games_lists_settings_with_oracle_steps(tmp_path: Path, capsys) -> None:
    code, out, _ = _run(["games", "--json", "--no-builtin", str(write_shed(tmp_path))], capsys)
    assert code == 0
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert row["setting"] == "shed" and row["difficulty"] == "normal"
    assert (row["scenes"], row["key_steps"], row["tools"], row["oracle_steps"]) == (2, 6, 2, 9)
    assert row["title"] == "The Garden Shed"
    code, out, _ = _run(["games", "--no-builtin", str(tmp_path)], capsys)
    assert "The Garden Shed" in out and code == 0


def test_games_reports_unloadable_files_and_lists_the_rest(tmp_path: Path, capsys) -> None:
    write_shed(tmp_path)
    (tmp_path / "broken.yaml").write_text("- name: [")
    code, out, err = _run(["games", "--no-builtin", str(tmp_path)], capsys)
    assert code == 1
    assert "broken.yaml:" in err and "invalid YAML" in err
    assert "shed" in out


# ------------------------------------------------------------------ replay
def _write_trace(path: Path, steps: list[dict]) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in steps))
    return path


def test_replay_reproduces_the_original_engine_states(tmp_path: Path, capsys, upstream_dir) -> None:
    golden = json.loads((upstream_dir / "conformance" / "golden" / "game2-1.json").read_text())
    trace = _write_trace(
        tmp_path / "trace.jsonl",
        [{"action": s["action"], "teleport_to": s["teleport_to"]} for s in golden["steps"]],
    )
    game_file = upstream_dir / "data" / "game2-1.yaml"
    code, out, _ = _run(["replay", str(game_file), "--trace", str(trace), "--states"], capsys)
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == len(golden["steps"])
    for rec, step in zip(records, golden["steps"], strict=True):
        assert rec["index"] == step["index"]
        assert rec["state"] == step["state"], step["index"]
        assert (rec["success"], rec["error"], rec["game_end"]) == (
            step["success"], step["error"], step["game_end"]
        )
    assert records[-1]["game_end"] is True


def test_replay_of_a_walked_trace(tmp_path: Path, capsys) -> None:
    game_file = write_shed(tmp_path)
    steps = [
        "click(curtain)", "click(trowel)", "move(Behind the curtain)", "click(toolbox)",
        "craft(trowel, handle)", "move(shed)", "apply(trowel, flower pot)", "click(note)",
        "input(41, padlocked door)", "input(42, padlocked door)", "click(padlocked door)",
    ]
    trace = _write_trace(tmp_path / "t.jsonl", [{"action": a, "teleport_to": None} for a in steps])
    code, out, _ = _run(["replay", str(game_file), "--trace", str(trace)], capsys)
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["success"] for r in records] == [True] * 7 + [False, False, True, True]
    assert records[7]["error"] is False  # the note is there; it just does nothing
    assert "The padlock holds." in records[8]["feedback"]
    assert records[-1]["game_end"] is True and "state" not in records[-1]
    # the same play, in the engine directly, ends in the same state
    (defn,) = load_file(game_file)
    game = EscapeGame(defn)
    for action in steps:
        game.step(action)
    code, out, _ = _run(["replay", str(game_file), "--trace", str(trace), "--states"], capsys)
    assert json.loads(out.splitlines()[-1])["state"] == game.state_dict()


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"action": "click(curtain)"}', "not json"], "t.jsonl:2: not valid JSON"),
        (['["click(curtain)"]'], "t.jsonl:1: expected an object"),
        (['{"action": 3}'], 't.jsonl:1: "action" must be a string'),
        (['', '{"action": "click(x)", "teleport_to": 5}'], 't.jsonl:2: "teleport_to" must be'),
        (['{"action": "click(x)", "teleport_to": "attic"}'], "unknown scene 'attic'"),
    ],
    ids=["not-json", "not-an-object", "action-not-text", "teleport-not-text", "unknown-scene"],
)
def test_replay_rejects_malformed_traces_naming_the_line(
    tmp_path: Path, capsys, lines: list[str], message: str
) -> None:
    game_file = write_shed(tmp_path)
    trace = tmp_path / "t.jsonl"
    trace.write_text("\n".join(lines) + "\n")
    code, out, err = _run(["replay", str(game_file), "--trace", str(trace)], capsys)
    assert code == 2
    assert out == ""  # nothing is played from a trace that is not all readable
    assert message in err


def test_replay_unknown_game_or_missing_trace(tmp_path: Path, capsys) -> None:
    code, _, err = _run(["replay", "no-such-game", "--trace", str(tmp_path / "t")], capsys)
    assert code == 2 and "no-such-game" in err
    game_file = write_shed(tmp_path)
    code, _, err = _run(["replay", str(game_file), "--trace", str(tmp_path / "t")], capsys)
    assert code == 2 and "cannot read trace" in err


def test_replay_of_a_run_step_log_follows_the_hint_teleports(tmp_path: Path, capsys) -> None:
    # The random agent ignores hints, so with short patience the hint system moves it around
    # and plays forced steps; the step log has no "teleport_to", only its hint records.
    out_dir = tmp_path / "run"
    code = main([
        "run", "--agent", "random", "--seed", "0", "--games", "tutorial", "--difficulty",
        "normal", "--patience", "3", "--help-steps", "2", "--out", str(out_dir), "--quiet",
        "--no-fsync",
    ])
    capsys.readouterr()
    assert code == 0
    (log,) = out_dir.glob("episodes/*/steps.jsonl")
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert any(r["hint"] and r["hint"]["forced"] for r in logged)  # the case worth testing
    assert logged[-1]["game_end"] is True

    code, out, _ = _run(["replay", "tutorial", "--trace", str(log), "--states"], capsys)
    assert code == 0
    replayed = [json.loads(line) for line in out.splitlines()]
    assert len(replayed) == len(logged)
    for again, played in zip(replayed, logged, strict=True):
        assert again["feedback"] == played["feedback"], again["index"]
        assert (again["success"], again["game_end"]) == (played["success"], played["game_end"])
        assert again["state"]["key_steps"] == played["key_steps"], again["index"]
    assert any(r["teleport_to"] for r in replayed)


# ------------------------------------------------------------------ broken games
def _broken_shed(tmp_path: Path) -> Path:
    """The shed with a trigger naming a scene it does not have (the curtain's)."""
    return write_shed(tmp_path, "change_visible, scene, workbench, True",
                      "change_visible, scene, attic, True", name="broken.yaml")


def test_play_and_serve_refuse_a_game_with_check_errors(tmp_path: Path) -> None:
    broken = _broken_shed(tmp_path)
    for argv in (["play", str(broken), "--no-result"],
                 ["serve", "--data", str(tmp_path / "data"), "--games", str(broken),
                  "--port", "0"]):
        proc = subprocess.run(  # (a subprocess: a serve that does not refuse would not end)
            [sys.executable, "-m", "escapebench.cli", *argv],
            capture_output=True, text=True, cwd=tmp_path, timeout=60, input="click(curtain)\n",
        )
        assert proc.returncode == 2, argv
        assert f"{broken}:" in proc.stderr and "unknown scene 'attic'" in proc.stderr
        assert f"escapebench check {broken}" in proc.stderr
        assert "Traceback" not in proc.stderr
        assert proc.stdout == ""  # nothing was played or served


def test_replay_of_a_broken_game_stops_at_the_step_that_breaks(tmp_path: Path, capsys) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_text(
        '{"action": "click(trowel)", "teleport_to": null}\n'
        '{"action": "click(curtain)", "teleport_to": null}\n'
        '{"action": "click(padlocked door)", "teleport_to": null}\n'
    )
    code, out, err = _run(["replay", str(_broken_shed(tmp_path)), "--trace", str(trace)], capsys)
    assert code == 2
    assert [json.loads(line)["action"] for line in out.splitlines()] == ["click(trowel)"]
    assert "the game broke at this step" in err and "'curtain'" in err and "'attic'" in err
    assert "Traceback" not in err


def test_games_on_an_empty_folder_is_one_error_without_the_builtin_table(
    tmp_path: Path, capsys
) -> None:
    (tmp_path / "empty").mkdir()
    code, out, err = _run(["games", str(tmp_path / "empty")], capsys)
    assert code == 2 and out == ""
    assert err.strip() == (f"escapebench games: {tmp_path / 'empty'}: folder holds no game "
                           "files (*.yaml, *.yml)")


def test_check_of_a_misspelt_name_lists_the_builtin_games_as_run_and_play_do(capsys) -> None:
    lines = []
    for verb in (["check", "labb"], ["run", "--games", "labb"], ["play", "labb"]):
        assert main(verb) == 2
        lines.append(capsys.readouterr().err.strip())
    assert len({line.partition(": ")[2] for line in lines}) == 1, lines
    assert lines[0] == ("escapebench check: labb: no game file, folder or built-in game by this "
                        "name (built-in games: " + ", ".join(p.stem for p in builtin_files())
                        + ")")
