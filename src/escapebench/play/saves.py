"""Save files of human play: the format, writing and reading them, and checking a save fits.

A save (``"format": "escapebench-play-save"``) is the JSON of
:meth:`~escapebench.play.session.PlaySession.save`: the engine snapshot, the hint system's
state, the steps so far, and the player, hint options and step limit the game was started with
(loading brings those back, so that a game's counts stay comparable). The browser's sessions
keep the same saves, wrapped (:mod:`escapebench.play.browser_sessions`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from escapebench.bench import (
    EpisodeMetrics,
    HintOptions,
    HintPolicy,
    ReferenceEffect,
    StepRecord,
)
from escapebench.engine.env import EscapeGame
from escapebench.engine.model import GameDefinition
from escapebench.play.errors import PlayError

SAVE_FORMAT = "escapebench-play-save"
SAVE_VERSION = 1


def save_target(path: str | Path) -> Path:
    """``path`` as the file a save is written to; :class:`PlayError` if it is a folder."""
    p = Path(path)
    if p.is_dir() or p.name in ("", ".", ".."):
        raise PlayError(f"cannot save to {path}: it is a folder; give a file name")
    return p


def write_save_file(p: Path, data: dict[str, Any]) -> Path:
    """Write the save ``data`` to the file ``p`` (atomically); return it."""
    text = json.dumps(data, ensure_ascii=False)
    tmp = p.with_name(p.name + ".tmp")
    try:
        tmp.write_text(text + "\n", encoding="utf-8")
        tmp.replace(p)
    except OSError as exc:
        raise PlayError(f"cannot save to {p}: {exc.strerror or exc}") from None
    return p


def read_save_file(path: str | Path) -> dict[str, Any]:
    """The JSON of a file written by :meth:`PlaySession.save_file` (checked by
    :meth:`PlaySession.load`); raises :class:`PlayError` if it cannot be read."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PlayError(f"cannot read {p}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise PlayError(f"{p} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise PlayError(f"{p} is not an escapebench play save")
    return data


@dataclass
class RestoredGame:
    """The game state of a save that fits its game (see :func:`restore_game`)."""

    game: EscapeGame
    policy: HintPolicy
    metrics: EpisodeMetrics
    max_steps: int
    records: list[StepRecord]


def restore_game(
    defn: GameDefinition, data: Any, effects: tuple[ReferenceEffect, ...]
) -> RestoredGame:
    """The engine, hint system and metrics of the save ``data`` of ``defn``, rebuilt and
    checked; raises :class:`PlayError` if ``data`` is not a save of this game."""
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise PlayError("not an escapebench play save")
    options, max_steps = _saved_settings(data)
    if data.get("version") != SAVE_VERSION:
        raise PlayError(f"unsupported save version {data.get('version')!r}")
    if data.get("setting") != defn.setting:
        raise PlayError(f"this save is of {data.get('setting')!r}, not of {defn.setting!r}")
    logged = data.get("records")
    if not isinstance(logged, list) or len(logged) != data.get("step"):
        raise PlayError("the save's steps are incomplete")
    game = EscapeGame(defn)
    policy = HintPolicy(defn, options, effects=effects)
    metrics = EpisodeMetrics(defn, effects)
    try:
        game.restore(data["engine"])
        policy.restore(data["hint_state"])
        records = [StepRecord.from_json(r) for r in logged]
        for record in records:
            metrics.add(record)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise PlayError(f"the save does not fit this game: {exc}") from None
    if records and (records[-1].key_steps, records[-1].tools_collected) != (
        game.key_steps,
        game.tools_collected,
    ):
        raise PlayError("the save's steps do not match its game state")
    return RestoredGame(game, policy, metrics, max_steps, records)


def _saved_settings(data: dict[str, Any]) -> tuple[HintOptions, int]:
    """The hint options and step limit a save's game was started with."""
    try:
        hints = data["hints"]
        options = HintOptions(int(hints["patience"]), int(hints["help_steps"]))
        max_steps = int(data["max_steps"])
    except (KeyError, TypeError, ValueError) as exc:
        raise PlayError(f"the save lacks its hint options or step limit ({exc})") from None
    if max_steps < 1:
        raise PlayError(f"the save's step limit {max_steps} is not a positive number")
    return options, max_steps
