"""EscapeAgent's Reflection module (paper section 4.2, appendix C.2).

A task list of things the agent found but could not solve yet. After each non-move action on
an item it is maintained with one of four operations:

* **update** (rule): the action failed on an item that is a listed task's target; the failed
  action is added to that task's description. No model call.
* **delete** (rule): the action succeeded and made progress on a listed target; the task goes.
* **new** / **none** (model): otherwise the model is asked with the paper's reflection prompt
  whether the action and the response reveal a new task. Its ``update`` and ``delete`` answers
  are honoured too (the prompt offers them), but the rules above come first.

Tasks target items (the paper's "Target Item"), so actions on tools (picking one up, crafting)
are not reflected on, nor are actions the engine could not carry out at all (an unknown name, no
readable action): they changed nothing and say nothing about the item.

The module also remembers, per scene, the last actions that failed there; the agent shows them
with the nearby unexplored scenes in its action prompt.

Everything is plain data (:meth:`Reflection.snapshot`) so a resumed run continues exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from escapebench.agents.plain_data import as_plain
from escapebench.engine.actions import normalize_name
from escapebench.engine.env import StepResult
from escapebench.llm.base import Message
from escapebench.protocols.escapebench import prompts
from escapebench.protocols.escapebench.parsing import cut_answer, find_calls, thought_section

TASK_OPERATIONS = ("update", "new", "delete", "none")
DEFAULT_FAILED_MEMORY = 5  # failed actions remembered per scene


@dataclass
class Task:
    """One entry of the task list."""

    index: int  # stable: shown to the model and used by delete(index)
    name: str
    target: str  # the item's name as the game spells it
    scene: str  # the scene where the target was found
    position: str  # path from the start scene to that scene
    description: str
    failed: list[str] = field(default_factory=list)  # actions tried on it that failed
    created_step: int = 0  # step (0-based, as in the step log) of the action that found it

    def view(self) -> prompts.TaskView:
        """The task as the prompts show it."""
        return prompts.TaskView(
            self.index, self.name, self.target, self.description, self.position
        )


@dataclass(frozen=True)
class ReflectionRequest:
    """A non-move action on an item that the model is to reflect on."""

    step: int  # the step of the action, 0-based as in the step log
    position: str
    scene: str
    action: str
    feedback: str
    target: str
    success: bool


@dataclass(frozen=True)
class TaskOperation:
    """What the model answered: one of update / new / delete / none and its arguments."""

    op: str
    args: tuple[str, ...] = ()
    readable: bool = True  # False when no operation could be read (treated as none)

    def __str__(self) -> str:
        return f"{self.op}({', '.join(self.args)})"


def parse_task_operation(text: str) -> TaskOperation:
    """Read the task-list operation from a reflection answer (forgiving, never raises).

    The last operation after the "Action:" marker wins, else the last one anywhere; an answer
    without one is ``none()`` marked unreadable.
    """
    text = cut_answer(text)
    lower = text.lower()
    marker = lower.rfind("action:")
    found = find_calls(text[marker:], TASK_OPERATIONS) if marker >= 0 else []
    if not found:
        found = find_calls(text, TASK_OPERATIONS)
    if not found:
        return TaskOperation("none", readable=False)
    op, arg = found[-1]
    arg = arg.strip().strip("\"'`")
    if op == "none":
        return TaskOperation("none")
    if op == "delete":
        # ASCII digits only: str.isdigit() also takes "²" and "①", which int() refuses
        digits = "".join(c for c in arg if c in _ASCII_DIGITS)
        return TaskOperation("delete", (digits,)) if digits else TaskOperation("none", (), False)
    if op == "update":
        return TaskOperation("update", (arg,)) if arg else TaskOperation("none", (), False)
    # new(task_name, feedback): the name is short, the feedback may hold commas.
    name, _, feedback = arg.partition(",")
    name, feedback = name.strip().strip("\"'`"), feedback.strip().strip("\"'`")
    if not name:
        return TaskOperation("none", (), False)
    return TaskOperation("new", (name, feedback))


_ASCII_DIGITS = frozenset("0123456789")
_MAX_INDEX_DIGITS = 9  # task indices are small; a longer number names no task


def _task_index(digits: str) -> int | None:
    """The task index a ``delete`` names, or None for a number no task can have (int() of
    thousands of digits raises)."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= _MAX_INDEX_DIGITS else None


