"""The save files of terminal play: which file a game is saved to, loading one, and marking
the saves of a game that ended as finished (so that no play is counted twice)."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from escapebench.play.errors import PlayError
from escapebench.play.saves import read_save_file
from escapebench.play.session import PlaySession


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
