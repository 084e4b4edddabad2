"""The engine keeps no sentence meant for a player: every text a player reads is a protocol's.

The scan reads every string literal of ``src/escapebench/engine/`` (f-strings too) and
reports those that read like a sentence (three words or more), except docstrings and the
messages of errors: what is wrong with a game file (``BrokenGameError`` and the engine's
``broken(...)`` helper that builds one) or with a call (``ValueError``, ``KeyError``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "src" / "escapebench" / "engine"
_ERROR_CALL = re.compile(r"(Error|broken)$")


def _called_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def sentences(source: str) -> list[tuple[int, str]]:
    """(line, text) of the string literals of ``source`` that read like a sentence."""
    tree = ast.parse(source)
    exempt: set[int] = set()
    parts: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts.update(id(v) for v in node.values)  # read with their f-string below
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            exempt.add(id(node.value))  # docstrings, of modules, classes, functions, fields
        if isinstance(node, ast.Raise) and node.exc is not None:
            exempt.update(id(sub) for sub in ast.walk(node.exc))
        if isinstance(node, ast.Call) and _ERROR_CALL.search(_called_name(node)):
            exempt.update(id(sub) for sub in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            pieces = [v.value if isinstance(v, ast.Constant) else " " for v in node.values]
            text, ids = "".join(map(str, pieces)), [id(node), *map(id, node.values)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in parts:
                continue
            text, ids = node.value, [id(node)]
        else:
            continue
        if any(i in exempt for i in ids):
            continue
        if len(re.findall(r"[A-Za-z]{2,}", text)) >= 3 and " " in text.strip():
            found.append((node.lineno, text))
    return found


def test_no_string_in_the_engine_reads_like_a_sentence_for_a_player() -> None:
    found = [
        f"{path.name}:{line}: {text!r}"
        for path in sorted(ENGINE.glob("*.py"))
        for line, text in sentences(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "sentences for a player belong to a protocol:\n" + "\n".join(found)


def test_the_scan_finds_a_feedback_sentence_and_spares_docstrings_and_errors() -> None:
    source = '''
"""A module docstring with many words in it."""
def step(name):
    """A docstring with many words."""
    if not name:
        raise BrokenGameError(f"the game file names {name}, which does not exist")
    problem = broken("names a scene which does not exist")
    return f"You took the {name} and put it in your bag."
KIND = "item state"
'''
    [(line, text)] = sentences(source)
    assert line == 8 and text.startswith("You took the") and text.endswith("in your bag.")
