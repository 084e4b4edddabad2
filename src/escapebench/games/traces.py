"""Traces of actions, read and played again (what ``escapebench replay`` does).

A trace is JSON Lines, one step per line: ``{"action": ..., "teleport_to": scene or null}``; an
episode's step log (``RUN_DIR/episodes/<id>/steps.jsonl``) is one too, its hint records giving
the hint system's teleports and its outcomes re-checked as it is replayed (see
:mod:`escapebench.catalog.command_replay` for the verb and its output).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from escapebench.engine.env import EscapeGame
from escapebench.engine.model import GameDefinition
from escapebench.protocols import PromptProtocol
from escapebench.protocols.escapebench import EscapebenchProtocol


class TraceError(ValueError):
    """A trace file that cannot be replayed, with the line at fault."""


@dataclass(frozen=True, slots=True)
class TraceStep:
    action: str
    teleport_to: str | None
    line: int
    # From an episode's step log: (success, game_end) as the step was played, to re-check.
    logged: tuple[bool, bool] | None = None


def read_trace(text: str, source: str) -> list[TraceStep]:
    """Parse a JSON Lines trace; raises :class:`TraceError` naming the first bad line."""
    steps: list[TraceStep] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise TraceError(f"{source}:{n}: not valid JSON: {exc.msg}") from None
        if not isinstance(obj, dict):
            raise TraceError(
                f'{source}:{n}: expected an object like {{"action": ..., "teleport_to": null}}, '
                f"got {type(obj).__name__}"
            )
        action = obj.get("action")
        if not isinstance(action, str):
            raise TraceError(f'{source}:{n}: "action" must be a string, got {action!r}')
        teleport = obj.get("teleport_to") if "teleport_to" in obj else hint_teleport(obj)
        if teleport is not None and not isinstance(teleport, str):
            raise TraceError(
                f'{source}:{n}: "teleport_to" must be a scene name or null, got {teleport!r}'
            )
        steps.append(TraceStep(action, teleport or None, n, logged_outcome(obj)))
    return steps


def logged_outcome(record: dict[str, Any]) -> tuple[bool, bool] | None:
    """(success, game_end) of a step log's record, or None for a plain trace line and for a
    step that was an error (an unreadable answer: the log's action is not what was typed)."""
    if "step" not in record or record.get("error"):
        return None
    success, game_end = record.get("success"), record.get("game_end")
    if isinstance(success, bool) and isinstance(game_end, bool):
        return success, game_end
    return None


class ReplayMismatch(ValueError):
    """A step of a step log that does not replay as it was logged."""


def hint_teleport(record: dict[str, Any]) -> str | None:
    """The scene a step log's hint put the player in before this step, or None.

    As the original harness, the hint system puts the player in the hint's scene before every
    step in help.
    """
    hint = record.get("hint")
    if not isinstance(hint, dict):
        return None
    scene = hint.get("scene")
    return scene if isinstance(scene, str) else None


def replay(
    defn: GameDefinition, steps: list[TraceStep], *, states: bool,
    protocol: PromptProtocol | None = None,
) -> Iterator[dict[str, Any]]:
    """Play ``steps`` from the initial state; one record per step, as each is played.

    A game with check errors is replayed anyway (a trace is worth reading up to where the game
    breaks); a trigger it cannot carry out raises :class:`BrokenGameError` at that step. A step
    with a logged outcome that replays differently raises :class:`ReplayMismatch` once its own
    record has been yielded. The feedback is in the texts of ``protocol`` (default: ours).
    """
    game = EscapeGame(defn)
    session = (protocol or EscapebenchProtocol()).session(defn)
    for index, step in enumerate(steps):
        if step.teleport_to is not None:
            game.teleport(step.teleport_to)
        session.begin_step(game, None)
        result = session.play(game, step.action)
        mismatch = None
        if step.logged is not None and step.logged != (result.success, result.game_end):
            logged_success, logged_end = step.logged
            mismatch = ReplayMismatch(
                f"step {index} {step.action!r} does not replay as logged (logged: success "
                f"{logged_success}, game end {logged_end}; now: success {result.success}, game "
                f"end {result.game_end}: {result.feedback!r}); the game file has changed since "
                f"the log was written, or the log is of another game than {defn.setting}"
            )
        record: dict[str, Any] = {
            "index": index,
            "action": step.action,
            "teleport_to": step.teleport_to,
            "success": result.success,
            "error": result.error,
            "game_end": result.game_end,
            "feedback": result.feedback,
        }
        if states:
            record["state"] = game.state_dict()
        yield record
        if mismatch is not None:  # after the step's own record, which shows what it did now
            raise mismatch


def read_trace_of(defn: GameDefinition, text: str, source: str) -> list[TraceStep]:
    """:func:`read_trace`, refusing an empty trace and a teleport to a scene ``defn`` lacks
    (:class:`TraceError`), so that nothing is played from a trace that cannot be."""
    steps = read_trace(text, source)
    if not steps:  # most likely the wrong file, or a log not written yet
        raise TraceError(f"{source}: the trace holds no steps")
    for step in steps:
        if step.teleport_to is not None and step.teleport_to not in defn.scene_index:
            raise TraceError(
                f"{source}:{step.line}: teleport_to names unknown scene {step.teleport_to!r} "
                f"of {defn.setting}"
            )
    return steps
