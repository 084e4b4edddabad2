"""Every text a model-driven agent sends to a model: the paper's prompts and our fill-ins.

This is the only module that holds prompt text. Changing any template below changes what
models see, so it must come with a new :data:`PROMPT_VERSION` (recorded next to every result).

Where the paper gives a prompt (appendix C and D.1) it is reproduced word for word, typos
included ("whcih", "acton", "shuold", "update ,new"), because the prompt is part of the
protocol that makes our numbers comparable with the paper's. Two mechanical changes only:
the paper's typeset quotes (’) are written as ASCII apostrophes, as the engine's observation
text does, and the blank lines the PDF extraction puts between every listing line are dropped
inside lists (kept between paragraphs).

The paper does not print the user-message layouts of the reflection and foresight calls, the
chain-of-thought instruction, or how the task list and per-position memory are shown to the
action-taking model; those templates are ours (marked "ours" below) and kept short.

The observation itself is rendered by the engine (``escapebench.engine.observation``, its own
``OBSERVATION_VERSION``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from escapebench.llm.base import Message

PROMPT_VERSION = "escapebench-paper-c-v1"

# --------------------------------------------------------------------------- paper, appendix C
ACTION_SYSTEM_PROMPT = """\
You are in a Room Escape game. You should explore the scene and find out what to do next.

There are three types of interactives: items, which are the interactable things in the scene; \
tools, which are applicable tools in your bag; scenes, whcih are interactable scenes near your \
current position.

You can perform one of the following actions:
- click(<interactable item>): Click an <interactable item> to examine it or interact with it. \
For example, you can examine a door handle that is marked as interactable.
- apply(<applicable tool>, <interactable item>): Apply an <applicable tool> in your bag to an \
<interactable item>. For example, you can apply a key in your bag to an interactable locked door \
to open it.
- input(string, <interactable item>): Input a string (only digits and letters) to an \
<interactable item>. For example, you can input a string password to an interactable \
combination lock.
- move(<interactable scene>): Move to a nearby <interactable item> to further explore. For \
example, you can move to the living room to explore more interactable items there.
- craft(<applicable tool>, <applicable tool>): Use one <applicable tool> in bag to another \
<applicable tool> in bag to craft something new. For example, you can use a battery in bag to a \
controller in bag to craft a new charged controller.

For instance, some valid actions may be: click(microwave), apply(key, silver chest), \
craft(controller, battery), input(c79a1, combination lock), move(Go to operation room)."""
"""Appendix C: the system prompt of every action-taking call (BaseAgent and EscapeAgent)."""

HISTORY_STEP_TEMPLATE = """\
History: [Step {step}]
Your position: {position}
Your action: {action}
Response from the environment: {feedback}"""
"""Appendix C.1: one step of working memory."""

REFLECTION_SYSTEM_PROMPT = """\
You are a helpful agent to reflect on your action and environment response, and then maintain \
a task list with solving suggestions.

The role of this task list is that there are some tasks you currently cannot solve with the \
tools at hand, but you think you may need to solve them later, so write them down with some \
suggestions and hints for your future reference.

After analyzing your current action and the response from the environment, you should give an \
action to maintain the task list: update ,new, delete or none.
- update(updated_feedback): The parameter should an updated feedback about what you newly tried \
but failed. The updated feedback should retain the original feedback, and add one new hindsight \
you got from current action.
- new(task_name, feedback): The first parameter should be a brief name of the new task you \
propose, the second parameter should be what you have to do (extract hint from environment \
response) to solve this task.
- delete(index): If you choose delete, then the first parameter should be the index of the task \
in the task list that you thought you have completed or is not useful anymore.
- none(): If you choose none, do not give any parameter, it indicates you believe you don't need \
to perform any action on the task list in the current step

For instance, valid task list maintaining action may be: update(The door has a keyhole and \
needs a key. I try apply a hammer but fails.), new(open the safe, I need a 4-digit password \
input to open it with a hint of sigma sign beside the safe.), delete(1), none()."""
"""Appendix C.2: the system prompt of the reflection call."""

TASK_TEMPLATE = """\
[Task Index {index}] Name: {name}, Target Item: {target}
- Task description: {description}"""
"""Appendix C.2: one entry of the task list."""

FORESIGHT_TOOL_SYSTEM_PROMPT = """\
You are in a Room Escape game. You have to use your creativity to figure out the use of the \
tool you have just collected.

