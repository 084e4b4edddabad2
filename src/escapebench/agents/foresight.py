"""EscapeAgent's Foresight module (paper section 4.3, appendix C.3).

Two triggers, each one model call (the prompts are the protocol's, see ``.prompts``):

* a **new tool** was collected or crafted: which ``craft`` / ``apply`` actions might use it,
  given the other tools in the bag and the task list;
* a **new task** was created by reflection: which ``click`` / ``apply`` / ``input`` actions on
  its target item might solve it, given the tools in the bag and a memory pad of clues (the
  informative responses the environment gave so far).

Proposals are checked against what exists before any is tried: tools must be in the bag,
items must be ones the agent has seen (for a task: the task's own target), duplicates and
actions that already failed on the task are dropped. Valid proposals of one call form a
group; the agent tries a group's proposals one by one (Try Action) and stops the group at the
first success.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from escapebench.agents.plain_data import as_plain
from escapebench.engine.actions import (
    VERBS,
    clean_input_text,
    most_commas,
    normalize_name,
    split_candidates,
)
from escapebench.engine.outcome import Outcome
from escapebench.llm.base import Message
from escapebench.protocols.escapebench import prompts
from escapebench.protocols.escapebench.parsing import actions_section, find_calls, thought_section

DEFAULT_MEMORY_PAD = 10  # informative responses kept as clues

TOOL_VERBS = ("craft", "apply")
TASK_VERBS = ("click", "apply", "input")


@dataclass
class Proposal:
    """An action proposed by foresight, with where to try it and what became of it."""

    id: int
    group: int  # proposals of one foresight call; the first success ends the group
    trigger: str  # "tool" or "task"
    action: str  # canonical: the game's spelling of every name
    scene: str | None  # where the target item was seen; None for craft (anywhere)
    item: str | None = None  # the target item (None for craft)
    tools: list[str] = field(default_factory=list)  # bag tools the action needs
    task: int | None = None  # task index the proposal is for, if any
    status: str = "pending"  # pending | succeeded | failed | skipped | dropped
    note: str = ""
    moves: int = 0  # moves made to get to ``scene``


@dataclass(frozen=True)
class Candidate:
    """A proposal that passed validation, before it is queued."""

    action: str
    item: str | None
    tools: tuple[str, ...]
    scene: str | None
    task: int | None


@dataclass(frozen=True)
class KnownItem:
    """An item the agent has seen on screen, and where."""

    name: str
    scene: str


def _match(text: str, names: Mapping[str, str]) -> str | None:
    """The canonical name in ``names`` (normalised -> canonical) that ``text`` means."""
    return names.get(normalize_name(text))


def _split_pair(
    arg_text: str, left: Mapping[str, str], right: Mapping[str, str]
) -> tuple[str, str] | None:
    """Cut ``arg_text`` at the comma that makes both sides known names."""
    cuts = split_candidates(
        arg_text, left_commas=most_commas(left), right_commas=most_commas(right)
    )
    for a, b in cuts:
        x, y = _match(a, left), _match(b, right)
        if x is not None and y is not None:
            return x, y
    return None


def _informative(feedback: str, outcome: Outcome | None) -> bool:
    """Whether a response says more than a bare failure: nothing happened and the game's
    author wrote nothing for it, or two tools that do not craft."""
    if not feedback.strip():
        return False
    if outcome is None:
        return True
    if outcome.kind in ("craft_mismatch", "craft_same"):
        return False
    return not (outcome.kind == "no_effect" and not outcome.text)


class Foresight:
    """Proposal making, validation and the Try Action queue."""

    def __init__(self, memory_pad: int = DEFAULT_MEMORY_PAD) -> None:
        self.pad_size = memory_pad
        self.memory_pad: list[str] = []
        self.queue: list[Proposal] = []
        self.next_id = 1
        self.next_group = 1

    # ------------------------------------------------------------------ memory pad
    def note(self, feedback: str, outcome: Outcome | None = None) -> None:
        """Keep an informative response of a non-move action as a clue (``outcome``: what the
        step did, to tell a bare failure whatever its wording)."""
        if self.pad_size <= 0 or not _informative(feedback, outcome):
            return
        text = feedback.strip()
        if text in self.memory_pad:
            self.memory_pad.remove(text)
        self.memory_pad.append(text)
        del self.memory_pad[: -self.pad_size]

    # ------------------------------------------------------------------ prompts
    @staticmethod
    def tool_messages(
        tool: str,
        description: str,
        bag: Sequence[tuple[str, str]],
        tasks: Sequence[prompts.TaskView],
    ) -> list[Message]:
        """The foresight call about a new ``tool``; ``bag`` holds (name, description)."""
        others = [(n, d) for n, d in bag if n != tool]
        return prompts.foresight_tool_messages(
            tool=tool, description=description, other_tools=others, tasks=tasks
        )

    def task_messages(
        self, task: prompts.TaskView, bag: Sequence[tuple[str, str]]
    ) -> list[Message]:
        """The foresight call about a new ``task``."""
        return prompts.foresight_task_messages(task=task, tools=bag, memory_pad=self.memory_pad)

    # ------------------------------------------------------------------ validation
    def _validate(
        self,
        text: str,
        allowed_verbs: Sequence[str],
        bag: Sequence[str],
        items: Mapping[str, KnownItem],
        failed: Sequence[str],
        task_of_target: Mapping[str, int],
    ) -> tuple[list[Candidate], list[dict[str, str]]]:
        """Check every proposed call; returns the valid candidates and the dropped calls."""
        tools = {normalize_name(t): t for t in bag}
        item_names = {key: known.name for key, known in items.items()}
        queued = {p.action for p in self.queue if p.status == "pending"}
        valid: list[Candidate] = []
        dropped: list[dict[str, str]] = []

        def drop(call: str, reason: str) -> None:
            dropped.append({"action": call, "reason": reason})

        for verb, arg in find_calls(actions_section(text), VERBS):
            call = f"{verb}({arg.strip()})"
            if verb not in allowed_verbs:
                drop(call, f"{verb} is not an action to propose here")
                continue
            item: str | None = None
            needs: tuple[str, ...] = ()
            if verb == "craft":
                pair = _split_pair(arg, tools, tools)
                if pair is None:
                    drop(call, "both tools must be in the bag")
                    continue
                if pair[0] == pair[1]:
                    drop(call, "a tool cannot be crafted with itself")
                    continue
                action = f"craft({pair[0]}, {pair[1]})"
                needs = pair
            elif verb == "apply":
                pair = _split_pair(arg, tools, item_names)
                if pair is None:
                    drop(call, "the tool must be in the bag and the item one seen before")
                    continue
                item = pair[1]
                action = f"apply({pair[0]}, {item})"
                needs = (pair[0],)
            elif verb == "click":
                item = _match(arg, item_names)
                if item is None:
                    drop(call, "not an item seen before")
                    continue
                action = f"click({item})"
            else:  # input: the text may hold commas; the item follows the last usable one
                for left, right in split_candidates(arg, right_commas=most_commas(item_names)):
                    item = _match(right, item_names)
                    if item is not None and clean_input_text(left):
                        action = f"input({clean_input_text(left)}, {item})"
                        break
                else:
                    drop(call, "needs a text and an item seen before")
                    continue
            if action in queued or any(c.action == action for c in valid):
                drop(call, "duplicate")
                continue
            if action in failed:
                drop(call, "already tried and failed")
                continue
            scene = items[normalize_name(item)].scene if item is not None else None
            task = task_of_target.get(normalize_name(item)) if item is not None else None
            valid.append(Candidate(action, item, needs, scene, task))
        return valid, dropped

    def propose_for_tool(
        self,
        text: str,
        tool: str,
        bag: Sequence[str],
        items: Mapping[str, KnownItem],
        tasks: Sequence[prompts.TaskView],
        failed: Mapping[int, Sequence[str]],
    ) -> dict[str, Any]:
        """Validate a new-tool answer and queue its valid proposals as one group."""
        task_of_target = {normalize_name(t.target): t.index for t in tasks}
        all_failed = [a for actions in failed.values() for a in actions]
        valid, dropped = self._validate(
            text, TOOL_VERBS, bag, items, all_failed, task_of_target
        )
        return self._enqueue("tool", tool, text, valid, dropped)

    def propose_for_task(
        self,
        text: str,
        task: prompts.TaskView,
        task_scene: str,
        bag: Sequence[str],
        failed: Sequence[str],
    ) -> dict[str, Any]:
        """Validate a new-task answer (only its target item counts) and queue the group."""
        only_target = {normalize_name(task.target): KnownItem(task.target, task_scene)}
        valid, dropped = self._validate(
            text, TASK_VERBS, bag, only_target, failed, {normalize_name(task.target): task.index}
        )
        return self._enqueue("task", f"task {task.index}: {task.name}", text, valid, dropped)

    def _enqueue(
        self,
        trigger: str,
        subject: str,
        text: str,
        valid: Sequence[Candidate],
        dropped: list[dict[str, str]],
    ) -> dict[str, Any]:
        group = self.next_group
        self.next_group += 1
        added = []
        for c in valid:
            proposal = Proposal(
                self.next_id, group, trigger, c.action, c.scene, c.item, list(c.tools), c.task
            )
            self.next_id += 1
            self.queue.append(proposal)
            added.append(as_plain(proposal))
        return {
            "trigger": trigger,
            "subject": subject,
            "group": group,
            "thought": thought_section(text),
            "proposals": added,
            "dropped": dropped,
        }

    # ------------------------------------------------------------------ Try Action
    def pending(self) -> list[Proposal]:
        """Proposals still to try, in order."""
        return [p for p in self.queue if p.status == "pending"]

    def get(self, proposal_id: int) -> Proposal | None:
        """The queued proposal with this id."""
        return next((p for p in self.queue if p.id == proposal_id), None)

    def drop(self, proposal: Proposal, note: str) -> None:
        """Give up a proposal without trying it."""
        proposal.status = "dropped"
        proposal.note = note
        self._forget_finished()

    def finish(self, proposal: Proposal, success: bool) -> dict[str, Any]:
        """Record a trial's outcome; a success ends the rest of its group."""
        proposal.status = "succeeded" if success else "failed"
        skipped = []
        if success:
            for other in self.queue:
                if other.group == proposal.group and other.status == "pending":
                    other.status = "skipped"
                    other.note = f"proposal {proposal.id} of the same group succeeded"
                    skipped.append(other.action)
        outcome = {
            "id": proposal.id,
            "group": proposal.group,
            "action": proposal.action,
            "status": proposal.status,
            "skipped": skipped,
        }
        self._forget_finished()
        return outcome

    def _forget_finished(self) -> None:
        # Outcomes are in the step logs; the queue keeps only what is still to do.
        self.queue = [p for p in self.queue if p.status == "pending"]

    def listing(self) -> list[dict[str, Any]]:
        """The pending proposals for step logs."""
        return [as_plain(p) for p in self.pending()]

    # ------------------------------------------------------------------ persistence
    def snapshot(self) -> dict[str, Any]:
        """The module's whole state as plain data."""
        return {
            "memory_pad": list(self.memory_pad),
            "queue": [as_plain(p) for p in self.queue],
            "next_id": self.next_id,
            "next_group": self.next_group,
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Load a state made by :meth:`snapshot`."""
        self.memory_pad = list(data.get("memory_pad", []))
        self.queue = [Proposal(**p) for p in data.get("queue", [])]
        self.next_id = int(data.get("next_id", 1))
        self.next_group = int(data.get("next_group", 1))
