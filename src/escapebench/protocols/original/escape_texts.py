"""The texts of the original release's EscapeAgent, read from the user's checkout at run time.

The original EscapeAgent (``src/agent_creative.py``) builds its prompts from string literals and
f-strings written inline in its methods, and from constants of ``src/instruction.py``. None of
them is shipped with escapebench: they are read from the checkout by the protocol's reader
(:class:`~escapebench.protocols.original.source.OriginalSource`, :mod:`ast`, nothing imported
or executed) and handed to :class:`~escapebench.agents.escape_original.OriginalEscapeAgent`.

Two kinds of text: *messages* (what a statement assigns or adds: the prompt pieces), found by
method and place as the protocol finds its own; and *literals* the agent tests a response
for or cuts a text at (``"..." in reward``, ``.split("...")``), which are not messages and are
found here by their place among the method's string literals. A checkout that does not have
them where the original release has them is refused with the file and the text named.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from escapebench.protocols.original.source import (
    USAGE_HINT,
    Message,
    OriginalSource,
    OriginalSourceError,
)

AGENT_FILE = "agent_creative.py"
INSTRUCTION_FILE = "instruction.py"
CLASS = "EscapeAgent"
_UTILS = "utils.py"
_READ_OPERATION = "find_reflect_function_call"


class OriginalTextError(OriginalSourceError):
    """The checkout does not hold the original EscapeAgent's texts where they should be."""


# The messages of agent_creative.py the agent uses: (method, place among the method's
# messages in source order, number of holes), found by the protocol's reader
# (OriginalSource.message).
_MESSAGES: dict[str, tuple[str, int, int]] = {
    "task_line": ("format_task_list", 1, 3),
    "task_description_line": ("format_task_list", 2, 1),
    "no_tasks": ("format_task_list", 4, 0),
    "tried_click": ("reflect", 0, 0),
    "tried_apply": ("reflect", 1, 1),
    "tried_input": ("reflect", 2, 1),
    "tried_first": ("reflect", 3, 2),
    "tried_more": ("reflect", 4, 2),
    "param_explain": ("reflect", 5, 1),
    "reflection_position": ("reflect", 6, 1),
    "reflection_scene": ("reflect", 7, 1),
    "reflection_actions": ("reflect", 8, 1),
    "reflection_action": ("reflect", 9, 1),
    "reflection_response": ("reflect", 10, 1),
    "reflection_closing": ("reflect", 11, 0),
    "new_task_period": ("reflect", 12, 1),
    "new_task_tried": ("reflect", 13, 1),
    "step_frame": ("take_action", 0, 2),
    "help_closing": ("take_action", 1, 0),
    "try_action": ("take_action", 2, 1),
    "craft_prompt": ("take_action", 3, 0),
    "bad_action_item": ("take_action", 4, 1),
    "bad_actions_end": ("take_action", 5, 1),
    "bad_actions_head": ("take_action", 6, 0),
    "bad_actions_tail": ("take_action", 7, 0),
    "unexplored_item": ("take_action", 8, 1),
    "unexplored_end": ("take_action", 9, 1),
    "unexplored_head": ("take_action", 10, 0),
    "unexplored_tail": ("take_action", 11, 0),
    "tool_head": ("forethought", 0, 0),
    "tool_line": ("forethought", 1, 2),
    "tool_bag_intro": ("forethought", 2, 1),
    "tool_tasks_intro": ("forethought", 3, 1),
    "tool_closing": ("forethought", 4, 0),
    "task_head": ("forethought", 5, 0),
    "task_line_foresight": ("forethought", 6, 3),
    "task_bag_intro": ("forethought", 7, 1),
    "memory_pad_intro": ("forethought", 8, 1),
    "task_closing": ("forethought", 9, 0),
    "memory_pad": ("setup", 0, 0),
}

