"""The ``original`` protocol: the original EscapeBench harness, message for message.

Every text a model reads is read at run time from the user's own checkout of the original
release; nothing of it is shipped here.

* :mod:`.source`: finds the checkout and reads its string literals with :mod:`ast`
  (:class:`OriginalSource`); nothing from the checkout is imported or executed;
* :mod:`.protocol`: the rules that assemble those texts into observations, feedback and the
  BaseAgent's prompt (:class:`OriginalProtocol`);
* :mod:`.escape_texts`: the EscapeAgent's prompts and the patterns its answers are read with.
"""

from escapebench.protocols.original.escape_texts import (
    OriginalEscapeTexts,
    OriginalTextError,
    read_original_escape_texts,
)
from escapebench.protocols.original.protocol import (
    ORIGINAL_VERSION,
    OriginalProtocol,
    OriginalSession,
    OriginalTexts,
)
from escapebench.protocols.original.source import (
    OriginalSource,
    OriginalSourceError,
    find_source,
    is_original_checkout,
)

__all__ = [
    "ORIGINAL_VERSION",
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
