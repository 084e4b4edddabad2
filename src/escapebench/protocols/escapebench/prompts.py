"""Every text a model-driven agent sends to a model under the ``escapebench`` protocol.

This is the only module that holds prompt text. Changing any template below changes what
models see, so it must come with a new :data:`PROMPT_VERSION` (recorded next to every result).

The texts are our own. They carry the same information and mechanics as the paper's prompts
(the five actions and their forms, what is on screen, an answer of reasoning then action, the
task-list operations, the foresight proposals) in shorter words; docs/protocols.md sets them
side by side with the original's by role.

Layout (``escapebench-2``): every call puts what stays the same first, so that a server's
prefix cache can serve most of it again. An action call is the system text, then the current
position and observation, then the history window, which is only appended to until it moves
(it slides in blocks, :func:`history_window`), then the parts that change every step (task
list, memory of this position, hint, answer format). ``benchmarks/prefix_reuse.py`` measures
it.

The observation and the feedback are ``.observation`` and ``.feedback`` (the observation has its
own ``OBSERVATION_VERSION``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from escapebench.llm.base import Message

PROMPT_VERSION = "escapebench-prompts-3"
"""The version of the texts and layout below (``escapebench-paper-c-v1`` was the paper's
wording in the paper's layout; ``escapebench-prompts-2`` said "none yet" of the history hidden
during a hint, and asked a player already taken to the hinted scene to go there)."""

# --------------------------------------------------------------------------- action call
ACTION_SYSTEM_PROMPT = """\
You are playing a room escape game. Look around, work out what to do, and get out.

The screen lists three kinds of things you can act on: items in the scene, tools in your \
bag, and scenes you can reach from here. Use their names exactly as listed.