# Texts that are not messages but literals the agent tests responses for or cuts texts at
# (``"..." in reward``, ``.split("...")``, ``.find("...")``): (method, index among the
# method's string literals in source order, an f-string counting once). Each must be a plain
# string literal.
_LITERALS: dict[str, tuple[str, int]] = {
    "scene_change_marker": ("reflect", 6),
    "success_marker_loose": ("reflect", 25),
    "collected_marker": ("reflect", 31),
    "error_marker": ("reflect", 33),
    "success_marker": ("reflect", 39),
    "partial_marker": ("reflect", 40),
    "failed_suffix": ("reflect", 62),
    "scene_link_marker": ("take_action", 5),
    "scene_link_label_end": ("take_action", 7),
    "scene_link_target_marker": ("take_action", 9),
    "bag_header_end": ("forethought", 3),
    "actions_heading": ("act", 18),
    "bag_heading": ("act", 19),
}

# The rules utils.py reads foresight answers by: the section markers and the patterns of a
# proposal line (regular expressions, compiled here as data): (function, index, name).
_READERS: dict[str, tuple[str, int]] = {
    "thought_marker": ("parse_foresee_tool_response", 0),
    "actions_marker": ("parse_foresee_tool_response", 1),
    "tool_craft": ("parse_foresee_tool_response", 8),
    "tool_apply": ("parse_foresee_tool_response", 9),
    "task_index": ("parse_foresee_tool_response", 15),
    "task_input": ("parse_foresee_task_response", 8),
    "task_apply": ("parse_foresee_task_response", 9),
    "task_click": ("parse_foresee_task_response", 10),
}
_READER_PATTERNS = (
    "tool_craft",
    "tool_apply",
    "task_index",
    "task_input",
    "task_apply",
    "task_click",
)
_READER_COUNTS = {"parse_foresee_tool_response": 22, "parse_foresee_task_response": 24}

# How many string literals each of those methods has in the release: a literal added or taken
# away would shift the places above.
_LITERAL_COUNTS = {"reflect": 123, "take_action": 37, "forethought": 32, "act": 27}

# The instruction.py constants the agent imports, by the role it uses them in.
_CONSTANTS = {
    "free_explore": "CREATIVE_USER_ACTION",
    "reflection_system": "CREATIVE_SYS_REFLECTION",
    "foresight_task_system": "CREATIVE_SYS_FORESEE_TASK",
    "foresight_tool_system": "CREATIVE_SYS_FORESEE_TOOL",
}


@dataclass(frozen=True)
class OriginalEscapeTexts:
    """Every text the original EscapeAgent shows a model, besides the BaseAgent's.

    ``messages`` and ``literals`` map the names of :data:`_MESSAGES` and :data:`_LITERALS` to
    the texts found; ``constants`` the roles of :data:`_CONSTANTS` to ``instruction.py``'s
    prompts; ``reflect_acts`` is the operation table of the reflection prompt.
    """

    messages: dict[str, Message]
    literals: dict[str, str]
    constants: dict[str, str]
    reflect_acts: dict[str, list[str]]
    patterns: dict[str, re.Pattern[str]]  # how foresight answers are read (_READERS)
    operation_pattern: re.Pattern[str]  # a task-list operation call, as the original reads it
    no_operation: str  # what the original reads from an answer without one
    files: dict[str, str] = field(default_factory=dict)  # file name -> sha256

    def read_operation(self, answer: str) -> str:
        """The last task-list operation in a reflection answer (the original's reading)."""
        found = self.operation_pattern.findall(answer)
        return found[-1] if found else self.no_operation

    def text(self, name: str) -> str:
        """A literal, or a message without holes."""
        if name in self.literals:
            return self.literals[name]
        return self.messages[name].literal

    def fill(self, name: str, *values: str) -> str:
        """A message with its holes filled in order."""
        return self.messages[name].fill(*values)

    def instruction(self, role: str) -> str:
        """The ``instruction.py`` prompt the agent uses for ``role``."""
        return self.constants[role]


