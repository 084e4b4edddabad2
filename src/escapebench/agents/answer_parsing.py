"""Reading model answers: the action of an action call, task-list operations, proposal lists.

Answers follow the "- Thought: ... / - Action(s): ..." layout the prompts ask for, but models
drift (markdown, quotes, missing markers, several calls). Everything here is forgiving and
never raises: an answer without a readable action is passed on as-is so that the engine
returns its own feedback, as the paper's BaseAgent does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from escapebench.engine.actions import extract_call

# The last "Action:" marker (not "Actions:"): what follows it is the answer's action.
_ACTION_MARKER = re.compile(r"\baction\s*:", re.IGNORECASE)
_ACTIONS_MARKER = re.compile(r"\bactions\s*:", re.IGNORECASE)
_THOUGHT_MARKER = re.compile(r"^[\s\-*#]*thought\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedAnswer:
    """An action-call answer split into its parts."""

    action: str | None  # "verb(args)" as the model wrote the arguments, or None
    thought: str  # the reasoning before the action marker (or the whole answer)


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
    marker = _last_match_end(_ACTION_MARKER, text)
    if marker is not None:
        call = extract_call(text[marker[1] :])
        if call is not None:
            return ParsedAnswer(str(call), _clean_thought(text[: marker[0]]))
    call = extract_call(text)
    return ParsedAnswer(str(call) if call else None, _clean_thought(text))


def find_calls(text: str, verbs: Iterable[str]) -> list[tuple[str, str]]:
    """Every well-formed ``verb(args)`` call of the given verbs in ``text``, in order.

    Parentheses inside the arguments must balance; a call that never closes is skipped.
    Returns ``(verb in lower case, argument text)`` pairs.
    """
    names = "|".join(re.escape(v) for v in verbs)
    start = re.compile(rf"\b({names})\s*\(", re.IGNORECASE)
    out: list[tuple[str, str]] = []
    pos = 0
    while True:
        m = start.search(text, pos)
        if m is None:
            return out
        depth, i = 1, m.end()
        while i < len(text) and depth:
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
            i += 1
        if depth == 0:
            out.append((m.group(1).lower(), text[m.end() : i - 1]))
            pos = i
        else:
            pos = m.end()  # unbalanced: look for a later call inside the rest


def actions_section(text: str) -> str:
    """The part of a foresight answer after its last "Actions:" marker (or all of it)."""
    marker = _last_match_end(_ACTIONS_MARKER, text)
    return text[marker[1] :] if marker else text


def thought_section(text: str) -> str:
    """The reasoning of a foresight or reflection answer (before its last action marker)."""
    marker = _last_match_end(_ACTIONS_MARKER, text) or _last_match_end(_ACTION_MARKER, text)
    return _clean_thought(text[: marker[0]] if marker else text)
