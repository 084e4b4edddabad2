"""The texts of the original release's EscapeAgent, read from the user's checkout at run time.

The original EscapeAgent (``src/agent_creative.py``) builds its prompts from string literals and
f-strings written inline in its methods, and from constants of ``src/instruction.py``. None of
them is shipped with escapebench: this module reads them from the checkout with :mod:`ast`
(never importing or executing it) and hands them to
:class:`~escapebench.agents.escape_original.OriginalEscapeAgent` as :class:`Template` values.

A text is found by the method it is written in and its place among that method's string
literals (an f-string counts as one literal), and each f-string is checked to have the
placeholders the agent fills. A checkout whose file does not have that shape is refused with a
message naming the file and the text, so a changed file never produces silently wrong prompts.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

AGENT_FILE = "agent_creative.py"
INSTRUCTION_FILE = "instruction.py"


class OriginalTextError(ValueError):
    """The checkout does not hold the original EscapeAgent's texts where they should be."""


@dataclass(frozen=True)
class Template:
    """A literal of the original source: constant parts and named placeholders.

    A placeholder is named by the source text of its expression (``step``, ``task[0]``).
    """

    parts: tuple[str | tuple[str], ...]  # str: constant text; (name,): a placeholder

    @property
    def placeholders(self) -> tuple[str, ...]:
        return tuple(p[0] for p in self.parts if isinstance(p, tuple))

    def render(self, **values: str) -> str:
        """The text with every placeholder replaced by ``values[name]``.

        Names that are not Python identifiers are given by :meth:`fill` instead.
        """
        return self.fill(values)

    def fill(self, values: dict[str, str]) -> str:
        """The text with every placeholder replaced by ``values[name]``."""
        out = []
        for p in self.parts:
            if isinstance(p, tuple):
                try:
                    out.append(str(values[p[0]]))
                except KeyError:
                    raise KeyError(f"no value for placeholder {p[0]!r}") from None
            else:
                out.append(p)
        return "".join(out)

    @property
    def text(self) -> str:
        """The text of a template without placeholders."""
        if self.placeholders:
            raise ValueError(f"template has placeholders {self.placeholders}")
        return "".join(p for p in self.parts if isinstance(p, str))


# Where each text is in agent_creative.py: (method, index among the method's string literals,
# placeholders of the f-string, or None for a plain string literal).
_AGENT_TEXTS: dict[str, tuple[str, int, tuple[str, ...] | None]] = {
    # format_task_list
    "task_position_line": ("format_task_list", 1, ("position",)),
    "task_line": ("format_task_list", 2, ("count", "task[0]", "task[3]")),
    "task_description_line": ("format_task_list", 3, ("task[1]",)),
    "no_task_in_scene": ("format_task_list", 4, None),
    "no_tasks": ("format_task_list", 5, None),
    # reflect: the markers it looks for in a response, and the texts it writes into tasks
    "scene_change_marker": ("reflect", 6, None),
    "success_marker_loose": ("reflect", 25, None),
    "collected_marker": ("reflect", 31, None),
    "error_marker": ("reflect", 33, None),
    "success_marker": ("reflect", 39, None),
    "partial_marker": ("reflect", 40, None),
    "tried_click": ("reflect", 53, None),
    "tried_apply": ("reflect", 57, ("tool",)),
    "tried_input": ("reflect", 61, ("input_string",)),
    "failed_suffix": ("reflect", 62, None),
    "tried_first": ("reflect", 63, None),
    "tried_more": ("reflect", 66, ("current_act",)),
    "reflection_position_head": ("reflect", 81, None),
    "reflection_action_head": ("reflect", 88, None),
    "reflection_response_head": ("reflect", 91, None),
    "reflection_closing": ("reflect", 94, None),
    "new_task_tried": ("reflect", 112, ("current_act",)),
    # take_action
    "scene_link_marker": ("take_action", 5, None),
    "scene_link_label_end": ("take_action", 7, None),
    "scene_link_target_marker": ("take_action", 9, None),
    "step_head": ("take_action", 11, ("step",)),
    "help_closing": ("take_action", 15, None),
    "try_action": ("take_action", 17, ("first_action[1]",)),
    "craft_prompt": ("take_action", 19, None),
    "bad_actions_head": ("take_action", 25, None),
    "bad_actions_tail": ("take_action", 26, ()),
    "unexplored_head": ("take_action", 31, None),
    "unexplored_tail": ("take_action", 32, None),
    # forethought
    "tool_head": ("forethought", 1, ()),
    "tool_line": (
        "forethought",
        2,
        ("self.new_tool_collected.name", "self.new_tool_collected.current_desc()"),
    ),
    "bag_header_end": ("forethought", 3, None),
    "tool_bag_intro": ("forethought", 4, ("tools_in_bag",)),
    "tool_tasks_intro": ("forethought", 5, ("task_list",)),
    "tool_closing": ("forethought", 6, ()),
    "task_head": ("forethought", 17, ()),
    "task_line_foresight": (
        "forethought",
        18,
        (
            "self.new_task_created[0][0]",
            "self.new_task_created[0][3]",
            "self.new_task_created[0][1]",
        ),
    ),
    "task_bag_intro": ("forethought", 20, ("tools_in_bag",)),
    "memory_pad_intro": ("forethought", 21, ("self.memory_pad",)),
    "task_closing": ("forethought", 22, ()),
    # act: where the observation is cut for the reflection prompt
    "actions_heading": ("act", 18, None),
    "bag_heading": ("act", 19, None),
    # setup
    "memory_pad": ("setup", 0, None),
}