def _string_literals(function: ast.AST) -> list[ast.AST]:
    """The string literals of ``function`` in source order (an f-string counts once)."""
    inside_fstrings: set[int] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.JoinedStr):
            inside_fstrings.update(id(n) for n in ast.walk(node) if n is not node)
    found = [
        n
        for n in ast.walk(function)
        if id(n) not in inside_fstrings
        and (
            isinstance(n, ast.JoinedStr)
            or (isinstance(n, ast.Constant) and isinstance(n.value, str))
        )
    ]
    found.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    return found


def _literal_at(
    source: OriginalSource,
    file: str,
    function: str,
    index: int,
    count: int,
    cache: dict[str, list[ast.AST]],
    what: str,
) -> str:
    """The ``index``-th string literal of ``function`` in ``file`` (which must hold ``count``
    of them, as the original release does), or :class:`OriginalTextError` naming ``what``.
    The protocol's reader parses the file; literals that are not messages are read here from
    the same tree (``cache`` keeps each function's literals)."""
    if function not in cache:
        cache[function] = _string_literals(source.function(file, function))
    nodes = cache[function]
    node = nodes[index] if index < len(nodes) else None
    if len(nodes) != count or not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        raise OriginalTextError(
            f"{source.src / file}: {function} does not have the original release's "
            f"{what} (string literal {index + 1}); {USAGE_HINT}"
        )
    return node.value


def read_original_escape_texts(source: OriginalSource | Path) -> OriginalEscapeTexts:
    """The EscapeAgent's texts of the checkout that ``source`` reads (never executed)."""
    if not isinstance(source, OriginalSource):
        source = OriginalSource(Path(source))
    try:
        messages = {
            name: source.message(AGENT_FILE, f"{CLASS}.{method}", at, holes)
            for name, (method, at, holes) in _MESSAGES.items()
        }
        literals: dict[str, str] = {}
        found: dict[str, list[ast.AST]] = {}
        for name, (method, index) in _LITERALS.items():
            literals[name] = _literal_at(
                source, AGENT_FILE, f"{CLASS}.{method}", index, _LITERAL_COUNTS[method], found,
                f"text {name!r}",
            )
        constants = {
            role: str(source.constant(INSTRUCTION_FILE, const))
            for role, const in _CONSTANTS.items()
        }
        reflect_acts = source.constant(INSTRUCTION_FILE, "REFLECT_ACTS")
        verbs = source.function_constant(_UTILS, _READ_OPERATION, "function_names")
        pattern = source.message(_UTILS, _READ_OPERATION, 0, 1).pieces()
        operation_pattern = re.compile(
            pattern[0] + "|".join(re.escape(str(v)) for v in verbs) + pattern[1]
        )
        no_operation = source.message(_UTILS, _READ_OPERATION, 1, 0).literal
        patterns: dict[str, re.Pattern[str]] = {}
        in_utils: dict[str, list[ast.AST]] = {}
        for name, (function, index) in _READERS.items():
            value = _literal_at(
                source, _UTILS, function, index, _READER_COUNTS[function], in_utils,
                f"rule {name!r}",
            )
            if name in _READER_PATTERNS:
                try:
                    patterns[name] = re.compile(value)
                except re.error:
                    raise OriginalTextError(
                        f"{source.src / _UTILS}: {function}: rule {name!r} is not a pattern"
                    ) from None
            else:
                literals[name] = value
    except OriginalSourceError as exc:
        raise OriginalTextError(str(exc)) from None
    if not (
        isinstance(reflect_acts, dict)
        and "new" in reflect_acts
        and all(isinstance(v, list) and len(v) >= 4 for v in reflect_acts.values())
    ):
        raise OriginalTextError(
            f"{source.src / INSTRUCTION_FILE}: REFLECT_ACTS is not the original table; {USAGE_HINT}"
        )
    return OriginalEscapeTexts(
        messages=messages,
        literals=literals,
        constants=constants,
        reflect_acts=reflect_acts,
        patterns=patterns,
        operation_pattern=operation_pattern,
        no_operation=no_operation,
        files={f: source.files[f] for f in (AGENT_FILE, INSTRUCTION_FILE, _UTILS)},
    )
