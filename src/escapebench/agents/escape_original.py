"""EscapeAgent as the original release's harness runs it (``--protocol original``).

Table 5 and Table 7 of the paper were measured with the original release's EscapeAgent, whose
decisions differ from the paper's prose in most places that change what a model is asked and
which steps are played. This agent (``escape-original``) reproduces that harness call for
call: the same model calls in the same order, with byte-identical texts (read from the user's
checkout at run time by :mod:`escapebench.protocols.original.escape_texts`), and the same steps,
trial and teleport steps included. It keeps only the procedure (tasks, proposals, modes); what
it reads of the game is rendered by the protocol
(:class:`~escapebench.protocols.original.agent_view.OriginalAgentView`), and its moves are asked
of the turn loop (``Decision.teleport_to``). Our own EscapeAgent (:mod:`.escape_agent`) is the
``escapebench`` protocol's; the differences and their reasons are in ``docs/protocols.md``.

One step, in the original's order:

1. **Foresight** (before acting), for what the previous step brought: a tool just collected or
   crafted (one call) and a task just created by reflection (one call). Each call *replaces* the
   list of proposals; a tool call only proposes crafts with bag tools and applies to task
   targets, a task call only actions on its own target.
2. **Mode**, the first that holds: *help* while the hint system gives a hint (the hint system
   has put the player in the target scene); *try action* while proposals are left (the player is
   teleported to the scene where the task's target was found, except for crafts, and the model is
   asked to output the proposal: a model call per trial); *forced explore* once after ten
   free-explore steps without progress (teleported to a scene not explored yet, or the parent
   scene, with the craft prompt); *free explore* otherwise.
3. **Action** call (none on the hint system's forced step), answer read by the original parser.
4. **Reflection** (after acting), only after click / apply / input on an item: a success
   deletes the item's task, a failure on a listed item adds the action to its description, both
   without a call; the model is asked (offered only ``new``) when the item is not listed yet or
   the action only partly succeeded. A proposal tried is taken off the list; a success ends all
   proposals; after the last one failed the player is teleported back to where it was.

Bugs of the original kept here because they produced Table 5 (each is named in the code):
the failed-actions block of the free-explore prompt can never be shown; the memory pad is a
constant; a task foresight answer whose action lines are indented yields only its first action.

The ablations: ``no_reflection`` makes no reflection call and keeps no task list (so there are
no task foresight calls and no proposals for tasks; tool foresight still runs, with an empty
list); ``no_foresight`` makes no foresight call, so there is no Try Action. The original has no
flags for them; see ``docs/protocols.md``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from escapebench.agents.base import Decision, ModelCallRecord, TurnContext
from escapebench.agents.base_agent import DEFAULT_MEMORY, BaseAgent, hint_position
from escapebench.engine.actions import same_action
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.llm.base import ChatModel, SamplingSettings
from escapebench.protocols.base import HistoryStep
from escapebench.protocols.original.agent_view import OriginalAgentView
from escapebench.protocols.original.escape_texts import (
    OriginalEscapeTexts,
    read_original_escape_texts,
)
from escapebench.protocols.original.protocol import PATH_SEPARATOR, OriginalProtocol

HISTORY_STEPS = 10  # the original shows at most ten steps of history, whatever --memory says
EXPLORE_AFTER = 10  # free-explore steps without progress before exploring is forced
HELP_STEPS = 10  # steps in help after which the hint system plays the target action



@dataclass
class Task:
    """A task-list entry as the original keeps it."""

    name: str
    description: str
    position: str  # where its target was acted on (a path)
    target: str  # the item's name as the game spells it


class OriginalEscapeAgent(BaseAgent):
    """The original release's EscapeAgent (see the module docstring).

    Args:
        model: the chat model of every call.
        texts: the EscapeAgent's texts read from the checkout; action_system: the action
            call's system prompt (the BaseAgent's); view: the game as the original shows it
            (:class:`~escapebench.protocols.original.agent_view.OriginalAgentView`). All three
            are taken from the turn's protocol when not given (the usual case).
        memory: steps of history; the original only checks that it is above zero and shows
            at most ten steps.
        no_reflection / no_foresight: the ablations.
    """

    name = "escape"

    def __init__(
        self,
        model: ChatModel,
        *,
        texts: OriginalEscapeTexts | None = None,
        action_system: str | None = None,
        view: OriginalAgentView | None = None,
        memory: int = DEFAULT_MEMORY,
        sampling: SamplingSettings | None = None,
        no_reflection: bool = False,
        no_foresight: bool = False,
    ) -> None:
        super().__init__(model, memory=memory, sampling=sampling)
        self.texts: OriginalEscapeTexts = texts  # type: ignore[assignment]
        self.action_system: str = action_system  # type: ignore[assignment]
        self.view: OriginalAgentView = view  # type: ignore[assignment]
        self.use_reflection = not no_reflection
        self.use_foresight = not no_foresight
        self.name = (
            "escape"
            + ("-no-reflection" if no_reflection else "")
            + ("-no-foresight" if no_foresight else "")
        )
        self._clear()

    # ----------------------------------------------------------------- state
    def _clear(self) -> None:
        self.history: list[dict[str, str]] = []  # last HISTORY_STEPS steps
        self.steps_seen = 0
        self.scene_stack: list[str] = []
        self.tasks: list[Task] = []
        self.bad_actions: dict[str, list[list[str]]] = {}  # position -> [action, response]
        self.exits_seen: dict[str, dict[str, list[str] | None]] = {}  # position -> label -> path
        self.scenes_explored: list[str] = []
        self.new_tool: str | None = None
        self.new_task: int | None = None
        self.proposals: list[list[Any]] = []  # [verb, action, description, task index?]
        self.return_to: str | None = None  # position to go back to after the last failed trial
        self.pending_teleport: str | None = None
        self.explore_positions: list[str] = []
        self.explore_target: list[str] | None = None
        self.craft_prompt = False
        self.turn: dict[str, Any] = {}

    def settings(self) -> dict[str, Any]:
        """BaseAgent settings plus the procedure and the ablation switches (the texts' files
        are the protocol's record)."""
        return {
            **super().settings(),
            "procedure": "original",
            "reflection": self.use_reflection,
            "foresight": self.use_foresight,
        }

    def reset(self, game: EscapeGame) -> None:
        """A new episode starts."""
        super().reset(game)
        self._clear()
        self.scene_stack = []

    def snapshot(self) -> dict[str, Any]:
        """The agent's whole memory as plain data, under ``"original"`` (the form checkpoints
        have had since this agent was first played as ``escape``; so the step records' memory
        hashes stay what they were)."""
        return {"original": self._memory()}

    def _memory(self) -> dict[str, Any]:
        return {
            "history": copy.deepcopy(self.history),
            "steps_seen": self.steps_seen,
            "scene_stack": list(self.scene_stack),
            "tasks": [vars(t).copy() for t in self.tasks],
            # Orders matter (the original lists and searches them in insertion order) and a
            # checkpoint may sort keys: pairs, not mappings.
            "bad_actions": [[k, copy.deepcopy(v)] for k, v in self.bad_actions.items()],
            "exits_seen": [
                [position, [[label, path] for label, path in exits.items()]]
                for position, exits in self.exits_seen.items()
            ],
            "scenes_explored": list(self.scenes_explored),
            "new_tool": self.new_tool,
            "new_task": self.new_task,
            "proposals": copy.deepcopy(self.proposals),
            "return_to": self.return_to,
            "pending_teleport": self.pending_teleport,
            "explore_positions": list(self.explore_positions),
            "explore_target": None if self.explore_target is None else list(self.explore_target),
            "craft_prompt": self.craft_prompt,
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Load a state made by :meth:`snapshot`."""
        self._clear()
        data = data.get("original", data)
        self.history = copy.deepcopy(data.get("history", []))
        self.steps_seen = int(data.get("steps_seen", 0))
        self.scene_stack = list(data.get("scene_stack", []))
        self.tasks = [Task(**t) for t in data.get("tasks", [])]
        self.bad_actions = {k: copy.deepcopy(v) for k, v in data.get("bad_actions", [])}
        self.exits_seen = {
            position: {label: path for label, path in exits}
            for position, exits in data.get("exits_seen", [])
        }
        self.scenes_explored = list(data.get("scenes_explored", []))
        self.new_tool = data.get("new_tool")
        self.new_task = data.get("new_task")
        self.proposals = copy.deepcopy(data.get("proposals", []))
        self.return_to = data.get("return_to")
        self.pending_teleport = data.get("pending_teleport")
        self.explore_positions = list(data.get("explore_positions", []))
        target = data.get("explore_target")
        self.explore_target = None if target is None else list(target)
        self.craft_prompt = bool(data.get("craft_prompt", False))

    # ----------------------------------------------------------------- texts
    def _t(self, name: str) -> str:
        return self.texts.text(name)

    def _task_list(self) -> str:
        """The task list as the tool foresight shows it: grouped by position, empty groups
        left out, without position lines."""
        groups: dict[str, list[int]] = {position: [] for position in self.bad_actions}
        for index, task in enumerate(self.tasks):
            groups.setdefault(task.position, []).append(index)
        ordered = sorted(groups.items(), key=lambda kv: len(kv[1]), reverse=True)
        out = ""
        count = 0
        for _position, indices in ordered:
            if not indices:
                continue
            for index in indices:
                task = self.tasks[index]
                out += self.texts.fill("task_line", str(count), task.name, task.target)
                out += self.texts.fill("task_description_line", task.description)
                count += 1
        out = out.strip()
        return out or self._t("no_tasks")

    def _bag_tools_text(self, game: EscapeGame, ignore: Sequence[str] = ()) -> str:
        return self.view.bag_text(game, ignore).split(self._t("bag_header_end"))[-1].strip()

    def _history_text(self, step: int) -> str:
        k = min(HISTORY_STEPS, step)
        if self.memory_size <= 0 or step <= 0 or k <= 0:
            return ""
        shown = self.history[-k:]
        return self.view.history(
            [
                HistoryStep(step - k + j, h["position"], h["action_answer"], h["response"])
                for j, h in enumerate(shown)
            ]
        )

    # ----------------------------------------------------------------- foresight
    async def _forethought(self, game: EscapeGame, calls: list[ModelCallRecord]) -> dict[str, Any]:
        log: dict[str, Any] = {}
        if self.new_tool is not None and self.use_foresight:
            tool = self.new_tool
            prompt = self._t("tool_head")
            prompt += self.texts.fill("tool_line", tool, self.view.tool_desc(game, tool))
            prompt += self.texts.fill("tool_bag_intro", self._bag_tools_text(game, [tool]))
            prompt += self.texts.fill("tool_tasks_intro", self._task_list())
            prompt += self._t("tool_closing")
            system = self.texts.instruction("foresight_tool_system")
            text, record = await self.ask("foresight_tool", _messages(system, prompt))
            calls.append(record)
            response = text.replace("\n\n", "\n").strip()
            actions = self._read_tool_proposals(response, game, tool)
            self.proposals = copy.deepcopy(actions)
            log["foresight_tool"] = {
                "tool": tool,
                "thought": self._thought(response),
                "proposals": actions,
            }
            if actions:
                self.return_to = self.history[-1]["position"]
        if self.new_task is not None and self.use_foresight:
            task = self.tasks[self.new_task]
            prompt = self._t("task_head")
            prompt += self.texts.fill(
                "task_line_foresight", task.name, task.target, task.description
            )
            prompt += self.texts.fill("task_bag_intro", self._bag_tools_text(game))
            # BUG kept: the memory pad is the constant the original sets up and never changes.
            prompt += self.texts.fill("memory_pad_intro", self._t("memory_pad"))
            prompt += self._t("task_closing")
            system = self.texts.instruction("foresight_task_system")
            text, record = await self.ask("foresight_task", _messages(system, prompt))
            calls.append(record)
            response = text.replace("\n\n", "\n").strip()
            actions = self._read_task_proposals(response, game, task.target, self.new_task)
            self.proposals = actions  # replaces the list, even with no proposal
            log["foresight_task"] = {
                "task": task.name,
                "thought": self._thought(response),
                "proposals": copy.deepcopy(actions),
            }
            if actions:
                self.return_to = self.history[-1]["position"]
        self.new_tool = None
        self.new_task = None
        self.craft_prompt = False
        return log

    def _bag_names(self, game: EscapeGame) -> list[str]:
        return [self.view.tool_name(t) for t in game.bag]

    def _proposal_lines(self, response: str) -> list[str]:
        """The lines of a foresight answer that may hold proposals: those between its first
        and second actions marker (all lines without one)."""
        pieces = response.split(self._t("actions_marker"))
        return (pieces[1] if len(pieces) > 1 else response).strip().split("\n")

    def _thought(self, response: str) -> str:
        marker = self._t("thought_marker")
        if marker not in response:
            return ""
        return response.split(marker)[1].split(self._t("actions_marker"))[0].strip()

    def _read_tool_proposals(self, response: str, game: EscapeGame, tool: str) -> list[list[Any]]:
        names = self._bag_names(game)
        rules = self.texts.patterns
        actions: list[list[Any]] = []
        for raw in self._proposal_lines(response):
            line = raw.strip()
            if not line:
                continue
            craft = rules["tool_craft"].match(line)
            apply = rules["tool_apply"].match(line)
            if craft:
                other = craft.group(2).strip()
                if other not in names:
                    continue
                actions.append(["craft", f"craft({tool}, {other})", f"craft {tool} with {other}"])
            elif apply:
                target = apply.group(2)
                given = rules["task_index"].search(line)
                index = int(given.group(1)) if given else None
                for i, task in enumerate(self.tasks):
                    if task.target.strip().lower() == target.strip().lower():
                        index = i
                        break
                if index is None or index >= len(self.tasks):
                    continue
                action = f"apply({tool}, {self.tasks[index].target})"
                actions.append(["apply", action, f"apply {tool} to task {index}", index])
        return actions

    def _read_task_proposals(
        self, response: str, game: EscapeGame, target: str, task_index: int
    ) -> list[list[Any]]:
        names = self._bag_names(game)
        rules = self.texts.patterns
        actions: list[list[Any]] = []
        for line in self._proposal_lines(response):
            if not line.strip():
                continue
            # BUG kept: the lines are matched as they are, not stripped, so an indented action
            # line never matches; only the first one (whose indent the split took off) can.
            click = rules["task_click"].match(line)
            given = rules["task_input"].match(line)
            apply = rules["task_apply"].match(line)
            if click:
                actions.append(["click", f"click({target})", f"click {target}", task_index])
            if given:
                text = given.group(1).strip()
                actions.append(
                    ["input", f"input({text}, {target})", f"input {text} to {target}", task_index]
                )
            elif apply:
                tool = apply.group(1).strip()
                if tool not in names:
                    continue
                actions.append(
                    ["apply", f"apply({tool}, {target})", f"apply {tool} to {target}", task_index]
                )
        return actions

    # ----------------------------------------------------------------- the turn
    def _go(self, game: EscapeGame, position: str) -> EscapeGame:
        """The agent's scene stack becomes ``position``; the game as it finds it there."""
        path = position.split(PATH_SEPARATOR)
        self.scene_stack = path
        return self.view.moved_to(game, path[-1])

    def _update_stack(self, game: EscapeGame) -> None:
        scene = self.view.scene_key(game)
        if scene in self.scene_stack:
            self.scene_stack = self.scene_stack[: self.scene_stack.index(scene) + 1]
        else:
            self.scene_stack.append(scene)

    async def _begin_turn(
        self, ctx: TurnContext, calls: list[ModelCallRecord]
    ) -> tuple[str, str, dict[str, Any], EscapeGame]:
        """Foresight, then the mode and its teleport; returns (mode, position, details, and
        the game as the agent finds it where it acts). The agent never moves the player: it
        looks ahead, and the turn loop makes the move its decision asks for."""
        game = here = ctx.game
        if self.pending_teleport is not None:
            if ctx.hint is None:
                here = self._go(here, self.pending_teleport)
            else:
                # The hint system has put the player in the target scene already.
                self.scene_stack = self.pending_teleport.split(PATH_SEPARATOR)
            self.pending_teleport = None
        details: dict[str, Any] = {"foresight": await self._forethought(here, calls)}
        if ctx.hint is not None:
            self.proposals = []
            self.return_to = None
            position = _hint_position(ctx)
            # The hint system has put the player in the target scene; the stack is the
            # reference position as written.
            self.scene_stack = position.split(PATH_SEPARATOR)
            mode = "help"
        elif self.proposals:
            first = self.proposals[0]
            if first[0] != "craft":
                position = self.tasks[first[-1]].position
                here = self._go(here, position)
            else:
                position = PATH_SEPARATOR.join(self.scene_stack)
            mode = "try action"
            details["trial"] = {"proposal": first[1]}
        elif self.explore_target is not None:
            self.scene_stack = list(self.explore_target)
            here = self.view.moved_to(here, self.explore_target[-1])
            position = PATH_SEPARATOR.join(self.scene_stack)
            self.explore_target = None
            self.explore_positions = []
            self.craft_prompt = True
            mode = "forced explore"
        else:
            self._update_stack(here)
            position = PATH_SEPARATOR.join(self.scene_stack)
            mode = "free explore"
        if here.scene != game.scene:
            # The loop's record of the move, written here to keep the record's order of keys.
            details["teleported_to"] = here.scene_name
        return mode, position, details, here

    def _note_exits(self, position: str, actions_text: str) -> None:
        exits = self.exits_seen.setdefault(position, {})
        scene = position.split(PATH_SEPARATOR)[-1]
        if scene not in self.scenes_explored:
            self.scenes_explored.append(scene)
        marker = self._t("scene_link_marker")
        label_end = self._t("scene_link_label_end")
        target_marker = self._t("scene_link_target_marker")
        for line in actions_text.split("\n"):
            if marker not in line:
                continue
            after = line.split(marker)[1]
            label = after.split(label_end)[0].strip()
            if label in exits:
                continue
            target = after.split(target_marker)[1].strip()
            path = position.split(PATH_SEPARATOR)
            exits[label] = path[: path.index(target) + 1] if target in path else [*path, target]

    def _action_prompt(self, ctx: TurnContext, mode: str, position: str, scene_prompt: str) -> str:
        step = ctx.step
        prompt = self.texts.fill("step_frame", str(step), scene_prompt)
        if mode == "help":
            prompt += self.view.helper(position, _hint_action(ctx))
            prompt += self._t("help_closing")
            return prompt
        if mode == "try action":
            return prompt + self.texts.fill("try_action", self.proposals[0][1])
        if self.craft_prompt:
            return self._history_text(step) + prompt + self._t("craft_prompt")
        bad = self.bad_actions.get(position, [])
        if bad:  # never true: see _reflect, where no action is ever recorded as bad
            prompt += self._t("bad_actions_head")
            listed = "".join(self.texts.fill("bad_action_item", b[0]) for b in bad[-5:])
            prompt += self.texts.fill("bad_actions_end", listed.strip().strip(","))
            prompt += self._t("bad_actions_tail")
        unexplored = [
            label for label, path in self.exits_seen[position].items() if path is not None
        ]
        if unexplored:
            prompt += self._t("unexplored_head")
            listed = "".join(self.texts.fill("unexplored_item", label) for label in unexplored)
            prompt += self.texts.fill("unexplored_end", listed.strip().strip(","))
            prompt += self._t("unexplored_tail")
        prompt += self.texts.instruction("free_explore")
        return self._history_text(step) + prompt

    def bind(self, protocol: OriginalProtocol, defn: GameDefinition) -> None:
        """Take the texts and the rendering of the original protocol for setting ``defn``."""
        if self.texts is None or getattr(self.view, "protocol", None) is not protocol:
            self.texts = read_original_escape_texts(protocol.source)
            self.action_system = protocol.action_system_prompt()
        if self.view is None or self.view.protocol is not protocol or self.view.defn is not defn:
            self.view = OriginalAgentView(protocol, defn)

    async def _turn(self, ctx: TurnContext, forced: str | None) -> Decision:
        if isinstance(ctx.protocol, OriginalProtocol):
            self.bind(ctx.protocol, ctx.game.defn)
        elif self.view is None:
            raise ValueError("the original EscapeAgent plays under the original protocol only")
        calls: list[ModelCallRecord] = []
        mode, position, details, game = await self._begin_turn(ctx, calls)
        scene_prompt = self.view.describe(game, self.scene_stack).strip()
        at_actions = scene_prompt.find(self._t("actions_heading"))
        at_bag = scene_prompt.find(self._t("bag_heading"))
        self.turn = {
            "position": position,
            "mode": mode,
            "scene": scene_prompt[:at_actions].strip(),
            "possible_actions": scene_prompt[at_actions:at_bag].strip(),
        }
        self._note_exits(position, self.turn["possible_actions"])
        prompt = self._action_prompt(ctx, mode, position, scene_prompt)
        if forced is not None:
            text = forced
        else:
            text, record = await self.ask("action", _messages(self.action_system, prompt))
            calls.append(record)
        reading = self.view.read(text)  # the one reading of the answer
        answer = reading.text
        self.turn["action_answer"] = answer
        self.turn["acted_on"] = self.view.acted_on(game, reading)
        details.update(
            position=position,
            prompt_kinds=[
                "trial" if c.kind == "action" and mode == "try action" else c.kind for c in calls
            ],
            proposals=copy.deepcopy(self.proposals),
            task_list=[vars(t).copy() for t in self.tasks],
        )
        return Decision(
            action=answer,
            reading=reading,
            reasoning="",
            raw_answer=text,
            mode="help"
            if mode == "help"
            else ("try action" if mode == "try action" else "free explore"),
            calls=calls,
            notes={"original_mode": mode, **details},
            position=position,
            teleport_to=game.scene_name if game.scene != ctx.game.scene else None,
        )

    async def decide(self, ctx: TurnContext) -> Decision:
        """Foresee, choose the mode (teleporting as the original does), and ask for the action."""
        return await self._guarded(ctx, None)

    async def forced_turn(self, ctx: TurnContext, action: str) -> Decision:
        """The hint system's forced step: the original still foresees and prepares the prompt,
        but plays the target action without asking the model."""
        return await self._guarded(ctx, action)

    async def _guarded(self, ctx: TurnContext, forced: str | None) -> Decision:
        saved = self.snapshot()
        try:
            return await self._turn(ctx, forced)
        except BaseException:
            self.restore(saved)
            raise

    def observe(
        self, ctx: TurnContext, decision: Decision, result: StepResult, position_after: str
    ) -> dict[str, Any]:
        return {}

    # ----------------------------------------------------------------- after the action
    async def after_step(
        self, ctx: TurnContext, decision: Decision, result: StepResult
    ) -> list[ModelCallRecord]:
        """Reflect (maybe one call) and keep the bookkeeping of exploring."""
        saved = self.snapshot()
        try:
            calls: list[ModelCallRecord] = []
            log = dict(self.turn)
            log["response"] = result.feedback.strip()
            await self._reflect(ctx.game, log, result, calls)
            self._track_exploring(log, result)
            self.history.append({k: log[k] for k in ("position", "action_answer", "response")})
            del self.history[:-HISTORY_STEPS]
            self.steps_seen += 1
            # (in place: the harness may hold the list already)
            decision.notes.setdefault("prompt_kinds", []).extend(c.kind for c in calls)
            decision.notes["reflection"] = log.get("reflect")
            decision.notes["task_list_after"] = [vars(t).copy() for t in self.tasks]
            return calls
        except BaseException:
            self.restore(saved)
            raise

    async def _reflect(
        self,
        game: EscapeGame,
        log: dict[str, Any],
        result: StepResult,
        calls: list[ModelCallRecord],
    ) -> None:
        answer, reward, position = log["action_answer"], log["response"], log["position"]
        key_step = result.key_steps_gained > 0
        collected = result.tools_gained > 0
        crafted = next(
            (
                self.view.tool_name(k)
                for e in result.events
                if e.kind == "tool_crafted"
                for k in game.bag
                if game.defn.tools[k].name == e.name
            ),
            None,
        )
        self.bad_actions.setdefault(position, [])
        # BUG kept: an action is "bad" only when it made no progress *and* crafted a tool,
        # which cannot happen (a craft is progress), so the list stays empty.
        if (
            self.texts.text("scene_change_marker") not in reward
            and "move(" not in answer
            and not key_step
            and not collected
            and crafted is not None
        ):
            entry = [answer, reward.replace("\n", " ")]
            if entry not in self.bad_actions[position]:
                self.bad_actions[position].append(entry)
        if "move(" in answer:
            label = answer.split("move(")[1].split(")")[0].strip()
            exits = self.exits_seen.get(position, {})
            if label in exits:
                exits[label] = None
        success_loose = self._t("success_marker_loose") in reward
        if self.proposals:
            if same_action(answer, self.proposals[0][1]):
                self.proposals.pop(0)
                if not self.proposals and not success_loose and self.return_to is not None:
                    self.pending_teleport = self.return_to
                    self.return_to = None
            if success_loose:
                self.proposals = []
                self.return_to = None
        if collected and game.bag:
            self.new_tool = self.view.tool_name(game.bag[-1])
        elif crafted is not None:
            self.new_tool = crafted
        clicked = "click(" in answer
        if not (
            "apply(" in answer
            or "input(" in answer
            or (
                clicked
                and self._t("collected_marker") not in reward
                and self._t("scene_change_marker") not in reward
            )
        ) or reward.startswith(self._t("error_marker")):
            log["reflect"] = {"rule": "no reflection"}
            return
        item = log["acted_on"]
        index = next((i for i, t in enumerate(self.tasks) if t.target == item), None)
        tried: str | None = None
        if self._t("success_marker") in reward:
            if self._t("partial_marker") not in reward:
                if index is not None:
                    name = self.tasks.pop(index).name
                    log["reflect"] = {"rule": "delete", "task": name}
                else:
                    log["reflect"] = {"rule": "none"}
                return
            if index is not None:
                self.tasks.pop(index)
        else:
            if clicked:
                tried = self._t("tried_click")
            elif "apply(" in answer:
                tool = answer.split("apply(")[1].split(",")[0].strip()
                tried = self.texts.fill("tried_apply", tool)
            elif "input(" in answer:
                given = answer.split("input(")[1].split(",")[0].strip()
                tried = self.texts.fill("tried_input", given)
            if index is not None:
                task = self.tasks[index]
                before = task.description.strip()
                suffix = self._t("failed_suffix")
                if suffix not in before:
                    task.description = self.texts.fill("tried_first", before, tried)
                else:
                    head = before.split(suffix)[0]
                    if tried not in head:
                        task.description = self.texts.fill("tried_more", head, tried)
                    else:
                        task.description = before
                log["reflect"] = {"rule": "update", "task": task.name}
                return
        if not self.use_reflection:
            log["reflect"] = {"rule": "ablated"}
            return
        await self._ask_new_task(log, item, tried, calls)

    async def _ask_new_task(
        self, log: dict[str, Any], item: str | None, tried: str | None, calls: list[ModelCallRecord]
    ) -> None:
        name, signature, explain, example = self.texts.reflect_acts["new"][:4]
        del name
        system = (
            self.texts.instruction("reflection_system")
            .replace("<function_list>", signature.strip())
            .replace("<param_explain>", self.texts.fill("param_explain", explain.strip()))
            .replace("<use_example>", example.strip())
        )
        prompt = (
            self.texts.fill("reflection_position", log["position"])
            + self.texts.fill("reflection_scene", log["scene"])
            + self.texts.fill("reflection_actions", log["possible_actions"])
            + self.texts.fill("reflection_action", log["action_answer"])
            + self.texts.fill("reflection_response", log["response"])
            + self._t("reflection_closing")
        )
        text, record = await self.ask("reflection", _messages(system, prompt))
        calls.append(record)
        operation = self.texts.read_operation(text)
        log["reflect"] = {"rule": "asked", "operation": operation}
        if not operation.startswith("new"):
            return  # the original acts on new(...) only
        inside = operation.split("(")[1]
        task_name = inside.split(",")[0].replace("(", "").replace(") ", "").strip()
        description = ",".join(inside.split(",")[1:]).replace("(", "").replace(")", "").strip()
        if not description.endswith("."):
            description = self.texts.fill("new_task_period", description)
        if tried is not None:
            description += self.texts.fill("new_task_tried", tried)
        self.tasks.append(Task(task_name, description, log["position"], item or ""))
        self.new_task = len(self.tasks) - 1

    def _track_exploring(self, log: dict[str, Any], result: StepResult) -> None:
        if result.key_steps_gained > 0 or result.tools_gained > 0:
            self.explore_positions = []
            self.explore_target = None
            return
        position = log["position"]
        if log["mode"] == "free explore":
            self.explore_positions.append(position)
        del self.explore_positions[:-EXPLORE_AFTER]
        if len(self.explore_positions) < EXPLORE_AFTER:
            return
        path = position.split(PATH_SEPARATOR)
        target = path if len(path) == 1 else path[:-1]
        candidates = [self.exits_seen.get(position, {})]
        candidates += list(self.exits_seen.values())
        for exits in candidates:
            found = next(
                (p for p in exits.values() if p is not None and p[-1] not in self.scenes_explored),
                None,
            )
            if found is not None:
                target = list(found)
                break
        self.explore_target = target


def _messages(system: str, user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _hint_position(ctx: TurnContext) -> str:
    """Where the hint's action is taken, as the reference chain writes it (a path)."""
    if ctx.hint_view is not None:
        return ctx.hint_view.position
    hint = ctx.hint
    assert hint is not None
    return str(getattr(hint, "position", None) or hint_position(ctx))


def _hint_action(ctx: TurnContext) -> str:
    """The hint's action as the reference chain writes it."""
    if ctx.hint_view is not None:
        return ctx.hint_view.action
    hint = ctx.hint
    assert hint is not None
    return str(getattr(hint, "reference_action", None) or hint.action)