class Reflection:
    """The task list and the per-scene memory of failed actions."""

    def __init__(self, failed_memory: int = DEFAULT_FAILED_MEMORY) -> None:
        self.failed_memory = failed_memory
        self.tasks: list[Task] = []
        self.next_index = 1
        self.failed_here: dict[str, list[str]] = {}

    # ------------------------------------------------------------------ queries
    def task_for(self, target: str) -> Task | None:
        """The listed task whose target is ``target``, if any."""
        key = normalize_name(target)
        for task in self.tasks:
            if normalize_name(task.target) == key:
                return task
        return None

    def get(self, index: int) -> Task | None:
        """The task with this index, if it is still listed."""
        return next((t for t in self.tasks if t.index == index), None)

    def views(self) -> list[prompts.TaskView]:
        """The task list as the prompts show it."""
        return [t.view() for t in self.tasks]

    def failed_at(self, scene: str) -> list[str]:
        """The last actions that failed in ``scene``, oldest first."""
        return list(self.failed_here.get(scene, []))

    def listing(self) -> list[dict[str, Any]]:
        """The task list for step logs."""
        return [as_plain(t) for t in self.tasks]

    # ------------------------------------------------------------------ rules
    def remember_failure(self, scene: str, action: str) -> None:
        """Keep ``action`` among the last failed actions of ``scene``."""
        if self.failed_memory <= 0:
            return
        recent = self.failed_here.setdefault(scene, [])
        if action in recent:
            recent.remove(action)
        recent.append(action)
        del recent[: -self.failed_memory]

    def after_action(
        self, request: ReflectionRequest, result: StepResult
    ) -> tuple[dict[str, Any] | None, bool]:
        """Apply the update / delete rules to a non-move action on an item.

        Returns what the rule did (for the step log, or None) and whether the model should
        still be asked (the rules did not settle the step).
        """
        task = self.task_for(request.target)
        if task is not None and not result.success:
            if request.action not in task.failed:
                task.failed.append(request.action)
                task.description += prompts.task_failed_note(request.action)
            return {"rule": "update", "task": task.index, "action": request.action}, False
        if task is not None and result.progressed:
            self.tasks.remove(task)
            # The success may reveal what comes next (a lock asking for a code): ask anyway.
            return {"rule": "delete", "task": task.index, "action": request.action}, True
        return None, True

    # ------------------------------------------------------------------ the model's part
    def messages(self, request: ReflectionRequest) -> list[Message]:
        """The reflection call for ``request``."""
        return prompts.reflection_messages(
            tasks=self.views(),
            position=request.position,
            action=request.action,
            feedback=request.feedback,
        )

    def apply_answer(
        self, text: str, request: ReflectionRequest
    ) -> tuple[dict[str, Any], Task | None]:
        """Apply the model's answer; returns a log record and the task created, if any."""
        op = parse_task_operation(text)
        record: dict[str, Any] = {
            "for_step": request.step,
            "action": request.action,
            "operation": str(op),
            "readable": op.readable,
            "thought": thought_section(text),
            "applied": False,
        }
        created: Task | None = None
        if op.op == "new":
            existing = self.task_for(request.target)
            if existing is not None:
                record["note"] = f"task {existing.index} already targets {request.target}"
            else:
                name, feedback = op.args
                created = Task(
                    index=self.next_index,
                    name=name,
                    target=request.target,
                    scene=request.scene,
                    position=request.position,
                    description=feedback or name,
                    failed=[] if request.success else [request.action],
                    created_step=request.step,
                )
                self.next_index += 1
                self.tasks.append(created)
                record.update(applied=True, task=created.index)
        elif op.op == "update":
            task = self.task_for(request.target)
            if task is None:
                record["note"] = f"no listed task targets {request.target}"
            else:
                task.description = op.args[0]
                record.update(applied=True, task=task.index)
        elif op.op == "delete":
            index = _task_index(op.args[0])
            task = self.get(index) if index is not None else None
            if task is None:
                shown = op.args[0] if len(op.args[0]) <= 20 else f"{op.args[0][:17]}..."
                record["note"] = f"no task with index {shown}"
            else:
                self.tasks.remove(task)
                record.update(applied=True, task=task.index)
        return record, created

    # ------------------------------------------------------------------ persistence
    def snapshot(self) -> dict[str, Any]:
        """The module's whole state as plain data."""
        return {
            "tasks": self.listing(),
            "next_index": self.next_index,
            "failed_here": {k: list(v) for k, v in self.failed_here.items()},
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Load a state made by :meth:`snapshot`."""
        self.tasks = [Task(**t) for t in data.get("tasks", [])]
        self.next_index = int(data.get("next_index", 1))
        self.failed_here = {k: list(v) for k, v in data.get("failed_here", {}).items()}
