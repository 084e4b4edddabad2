"""Reading model answers: the action of an action call, task-list operations, proposal lists.

Answers follow the "- Thought: ... / - Action(s): ..." layout the prompts ask for, but models
drift (markdown, quotes, missing markers, several calls). Everything here is forgiving and
never raises: an answer without a readable action is passed on as-is so that the engine
returns its own feedback, as the paper's BaseAgent does.

Every function reads at most :data:`MAX_ANSWER_CHARS` characters (the end of a longer answer,
see :func:`cut_answer`) and works in time linear in what it reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from escapebench.engine.actions import MAX_ANSWER_CHARS, Call, cut_answer, extract_call

__all__ = [
    "MAX_ANSWER_CHARS",
    "ParsedAnswer",
    "actions_section",
    "answer_reasoning",
    "cut_answer",
    "find_calls",
    "parse_action_answer",
    "thought_section",
]

# The last "Action:" marker (not "Actions:"): what follows it is the answer's action.
_ACTION_MARKER = re.compile(r"\baction\s*:", re.IGNORECASE)
_ACTIONS_MARKER = re.compile(r"\bactions\s*:", re.IGNORECASE)
_THOUGHT_MARKER = re.compile(r"^[\s\-*#]*thought\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedAnswer:
    """An action-call answer split into its parts."""

    action: str | None  # "verb(args)" as the model wrote the arguments, or None
    thought: str  # the reasoning before the action marker (or the whole answer)
    call: Call | None = None  # the call itself (``action`` is its text)


def _last_match_end(pattern: re.Pattern[str], text: str) -> tuple[int, int] | None:
    last = None
    for m in pattern.finditer(text):
        last = m
    return (last.start(), last.end()) if last else None


def _clean_thought(text: str) -> str:
    text = text.strip().rstrip("-*# \n")
    return _THOUGHT_MARKER.sub("", text, count=1).strip()


def parse_action_answer(text: str) -> ParsedAnswer:
    """Find the action in an action call's answer with the engine's forgiving parser.

    The call after the last "Action:" marker wins; without one (or with nothing readable
    after it) the last well-formed call anywhere in the answer is taken.
    """
    text = cut_answer(text)
    marker = _last_match_end(_ACTION_MARKER, text)
    if marker is not None:
        call = extract_call(text[marker[1] :])
        if call is not None:
            return ParsedAnswer(str(call), _clean_thought(text[: marker[0]]), call)
    call = extract_call(text)
    return ParsedAnswer(str(call) if call else None, _clean_thought(text), call)


def answer_reasoning(text: str, thought: str) -> str:
    """What a step log keeps as the reasoning of ``text`` (kept whole as its raw answer).

    The thought itself, except for an answer longer than :data:`MAX_ANSWER_CHARS`: its thought
    is most of it, and the log would hold the same text twice, so a note stands in for it.
    """
    if len(text) <= MAX_ANSWER_CHARS:
        return thought
    return (
        f"(an answer of {len(text):,} characters: its action was read from the last "
        f"{MAX_ANSWER_CHARS:,}; the whole answer is the step's raw_answer)"
    )


def find_calls(text: str, verbs: Iterable[str]) -> list[tuple[str, str]]:
    """Every well-formed ``verb(args)`` call of the given verbs in ``text``, in order.

    Parentheses inside the arguments must balance; a call that never closes is skipped.
    Returns ``(verb in lower case, argument text)`` pairs.
    """
    text = cut_answer(text)
    names = "|".join(re.escape(v) for v in verbs)
    start = re.compile(rf"\b({names})\s*\(", re.IGNORECASE)
    out: list[tuple[str, str]] = []
    closing: dict[int, int] | None = None
    pos = 0
    while True:
        m = start.search(text, pos)
        if m is None:
            return out
        if closing is None:
            closing = _balanced_closings(text)
        end = closing.get(m.end() - 1)
        if end is not None:
            out.append((m.group(1).lower(), text[m.end() : end]))
            pos = end + 1
        else:
            pos = m.end()  # unbalanced: look for a later call inside the rest


def _balanced_closings(text: str) -> dict[int, int]:
    """``{index of "(": index of its ")"}`` for every parenthesis that closes, in one pass."""
    out: dict[int, int] = {}
    stack: list[int] = []
    for m in _PARENTHESIS.finditer(text):
        if m.group() == "(":
            stack.append(m.start())
        elif stack:
            out[stack.pop()] = m.start()
    return out


_PARENTHESIS = re.compile(r"[()]")


def actions_section(text: str) -> str:
    """The part of a foresight answer after its last "Actions:" marker (or all of it)."""
    text = cut_answer(text)
    marker = _last_match_end(_ACTIONS_MARKER, text)
    return text[marker[1] :] if marker else text


def thought_section(text: str) -> str:
    """The reasoning of a foresight or reflection answer (before its last action marker)."""
    text = cut_answer(text)
    marker = _last_match_end(_ACTIONS_MARKER, text) or _last_match_end(_ACTION_MARKER, text)
    return _clean_thought(text[: marker[0]] if marker else text)
