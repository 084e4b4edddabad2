"""Actions: what a player or a model can do, and how free text becomes one.

Parsing has two stages. :func:`extract_call` finds the last well-formed call of one of the five
verbs in free text (model output with reasoning, markdown, quotes). The engine then resolves the
call's argument text against the names currently on screen (``EscapeGame.resolve``), which is
what makes names containing commas or parentheses work.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
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
    whose closing parenthesis is missing is not well-formed and is skipped, and so is a runaway
    call whose arguments reach a fourth line break outside inner parentheses.

    Linear in the length of ``text``: the parentheses are paired in one pass, so ``click(``
    repeated over a long answer costs no more than reading it once.
    """
    found: Call | None = None
    closing: dict[int, int] | None = None
    for m in _CALL_START.finditer(text):
        if closing is None:
            closing = _closing_parentheses(text)
        end = closing.get(m.end() - 1)
        if end is not None:
            found = Call(m.group(1).lower(), text[m.end() : end])  # type: ignore[arg-type]
    return found


_PAREN_OR_NEWLINE = re.compile(r"[()\n]")
_RUNAWAY_LINES = 3  # a call's arguments may span this many line breaks before one at its depth


def _closing_parentheses(text: str) -> dict[int, int]:
    """``{index of "(": index of the ")" that closes it}``, for the calls :func:`extract_call`
    accepts: one pass with a stack.

    An opening parenthesis is left out when it never closes, or when a line break at its own
    depth comes after more than ``_RUNAWAY_LINES`` line breaks inside it (a runaway call spanning
    paragraphs), exactly as scanning forward from each call used to decide.
    """
    out: dict[int, int] = {}
    stack: list[int] = []  # open parentheses: index
    lines_at: list[int] = []  # line breaks seen before each open parenthesis
    runaway: set[int] = set()
    lines = 0
    for m in _PAREN_OR_NEWLINE.finditer(text):
        c, i = m.group(), m.start()
        if c == "(":
            stack.append(i)
            lines_at.append(lines)
        elif c == ")":
            if stack:
                opening = stack.pop()
                lines_at.pop()
                if opening not in runaway:
                    out[opening] = i
        else:
            if stack and lines - lines_at[-1] > _RUNAWAY_LINES - 1:
                runaway.add(stack[-1])
            lines += 1
    return out


# Model answers longer than this are read from their last MAX_ANSWER_CHARS characters only (the
# action comes last in every answer layout the prompts ask for): whatever a model emits, reading
# an answer costs at most this much. The full answer is still what the step log keeps.
MAX_ANSWER_CHARS = 65_536


def cut_answer(text: str) -> str:
    """The part of a model answer that parsers read: all of it, or its last
    :data:`MAX_ANSWER_CHARS` characters. Every answer parser (action calls, task operations,
    proposal lists, any protocol's) takes its text through here first."""
    return text if len(text) <= MAX_ANSWER_CHARS else text[-MAX_ANSWER_CHARS:]


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


def comma_cuts(arg_text: str) -> list[int]:
    """The commas that cut ``arg_text`` into two non-empty parts, by index, last first.

    A part is non-empty when something but wrapping quotes and spaces is left of it. Linear in
    the length of the text.
    """
    core = arg_text.lstrip(_WRAPPERS)
    first = len(arg_text) - len(core)  # first character that is not a wrapper
    last = len(core.rstrip(_WRAPPERS)) + first - 1  # the last one
    out: list[int] = []
    idx = arg_text.rfind(",", 0, last)
    while idx > first:
        out.append(idx)
        idx = arg_text.rfind(",", 0, idx)
    return out


def most_commas(names: Iterable[str]) -> int:
    """The most commas any of ``names`` holds: the ``left_commas`` / ``right_commas`` bound of
    :func:`split_candidates` for parts that must be one of them."""
    return max((name.count(",") for name in names), default=0)


def split_candidates(
    arg_text: str, *, left_commas: int | None = None, right_commas: int | None = None
) -> list[tuple[str, str]]:
    """Every way to cut ``arg_text`` at one comma into two non-empty parts, last comma first.

    ``left_commas`` and ``right_commas`` leave out the cuts whose left or right part holds
    more commas than that: a part can only be a name holding as many commas as the longest
    name does, so callers matching names pass that count and the work stays linear in the
    text's length (every cut of a long argument list would be quadratic).
    """
    cuts = comma_cuts(arg_text)
    if cuts and (left_commas is not None or right_commas is not None):
        total = arg_text.count(",")
        trailing = arg_text.count(",", cuts[0] + 1)  # commas right of the last cut
        kept = []
        for k, idx in enumerate(cuts):
            right = trailing + k  # commas in the right part
            if right_commas is not None and right > right_commas:
                break  # the right parts only grow from here
            if left_commas is None or total - 1 - right <= left_commas:
                kept.append(idx)
        cuts = kept
    return [(arg_text[:idx], arg_text[idx + 1 :]) for idx in cuts]


@dataclass(frozen=True, slots=True)
class ActionKey:
    """An action string as the original harness compares two (:func:`same_action`): its verb
    and comma-separated arguments without case or surrounding spaces (the arguments end at the
    first ``)``), and whether it was written starting with ``craft``."""

    verb: str
    args: tuple[str, ...]
    craft: bool

    def same(self, other: ActionKey) -> bool:
        """Whether the two name the same action (see :func:`same_action`)."""
        if self.craft and other.craft:
            return set(self.args) == set(other.args)
        return self.verb == other.verb and self.args == other.args


def action_key(action: str) -> ActionKey | None:
    """The :class:`ActionKey` of an action string, read once; None when it has no ``(``."""
    verb, opened, rest = action.partition("(")
    if not opened:
        return None
    inside = rest.partition(")")[0]
    return ActionKey(verb.strip().lower(),
                     tuple(arg.strip() for arg in inside.strip().lower().split(",")),
                     action.startswith("craft"))


def same_action(a: str, b: str) -> bool:
    """Whether two action strings name the same action by the original harness's rule (the
    hint system's "is this the next key step?" and the EscapeAgent's proposal check).

    The verb and the arguments must be equal apart from letter case and spaces around each
    argument; two crafts (both strings starting with ``craft`` as written) name the same two
    tools in either order. A string without ``(`` is no action and matches nothing. A caller
    comparing one string with many reads each once (:func:`action_key`, :meth:`ActionKey.same`).
    """
    first, second = action_key(a), action_key(b)
    return first is not None and second is not None and first.same(second)
