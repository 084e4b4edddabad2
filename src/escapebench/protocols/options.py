"""The protocol options of the verbs that play a game: ``--protocol`` and ``--original-source``.

``play``, ``serve`` and ``replay`` add them with :func:`add_protocol_arguments` and read them
with :func:`protocol_from_args` (``run`` has its own wording of the same two options).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from escapebench.protocols import PromptProtocol, make_protocol


def add_protocol_arguments(parser: argparse.ArgumentParser) -> None:
    """``--protocol`` and ``--original-source``, as ``run`` has them."""
    parser.add_argument(
        "--protocol", default=None, choices=("original", "escapebench"),
        help="whose texts the feedback is in: the original harness's (read from the original "
        "checkout) or ours (default: original for games of an original checkout)",
    )
    parser.add_argument(
        "--original-source", type=Path, default=None, metavar="DIR",
        help="the original EscapeBench checkout (or its src folder) for --protocol original",
    )


def protocol_from_args(args: argparse.Namespace, games: Sequence[str]) -> PromptProtocol:
    """The protocol the options of :func:`add_protocol_arguments` name, for ``games`` (see
    :func:`escapebench.protocols.make_protocol`, whose errors it raises)."""
    return make_protocol(
        getattr(args, "protocol", None), games, getattr(args, "original_source", None)
    )
