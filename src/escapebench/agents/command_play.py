"""``escapebench play GAME``: play a game yourself in the terminal, as in the paper's human mode.

The scene is shown with numbered things, exits and bag tools; type actions with numbers
(``click 2``, ``move 1``, ``apply(1, 3)``, ``input(427, 2)``, ``craft 1 2``) or names
(``click(drawer)``). ``hint`` gives the next reference action (counted, as the hint system's
automatic help after 50 steps without progress is); ``save [FILE]`` and ``load [FILE]`` keep a
game in a JSON file. When the game ends (escaped, or the step limit reached) a score line
(steps, hints, progress) is printed and the play is written as a "human" result into the
result folder (``--out``). An unfinished game is saved after every step, so a killed play
loses nothing, to ``--save FILE``, else the file it was loaded from (also by ``load F`` in the
game), else ``SETTING.save.json``; a save this play did not start from is never overwritten
(another player's ``SETTING.save.json`` makes it ``SETTING.save-2.json``, and an existing
``--save`` or ``save FILE`` that holds another game is refused). ``quit``, the end of
input, Ctrl-C and a closed terminal save it too and write no result, as the browser play page
keeps unfinished games: ``escapebench play GAME --load FILE`` continues it.

A loaded game keeps the player, hint options and step limit it was started with (they are in
the save), so that its counts stay comparable; ``--patience``, ``--help-steps`` and
``--max-steps`` given with ``--load`` are not used, and the command says so. When a game ends,
the saves it was loaded from or saved to are rewritten with the finished game and the folder
of its result: ``--load`` of such a save refuses to play the game again (a save of a finished
game whose result was not written, with ``--no-result`` or after a failed write, writes it).
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO

from escapebench.agents.human import (
    PlayError,
    PlaySession,
    player_name_problem,
    read_save_file,
)
from escapebench.bench.episode import DEFAULT_MAX_STEPS
from escapebench.bench.hints import DEFAULT_HELP_STEPS, DEFAULT_PATIENCE, HintOptions
from escapebench.engine.model import DIFFICULTIES
from escapebench.exit_codes import EXIT_INTERRUPTED
from escapebench.games.checking import require_playable
from escapebench.games.loading import GameFileError, pick_setting
from escapebench.protocols import make_protocol

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
        "--player", default=None,
        help="your name, written with the result (default: anonymous, or the player of the "
        "game given with --load)",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT,
        help=f"result folder the play is written to (default: {DEFAULT_OUT})",
    )
    parser.add_argument("--no-result", action="store_true", help="do not write a result")
    parser.add_argument(
        "--load", metavar="FILE", default=None,
        help="continue a saved game, with the hint options and step limit it was started with",
    )
    parser.add_argument(
        "--save", metavar="FILE", default=None,
        help="the file the game is saved to (default: the --load file, else "
        "SETTING.save.json, or SETTING.save-N.json when that holds another game: a save "
        "this play did not start from is never overwritten)",
    )
    # None = not given: a loaded game keeps its own settings, and only given ones that differ
    # are worth a word.
    parser.add_argument(
        "--patience", type=int, default=None,
        help=f"steps without progress before the hint system helps (default: {DEFAULT_PATIENCE})",
    )
    parser.add_argument(
        "--help-steps", type=int, default=None,
        help="steps in help before the hinted action is played for you "
        f"(default: {DEFAULT_HELP_STEPS})",
    )
    parser.add_argument(
        "--max-steps", type=int, default=None,
        help=f"the game ends unescaped after this many steps (default: {DEFAULT_MAX_STEPS})",
    )
    from escapebench.games.command_replay import add_protocol_arguments

    add_protocol_arguments(parser)


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
    """The command that continues a saved game (same game and version; the save holds the
    player, hint options and step limit)."""
    words = ["escapebench", "play", args.game]
    if args.difficulty:
        words += ["--difficulty", args.difficulty]
    return shlex.join([*words, "--load", str(save)])


def settings_text(session: PlaySession) -> str:
    """The hint options and step limit of the session's game, in the options' terms."""
    options = session.policy.options
    return (
        f"--patience {options.patience}, --help-steps {options.help_steps}, "
        f"--max-steps {session.max_steps}"
    )


def ignored_settings(args: argparse.Namespace, session: PlaySession) -> list[str]:
    """The settings given on the command line that differ from the loaded game's own."""
    options = session.policy.options
    own = {
        "--patience": (args.patience, options.patience),
        "--help-steps": (args.help_steps, options.help_steps),
        "--max-steps": (args.max_steps, session.max_steps),
    }
    return [
        f"{flag} {given}" for flag, (given, kept) in own.items()
        if given is not None and given != kept
    ]


