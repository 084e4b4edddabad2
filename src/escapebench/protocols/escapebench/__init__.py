"""The ``escapebench`` protocol: our own wording, the same information and mechanics as
``original``.

* :mod:`.protocol`: :class:`EscapebenchProtocol`, what a step shows and how an answer is
  played;
* :mod:`.prompts`: the prompts of the BaseAgent and EscapeAgent (Reflection, Foresight) and of
  tool-calling play, with their version;
* :mod:`.parsing`: the forgiving answer parser (the last action of an answer, its thought).

The observation and the step feedback are rendered by the engine (``engine.observation``,
``engine.feedback``); docs/protocols.md lists every difference from the original protocol.
"""

from escapebench.protocols.escapebench.parsing import (
    ParsedAnswer,
    answer_reasoning,
    find_calls,
    parse_action_answer,
)
from escapebench.protocols.escapebench.prompts import PROMPT_VERSION, TOOLS_VERSION
from escapebench.protocols.escapebench.protocol import (
    ESCAPEBENCH_VERSION,
    NO_ACTION_READ,
    EscapebenchProtocol,
    EscapebenchSession,
    play_text,
    position_text,
)

__all__ = [
    "ESCAPEBENCH_VERSION",
    "NO_ACTION_READ",
    "PROMPT_VERSION",
    "TOOLS_VERSION",
    "EscapebenchProtocol",
    "EscapebenchSession",
    "ParsedAnswer",
    "answer_reasoning",
    "find_calls",
    "parse_action_answer",
    "play_text",
    "position_text",
]
