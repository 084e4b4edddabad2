"""Which settings may be played, and refusing the others.

The commands that play a game (``run``, ``play``, ``serve``) play only settings without check
errors: :func:`split_playable` sorts them (the checks of ``escapebench check`` without its state
search, about 10 ms per setting), :func:`require_playable` and :func:`load_playable` refuse with
:class:`BrokenGamesError` / :class:`UnplayableGamesError`, which list every setting (and file)
that cannot be played with its reason at once. (``replay`` replays a trace of a broken game
anyway, up to where it breaks.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from escapebench.engine.model import GameDefinition
from escapebench.games.issues import CheckIssue
from escapebench.games.loading import GameFileError, Resolver, load_games_reporting
from escapebench.games.validation import check_definition

MAX_LISTED_GAME_ERRORS = 10


class BrokenGamesError(ValueError):
    """Settings with check errors, which no command plays: ``summary`` says how many,
    ``details`` lists them (file:line, setting, problem) and the command for the full report."""

    def __init__(self, errors: Sequence[CheckIssue]) -> None:
        files = sorted({e.source for e in errors})
        listed = [str(e) for e in errors[:MAX_LISTED_GAME_ERRORS]]
        if len(errors) > len(listed):
            listed.append(f"... and {len(errors) - len(listed)} more")
        self.errors = list(errors)
        self.summary = f"{len(errors)} error{'s' if len(errors) != 1 else ''} in the game files"
        self.details = (
            "  " + "\n  ".join(listed)
            + f"\nRun 'escapebench check {' '.join(files)}' for the full report."
        )
        super().__init__(f"{self.summary}:\n{self.details}")


@dataclass(frozen=True, slots=True)
class Unplayable:
    """A setting (or a file) that no command plays, and why: its first error with its place,
    and how many errors it has in all."""

    setting: str
    source: str
    reason: str
    errors: int = 1

    def __str__(self) -> str:
        more = f" (and {self.errors - 1} more error(s))" if self.errors > 1 else ""
        return f"{self.setting}: {self.reason}{more}"

    def to_json(self) -> dict[str, Any]:
        return {"setting": self.setting, "source": self.source, "reason": self.reason,
                "errors": self.errors}


def unplayable_file(exc: GameFileError) -> Unplayable:
    """A file that did not load, as an :class:`Unplayable` named by its file's stem."""
    if exc.not_a_file:  # a spec (gen:), not a file: named once, by itself
        return Unplayable(exc.source, exc.source, exc.problem)
    stem = Path(exc.source).name.rsplit(".", 1)[0] or exc.source
    return Unplayable(stem, exc.source, str(exc))


def split_playable(
    definitions: Sequence[GameDefinition],
) -> tuple[list[GameDefinition], list[Unplayable], list[CheckIssue]]:
    """The settings without check errors, those with errors (one :class:`Unplayable` each),
    and every error found. These are the checks of ``escapebench check`` without its state
    search (about 10 ms per setting); warnings pass."""
    texts: dict[str, str | None] = {}
    playable: list[GameDefinition] = []
    unplayable: list[Unplayable] = []
    errors: list[CheckIssue] = []
    for defn in definitions:
        if defn.source not in texts:  # the YAML text gives the issues their line numbers
            try:
                texts[defn.source] = Path(defn.source).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                texts[defn.source] = None
        found = check_definition(defn, texts[defn.source], run_solver=False).errors
        if found:
            first = found[0]
            unplayable.append(
                Unplayable(defn.setting, defn.source, f"{first.where}: {first.message}",
                           len(found))
            )
            errors += found
        else:
            playable.append(defn)
    return playable, unplayable, errors


class UnplayableGamesError(ValueError):
    """Settings no command plays (files that do not load, settings with check errors), every
    one listed with its reason."""

    def __init__(self, unplayable: Sequence[Unplayable]) -> None:
        self.unplayable = list(unplayable)
        listed = "\n  ".join(str(u) for u in self.unplayable)
        files = " ".join(sorted({u.source for u in self.unplayable}))
        super().__init__(
            f"{len(self.unplayable)} setting(s) cannot be played:\n  {listed}\n"
            f"Run 'escapebench check {files}' for the full report."
        )


def load_playable(specs: Sequence[str], difficulties: Sequence[str] | None = None,
                  *, resolve: Resolver | None = None) -> list[GameDefinition]:
    """The settings ``specs`` name, all of them playable; else :class:`UnplayableGamesError`
    listing every setting (and file) that is not, with its reason, at once. (``resolve``: as
    :func:`~escapebench.games.loading.load_games` takes it.)"""
    definitions, failed = load_games_reporting(specs, difficulties, resolve=resolve)
    _, unplayable, _ = split_playable(definitions)
    unplayable = [unplayable_file(e) for e in failed] + unplayable
    if unplayable:
        raise UnplayableGamesError(unplayable)
    return definitions


def require_playable(definitions: Sequence[GameDefinition]) -> None:
    """Raise :class:`BrokenGamesError` if a setting has check errors.

    These are the checks of ``escapebench check`` without its state search (names that point
    nowhere, states that do not exist, a reference chain that does not replay, ...): a game
    with such errors can stop in the middle of play, and its hints and numbers mean nothing.
    Every command that plays (``run``, ``play``, ``serve``, ``replay``) calls this first.
    Warnings pass (the original games have a few). About 10 ms per setting.
    """
    _, _, errors = split_playable(definitions)
    if errors:
        raise BrokenGamesError(errors)