def loaded_text(args: argparse.Namespace, session: PlaySession) -> str:
    """What to say after loading a game: the settings it keeps, and given ones not used."""
    lines = [f"This game keeps the settings it was started with: {settings_text(session)}."]
    ignored = ignored_settings(args, session)
    if ignored:
        lines.append(
            f"Not used: {', '.join(ignored)} from the command line; a game's hint and step "
            "counts are only comparable under the settings it was started with."
        )
    return "\n".join(lines)


def load_game(session: PlaySession, path: Path, args: argparse.Namespace) -> None:
    """Continue the game saved in ``path`` in ``session``, as the player named by ``--player``
    if given; refuse (:class:`PlayError`, ``session`` unchanged) a game whose result is written,
    so that one play is never counted twice."""
    data = read_save_file(path)
    result = data.get("result")
    if data.get("ended") and result:
        raise PlayError(
            f"{path} holds a game that already ended at step {data.get('step')}; its result "
            f"is in {result}. Start a new game with: "
            + shlex.join(["escapebench", "play", args.game])
        )
    try:
        session.load(data)
    except PlayError as exc:  # say which file: the session's messages cannot
        raise PlayError(f"{path}: {exc}") from None
    if args.player and args.player.strip():
        session.player = args.player.strip()


def holds_finished_game(path: Path) -> bool:
    """Whether ``path`` is a save of a game that ended (False if it cannot be read)."""
    try:
        return bool(read_save_file(path).get("ended"))
    except PlayError:
        return False


