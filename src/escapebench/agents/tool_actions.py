"""The ``tools`` action format: the five actions as functions the model calls natively.

In the paper's ``text`` format the model writes its action in the answer ("- Action:
click(door)") and the forgiving parser reads it. In the ``tools`` format every action call
offers the five actions as functions with JSON-schema arguments (:data:`ACTION_TOOLS`), and
the answer's function call is the action (:func:`read_tool_answer`). The answer's text, if
any, is the model's reasoning and is kept in the step log.

Nothing a model answers is an error: an answer without a function call, a call of an unknown
function, arguments that are not JSON or miss a field are played as a text the engine cannot
read, so the model gets the engine's feedback for it and the step counts, as a malformed text
answer does in the ``text`` format.

The function descriptions and the closing instruction are prompt text, so they live in
:mod:`.prompts` with their own version (``TOOLS_VERSION``, recorded with the results).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from escapebench.json_limits import JSONTooDeep, loads_bounded
from escapebench.llm.base import Message, ToolCall, ToolParam, ToolSpec
from escapebench.protocols.escapebench import prompts

ActionFormat = Literal["text", "tools"]
ACTION_FORMATS: tuple[str, ...] = ("text", "tools")
DEFAULT_ACTION_FORMAT: ActionFormat = "text"
TOOLS_VERSION = prompts.TOOLS_VERSION

_SCENE = ToolParam("scene", prompts.TOOL_ARG_SCENE)
_ITEM = ToolParam("item", prompts.TOOL_ARG_ITEM)
_TOOL = ToolParam("tool", prompts.TOOL_ARG_TOOL)

ACTION_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("move", prompts.TOOL_MOVE, (_SCENE,)),
    ToolSpec("click", prompts.TOOL_CLICK, (_ITEM,)),
    ToolSpec("apply", prompts.TOOL_APPLY, (_TOOL, _ITEM)),
    ToolSpec("input", prompts.TOOL_INPUT, (ToolParam("text", prompts.TOOL_ARG_TEXT), _ITEM)),
    ToolSpec("craft", prompts.TOOL_CRAFT, (_TOOL, ToolParam("other_tool", prompts.TOOL_ARG_OTHER))),
)
"""The five actions as functions; the argument order is the action's."""

_BY_NAME = {t.name: t for t in ACTION_TOOLS}
TOOLS_INSTRUCTION = prompts.TOOLS_INSTRUCTION

NO_FUNCTION_CALL = "(an answer without a function call)"
"""Played when the answer calls no function: the engine's feedback says what it accepts."""


def tools_messages(messages: list[Message], text_instruction: str) -> list[Message]:
    """The action-call ``messages`` for the tools format: the closing answer-format
    instruction of the text format (``text_instruction``) replaced by :data:`TOOLS_INSTRUCTION`
    (appended if the prompt does not end with it)."""
    out = [dict(m) for m in messages]
    last = out[-1]
    content = str(last.get("content", ""))
    if text_instruction and content.endswith(text_instruction):
        content = content[: -len(text_instruction)] + TOOLS_INSTRUCTION
    else:
        content = f"{content}\n\n{TOOLS_INSTRUCTION}"
    last["content"] = content
    return out


@dataclass(frozen=True)
class ToolAnswer:
    """What an action call's answer in the tools format means."""

    action: str  # what the engine plays: a canonical-looking call, or text it cannot read
    problem: str  # "" for a well-formed call; else why the answer is not one
    call: dict[str, Any] | None  # the function call used (name, arguments as written)
    ignored_calls: int  # further calls in the same answer (one action per step)


def _argument_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)  # input(1234, lock): a number is the string of its digits
    return None


def _json_int(digits: str) -> int | str:
    """A JSON integer; one too long for Python's int conversion stays the text of its digits."""
    try:
        return int(digits)
    except ValueError:
        return digits


def read_tool_answer(tool_calls: tuple[ToolCall, ...]) -> ToolAnswer:
    """The action of an answer's function calls (the first one counts).

    A well-formed call becomes ``verb(arg, arg)``; the engine then matches the names as it
    does for a text action. A malformed one becomes a text the engine rejects with its own
    feedback, and ``problem`` says what was wrong (for the step log).
    """
    if not tool_calls:
        return ToolAnswer(NO_FUNCTION_CALL, "no function call", None, 0)
    first = tool_calls[0]
    call = {"name": first.name, "arguments": first.arguments}
    ignored = len(tool_calls) - 1
    if not first.name.strip():
        return ToolAnswer(
            f"a function call without a function name, arguments {first.arguments}".strip(),
            "not a function call", call, ignored,
        )
    spec = _BY_NAME.get(first.name.strip().lower())
    if spec is None:
        return ToolAnswer(
            f"{first.name} with arguments {first.arguments}".strip(),
            f"unknown function {first.name!r}", call, ignored,
        )
    try:
        arguments = (
            loads_bounded(first.arguments, parse_int=_json_int)
            if first.arguments.strip()
            else {}
        )
    except JSONTooDeep:  # [[[[...]]]] a thousand levels deep: no action either
        return ToolAnswer(
            f"{spec.name} with arguments nested too deeply to read",
            "arguments are nested too deeply", call, ignored,
        )
    except ValueError:
        return ToolAnswer(
            f"{spec.name} with arguments that are not JSON: {first.arguments}",
            "arguments are not JSON", call, ignored,
        )
    if not isinstance(arguments, dict):
        return ToolAnswer(
            f"{spec.name} with arguments that are not a JSON object: {first.arguments}",
            "arguments are not a JSON object", call, ignored,
        )
    values: list[str] = []
    missing: list[str] = []
    for param in spec.params:
        text = _argument_text(arguments.get(param.name))
        if text is None or not text.strip():
            missing.append(param.name)
        else:
            values.append(text)
    if missing:
        # The engine answers a call with too few arguments with the action's right form.
        return ToolAnswer(
            f"{spec.name}({', '.join(values)})",
            f"missing or empty argument(s): {', '.join(missing)}", call, ignored,
        )
    return ToolAnswer(f"{spec.name}({', '.join(values)})", "", call, ignored)