Each turn you take one action:
- move(scene): go to a nearby scene, e.g. move(kitchen).
- click(item): look at or use an item, or pick up a tool lying in the scene, e.g. click(drawer).
- apply(tool, item): use a tool from your bag on an item, e.g. apply(key, locked door).
- input(text, item): type letters or digits into an item, e.g. input(7351, keypad).
- craft(tool, tool): combine two tools from your bag into a new one, e.g. \
craft(flashlight, battery)."""
"""The system prompt of every action call (BaseAgent and EscapeAgent)."""

CHAIN_OF_THOUGHT_INSTRUCTION = """\
Think about the scene, your bag and your recent steps, then pick one action. Answer in two lines:
- Thought: <your reasoning>
- Action: <one action, e.g. click(drawer)>"""
"""The answer format closing every action prompt: reasoning, then one action."""

CURRENT_STEP_TEMPLATE = """\
You are now at: {position}
{observation}"""
"""The current position and observation, at the top of the user message."""

HISTORY_HEADER = "Your recent steps, oldest first:"
"""Heading of the history window."""

HISTORY_STEP_TEMPLATE = """\
Step {step} at {position}: {action}
Result: {feedback}"""
"""One step of working memory."""

NO_HISTORY = "Your recent steps: none yet."
"""The history part of a prompt with no step to show."""

HISTORY_DURING_HINT = "Your recent steps are not shown while you follow the help below."
"""The history part of a prompt while a hint is active (the paper's harness leaves it out)."""

HINT_TEMPLATE = """\
You seem to be stuck, so here is help, and you must follow it. The next key action is \
{action}, taken at {position}. You have been brought there: take that action."""
"""The help added to the action prompt while a hint is active (the hint system has already
put the player in the scene, as in the paper)."""

# --------------------------------------------------------------------------- task list
TASK_TEMPLATE = """\
Task {index}: {name} (target item: {target})
  Notes: {description}"""
"""One entry of the task list."""

TASK_POSITION_LINE = "  Seen at: {position}"
"""Where a task's target item was found, under each task entry."""

TASK_FAILED_NOTE = " Tried {action}: it did not work."
"""What the rule-based update adds to a task's notes after a failed action on its target."""

TASK_LIST_HEADER = "Open tasks (found but not solved yet):"
"""Heading of the task list in the action, reflection and foresight prompts."""

EMPTY_TASK_LIST = "Open tasks: none."
"""The task list when there are no tasks."""

TASK_WINDOW_HEADER = "Open tasks when your recent steps began (changes since are under each step):"
"""Heading of the task list as of the start of the history window."""

TASK_CHANGE_NEW = "Task list: added {task}"
TASK_CHANGE_NOTES = "Task list: task {index} now reads: {description}"
TASK_CHANGE_DELETED = "Task list: task {index} ({name}) removed"
"""How a change of the task list shows under the step that caused it."""

POSITION_MEMORY_TEMPLATE = """\
Here you recently failed with: {failed}
Unvisited scenes reachable from here: {unexplored}"""
"""The per-position memory of the reflection module in the action prompt."""

NONE_LISTED = "none"
"""An empty list inside a prompt."""

# --------------------------------------------------------------------------- reflection call
REFLECTION_SYSTEM_PROMPT = """\
You help a room escape player keep a task list. A task is something the player found but \
cannot solve yet, with notes on what it seems to need, to come back to later.

You are shown the task list, then one action and what the game answered. Decide on one \
change to the list:
- update(notes): replace the notes of the task about this action's target with new notes \
that keep the old ones and add what this attempt taught.
- new(name, notes): add a task; the name is short, the notes say what solving it seems to \
take, drawn from the game's answer.
- delete(index): remove the task with this index, now solved or no longer useful.
- none(): leave the list as it is.

Examples: update(The door has a keyhole; a hammer did nothing.), new(open the safe, it \
wants a 4-digit code; a sigma sign is drawn next to it), delete(2), none().

Answer in two lines:
- Thought: <what the action and the answer tell you>
- Action: <exactly one of update(...), new(..., ...), delete(...), none()>"""
"""The system prompt of the reflection call."""

REFLECTION_USER_TEMPLATE = """\
{task_list}

Action at {position}: {action}
Game's answer: {feedback}"""
"""The reflection call's user message."""

# --------------------------------------------------------------------------- foresight calls
FORESIGHT_ANSWER_FORMAT = """\
Answer in this form:
- Thought: <your reasoning>
- Actions: <zero or more actions, one per line, each with its reason>"""
"""The answer format that ends both foresight system prompts."""

FORESIGHT_TOOL_SYSTEM_PROMPT = """\
You help a room escape player think ahead. The player has just got a new tool; find where \
it could be used.

A tool can be used in two ways:
- craft(new tool, other tool): combine it with another tool in the bag, e.g. \
craft(flashlight, battery) to get a working flashlight.
- apply(new tool, target item): use it on the target item of an open task, e.g. \
apply(key, locked cabinet).

Go through the other tools and the open tasks one by one and weigh what the descriptions \
say against each other. Propose only actions you can justify: for a craft, say why the two \
fit; for an apply, name the task index first, then say why the tool may solve it.

""" + FORESIGHT_ANSWER_FORMAT
"""The system prompt of the foresight call for a newly collected tool."""

FORESIGHT_TOOL_USER_TEMPLATE = """\
Tools in your bag:
{bag}

{task_list}

New tool: {tool}"""
"""The user message of the foresight call for a new tool."""

FORESIGHT_TASK_SYSTEM_PROMPT = """\
You help a room escape player think ahead. The player has just found a new task; find what \
might solve it now.

A task's target item can be dealt with in three ways:
- click(target item): interact with it, which is worth trying first if not done yet.
- apply(tool, target item): use a tool from the bag on it, e.g. apply(key, locked cabinet).
- input(text, target item): type a code or word into it, e.g. input(2413, combination lock).

Read the task, the tool descriptions and the clues the game has given, look for what links \
them, and weigh each option one by one. Propose only actions you can justify from them.

""" + FORESIGHT_ANSWER_FORMAT
"""The system prompt of the foresight call for a newly created task."""

FORESIGHT_TASK_USER_TEMPLATE = """\
Tools in your bag:
{tools}

Clues the game has given (its recent answers):
{memory_pad}

New task:
{task}"""
"""The user message of the foresight call for a new task."""

# --------------------------------------------------------------------------- ours, tools format
TOOLS_VERSION = "escapebench-tools-2"
"""Version of the texts below (the tools action format only); recorded with its results."""

TOOLS_INSTRUCTION = """\
\
Think about the scene, your bag and your recent steps, then take one action by calling one \
of the functions move, click, apply, input or craft."""
"""Replaces CHAIN_OF_THOUGHT_INSTRUCTION at the end of an action prompt (tools format)."""

TOOL_MOVE = "Go to a nearby scene."
TOOL_CLICK = "Look at or use an item, or pick up a tool lying in the scene."
TOOL_APPLY = "Use a tool from your bag on an item."
TOOL_INPUT = "Type letters or digits into an item."
TOOL_CRAFT = "Combine two tools from your bag into a new one."
TOOL_ARG_SCENE = "the name of a nearby scene, exactly as the observation lists it"
TOOL_ARG_ITEM = "the name of an item, exactly as the observation lists it"
TOOL_ARG_TOOL = "the name of a tool in your bag"
TOOL_ARG_TEXT = "the letters or digits to type"
TOOL_ARG_OTHER = "the name of another tool in your bag"
"""The descriptions of the five functions and their arguments (tools format)."""


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


_Step = TypeVar("_Step")


def window_start(step: int, memory: int) -> int:
    """The first step (0-based) the history window shows at 0-based ``step``.

    The window slides in blocks of ``memory`` steps: it shows from ``memory`` to
    ``2 * memory - 1`` steps (all of them early on), so that between two moves the history is
    only appended to and each prompt starts with the one before it.
    """
    if memory <= 0 or step <= memory:
        return 0
    return (step - memory) // memory * memory


def history_window(history: Sequence[_Step], step: int, memory: int,
                   step_of: Callable[[_Step], int]) -> list[_Step]:
    """The steps of ``history`` (oldest first) that the window shows at ``step``."""
    if memory <= 0:
        return []
    start = window_start(step, memory)
    return [h for h in history if step_of(h) >= start]


def format_history(steps: Sequence[MemoryStep]) -> str:
    """The working-memory part of an action prompt."""
    if not steps:
        return NO_HISTORY
    return HISTORY_HEADER + "\n" + "\n".join(
        HISTORY_STEP_TEMPLATE.format(
            step=s.step, position=s.position, action=s.action, feedback=s.feedback
        )
        for s in steps
    )


def format_task(task: TaskView) -> str:
    """One task-list entry (with where its target was found)."""
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


def format_task_window(tasks: Sequence[TaskView]) -> str:
    """The task list as of the start of the history window."""
    if not tasks:
        return EMPTY_TASK_LIST
    return TASK_WINDOW_HEADER + "\n" + "\n".join(format_task(t) for t in tasks)


def task_changes(before: Sequence[TaskView], after: Sequence[TaskView]) -> list[str]:
    """The lines saying how the task list went from ``before`` to ``after``."""
    old = {t.index: t for t in before}
    new = {t.index: t for t in after}
    lines = [TASK_CHANGE_DELETED.format(index=t.index, name=t.name)
             for t in before if t.index not in new]
    for t in after:
        if t.index not in old:
            one_line = "; ".join(line.strip() for line in format_task(t).splitlines())
            lines.append(TASK_CHANGE_NEW.format(task=one_line))
        elif old[t.index].description != t.description:
            lines.append(TASK_CHANGE_NOTES.format(index=t.index, description=t.description))
    return lines


def task_failed_note(action: str) -> str:
    """The sentence the rule-based update appends to a task after a failed action on it."""
    return TASK_FAILED_NOTE.format(action=action)


def format_hint(position: str, action: str) -> str:
    """The help instruction for a hint at ``position`` (a path)."""
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
    step: int | None = None,
    lead_blocks: Sequence[str] = (),
) -> list[Message]:
    """The messages of an action-taking call: [system, user].

    The user message holds, in order: the current position and observation (which change only
    when the scene does), the history window (appended to), then what changes every step: any
    agent-specific blocks (task list, position memory), the hint if one is active, and the
    answer format. ``lead_blocks`` (an agent's parts that change only when the window moves)
    come between the observation and the history. ``step`` (1-based, the step about to be
    taken) is not shown: a number that changes every step would end the shared prefix at the
    top.
    """
    parts = [
        CURRENT_STEP_TEMPLATE.format(position=position, observation=observation),
        *[b for b in lead_blocks if b],
        HISTORY_DURING_HINT if hint and not history else format_history(history),
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
    """The messages of a foresight call about a newly collected (or crafted) tool.

    The bag comes first with the new tool last, as it was collected: the bag of the next such
    call starts the same way.
    """
    user = FORESIGHT_TOOL_USER_TEMPLATE.format(
        tool=tool,
        bag=_tool_lines([*other_tools, (tool, description)]),
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
        task=format_task(task), tools=_tool_lines(tools), memory_pad=pad
    )
    return [
        {"role": "system", "content": FORESIGHT_TASK_SYSTEM_PROMPT},
        {"role": "user", "content": user},
    ]
