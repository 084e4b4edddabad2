"""What a check of a game file reports: a :class:`CheckIssue` per problem, with its place.

Every problem names the file, the YAML line where it can be found, the setting and the place
(scene / item / state / transition). :class:`_Locator` finds the line of a place in the file
(composing the YAML only when an issue needs it); :func:`_suggest` adds "did you mean ...?".
The checks are in :mod:`escapebench.games.checks` (static), :mod:`escapebench.games.reference`
(the reference chain) and :mod:`escapebench.games.solver`; :mod:`escapebench.games.validation`
runs them all.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import yaml

from escapebench.games.loading import deepest_node

try:  # composing with libyaml is much faster; only done when an issue needs its line
    from yaml import CSafeLoader as _ComposeLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _ComposeLoader  # type: ignore[assignment]

Severity = Literal["error", "warning"]
YamlPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class CheckIssue:
    """One problem found in a game: where it is and what is wrong."""

    severity: Severity
    check: str  # short id of the check, e.g. "unknown-name", "pairing", "reference"
    message: str
    source: str  # the file the problem is in
    line: int | None = None
    setting: str = ""  # the setting it was found in ("" for a file that did not load)
    col: int | None = None  # the column, where a file's bytes themselves are at fault

    @property
    def where(self) -> str:
        if self.line is None:
            return self.source
        return f"{self.source}:{self.line}" + (f":{self.col}" if self.col else "")

    def __str__(self) -> str:
        tag = f"[{self.setting}] " if self.setting else ""
        return f"{self.where}: {self.severity}: {tag}{self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "check": self.check,
            "message": self.message,
            "source": self.source,
            "line": self.line,
            "setting": self.setting,
            **({"column": self.col} if self.col else {}),
        }


@functools.lru_cache(maxsize=2)
def _composed(text: str) -> yaml.Node | None:
    """The YAML nodes of a file's text, composed once for all its settings (a 1 MiB file
    takes about a second to compose, and each of its three difficulties is checked)."""
    try:
        return yaml.compose(text, Loader=_ComposeLoader)
    except (yaml.YAMLError, RecursionError):
        return None


def _line_of(node: yaml.Node) -> int | None:
    """A node's line in its file (1-based); None for a node made without composing a text."""
    return node.start_mark.line + 1 if node.start_mark is not None else None


class _Locator:
    """Finds the YAML line of a place in a game file; the file is composed once, on demand.

    ``nodes``, when given, are the file's nodes made without composing its text (the game
    generator has them from writing it): the checks walk them, and the text is composed only
    when a line is needed (an issue found), so a clean file is never composed."""

    def __init__(self, source: str, text: str | None, nodes: yaml.Node | None = None):
        self.source = source
        self._text = text
        self._nodes = nodes
        self._root: yaml.Node | None = None
        self._composed = False

    def _compose(self) -> yaml.Node | None:
        """The nodes to walk: the given ones, or the composed text's."""
        if self._nodes is not None:
            return self._nodes
        return self.marked()

    def marked(self) -> yaml.Node | None:
        """The composed text's nodes, which know their lines (None without a text)."""
        if not self._composed:
            self._composed = True
            if self._text is not None:
                self._root = _composed(self._text)
        return self._root

    @property
    def scenes_base(self) -> YamlPath:
        """Our format nests the scenes under ``scenes:``; the original is a bare list."""
        return ("scenes",) if isinstance(self._compose(), yaml.MappingNode) else ()

    def line(self, path: YamlPath) -> int | None:
        node = self.marked()
        if node is None:
            return None
        node = deepest_node(node, path)
        return node.start_mark.line + 1


def _suggest(name: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {visible_name(close[0])}?)" if close else ""


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible_text(text: str) -> str:
    """``text`` with control characters (escape sequences that clear the screen or set a
    terminal's title, bells, NULs...) shown escaped (``\\x1b``); lines and tabs stay."""
    return _CONTROL.sub(lambda m: ascii(m.group())[1:-1], text)


def control_character_issues(source: str, text: str | None, nodes: yaml.Node | None = None
                             ) -> list[CheckIssue]:
    """A warning for every text of a game file holding a control character, with its line.
    ``nodes``: the file's nodes when at hand (see :class:`_Locator`); the text is composed
    only when one is found, for its line."""
    if nodes is not None:
        found = _control_walk(source, nodes)
        return control_character_issues(source, text) if found and text is not None else found
    return _control_walk(source, _composed(text) if text is not None else None)


def _control_walk(source: str, root: yaml.Node | None) -> list[CheckIssue]:
    out: list[CheckIssue] = []
    scalars: list[str] = []
    stack = [root] if root is not None else []
    while stack:  # first the texts alone, searched at once (a line break is no control)
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            scalars.append(node.value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
    if not _CONTROL.search("\n".join(scalars)):
        return out
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            found = _CONTROL.search(node.value)
            if found:
                out.append(CheckIssue(
                    "warning", "control-character",
                    f"text holds the control character {ascii(found.group())[1:-1]} (a "
                    "terminal would act on it: clear the screen, set its title...); "
                    "terminal play shows it escaped",
                    source, _line_of(node),
                ))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
    out.sort(key=lambda i: i.line or 0)
    return out


def visible_name(name: str) -> str:
    """``name`` quoted, with every character that is not printable ASCII escaped (``'k\\u0435y'``
    for a Cyrillic "е"): a suggestion must show how it differs from what was written."""
    return repr(name) if name.isascii() and name.isprintable() else ascii(name)