There are generally two ways about how to use the tool:
1. Combine this tool with another one in your bag to craft a new tool. In this case, use acton \
'craft(<collected tool>, <applicable tool>)', e.g. craft(controller, battery) indicates use a \
battery in your bag you already have to the controller you just collected to craft a charged \
controller.
2. Apply this tool to a target item in a task to try solve this task. In this case, use action \
'apply(<collected tool>, Target Item in a task)', e.g. apply(key, locked cabinet) indicates \
apply the key you just collected to a locked cabinet to open it.

Here are some general hints that you may follow:
1. Please especially pay attention to the description of the task and the tool, try to find \
the connection between them to justify your action.
2. In your '- Thought: ...' part in response, you shuold explicitly think about whether there's \
item in bag for crafting, or task in the list for applying this tool. You should read and infer \
carefully from the tool descriptions and the task description, and evaluate one by one.
3. In your '- Actions: ...' part in response, you should give zero to multiple action calls. \
For each action, you should follow the format 'craft(<collected tool>, <applicable tool>)' or \
'apply(<collected tool>, Target Item in a task)'. If it's a craft action, you should justify why \
crafting here makes sense. If it's an apply action, you should first give the task index \
corresponding to the target item, then justify why this tool may solve the task."""
"""Appendix C.3: the system prompt of the foresight call for a newly collected tool."""

FORESIGHT_TASK_SYSTEM_PROMPT = """\
You are in a Room Escape game. You have to use your creativity to figure out if you could use \
any tools you have now to solve a new task you have just discovered.

There are generally three ways to solve a task:
1. Click the target item to simply interact with it to solve the task. In this case, use action \
'click(Target Item in current task)', e.g. click(microwave) indicates click the microwave to \
examine it and try solve the task.
2. Use the tool in your bag to apply to the target item in the task. In this case, use action \
'apply(<applicable tool>, Target Item in current task)', e.g. apply(key, locked cabinet) \
indicates apply the key in your bag to a locked cabinet to open it.
3. Input a string to the target item in the task. In this case, use action 'input(<any string>, \
Target Item in current task)', e.g. input(2413, combination lock) indicates input a string \
password to the combination lock to solve the task.

Here are some general hints that you may follow:
1. Please especially pay attention to the description of the task about what might be needed. \
Please always first try simple click to interact if haven't done so. Examine the tool \
description and your memory pad, try to find the connection between them and what this task \
needs to justify your action.
2. In your '- Thought: ...' part in response, you should explicitly think about whether there's \
item to click, tool in bag for applying, or hint from memory pad and tools for string input. \
You should read and infer carefully from the task description, evaluate one by one.
3. In your '- Actions: ...' part in response, you should give zero to multiple action calls. \
For each action, you should follow the format 'click(Target Item in current task)', \
'apply(<applicable tool>, Target Item in current task)', or 'input(<any string>, Target Item in \
current task)'. You shuold justify why this action may solve the task according to the task \
description, tool description, and memory pad hint."""
"""Appendix C.3: the system prompt of the foresight call for a newly created task."""

# --------------------------------------------------------------------------- paper, appendix D.1
HINT_TEMPLATE = """\
Since you're stuck, the system will provide you with a hint. You MUST follow the hint to \
complete next key step.
The next target location should be: {position}.
Your next target action should be: {action}.
You should go to the target position and perform the target action. If you are already at the \
target location, please directly perform the action."""
"""Appendix D.1: the help instruction added to the action prompt while a hint is active."""

# --------------------------------------------------------------------------- ours
NO_HISTORY = "History: none."
"""Ours: the history part of the first step's prompt."""

CURRENT_STEP_TEMPLATE = """\
Current step:
Your position: {position}
{observation}"""
"""Ours: the current observation with its position line (the C.1 position format)."""

CHAIN_OF_THOUGHT_INSTRUCTION = """\
Think step by step about the scene, your tools and your history before you act, then give \
exactly one action. Answer in this format:
- Thought: <your step-by-step reasoning>
- Action: <one action, e.g. click(microwave)>"""
"""Ours: the chain-of-thought instruction closing every action prompt (paper section 4.1)."""

