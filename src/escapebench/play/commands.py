"""What a person types: a command with numbers or names, turned into an action string.

Things in the scene (visible items, then tools lying there) are numbered from 1 in the order the
observation lists them; so are exits and the tools in the bag. ``click N`` and the item of
``apply``/``input`` use the things' numbers, ``move N`` the exits', ``craft`` and the tool of
``apply`` the bag's. The text of ``input`` is always literal text. A command that cannot be
read, or a number out of range, is a :class:`~escapebench.play.errors.PlayError`: it plays
nothing and costs no step.
"""

from __future__ import annotations

import re

from escapebench.agents.screen import Screen
from escapebench.engine.actions import ARITY, Call, clean_input_text, parse_call
from escapebench.play.errors import PlayError

_VERB_FIRST = re.compile(r"^\s*(move|click|apply|input|craft)\b\s*(.*?)\s*$", re.I | re.S)
_NUMBER = re.compile(r"^\s*#?(\d+)\s*$")

_FORMS = {
    "move": "move N or move(exit)",
    "click": "click N or click(thing)",
    "apply": "apply(N, M) with bag tool N and thing M, or apply(tool, thing)",
    "input": "input(text, N) with thing N, or input(text, thing)",
    "craft": "craft(N, M) with bag tools N and M, or craft(tool, tool)",
}


def numbered_things(screen: Screen) -> list[str]:
    """Names of the numbered things on ``screen``: visible items, then tools lying there."""
    return [i.name for i in screen.items] + [t.name for t in screen.scene_tools]


def resolve_command(command: str, screen: Screen) -> str:
    """Turn a typed command into an action string with names (numbers replaced).

    Raises :class:`PlayError` when the command cannot be read or a number is out of range.
    """
    call = read_call(command)
    things = numbered_things(screen)
    exits = [e.label for e in screen.exits]
    bag = [t.name for t in screen.bag]
    verb = call.verb
    if ARITY[verb] == 1:
        names, what = (exits, "exit") if verb == "move" else (things, "thing")
        return f"{verb}({_numbered(call.arg_text, names, what)})"
    cut = call.arg_text.rfind(",")
    if cut < 0:
        raise PlayError(f"{verb} needs two arguments: {_FORMS[verb]}")
    left, right = call.arg_text[:cut], call.arg_text[cut + 1 :]
    if verb != "input" and "," in left and left.strip() not in bag:
        # The text of input may hold commas; a tool's name only if the bag has one.
        count = len(call.arg_text.split(","))
        raise PlayError(f"{verb} takes 2 arguments, not {count}: {_FORMS[verb]}")
    if verb == "craft":
        left = _numbered(left, bag, "bag tool")
        right = _numbered(right, bag, "bag tool")
    elif verb == "apply":
        left = _numbered(left, bag, "bag tool")
        right = _numbered(right, things, "thing")
    else:  # input: the text is literal
        left = clean_input_text(left)
        right = _numbered(right, things, "thing")
    if not left.strip() or not right.strip():
        raise PlayError(f"{verb} needs two arguments: {_FORMS[verb]}")
    return f"{verb}({left.strip()}, {right.strip()})"


def read_call(command: str) -> Call:
    """The action call of a typed command: ``click(2)``, or verb-first ``click 2``."""
    text = command.strip()
    call = parse_call(text)
    if call is not None:
        return call
    m = _VERB_FIRST.match(text)
    if m is None:
        raise PlayError(
            f"cannot read {text!r}: type an action such as 'click 2', 'move 1', "
            "'apply(1, 3)' or 'input(1234, 2)', or 'help'"
        )
    verb, rest = m.group(1).lower(), m.group(2)
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1]
    if ARITY[verb] == 2 and "," not in rest:
        # "apply 1 3", "input 1234 2": the last word is the thing's number.
        words = rest.split()
        if len(words) >= 2 and _NUMBER.match(words[-1]):
            rest = " ".join(words[:-1]) + ", " + words[-1]
    if not rest.strip():
        raise PlayError(f"{verb} needs an argument: {_FORMS[verb]}")
    return Call(verb, rest)  # type: ignore[arg-type]


def _numbered(text: str, names: list[str], what: str) -> str:
    m = _NUMBER.match(text)
    if m is None:
        return text.strip()
    n = int(m.group(1))
    if not 1 <= n <= len(names):
        listed = {0: "there are none", 1: "there is only 1"}.get(
            len(names), f"they are numbered 1-{len(names)}"
        )
        raise PlayError(f"there is no {what} number {n}: {listed}")
    return names[n - 1]
