"""``escapebench play GAME``: play a game yourself in the terminal, as in the paper's human mode.

The scene is shown with numbered things, exits and bag tools; type actions with numbers
(``click 2``, ``move 1``, ``apply(1, 3)``, ``input(427, 2)``, ``craft 1 2``) or names
(``click(drawer)``). ``hint`` gives the next reference action (counted, as the hint system's
automatic help after 50 steps without progress is); ``save [FILE]`` and ``load [FILE]`` keep a
game in a JSON file. When the game ends (escaped, or the step limit reached) a score line
(steps, hints, progress) is printed and the play is written as a "human" result into the
result folder (``--out``). ``quit`` (or the end of input) saves an unfinished game to
``SETTING.save.json`` (or the file it was loaded from) and writes no result, as the browser
play page keeps unfinished games: ``escapebench play GAME --load FILE`` continues it.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import IO

from escapebench.agents.human import PlayError, PlaySession
from escapebench.bench.episode import DEFAULT_MAX_STEPS
from escapebench.bench.hints import DEFAULT_HELP_STEPS, DEFAULT_PATIENCE, HintOptions
from escapebench.engine.model import DIFFICULTIES, GameDefinition
from escapebench.games.loading import GameFileError, load_games

DEFAULT_OUT = Path("runs") / "human"

HELP = """\
Actions (numbers refer to the lists shown; names work too):
  move N              go through exit N               e.g. move 1, move(To the shelf)
  click N             click thing N / pick up a tool  e.g. click 2, click(desk drawer)
  apply(N, M)         use bag tool N on thing M       e.g. apply(1, 3), apply 1 3
  input(TEXT, M)      type TEXT into thing M          e.g. input(427, 2)
  craft(N, M)         combine bag tools N and M       e.g. craft 1 2
Other commands:
  hint                show the next action of the solution (counts as a hint)
  look                show the scene again
  save [FILE]         save the game to a JSON file (default: SETTING.save.json)
  load [FILE]         continue a saved game
  quit                stop; the game is saved to continue later with --load, and a
                      result is written only for a game that ended
  help                this text"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``escapebench play``."""
    parser.add_argument(
        "game", metavar="GAME",
        help="built-in game or setting (tutorial, lab, lab-hard) or a game file",
    )
    parser.add_argument(
        "--difficulty", choices=DIFFICULTIES, default=None,
        help="version to play when GAME has several (default: normal)",
    )
    parser.add_argument(
        "--player", default="anonymous", help="your name, written with the result",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT,
        help=f"result folder the play is written to (default: {DEFAULT_OUT})",
    )
    parser.add_argument("--no-result", action="store_true", help="do not write a result")
    parser.add_argument("--load", metavar="FILE", default=None, help="continue a saved game")
    parser.add_argument(
        "--patience", type=int, default=DEFAULT_PATIENCE,
        help=f"steps without progress before the hint system helps (default: {DEFAULT_PATIENCE})",
    )
    parser.add_argument(
        "--help-steps", type=int, default=DEFAULT_HELP_STEPS,
        help="steps in help before the hinted action is played for you "
        f"(default: {DEFAULT_HELP_STEPS})",
    )
    parser.add_argument(
        "--max-steps", type=int, default=DEFAULT_MAX_STEPS,
        help=f"the game ends unescaped after this many steps (default: {DEFAULT_MAX_STEPS})",
    )


def pick_setting(spec: str, difficulty: str | None) -> GameDefinition:
    """The one setting ``spec`` names (a game's normal version unless ``difficulty``)."""
    found = load_games([spec])
    if difficulty is not None:
        found = [d for d in found if d.difficulty == difficulty]
        if not found:
            raise GameFileError(spec, f"has no {difficulty} version")
    if len(found) > 1:
        normal = [d for d in found if d.difficulty == "normal"]
        games = {d.game for d in found}
        if len(games) > 1 or len(normal) != 1:
            names = ", ".join(sorted(d.setting for d in found))
            raise GameFileError(spec, f"names several settings ({names}); pick one")
        found = normal
    return found[0]


def render(session: PlaySession) -> str:
    """The numbered view of the current scene, for the terminal."""
    v = session.view()
    lines = [
        f"--- step {v['step']} | hints {v['hints_used']} | progress {v['progress']:.0%} ---",
        f"You are in: {v['scene']}"
        + (f"   (path: {v['position']})" if v["position"] != v["scene"] else ""),
    ]
    if v["description"]:
        lines.append(v["description"])
    lines.append("Things here:" if v["things"] else "Things here: none")
    for t in v["things"]:
        note = " (tool: click to take it)" if t["kind"] == "tool" else ""
        note = note if t["interactable"] else " (nothing to do with it)"
        lines.append(f"  {t['n']}. {t['name']}{note}: {t['desc']}")
    lines.append("Exits:" if v["exits"] else "Exits: none")
    lines += [f"  {e['n']}. {e['label']} -> {e['target']}" for e in v["exits"]]
    lines.append("Bag:" if v["bag"] else "Bag: empty")
    lines += [f"  {t['n']}. {t['name']}: {t['desc']}" for t in v["bag"]]
    if v["hint"]:
        lines.append(hint_text(v["hint"]))
    return "\n".join(lines)