TASK_POSITION_LINE = "- Found at: {position}"
"""Ours: where a task's target item was found, added under each task entry."""

TASK_FAILED_NOTE = " I tried {action}, but it failed."
"""Ours: what the rule-based update of appendix C.2 adds to a task's description."""

TASK_LIST_HEADER = "Task list (tasks you have found but not solved yet):"
"""Ours: heading of the task list in the action and reflection prompts."""

EMPTY_TASK_LIST = "Task list: empty."
"""Ours: the task list when there are no tasks."""

POSITION_MEMORY_TEMPLATE = """\
Your memory of this position:
Actions that recently failed here: {failed}
Nearby scenes you have not explored yet: {unexplored}"""
"""Ours: the per-position memory of the reflection module in the action prompt."""

REFLECTION_USER_TEMPLATE = """\
{task_list}

Your position: {position}
Your action: {action}
Response from the environment: {feedback}

Answer in this format:
- Thought: <your reflection on the action and the response>
- Action: <exactly one of update(...), new(..., ...), delete(...), none()>"""
"""Ours: the reflection call's user message."""

FORESIGHT_TOOL_USER_TEMPLATE = """\
The tool you have just collected:
<applicable tool> {tool}: {description}

Other tools in your bag:
{other_tools}

{task_list}

Answer in this format:
- Thought: <your reasoning, evaluating each tool and task one by one>
- Actions: <zero or more actions, e.g. craft({tool}, battery), apply({tool}, locked cabinet)>"""
"""Ours: the user message of the foresight call for a new tool."""

FORESIGHT_TASK_USER_TEMPLATE = """\
The task you have just discovered:
{task}

Tools in your bag:
{tools}

Memory pad (what the environment has told you so far):
{memory_pad}

Answer in this format:
- Thought: <your reasoning, evaluating each option one by one>
- Actions: <zero or more actions, e.g. click({target}), apply(key, {target}), \
input(2413, {target})>"""
"""Ours: the user message of the foresight call for a new task."""

NONE_LISTED = "none"
"""Ours: an empty list inside a prompt."""

# --------------------------------------------------------------------------- ours, tools format
TOOLS_VERSION = "escapebench-tools-v1"
"""Version of the texts below (the tools action format only); recorded with its results."""

TOOLS_INSTRUCTION = """\
Think step by step about the scene, your tools and your history before you act, then take \
exactly one action by calling one of the functions move, click, apply, input or craft."""
"""Ours: replaces CHAIN_OF_THOUGHT_INSTRUCTION at the end of an action prompt (tools format)."""

TOOL_MOVE = "Move to a nearby scene to explore it."
TOOL_CLICK = "Click an interactable item to examine it or interact with it."
TOOL_APPLY = "Apply a tool in your bag to an interactable item."
TOOL_INPUT = "Input a string (only digits and letters) to an interactable item."
TOOL_CRAFT = "Use one tool in your bag on another tool in your bag to craft something new."
TOOL_ARG_SCENE = "the name of a nearby scene, exactly as the observation lists it"
TOOL_ARG_ITEM = "the name of an interactable item, exactly as the observation lists it"
TOOL_ARG_TOOL = "the name of a tool in your bag"
TOOL_ARG_TEXT = "the string to input"
TOOL_ARG_OTHER = "the name of another tool in your bag"
"""Ours: the descriptions of the five functions and their arguments (tools format)."""


# --------------------------------------------------------------------------- fillers
@dataclass(frozen=True)
class MemoryStep:
    """One step of working memory as shown to the model."""

    step: int  # 1-based step number in the episode
    position: str
    action: str
    feedback: str


@dataclass(frozen=True)
class TaskView:
    """A task-list entry as shown to the model."""

    index: int
    name: str
    target: str
    description: str
    position: str = ""


def format_history(steps: Sequence[MemoryStep]) -> str:
    """The working-memory part of an action prompt (appendix C.1 layout)."""
    if not steps:
        return NO_HISTORY
    return "\n\n".join(
        HISTORY_STEP_TEMPLATE.format(
            step=s.step, position=s.position, action=s.action, feedback=s.feedback
        )
        for s in steps
    )


