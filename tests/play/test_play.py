"""Human play: the terminal command driven through stdin, and the PlaySession it shares with the
browser play page (numbered commands, hints, save/load, results in the shared layout)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from escapebench.bench.hints import HintOptions
from escapebench.engine.actions import Action
from escapebench.engine.model import GameDefinition
from escapebench.games.loading import load_games
from escapebench.play import PlayError, PlaySession


def tutorial() -> GameDefinition:
    return next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")


def numbered(session: PlaySession, action: str) -> str:
    """How a person types ``action`` with the numbers shown on screen."""
    resolved = session.game.resolve(action)
    assert isinstance(resolved, Action), resolved
    view = session.view()
    thing = {t["name"]: t["n"] for t in view["things"]}
    bag = {t["name"]: t["n"] for t in view["bag"]}
    exits = {e["target"]: e["n"] for e in view["exits"]}
    kind, args = resolved.kind, resolved.args
    if kind == "move":
        return f"move {exits[args[0]]}"
    if kind == "click":
        return f"click {thing[args[0]]}"
    if kind == "apply":
        return f"apply({bag[args[0]]}, {thing[args[1]]})"
    if kind == "craft":
        return f"craft {bag[args[0]]} {bag[args[1]]}"
    return f"input({args[0]}, {thing[args[1]]})"


def test_terminal_play_of_the_tutorial_to_game_end(tmp_path: Path) -> None:
    """A person types numbered actions, asks for a hint, saves, loads, and escapes."""
    defn = tutorial()
    # Work out the typed script on a session in this process, then type it into the command.
    # The tutorial's reference chain walks between its scenes itself (it has its moves).
    sim = PlaySession(defn)
    script = ["help", "hint"]
    hint = sim.request_hint()
    assert hint is not None
    for k, ref in enumerate(defn.reference):
        if k == 3:
            script += ["save", "click 99", "frobnicate the door", "load"]
        assert sim.game.scene_name == ref.scene
        command = numbered(sim, ref.action)
        sim.act(command)
        script.append(command)
    assert sim.game.ended, "the reference chain should end the tutorial"

    out = tmp_path / "results"
    proc = subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "play", "tutorial", "--out", str(out),
         "--player", "ada"],
        input="\n".join(script) + "\n",
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    text = proc.stdout
    assert "HINT:" in text and hint["action"] in text
    # a move away while the hint is in force lasts one step, and the hint line says so
    assert f"until then each step starts in {hint['scene']}]" in text
    assert "Saved at step 3" in text and "Loaded" in text
    assert "! there is no thing number 99" in text
    assert "! cannot read 'frobnicate the door'" in text
    steps = sim.step
    assert f"Escaped after {steps} steps with 1 hint; progress 100%" in text
    assert (tmp_path / "tutorial.save.json").is_file()

    episode = out / "episodes" / "tutorial__human__none__r0"
    result = json.loads((episode / "result.json").read_text())
    assert result["escaped"] and result["ended_by"] == "escaped"
    assert (result["agent"], result["model"], result["player"]) == ("human", "none", "ada")
    assert result["hints_used"] == 1 and result["total_steps"] == steps
    records = [json.loads(line) for line in (episode / "steps.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records] == list(range(steps))
    assert records[-1]["game_end"] and records[0]["hint"]["steps_in_help"] == 0
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert [(r["agent"], r["player"], r["escaped"]) for r in rows] == [("human", "ada", "True")]
    run = json.loads((out / "run.json").read_text())
    assert run["agent"] == "human" and run["games"][0]["setting"] == "tutorial"
    assert "human" in (out / "summary.md").read_text()


def test_the_command_rejects_an_unknown_game_without_a_traceback(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "play", "no-such-game"],
        capture_output=True, text=True, cwd=tmp_path, timeout=60, input="",
    )
    assert proc.returncode == 2
    assert "no-such-game" in proc.stderr and "Traceback" not in proc.stderr


def test_numbers_and_names_resolve_to_the_same_action() -> None:
    session = PlaySession(tutorial())
    view = session.view()
    first = view["things"][0]["name"]
    assert session.resolve_command("click 1") == f"click({first})"
    assert session.resolve_command("click(1)") == f"click({first})"
    assert session.resolve_command(f"CLICK {first}") == f"click({first})"
    assert session.resolve_command("move 1") == f"move({view['exits'][0]['label']})"
    assert session.resolve_command("input 427 1") == f"input(427, {first})"
    assert session.resolve_command("input(4, 2, 7, 1)") == f"input(4, 2, 7, {first})"


@pytest.mark.parametrize(
    "command, message",
    [
        ("click 42", "no thing number 42"),
        ("apply(1, 1)", "no bag tool number 1: there are none"),
        ("apply 1", "two arguments"),
        ("dance", "cannot read"),
    ],
)
def test_unplayable_commands_cost_no_step(command: str, message: str) -> None:
    session = PlaySession(tutorial())
    before = session.game.snapshot()
    with pytest.raises(PlayError, match=message):
        session.act(command)
    assert session.step == 0 and session.game.snapshot() == before


def test_automatic_hint_after_patience_and_forced_step_after_help_period() -> None:
    defn = tutorial()
    session = PlaySession(defn, hints=HintOptions(patience=3, help_steps=2))
    for _ in range(4):  # help starts after step 3: no progress since step 0
        session.act("move 1")  # pace between two scenes, never progressing
    view = session.view()
    assert view["hint"] is not None and view["hints_used"] == 1
    assert view["scene"] == view["hint"]["scene"]  # put where the hinted action is taken
    first = defn.reference[0].action
    assert view["hint"]["action"] == str(session.game.resolve(first))
    # One idle step in help (the 1st); the 2nd is played for the person.
    turns = session.act("move 1")
    assert turns[-1].forced and turns[-1].success
    assert turns[-1].feedback.startswith("The hint system did it for you")
    result = session.result()
    assert result.hints_used == 1 and result.forced_steps == 1


def test_requested_hint_is_counted_once_and_followed(tmp_path: Path) -> None:
    defn = tutorial()
    session = PlaySession(defn)
    hint = session.request_hint()
    assert hint is not None and session.request_hint() == hint
    assert session.hints_used == 1
    session.act(hint["action"])
    assert session.view()["hint"] is None
    assert session.result().hints_used == 1


async def test_a_persons_steps_are_logged_like_an_agents(tmp_path: Path) -> None:
    from escapebench.agents.registry import make_agent
    from escapebench.bench.episode import EpisodeSpec, play_episode

    defn = tutorial()
    session = PlaySession(defn, player="ada", max_steps=2)  # the game ends after two steps
    session.act("move 1")
    hint = session.request_hint()
    assert hint is not None
    session.act(hint["action"])
    folder = session.write_result(tmp_path / "human")
    human = [json.loads(line) for line in (folder / "steps.jsonl").read_text().splitlines()]
    spec = EpisodeSpec("tutorial__explorer__none__r0", defn, "explorer", "none", max_steps=2)
    await play_episode(spec, make_agent("explorer"), tmp_path / "agent", fsync=False)
    agent = [json.loads(line) for line in (tmp_path / "agent" / "steps.jsonl").open()]
    # The viewer and the metrics read one record format, whoever played.
    assert [set(r) for r in human] == [set(agent[0])] * 2
    assert human[1]["hint"] == {
        "action": hint["action"], "scene": hint["scene"], "index": hint["index"],
        "steps_in_help": 0, "forced": False, "requested": True,  # asked for: verify replays it
    }
    assert (human[1]["mode"], human[1]["hint_done"], human[1]["raw_answer"]) == (
        "help", "completed", hint["action"],
    )
    assert human[0]["agent"] == {"player": "ada"} and human[0]["agent_state_hash"] is None


def test_save_and_load_continue_exactly(tmp_path: Path) -> None:
    defn = tutorial()
    session = PlaySession(defn, player="bo")
    for ref in defn.reference[:3]:
        session.act(ref.action)
    path = session.save_file(tmp_path / "game.json")
    rest = [ref.action for ref in defn.reference[3:]]
    for action in rest:
        session.act(action)

    again = PlaySession.from_save(defn, json.loads(path.read_text()))
    assert again.step == 3 and again.player == "bo"
    for action in rest:
        again.act(action)
    assert again.game.ended and session.game.ended
    assert again.game.snapshot() == session.game.snapshot()
    a, b = again.result().to_dict(), session.result().to_dict()
    for key in ("wall_time_s",):
        a.pop(key), b.pop(key)
    assert a == b


def test_loading_a_save_of_another_setting_is_refused(tmp_path: Path) -> None:
    easy = next(d for d in load_games(["tutorial"]) if d.difficulty == "easy")
    path = PlaySession(easy).save_file(tmp_path / "easy.json")
    session = PlaySession(tutorial())
    with pytest.raises(PlayError, match="tutorial-easy"):
        session.load_file(path)
    with pytest.raises(PlayError, match="not valid JSON"):
        (tmp_path / "bad.json").write_text("{")
        session.load_file(tmp_path / "bad.json")


def test_play_load_without_game_continues_the_saved_game_and_its_version(
    tmp_path: Path,
) -> None:
    """``escapebench play --load FILE`` finds the game in the save: the same file, the same
    version; without GAME or --load, and with a save whose file is gone, one line each."""
    from escapebench.cli import main

    hard = next(d for d in load_games(["tutorial"]) if d.difficulty == "hard")
    session = PlaySession(hard, player="bo")
    session.act(hard.reference[0].action)
    save = session.save_file(tmp_path / "hard.json")

    def play(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "escapebench.cli", "play", *args, "--no-result"],
            input="quit\n", capture_output=True, text=True, cwd=tmp_path, timeout=60,
        )

    done = play("--load", str(save))
    assert done.returncode == 0, done.stderr
    assert "(tutorial-hard)" in done.stdout and "at step 1 (player bo)" in done.stdout

    assert main(["play"]) == 2
    data = json.loads(save.read_text())
    data["source"] = str(tmp_path / "gone.yaml")
    (tmp_path / "moved.json").write_text(json.dumps(data))
    moved = play("--load", "moved.json")
    assert moved.returncode == 2 and "Traceback" not in moved.stderr
    assert moved.stderr.strip().endswith("which is not there any more; give GAME as well")


def test_two_plays_in_one_folder_are_two_repeats_and_other_settings_are_refused(
    tmp_path: Path,
) -> None:
    defn = tutorial()
    folders = []
    for player in ("ada", "bo"):
        session = PlaySession(defn, player=player, max_steps=1)
        session.act(defn.reference[0].action)
        folders.append(session.write_result(tmp_path))
    assert [f.name for f in folders] == ["tutorial__human__none__r0", "tutorial__human__none__r1"]
    rows = list(csv.DictReader((tmp_path / "results.csv").open()))
    assert [r["player"] for r in rows] == ["ada", "bo"]
    assert all(r["escaped"] == "False" for r in rows)

    other = PlaySession(defn, hints=HintOptions(patience=5), max_steps=1)
    other.act(defn.reference[0].action)
    with pytest.raises(PlayError, match="patience"):
        other.write_result(tmp_path)


def test_terminal_shows_the_automatic_hint_and_the_forced_step(tmp_path: Path) -> None:
    """Run the command in-process with injected streams: stuck for 2 steps, then helped."""
    import argparse
    import io

    from escapebench.play import command_play

    parser = argparse.ArgumentParser()
    command_play.add_arguments(parser)
    args = parser.parse_args(
        ["tutorial", "--patience", "2", "--help-steps", "1", "--out", str(tmp_path),
         "--max-steps", "4"]
    )
    out = io.StringIO()
    code = command_play.run_play(args, io.StringIO("move 1\nmove 1\nmove 1\nquit\n"), out)
    text = out.getvalue()
    assert code == 0
    assert "No progress for a while: the hint system takes you to" in text
    assert "The hint system did it for you" in text
    assert "Stopped after 4 steps with 1 hint" in text  # 3 typed, 1 forced
    result = json.loads(
        (tmp_path / "episodes" / "tutorial__human__none__r0" / "result.json").read_text()
    )
    assert result["forced_steps"] == 1 and result["ended_by"] == "max_steps"


def test_a_result_folder_in_use_by_a_run_is_not_written_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from escapebench.bench import folder_lock
    from escapebench.play import human_result as human

    monkeypatch.setattr(human, "LOCK_WAIT_S", 0.2)
    defn = tutorial()
    session = PlaySession(defn, max_steps=1)
    session.act(defn.reference[0].action)
    with folder_lock(tmp_path), pytest.raises(PlayError, match="in use"):
        session.write_result(tmp_path)
    assert not (tmp_path / "episodes").exists()
    assert session.write_result(tmp_path).name == "tutorial__human__none__r0"


def test_terminal_hint_says_where_it_takes_you(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asking for a hint away from its scene moves you there, and the screen says so."""
    import argparse
    import io

    monkeypatch.chdir(tmp_path)  # quitting saves the game in the working folder
    from escapebench.play import command_play

    parser = argparse.ArgumentParser()
    command_play.add_arguments(parser)
    args = parser.parse_args(["tutorial", "--no-result"])
    out = io.StringIO()
    # The first reference action is in the practice room; the shelf is one move away.
    code = command_play.run_play(args, io.StringIO("move 1\nhint\nquit\n"), out)
    text = out.getvalue()
    assert code == 0
    after_hint = text.split("\n> ")[2]
    assert after_hint.startswith("The hint takes you to practice room.")
    assert "You are in: practice room" in after_hint
    # the hint line names the scene once when it is the start scene (no "(path)" repeating it)
    hint_line = next(line for line in after_hint.splitlines() if line.startswith("HINT:"))
    assert hint_line.startswith("HINT: in practice room do: ")


