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
import signal
import sys
from pathlib import Path
from typing import IO

from escapebench.bench import DEFAULT_HELP_STEPS, DEFAULT_MAX_STEPS, DEFAULT_PATIENCE, HintOptions
from escapebench.catalog import load_games, pick_setting, split_specs
from escapebench.engine.model import DIFFICULTIES
from escapebench.exit_codes import EXIT_INTERRUPTED, EXIT_NOT_SAVED, EXIT_OK, EXIT_USAGE
from escapebench.games import add_protocol_arguments, require_playable
from escapebench.games.issues import visible_text
from escapebench.games.loading import GameFileError
from escapebench.play.errors import PlayError
from escapebench.play.saves import read_save_file
from escapebench.play.session import PlaySession, player_name_problem
from escapebench.play.terminal import HELP, loaded_text, render, resume_command
from escapebench.play.terminal_saves import (
    holds_finished_game,
    load_game,
    mark_finished,
    save_path,
)
from escapebench.protocols import make_protocol

DEFAULT_OUT = Path("runs") / "human"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``escapebench play``."""
    parser.add_argument(
        "game", metavar="GAME", nargs="?", default=None,
        help="built-in game or setting (tutorial, lab, lab-hard) or a game file (may be left "
        "out with --load: the game the save was made of)",
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
    add_protocol_arguments(parser)


def _saved_game(save: Path) -> tuple[str, str]:
    """The game a save was made of, as GAME and its difficulty: the file it came from and the
    version of its setting. Raises ValueError when the save does not say or the file is gone."""
    try:
        data = read_save_file(save)
    except PlayError as exc:
        raise ValueError(str(exc)) from None
    setting, source = data.get("setting"), data.get("source")
    if not isinstance(setting, str) or not isinstance(source, str) or not setting:
        raise ValueError(f"{save} does not say which game it is of; give GAME as well")
    if not Path(source).is_file():
        raise ValueError(
            f"{save} is a save of {setting!r} from {source}, which is not there any more; "
            "give GAME as well"
        )
    for defn in load_games([source]):
        if defn.setting == setting:
            return source, defn.difficulty
    raise ValueError(f"{source} no longer holds {setting!r}, the game {save} is of")


def run_play(args: argparse.Namespace, stdin: IO[str], stdout: IO[str]) -> int:
    """The play loop on the given streams; returns the exit code."""

    def say(text: str = "") -> None:
        # A game file's text may hold escape sequences (clear screen, window title): shown
        # escaped, never acted on by the terminal.
        stdout.write(visible_text(text) + "\n")
        stdout.flush()

    try:
        if args.game is None:
            if not args.load:
                raise ValueError(
                    "give GAME (a built-in game, setting or game file), or --load FILE"
                )
            args.game, saved_difficulty = _saved_game(Path(args.load))
            args.difficulty = args.difficulty or saved_difficulty
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
            getattr(args, "protocol", None), split_specs([args.game]),
            getattr(args, "original_source", None)
        )
    except (GameFileError, ValueError) as exc:  # (OriginalSourceError is a ValueError)
        print(f"escapebench play: {exc}", file=sys.stderr)
        return EXIT_USAGE
    session = PlaySession(
        defn, player=args.player or "anonymous", hints=options, max_steps=max_steps,
        protocol=protocol,
    )
    try:
        default_save = save_path(args, defn.setting)
    except PlayError as exc:
        print(f"escapebench play: {exc}", file=sys.stderr)
        return EXIT_USAGE
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
        return EXIT_USAGE

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
            f"saved to {_where(default_save)}.")
    elif not args.load:
        say(f"The game is saved after every step to {_where(default_save)}.")

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
                say(f"Saved at step {session.step} to {_where(path)}.")
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
                    shown = session.records[turn.step].hint
                    if turn.forced and shown and shown.index != announced:
                        # help began with its forced step (--help-steps 1): say so first
                        say("No progress for a while: the hint system takes you to "
                            f"{shown.scene}.")
                        announced = shown.index
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
            return EXIT_OK
        try:
            path = session.save_file(default_save)
        except PlayError as exc:
            print(f"escapebench play: {exc}; the game is lost", file=sys.stderr)
            return EXIT_NOT_SAVED
        say(f"Saved at step {session.step} to {_where(path)}; no result is written until the "
            f"game ends. Continue with: {resume_command(args, path)}")
        return EXIT_INTERRUPTED if interrupted else EXIT_OK
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


def _where(path: Path) -> str:
    """``path`` and, when it is relative, the folder it is in: a save lands in the current
    folder, which a player does not always have in mind."""
    if path.is_absolute():
        return str(path)
    return f"{path} (in {Path.cwd()})"


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
