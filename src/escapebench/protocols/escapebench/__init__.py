"""The ``escapebench`` protocol: our own wording, the same information and mechanics as
``original``.

* :mod:`.protocol`: :class:`EscapebenchProtocol`, what a step shows and how an answer is
  played;
* :mod:`.prompts`: the prompts of the BaseAgent and EscapeAgent (Reflection, Foresight) and of
  tool-calling play, with their version;
* :mod:`.parsing`: the forgiving answer parser (the last action of an answer, its thought);
* :mod:`.observation`: the screen (:func:`observation_text`), kept current as the engine
  tells it what changed;
* :mod:`.feedback`: a step's :class:`~escapebench.engine.outcome.Outcome` in words
  (:func:`feedback_text`).

The engine reports what happened as data; docs/protocols.md lists every difference from the
original protocol.
"""

from escapebench.protocols.escapebench.feedback import feedback_text
from escapebench.protocols.escapebench.observation import OBSERVATION_VERSION, observation_text
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
    "OBSERVATION_VERSION",
    "PROMPT_VERSION",
    "TOOLS_VERSION",
    "EscapebenchProtocol",
    "EscapebenchSession",
    "ParsedAnswer",
    "answer_reasoning",
    "feedback_text",
    "find_calls",
    "observation_text",
    "parse_action_answer",
    "play_text",
    "position_text",
]