# The names agent_creative.py imports from instruction.py, under the names it uses them by.
_IMPORTED = {
    "SYS_ACTION": "action_system",
    "USER_ACTION": "free_explore",
    "SYS_REFLECTION": "reflection_system",
    "SYS_FORESEE_TASK": "foresight_task_system",
    "SYS_FORESEE_TOOL": "foresight_tool_system",
}


@dataclass(frozen=True)
class OriginalEscapeTexts:
    """Every text the original EscapeAgent shows a model, besides the BaseAgent's.

    ``agent`` maps the names of :data:`_AGENT_TEXTS` to templates; ``instruction_names`` maps
    the agent's role names (``free_explore``, ``reflection_system``, ...) to the names of the
    constants of ``instruction.py`` it imports for them; ``constants`` holds those constants
    that are plain strings, and ``reflect_acts`` the operation table of the reflection prompt.
    The action system prompt is the BaseAgent's (read by :mod:`escapebench.protocols`).
    """

    agent: dict[str, Template]
    instruction_names: dict[str, str]
    constants: dict[str, str]
    reflect_acts: dict[str, list[str]]
    files: dict[str, str] = field(default_factory=dict)  # file name -> sha256

    def text(self, name: str) -> str:
        return self.agent[name].text

    def instruction(self, role: str) -> str:
        """The ``instruction.py`` constant the agent uses for ``role`` (not the action prompt)."""
        return self.constants[self.instruction_names[role]]


def _template(node: ast.AST) -> Template:
    if isinstance(node, ast.Constant):
        return Template((node.value,))
    assert isinstance(node, ast.JoinedStr)
    parts: list[str | tuple[str]] = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(value.value)
        elif isinstance(value, ast.FormattedValue):
            if value.conversion != -1 or value.format_spec is not None:
                raise OriginalTextError(f"unsupported f-string field {ast.unparse(value)}")
            parts.append((ast.unparse(value.value),))
    return Template(tuple(parts))


def _string_literals(function: ast.FunctionDef) -> list[ast.AST]:
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
    found.sort(key=lambda n: (n.lineno, n.col_offset))
    return found


def _parse(path: Path) -> tuple[ast.Module, str]:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise OriginalTextError(f"{path}: cannot be read ({e.strerror or e})") from None
    try:
        tree = ast.parse(data.decode("utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError) as e:
        raise OriginalTextError(f"{path}: not readable Python source ({e})") from None
    return tree, hashlib.sha256(data).hexdigest()


def read_original_escape_texts(src: Path) -> OriginalEscapeTexts:
    """Read the EscapeAgent's texts from the checkout's ``src`` folder (never executed)."""
    agent_path, instruction_path = src / AGENT_FILE, src / INSTRUCTION_FILE
    tree, agent_sha = _parse(agent_path)
    functions: dict[str, ast.FunctionDef] = {}
    imported: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            functions.setdefault(node.name, node)
        elif isinstance(node, ast.ImportFrom) and node.module == "instruction":
            for alias in node.names:
                imported[alias.asname or alias.name] = alias.name
    literals: dict[str, list[ast.AST]] = {}
    agent: dict[str, Template] = {}
    for name, (method, index, placeholders) in _AGENT_TEXTS.items():
        if method not in functions:
            raise OriginalTextError(f"{agent_path}: no method {method}() (needed for {name})")
        found = literals.setdefault(method, _string_literals(functions[method]))
        node = found[index] if index < len(found) else None
        is_fstring = isinstance(node, ast.JoinedStr)
        template = _template(node) if node is not None else None
        if (
            template is None
            or (placeholders is None and is_fstring)
            or (
                placeholders is not None
                and (not is_fstring or template.placeholders != placeholders)
            )
        ):
            raise OriginalTextError(
                f"{agent_path}: {method}() does not have the original release's text "
                f"{name!r} (string literal {index + 1}); is this the original checkout?"
            )
        agent[name] = template
    names: dict[str, str] = {}
    for alias, role in _IMPORTED.items():
        if alias not in imported:
            raise OriginalTextError(f"{agent_path}: does not import {alias} from instruction")
        names[role] = imported[alias]
    if "REFLECT_ACTS" not in imported:
        raise OriginalTextError(f"{agent_path}: does not import REFLECT_ACTS from instruction")

    itree, instruction_sha = _parse(instruction_path)
    constants: dict[str, str] = {}
    reflect_acts: Any = None
    for node in itree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if not isinstance(target, ast.Name):
                continue
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                constants[target.id] = node.value.value
            elif target.id == imported["REFLECT_ACTS"]:
                try:
                    reflect_acts = ast.literal_eval(node.value)
                except ValueError:
                    raise OriginalTextError(
                        f"{instruction_path}: {target.id} is not a literal table"
                    ) from None
    for role, const in names.items():
        if role != "action_system" and const not in constants:
            raise OriginalTextError(f"{instruction_path}: no string constant {const} ({role})")
    if not (
        isinstance(reflect_acts, dict)
        and "new" in reflect_acts
        and all(isinstance(v, list) and len(v) >= 4 for v in reflect_acts.values())
    ):
        raise OriginalTextError(f"{instruction_path}: REFLECT_ACTS is not the original table")
    return OriginalEscapeTexts(
        agent=agent,
        instruction_names=names,
        constants=constants,
        reflect_acts=reflect_acts,
        files={AGENT_FILE: agent_sha, INSTRUCTION_FILE: instruction_sha},
    )