def _game_with_escapes(tmp_path: Path) -> Path:
    from escapebench.games.loading import builtin_files

    text = next(p for p in builtin_files() if p.stem == "tutorial").read_text("utf-8")
    room = ('"A small room with a desk, a cupboard, a door with a keypad, and a shelf on the '
            'far wall."')
    assert room in text
    path = tmp_path / "esc.yaml"
    path.write_text(text.replace(room, '"A small room.\\e[2J\\e]0;pwned\\a"'), encoding="utf-8")
    return path


def test_terminal_play_shows_escape_sequences_of_a_game_file_escaped(tmp_path: Path) -> None:
    # Before: the clear-screen and window-title sequences went to the terminal as they were.
    path = _game_with_escapes(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "play", str(path), "--difficulty", "normal",
         "--no-result"], input="quit\n", capture_output=True, text=True, timeout=60,
    ).stdout
    assert "A small room.\\x1b[2J\\x1b]0;pwned\\x07" in out
    assert "\x1b" not in out and "\x07" not in out


def test_check_flags_control_characters_with_their_line(tmp_path: Path) -> None:
    from escapebench.games.validation import check_paths

    path = _game_with_escapes(tmp_path)
    line = next(i for i, t in enumerate(path.read_text("utf-8").splitlines(), 1) if "\\e[" in t)
    issues = [i for r in check_paths([str(path)], run_solver=False) for i in r.warnings]
    found = [i for i in issues if i.check == "control-character"]
    assert found and {i.line for i in found} == {line}
    assert "\\x1b" in found[0].message


