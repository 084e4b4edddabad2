"""The ``original`` protocol: the original EscapeBench harness, message for message.

Every text a model reads is read at run time from the user's own checkout of the original
release; nothing of it is shipped here.

* :mod:`.source`: finds the checkout and reads its string literals with :mod:`ast`
  (:class:`OriginalSource`); nothing from the checkout is imported or executed;
* :mod:`.protocol`: the rules that assemble those texts into observations, feedback and the
  BaseAgent's prompt (:class:`OriginalProtocol`);
* :mod:`.escape_texts`: the EscapeAgent's prompts and the patterns its answers are read with;
* :mod:`.agent_view`: the game as the original EscapeAgent is shown it (:class:`OriginalAgentView`).
"""

from __future__ import annotations

import importlib
from typing import Any

# The checkout reader is what choosing a protocol needs (``protocols.make_protocol``); the
# protocol and the EscapeAgent texts are loaded on first use, when a run plays ``original``.
from escapebench.protocols.original.source import (
    OriginalSource,
    OriginalSourceError,
    find_source,
    is_original_checkout,
)

_LAZY = {
    "ORIGINAL_VERSION": "escapebench.protocols.original.protocol",
    "OriginalAgentView": "escapebench.protocols.original.agent_view",
    "OriginalProtocol": "escapebench.protocols.original.protocol",
    "OriginalSession": "escapebench.protocols.original.protocol",
    "OriginalTexts": "escapebench.protocols.original.protocol",
    "OriginalEscapeTexts": "escapebench.protocols.original.escape_texts",
    "OriginalTextError": "escapebench.protocols.original.escape_texts",
    "read_original_escape_texts": "escapebench.protocols.original.escape_texts",
}

__all__ = [
    "ORIGINAL_VERSION",
    "OriginalAgentView",
    "OriginalEscapeTexts",
    "OriginalProtocol",
    "OriginalSession",
    "OriginalSource",
    "OriginalSourceError",
    "OriginalTextError",
    "OriginalTexts",
    "find_source",
    "is_original_checkout",
    "read_original_escape_texts",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