def format_task(task: TaskView) -> str:
    """One task-list entry (appendix C.2 layout, plus where its target was found)."""
    text = TASK_TEMPLATE.format(
        index=task.index, name=task.name, target=task.target, description=task.description
    )
    if task.position:
        text += "\n" + TASK_POSITION_LINE.format(position=task.position)
    return text


def format_task_list(tasks: Sequence[TaskView]) -> str:
    """The whole task list with its heading, or the empty-list line."""
    if not tasks:
        return EMPTY_TASK_LIST
    return TASK_LIST_HEADER + "\n" + "\n".join(format_task(t) for t in tasks)


def task_failed_note(action: str) -> str:
    """The sentence the rule-based update appends to a task after a failed action on it."""
    return TASK_FAILED_NOTE.format(action=action)


def format_hint(position: str, action: str) -> str:
    """The help instruction of appendix D.1 for a hint at ``position`` (a path)."""
    return HINT_TEMPLATE.format(position=position, action=action)


def format_position_memory(failed: Sequence[str], unexplored: Sequence[str]) -> str:
    """What the reflection module remembers about the current position."""
    return POSITION_MEMORY_TEMPLATE.format(
        failed="; ".join(failed) if failed else NONE_LISTED,
        unexplored=", ".join(unexplored) if unexplored else NONE_LISTED,
    )


def action_messages(
    *,
    observation: str,
    position: str,
    history: Sequence[MemoryStep],
    extra_blocks: Sequence[str] = (),
    hint: str | None = None,
) -> list[Message]:
    """The messages of an action-taking call.

    The user message holds, in order: the working memory, the current position and
    observation, any agent-specific blocks (task list, position memory), the hint if one is
    active, and the chain-of-thought instruction.
    """
    parts = [
        format_history(history),
        CURRENT_STEP_TEMPLATE.format(position=position, observation=observation),
        *[b for b in extra_blocks if b],
    ]
    if hint:
        parts.append(hint)
    parts.append(CHAIN_OF_THOUGHT_INSTRUCTION)
    return [
        {"role": "system", "content": ACTION_SYSTEM_PROMPT},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def reflection_messages(
    *, tasks: Sequence[TaskView], position: str, action: str, feedback: str
) -> list[Message]:
    """The messages of a reflection call about the action just taken."""
    user = REFLECTION_USER_TEMPLATE.format(
        task_list=format_task_list(tasks), position=position, action=action, feedback=feedback
    )
    return [
        {"role": "system", "content": REFLECTION_SYSTEM_PROMPT},
        {"role": "user", "content": user},
    ]


def _tool_lines(tools: Sequence[tuple[str, str]]) -> str:
    if not tools:
        return NONE_LISTED
    return "\n".join(f"<applicable tool> {name}: {desc}" for name, desc in tools)


def foresight_tool_messages(
    *,
    tool: str,
    description: str,
    other_tools: Sequence[tuple[str, str]],
    tasks: Sequence[TaskView],
) -> list[Message]:
    """The messages of a foresight call about a newly collected (or crafted) tool."""
    user = FORESIGHT_TOOL_USER_TEMPLATE.format(
        tool=tool,
        description=description,
        other_tools=_tool_lines(other_tools),
        task_list=format_task_list(tasks),
    )
    return [
        {"role": "system", "content": FORESIGHT_TOOL_SYSTEM_PROMPT},
        {"role": "user", "content": user},
    ]


def foresight_task_messages(
    *, task: TaskView, tools: Sequence[tuple[str, str]], memory_pad: Sequence[str]
) -> list[Message]:
    """The messages of a foresight call about a newly created task."""
    pad = "\n".join(f"- {line}" for line in memory_pad) if memory_pad else NONE_LISTED
    user = FORESIGHT_TASK_USER_TEMPLATE.format(
        task=format_task(task), tools=_tool_lines(tools), memory_pad=pad, target=task.target
    )
    return [
        {"role": "system", "content": FORESIGHT_TASK_SYSTEM_PROMPT},
        {"role": "user", "content": user},
    ]