def run_play(args: argparse.Namespace, stdin: IO[str], stdout: IO[str]) -> int:
    """The play loop on the given streams; returns the exit code."""

    def say(text: str = "") -> None:
        stdout.write(text + "\n")
        stdout.flush()

    try:
        defn = pick_setting(args.game, args.difficulty)
        require_playable([defn])  # (a game with errors can stop in the middle of play)
        options = HintOptions(
            DEFAULT_PATIENCE if args.patience is None else args.patience,
            DEFAULT_HELP_STEPS if args.help_steps is None else args.help_steps,
        )
        max_steps = DEFAULT_MAX_STEPS if args.max_steps is None else args.max_steps
        if max_steps < 1:
            raise ValueError("--max-steps must be at least 1")
        if args.player is not None:
            problem = player_name_problem(args.player.strip())
            if problem is not None:
                raise ValueError(f"--player: {problem}")
        protocol = make_protocol(
            getattr(args, "protocol", None), [args.game], getattr(args, "original_source", None)
        )
    except (GameFileError, ValueError) as exc:  # (OriginalSourceError is a ValueError)
        print(f"escapebench play: {exc}", file=sys.stderr)
        return 2
    session = PlaySession(
        defn, player=args.player or "anonymous", hints=options, max_steps=max_steps,
        protocol=protocol,
    )
    try:
        default_save = save_path(args, defn.setting)
    except PlayError as exc:
        print(f"escapebench play: {exc}", file=sys.stderr)
        return 2
    # The saves that hold this game: rewritten as finished when it ends, so that they cannot
    # be played on and counted twice.
    saves: set[Path] = set()
    try:
        if args.load:
            load_game(session, Path(args.load), args)
            saves.add(Path(args.load))
        if not args.no_result:
            session.check_out(args.out)
    except PlayError as exc:
        print(f"escapebench play: {exc}", file=sys.stderr)
        return 2

    say(f"{defn.title} ({defn.setting}). Type 'help' for the commands.")
    if args.load:
        say(f"Continuing {args.load} at step {session.step} (player {session.player}).")
        say(loaded_text(args, session))
        if session.ended:
            say("This game already ended and its result was not written: "
                + ("--no-result writes none now either." if args.no_result else "writing it now."))
    if not args.save and not args.load and default_save != Path(f"{defn.setting}.save.json"):
        taken = Path(f"{defn.setting}.save.json")
        continue_it = "" if holds_finished_game(taken) else (
            f" (to continue it: '{resume_command(args, taken)}')")
        say(f"{taken} holds another game{continue_it}; it is left alone and this game is "
            f"saved to {default_save}.")

    # Saves written only by autosave: removed when the game ends, as a game played to its
    # end without 'save' leaves no save behind.
    autosaved: set[Path] = set()
    autosave_failed = False

    def worth_saving() -> bool:
        # A hint asked for before the first step counts too: quitting must not forget it.
        return session.step > 0 or session.hints_used > 0 or bool(args.load)

    def autosave() -> None:
        """Save after every step, so that a play killed or cut off (a closed terminal,
        ``kill -9``) loses nothing; a save that cannot be written is said once, not at
        every step."""
        nonlocal autosave_failed
        if session.ended or not worth_saving():
            return
        try:
            autosaved.add(session.save_file(default_save))
        except PlayError as exc:
            if not autosave_failed:
                say(f"! {exc}; the game is not saved after each step (use 'save FILE')")
            autosave_failed = True

    interrupted = False
    say(render(session))
    while not session.ended:
        stdout.write("> ")
        stdout.flush()
        try:
            STOP_REQUESTS.waiting = True
            if STOP_REQUESTS.pending:
                raise KeyboardInterrupt
            line = stdin.readline()
        except KeyboardInterrupt:  # Ctrl-C (or a closed terminal, see main): like quit
            say()
            interrupted = True
            break
        finally:
            STOP_REQUESTS.waiting = False
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
                target = Path(rest) if rest else default_save
                if target.is_file() and target not in saves | autosaved | {default_save}:
                    raise PlayError(
                        f"{target} holds another game: it is not overwritten; choose another "
                        "name, or move it away first"
                    )
                path = session.save_file(rest or default_save)
                saves.add(path)
                say(f"Saved at step {session.step} to {path}.")
            elif word == "load":
                path = Path(rest or default_save)
                load_game(session, path, args)
                saves = {path}  # the game played from now on is the one in this file
                default_save = path  # and it is saved there: quit, autosave, 'save'
                autosaved.discard(path)  # it was there before: never removed at the end
                say(f"Loaded {path}: step {session.step} (player {session.player}).")
                say(loaded_text(args, session))
                if not args.no_result:
                    # Its settings may not be those of the results already in --out: say so
                    # now, not when the game ends.
                    try:
                        session.check_out(args.out)
                    except PlayError as exc:
                        say(f"! its result cannot be written to {args.out}: {exc}")
                say(render(session))
            else:
                before = session.hint_info()
                announced = None if before is None else before["index"]
                for turn in session.act(command):
                    shown = session.records[turn.step].get("hint")
                    if turn.forced and shown and shown["index"] != announced:
                        # help began with its forced step (--help-steps 1): say so first
                        say("No progress for a while: the hint system takes you to "
                            f"{shown['scene']}.")
                        announced = shown["index"]
                    say(turn.feedback)
                hint = session.hint_info()
                if hint is not None and hint["index"] != announced:
                    say(f"No progress for a while: the hint system takes you to {hint['scene']}.")
                if not session.ended:
                    say(render(session))
            autosave()
        except PlayError as exc:
            say(f"! {exc}")

    score = session.score()
    say(score.line())
    if not session.ended:
        if not worth_saving():
            return 0
        try:
            path = session.save_file(default_save)
        except PlayError as exc:
            print(f"escapebench play: {exc}; the game is lost", file=sys.stderr)
            return 1
        say(f"Saved at step {session.step} to {path}; no result is written until the game "
            f"ends. Continue with: {resume_command(args, path)}")
        return EXIT_INTERRUPTED if interrupted else 0
    code = 0
    if not args.no_result:
        try:
            folder = session.write_result(args.out)
            say(f"Result written to {folder}")
        except (PlayError, OSError) as exc:
            # The finished game is kept, so that --load of its save writes the result later.
            saves.add(default_save)
            print(f"escapebench play: cannot write the result ({exc}); the game is saved in "
                  f"{default_save}", file=sys.stderr)
            code = 1
    for path in autosaved - saves:
        with contextlib.suppress(OSError):
            path.unlink()
    return mark_finished(session, saves, say) or code


