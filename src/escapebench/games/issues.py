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


class _Locator:
    """Finds the YAML line of a place in a game file; the file is composed once, on demand."""

    def __init__(self, source: str, text: str | None):
        self.source = source
        self._text = text
        self._root: yaml.Node | None = None
        self._composed = False

    def _compose(self) -> yaml.Node | None:
        if not self._composed:
            self._composed = True
            if self._text is not None:
                try:
                    self._root = yaml.compose(self._text, Loader=_ComposeLoader)
                except (yaml.YAMLError, RecursionError):
                    self._root = None
        return self._root

    @property
    def scenes_base(self) -> YamlPath:
        """Our format nests the scenes under ``scenes:``; the original is a bare list."""
        return ("scenes",) if isinstance(self._compose(), yaml.MappingNode) else ()

    def line(self, path: YamlPath) -> int | None:
        node = self._compose()
        if node is None:
            return None
        node = deepest_node(node, path)
        return node.start_mark.line + 1


def _suggest(name: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