def hint_text(hint: dict) -> str:
    """The hint line under the scene: where, what, and when it will be played for you."""
    left = hint["help_steps"] - hint["steps_in_help"]
    # The path only adds something when the scene is not the start scene itself.
    where = hint["scene"] if hint["path"] == hint["scene"] else f"{hint['scene']} ({hint['path']})"
    return (
        f"HINT: in {where} do: {hint['action']}  "
        f"[played for you in {left} step{'' if left == 1 else 's'}]"
    )


def resume_command(args: argparse.Namespace, save: Path) -> str:
    """The command that continues a saved game (same game, version and player)."""
    words = ["escapebench", "play", args.game]
    if args.difficulty:
        words += ["--difficulty", args.difficulty]
    if args.player != "anonymous":
        words += ["--player", args.player]
    return shlex.join([*words, "--load", str(save)])


def run_play(args: argparse.Namespace, stdin: IO[str], stdout: IO[str]) -> int:
    """The play loop on the given streams; returns the exit code."""

    def say(text: str = "") -> None:
        stdout.write(text + "\n")
        stdout.flush()

    try:
        defn = pick_setting(args.game, args.difficulty)
        options = HintOptions(args.patience, args.help_steps)
        if args.max_steps < 1:
            raise ValueError("--max-steps must be at least 1")
    except (GameFileError, ValueError) as exc:
        print(f"escapebench play: {exc}", file=sys.stderr)
        return 2
    session = PlaySession(defn, player=args.player, hints=options, max_steps=args.max_steps)
    default_save = Path(args.load) if args.load else Path(f"{defn.setting}.save.json")
    try:
        if args.load:
            session.load_file(args.load)
        if not args.no_result:
            session.check_out(args.out)
    except PlayError as exc:
        print(f"escapebench play: {exc}", file=sys.stderr)
        return 2

    say(f"{defn.title} ({defn.setting}). Type 'help' for the commands.")
    if args.load:
        say(f"Continuing {args.load} at step {session.step}.")
    elif default_save.is_file():
        say(f"A saved game is in {default_save}: quit and run "
            f"'{resume_command(args, default_save)}' to continue it "
            "(quitting after playing here overwrites it).")
    say(render(session))
    while not session.ended:
        stdout.write("> ")
        stdout.flush()
        line = stdin.readline()
        if not line:  # end of input: like quit
            say()
            break
        command = line.strip()
        if not command:
            continue
        word, _, rest = command.partition(" ")
        word, rest = word.lower(), rest.strip()
        try:
            if word in ("quit", "exit", "q"):
                break
            if word in ("help", "?"):
                say(HELP)
            elif word == "look":
                say(render(session))
            elif word == "hint" and not rest:
                scene_before = session.view()["scene"]
                if session.request_hint() is None:
                    say("No hint left: the solution has no further step.")
                else:
                    hint = session.hint_info()
                    if hint is not None and hint["scene"] != scene_before:
                        say(f"The hint takes you to {hint['scene']}.")
                    say(render(session))
            elif word == "save":
                path = session.save_file(rest or default_save)
                say(f"Saved at step {session.step} to {path}.")
            elif word == "load":
                session.load_file(rest or default_save)
                say(f"Loaded {rest or default_save}: step {session.step}.")
                say(render(session))
            else:
                before = session.hint_info()
                for turn in session.act(command):
                    say(turn.feedback)
                hint = session.hint_info()
                if hint is not None and (before is None or before["index"] != hint["index"]):
                    say(f"No progress for a while: the hint system takes you to {hint['scene']}.")
                if not session.ended:
                    say(render(session))
        except PlayError as exc:
            say(f"! {exc}")

    score = session.score()
    say(score.line())
    if not session.ended:
        if session.step == 0 and not args.load:
            return 0
        try:
            path = session.save_file(default_save)
        except PlayError as exc:
            print(f"escapebench play: {exc}; the game is lost", file=sys.stderr)
            return 1
        say(f"Saved at step {session.step} to {path}; no result is written until the game "
            f"ends. Continue with: {resume_command(args, path)}")
        return 0
    if args.no_result:
        return 0
    try:
        folder = session.write_result(args.out)
    except (PlayError, OSError) as exc:
        path = session.save_file(default_save)
        print(f"escapebench play: cannot write the result ({exc}); the game is saved in {path}",
              file=sys.stderr)
        return 1
    say(f"Result written to {folder}")
    return 0


def main(args: argparse.Namespace) -> int:
    """Entry point of ``escapebench play``."""
    return run_play(args, sys.stdin, sys.stdout)
