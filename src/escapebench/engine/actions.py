"""Actions: what a player or a model can do, and how free text becomes one.

Parsing has two stages. :func:`extract_call` finds the last well-formed call of one of the five
verbs in free text (model output with reasoning, markdown, quotes). The engine then resolves the
call's argument text against the names currently on screen (``EscapeGame.resolve``), which is
what makes names containing commas or parentheses work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ActionKind = Literal["move", "click", "apply", "input", "craft"]
VERBS: tuple[ActionKind, ...] = ("move", "click", "apply", "input", "craft")
ARITY: dict[str, int] = {"move": 1, "click": 1, "apply": 2, "input": 2, "craft": 2}

_CALL_START = re.compile(r"\b(move|click|apply|input|craft)\s*\(", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
# Characters that wrap names in model output but are never part of a name.
_WRAPPERS = "\"'`*_<>[] \t\r\n“”‘’"


@dataclass(frozen=True, slots=True)
class Call:
    """A verb with its raw argument text, before names are matched."""

    verb: ActionKind
    arg_text: str

    def __str__(self) -> str:
        return f"{self.verb}({self.arg_text})"


@dataclass(frozen=True, slots=True)
class Action:
    """A fully resolved action; ``args`` are canonical names (or the input text)."""

    kind: ActionKind
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.kind}({', '.join(self.args)})"


def normalize_name(text: str) -> str:
    """The form names are compared in: lower case, single spaces, no wrapping quotes."""
    core = text.strip(_WRAPPERS)
    if "  " not in core and core.isprintable():
        # The usual name: no whitespace but single spaces (isprintable() is False for every
        # other whitespace character), none at the ends (the space is a wrapper).
        return core.lower()
    if core and (core[0].isspace() or core[-1].isspace()):
        # Whitespace the wrappers do not cover (form feed, no-break space...) at an end
        # becomes one space, as the regular expression does; split() would drop it.
        return _SPACES.sub(" ", core).lower()
    # str.split() splits on exactly the characters \s matches, and is several times faster.
    return " ".join(core.split()).lower()


def clean_input_text(text: str) -> str:
    """The text of an ``input`` as the player meant it: wrapping quotes and spaces removed."""
    return text.strip(_WRAPPERS)


def extract_call(text: str) -> Call | None:
    """Return the last well-formed ``verb(...)`` call in ``text``, or None.

    Parentheses inside the arguments must balance (``click(box (red))`` is one call); a call
    whose closing parenthesis is missing is not well-formed and is skipped.
    """
    found: Call | None = None
    for m in _CALL_START.finditer(text):
        depth = 1
        i = m.end()
        n = len(text)
        while i < n:
            c = text[i]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    break
            elif c == "\n" and depth == 1 and text[m.end() : i].count("\n") > 2:
                break  # runaway call spanning paragraphs: not an action
            i += 1
        if depth == 0:
            found = Call(m.group(1).lower(), text[m.end() : i])  # type: ignore[arg-type]
    return found


_VERB_SET = frozenset(VERBS)


def parse_call(text: str) -> Call | None:
    """Read an action written exactly as the action grammar says: ``verb(args)``.

    Surrounding whitespace is allowed; the verb is lower case and directly followed by ``(``,
    and the arguments are everything up to the last ``)``. This is what the engine accepts for
    a plain string (replays, logs, the hint system); model answers go through the forgiving
    :func:`extract_call` first.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_call expects a string, got {type(text).__name__}")
    core = text.strip()
    opening = core.find("(")
    if opening > 0 and core[-1] == ")" and core[:opening] in _VERB_SET:
        return Call(core[:opening], core[opening + 1 : -1])  # type: ignore[arg-type]
    return None


def clear_parse_memo() -> None:
    """Kept for callers of old: parse_call keeps no memo any more."""


def split_candidates(arg_text: str) -> list[tuple[str, str]]:
    """Every way to cut ``arg_text`` at one comma into two non-empty parts, last comma first."""
    out: list[tuple[str, str]] = []
    idx = arg_text.rfind(",")
    while idx != -1:
        left, right = arg_text[:idx], arg_text[idx + 1 :]
        if left.strip(_WRAPPERS) and right.strip(_WRAPPERS):
            out.append((left, right))
        idx = arg_text.rfind(",", 0, idx)
    return out
