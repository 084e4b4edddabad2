"""JSON from outside (a model's tool-call arguments, a browser's request body), read with a
bounded nesting depth.

Python's ``json`` module recurses once per level, so its limit is the interpreter's recursion
limit, which any imported library may raise (OpenEnv's dependencies set it to 3000). A
document nested deeper than :data:`MAX_JSON_DEPTH` is refused before it is parsed, in one
linear pass, whatever that limit is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

__all__ = [
    "MAX_JSON_DEPTH", "JSONTooDeep", "loads_bounded", "nesting_depth", "structural_brackets",
]

MAX_JSON_DEPTH = 200
"""Deepest nesting of lists and objects accepted (no game answer or request needs more than 3)."""


class JSONTooDeep(ValueError):
    """The document nests lists or objects deeper than the limit."""


def structural_brackets(text: str) -> Iterator[tuple[int, str, int]]:
    """``(index, bracket, depth)`` for each ``[ { ] }`` of ``text`` outside strings, in one
    pass: ``depth`` counts the bracket itself for an opening one and before it closes for a
    closing one (``[[]]`` gives depths 1, 2, 2, 1)."""
    depth = 0
    in_string = escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            yield index, char, depth
        elif char in "]}":
            yield index, char, depth
            depth -= 1


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in ``text``, brackets inside strings not counted."""
    return max((depth for _, _, depth in structural_brackets(text)), default=0)


def loads_bounded(text: str | bytes, limit: int = MAX_JSON_DEPTH, **options: Any) -> Any:
    """``json.loads`` that raises :class:`JSONTooDeep` for documents nested beyond ``limit``.

    Other malformed input raises ``ValueError`` (``json.JSONDecodeError``) as ``json.loads`` does;
    bytes must be UTF-8 (``UnicodeDecodeError``, also a ``ValueError``).
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if nesting_depth(text) > limit:
        raise JSONTooDeep(f"JSON nested more than {limit} levels deep")
    try:
        return json.loads(text, **options)
    except RecursionError:  # a recursion limit lowered below ``limit``
        raise JSONTooDeep(f"JSON nested too deeply to read ({limit} levels allowed)") from None
