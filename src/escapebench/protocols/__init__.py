"""Protocols: what a model reads and how its answers are read (see ``protocols.base``).

* ``original``: the original EscapeBench harness, message for message, its texts read at run
  time from the user's checkout (:mod:`escapebench.protocols.original`);
* ``escapebench``: our own wording, the forgiving parser (:mod:`escapebench.protocols.escapebench`).

:func:`make_protocol` picks one by name; :func:`default_protocol_name` is ``original`` when the
games come from an original checkout, ``escapebench`` otherwise.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from escapebench.protocols.base import (
    HintView,
    HistoryStep,
    Play,
    PromptProtocol,
    Reading,
    Session,
)
from escapebench.protocols.original.source import (
    OriginalSourceError,
    find_source,
    is_original_checkout,
)

PROTOCOLS = ("original", "escapebench")

__all__ = [
    "PROTOCOLS",
    "HintView",
    "HistoryStep",
    "OriginalSourceError",
    "Play",
    "PromptProtocol",
    "Reading",
    "Session",
    "default_protocol_name",
    "find_source",
    "make_protocol",
]


def __getattr__(name: str) -> Any:
    if name == "Protocol":  # the name until 0.1.0, easily read as typing.Protocol
        warnings.warn("escapebench.protocols.Protocol is now PromptProtocol; the old name "
                      "goes away in the next release", DeprecationWarning, stacklevel=2)
        return PromptProtocol
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_protocol_name(games: Sequence[str], original_source: str | Path | None = None) -> str:
    """``original`` when the games come from an original checkout (or one is given),
    ``escapebench`` otherwise."""
    if original_source is not None or is_original_checkout(games):
        return "original"
    return "escapebench"


def make_protocol(
    name: str | None,
    games: Sequence[str] = (),
    original_source: str | Path | None = None,
) -> PromptProtocol:
    """The protocol ``name`` (None: the default for ``games``).

    Raises :class:`OriginalSourceError` (one line saying what to pass) when ``original`` has
    no checkout to read, and ValueError for an unknown name.
    """
    name = name or default_protocol_name(games, original_source)
    if name == "escapebench":
        from escapebench.protocols.escapebench import EscapebenchProtocol

        return EscapebenchProtocol()
    if name == "original":
        from escapebench.protocols.original import OriginalProtocol

        return OriginalProtocol.from_checkout(games, original_source)
    raise ValueError(f"unknown protocol {name!r}: choose one of {', '.join(PROTOCOLS)}")
