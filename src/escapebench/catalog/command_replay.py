"""``escapebench replay GAME --trace FILE [--states]``: play a logged trace again.

``GAME`` is a game file or a built-in game or setting name (``lab-hard``). ``FILE`` is JSON
Lines, one step per line: ``{"action": "apply(hairpin, drawer)", "teleport_to": null}``; when
``teleport_to`` names a scene, the player is put there before the action (as the hint system
does). One JSON line is printed per step::

    {"index", "action", "teleport_to", "success", "error", "game_end", "feedback"[, "state"]}

with ``state`` (``--states``) in the state schema of the original engine's traces. The whole
trace is read and checked before anything is played, so a malformed line gives a clear error
naming it and no partial output.

An episode's step log (``RUN_DIR/episodes/<id>/steps.jsonl``) is a trace too: its lines have no
``teleport_to``, but the hint system's moves can be read from their ``hint`` records (the player
is put in the hint's scene when a hint starts and before a forced step), so a logged trajectory
replays to the same end as it was played. A step log is also re-checked: a step whose success
or game end differs from its log (the game file changed, or the log is of another game) is
named with its line after its own output line, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from escapebench.catalog.sources import pick_setting, split_specs
from escapebench.engine.model import DIFFICULTIES, BrokenGameError
from escapebench.exit_codes import EXIT_OK, EXIT_PROBLEMS_FOUND, EXIT_USAGE
from escapebench.games.loading import GameFileError
from escapebench.games.traces import ReplayMismatch, TraceError, read_trace_of, replay
from escapebench.protocols import OriginalSourceError
from escapebench.protocols.options import add_protocol_arguments, protocol_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="GAME", help="a game file or a built-in game name")
    parser.add_argument(
        "--trace", required=True, metavar="FILE",
        help='JSON Lines of {"action": ..., "teleport_to": scene or null} ("-" for stdin), '
        "or an episode's steps.jsonl from a result folder",
    )
    parser.add_argument(
        "--states", action="store_true", help="add the full game state after every step"
    )
    parser.add_argument(
        "--difficulty", choices=DIFFICULTIES,
        help="which version to play when GAME holds several (default: normal)",
    )
    add_protocol_arguments(parser)


def main(args: argparse.Namespace) -> int:
    try:
        defn = pick_setting(args.game, args.difficulty)
        protocol = protocol_from_args(args, split_specs([args.game]))
    except (GameFileError, OriginalSourceError) as exc:
        print(f"escapebench replay: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.trace == "-":
            text, source = sys.stdin.read(), "<stdin>"
        else:
            text, source = Path(args.trace).read_text(encoding="utf-8"), args.trace
    except (OSError, UnicodeDecodeError) as exc:
        print(f"escapebench replay: cannot read trace {args.trace}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        steps = read_trace_of(defn, text, source)
    except TraceError as exc:
        print(f"escapebench replay: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        printed: list[int] = []
        for record in replay(defn, steps, states=args.states, protocol=protocol):
            print(json.dumps(record, ensure_ascii=False), flush=True)
            printed.append(record["index"])
    except BrokenGameError as exc:
        print(f"escapebench replay: the game broke at this step: {exc} "
              f"(see 'escapebench check {defn.source}')", file=sys.stderr)
        return EXIT_USAGE
    except ReplayMismatch as exc:
        line = steps[printed[-1]].line
        print(f"escapebench replay: {source}:{line}: {exc}", file=sys.stderr)
        return EXIT_PROBLEMS_FOUND
    return EXIT_OK