def save_path(args: argparse.Namespace, setting: str) -> Path:
    """Where this play saves its game: ``--save``, else the ``--load`` file, else
    ``SETTING.save.json`` or, when that file exists (another player's game, or a finished
    one), the first free ``SETTING.save-N.json``. Raises :class:`PlayError` for a ``--save``
    file that holds another game than the one loaded (it would be overwritten)."""
    if args.save:
        path = Path(args.save)
        if path.is_file() and not (args.load and path.resolve() == Path(args.load).resolve()):
            raise PlayError(
                f"--save {path}: the file exists and holds another game; it is not "
                "overwritten: choose a new name, or --load it to continue that game"
            )
        return path
    if args.load:
        return Path(args.load)
    path = Path(f"{setting}.save.json")
    n = 2
    while path.is_file():
        path = Path(f"{setting}.save-{n}.json")
        n += 1
    return path


def mark_finished(session: PlaySession, saves: set[Path], say: Callable[[str], None]) -> int:
    """Rewrite the saves of a game that ended with its final state (and result folder), so
    that loading one does not play the game on; returns 1 if one cannot be written."""
    code = 0
    for path in sorted(saves):
        try:
            session.save_file(path)
        except PlayError as exc:
            print(f"escapebench play: {exc}", file=sys.stderr)
            code = 1
            continue
        if session.written is not None:
            say(f"{path} now holds the finished game: loading it will not play it again.")
        else:
            say(f"{path} now holds the finished game, without a result: loading it writes "
                "the result.")
    return code


class StopRequests:
    """Ctrl-C, a closed terminal (SIGHUP) and ``kill`` (SIGTERM) stop play like ``quit``, but
    only between commands: a request that comes while a command runs (a step, its autosave)
    waits until the game asks for the next one, so the game and its save stay whole."""

    def __init__(self) -> None:
        self.waiting = False  # True while the game waits for the player's next command
        self.pending = False

    def handle(self, signum: int, frame: object) -> None:
        """Signal handler: stop now while waiting for input, else after the command."""
        if self.waiting:
            raise KeyboardInterrupt
        self.pending = True


STOP_REQUESTS = StopRequests()


def main(args: argparse.Namespace) -> int:
    """Entry point of ``escapebench play``."""
    signals = [getattr(signal, n) for n in ("SIGINT", "SIGHUP", "SIGTERM") if hasattr(signal, n)]
    before = {signum: signal.signal(signum, STOP_REQUESTS.handle) for signum in signals}
    STOP_REQUESTS.pending = False
    try:
        return run_play(args, sys.stdin, sys.stdout)
    finally:  # (main is also called in-process, by tests)
        for signum, handler in before.items():
            signal.signal(signum, handler)