@pytest.mark.parametrize("resume", ["--load", "load"])
def test_a_hint_pending_at_save_is_played_after_loading(tmp_path: Path, resume: str) -> None:
    """Ask for a hint, save, then continue the save (``--load`` in a new play, or ``load`` in
    the same one) and play the hinted action: the hint is counted once and completed."""
    defn = tutorial()
    play = [sys.executable, "-m", "escapebench.cli", "play", "tutorial", "--out",
            str(tmp_path / "results"), "--player", "ada"]
    solution = [ref.action for ref in defn.reference]
    if resume == "--load":
        first = subprocess.run(play, input="hint\nsave\nquit\n", capture_output=True,
                               text=True, cwd=tmp_path, timeout=60)
        assert first.returncode == 0 and "Saved at step 0" in first.stdout, first.stderr
        script, command = solution, [*play, "--load", "tutorial.save.json"]
    else:
        script, command = ["hint", "save", "load", *solution], play
    proc = subprocess.run(command, input="\n".join(script) + "\n", capture_output=True,
                          text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert f"Escaped after {len(solution)} steps with 1 hint" in proc.stdout
    episode = tmp_path / "results" / "episodes" / "tutorial__human__none__r0"
    result = json.loads((episode / "result.json").read_text())
    assert result["hints_used"] == 1 and result["hint_steps"] == [0]
    assert [(h["action"], h["ended_step"], h["outcome"]) for h in result["hints"]] == [
        (defn.reference[0].action, 0, "completed")
    ]
    first_record = json.loads((episode / "steps.jsonl").read_text().splitlines()[0])
    assert first_record["hint"]["steps_in_help"] == 0 and first_record["hint_done"] == "completed"


def test_terminal_labels_a_thing_without_action_neutrally(tmp_path: Path) -> None:
    """A code mark cannot be clicked but matters: its label must not read "ignore this"
    (it read "(nothing to do with it)")."""
    from escapebench.games.loading import builtin_files, load_own_text
    from escapebench.play.terminal import render

    text = next(p for p in builtin_files() if p.stem == "tutorial").read_text("utf-8")
    text = text.replace("      name: potted cactus\n", "      name: potted cactus\n"
                        "      interactable: false\n", 1)
    d = next(x for x in load_own_text(text, "t.yaml") if x.difficulty == "normal")
    session = PlaySession(d)
    session.act("move(shelf close-up)")
    out = render(session)
    assert "potted cactus (to look at; no action):" in out, out
    assert "nothing to do with it" not in out
