"""EscapeAgent: BaseAgent with Reflection and Foresight (paper section 4, appendices C.2-C.3).

One turn of the agent, in the paper's order (reflection is downstream of an action,
foresight upstream of the next one):

1. **Reflection** on the previous step's action, if it was a non-move action on an item and
   the rules of C.2 did not settle it (see :mod:`.reflection`): one model call.
2. **Foresight** for every tool collected or crafted in the previous step and every task the
   reflection just created (see :mod:`.foresight`): one model call each; valid proposals are
   queued.
3. The action:

   * **help** while the hint system gives a hint: the model acts with the hint in its prompt
     (the queue waits);
   * **try action** while proposals are queued: the next one is played without a model call.
     The paper says the agent "is moved" to the task's position: the agent asks the turn loop
     to put it there without a step (``Decision.teleport_to``; it looks ahead with
     ``EscapeGame.moved_to`` and never moves the player itself), and comes back when the last
     proposal has failed. Each trial is a step, as in the paper ("all action trials are
     included in the total count of action steps"). The first success ends the proposals of
     the same foresight call;
   * **free explore** otherwise: the model acts (BaseAgent prompt plus the task list and the
     memory of this position). After ``explore_after`` steps without progress and without
     reaching a scene it had never visited, the agent asks to be put in the nearest unexplored
     scene, in the same way.

This is the ``escapebench`` protocol's EscapeAgent. Under the ``original`` protocol the agent
is the original release's EscapeAgent, an agent of its own (``escape-original``,
:class:`~escapebench.agents.escape_original.OriginalEscapeAgent`): what produced the paper's
Table 5, call for call; ``--agent escape --protocol original`` plays it, with a note (see
:func:`~escapebench.agents.registry.played_agent`). The differences between the two, and why
this one differs, are in ``docs/protocols.md``.

Reflection and foresight state lives in the modules; all of it is plain data for resume.
The ablations of the paper's Table 7 switch off exactly one module: ``no_reflection`` (no task
list, no reflection calls, no position memory) and ``no_foresight`` (no foresight calls, no
Try Action).
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any

from escapebench.agents.base import Decision, ModelCallRecord, TurnContext
from escapebench.agents.base_agent import DEFAULT_MEMORY, BaseAgent
from escapebench.agents.foresight import DEFAULT_MEMORY_PAD, Foresight, KnownItem, Proposal
from escapebench.agents.plain_data import as_plain
from escapebench.agents.reflection import DEFAULT_FAILED_MEMORY, Reflection, ReflectionRequest
from escapebench.agents.screen import read_screen
from escapebench.agents.tool_actions import DEFAULT_ACTION_FORMAT
from escapebench.engine.actions import most_commas, normalize_name, parse_call, split_candidates
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.llm.base import ChatModel, SamplingSettings
from escapebench.protocols.escapebench import prompts

PROCEDURE_VERSION = 2
"""The version of the agent's procedure, recorded with its settings (results of different
versions are different work). Version 1 (until session 8) showed the scene it was moved
away from in the prompt of a step taken after an explore or return move."""
DEFAULT_EXPLORE_AFTER = 10  # free-explore steps without progress before exploring elsewhere


def scene_of(position: str) -> str:
    """The current scene of a position path ("a -> b -> c" is in "c")."""
    return position.rsplit(" -> ", 1)[-1].strip()


def position_of(game: EscapeGame) -> str:
    """The player's position: the shortest path of scenes from the first one."""
    scene = game.scene_name
    path = game.path_to(scene) or game.path_to(scene, only_visible=False) or [scene]
    return " -> ".join(path)


def nearest_unexplored(game: EscapeGame, known: set[str]) -> str | None:
    """The closest visible scene not yet visited, reachable through visited scenes."""
    d = game.defn
    seen = {game.scene}
    queue = deque([game.scene])
    while queue:
        cur = queue.popleft()
        for link in d.scenes[cur].links:
            nxt = d.scene_index.get(link.target)
            if nxt is None or nxt in seen or not game.scene_visible[nxt]:
                continue
            seen.add(nxt)
            name = d.scenes[nxt].name
            if name not in known:
                return name
            queue.append(nxt)
    return None


def unexplored_exits(game: EscapeGame, known: set[str]) -> list[str]:
    """Labels of the current scene's exits that lead to scenes not visited yet."""
    return [label for label, target in game.open_links() if game.defn.scenes[target].name
            not in known]


class EscapeAgent(BaseAgent):
    """The paper's EscapeAgent.

    Args:
        model: the chat model for every call (action, reflection, foresight).
        memory: steps of working memory (paper: 10).
        sampling: sampling settings of every call (default temperature 0).
        no_reflection: ablation without the Reflection module.
        no_foresight: ablation without the Foresight module.
        explore_after: steps without progress or a new scene before the agent walks to the
            nearest unexplored scene (0 disables it).
        failed_memory: failed actions remembered per position.
        memory_pad: clues (informative responses) shown to task foresight.
        action_format: ``"text"`` or ``"tools"`` for the action calls (see BaseAgent);
            reflection and foresight answer in text in both.
    """

    name = "escape"

    def __init__(
        self,
        model: ChatModel,
        *,
        memory: int = DEFAULT_MEMORY,
        sampling: SamplingSettings | None = None,
        no_reflection: bool = False,
        no_foresight: bool = False,
        explore_after: int = DEFAULT_EXPLORE_AFTER,
        failed_memory: int = DEFAULT_FAILED_MEMORY,
        memory_pad: int = DEFAULT_MEMORY_PAD,
        action_format: str = DEFAULT_ACTION_FORMAT,
    ) -> None:
        super().__init__(model, memory=memory, sampling=sampling, action_format=action_format)
        self.use_reflection = not no_reflection
        self.use_foresight = not no_foresight
        self.explore_after = explore_after
        self.failed_memory = failed_memory
        self.memory_pad_size = memory_pad
        # Ablations get their own name so that their results never mix with the full agent's.
        self.name = "escape" + ("-no-reflection" if no_reflection else "") + (
            "-no-foresight" if no_foresight else ""
        ) + ("" if action_format == DEFAULT_ACTION_FORMAT else f"-{action_format}")
        self._clear()

    def _clear(self) -> None:
        self.reflection = Reflection(self.failed_memory)
        self.foresight = Foresight(self.memory_pad_size)
        self.visited: set[str] = set()
        self.known_items: dict[str, KnownItem] = {}  # normalised name -> where it was seen
        self.pending_reflections: list[ReflectionRequest] = []
        self.pending_tools: list[str] = []
        self.pending_tasks: list[int] = []
        self.stale_steps = 0  # free-explore steps without progress
        self.return_to: str | None = None  # where the agent was before its trials took it away
        self.acted_position: str | None = None
        # The task list as the action prompt shows it: as of the start of the history window
        # (window start, tasks), and as last shown (changes since go under the steps).
        self.task_window: tuple[int, list[dict[str, Any]]] | None = None
        self.tasks_shown: list[dict[str, Any]] | None = None

    # ----------------------------------------------------------------- contract
    def settings(self) -> dict[str, Any]:
        """BaseAgent settings plus the modules and their options."""
        return {
            **super().settings(),
            "reflection": self.use_reflection,
            "foresight": self.use_foresight,
            "explore_after": self.explore_after,
            "failed_memory": self.failed_memory,
            "memory_pad": self.memory_pad_size,
            "procedure_version": PROCEDURE_VERSION,
        }

    def reset(self, game: EscapeGame) -> None:
        """Forget everything: a new episode starts."""
        super().reset(game)
        self._clear()

    async def decide(self, ctx: TurnContext) -> Decision:
        """Reflect, foresee, then act (see the module docstring)."""
        if getattr(ctx.protocol, "name", None) == "original":
            raise ValueError(
                "EscapeAgent plays under the escapebench protocol; under the original protocol "
                "the EscapeAgent is escape-original (OriginalEscapeAgent)"
            )
        saved = self.snapshot()
        try:
            return await self._decide(ctx)
        except BaseException:
            # A failed model call must leave no half-applied reflection behind: a retry of
            # this turn (or a resumed run) starts from the same state.
            self.restore(saved)
            raise

    async def _decide(self, ctx: TurnContext) -> Decision:
        # ``here``: the game as the agent would find it where it acts. The agent never moves
        # the player: it looks ahead (EscapeGame.moved_to) and asks the turn loop for the move
        # (Decision.teleport_to), which the loop makes and logs.
        game = here = ctx.game
        if ctx.hint is None and self.return_to is not None and not self.foresight.pending():
            # The last proposal failed: back to where the trials started, as the original does.
            here = here.moved_to(self.return_to)
        self.return_to = self.return_to if self.foresight.pending() else None
        self._perceive(here)
        calls: list[ModelCallRecord] = []
        details: dict[str, Any] = {}
        if self.use_reflection:
            await self._reflect(calls, details)
        if self.use_foresight:
            await self._foresee(here, calls, details)
        decision: Decision | None = None
        if ctx.hint is None:
            decision, here = self._next_trial(here, calls)
            if decision is None:
                here = self._explore_teleport(here, ctx, details)
        moved = here.scene != game.scene
        if moved:
            # The turn is taken from there; the record says so (the loop's teleported_to,
            # written here to keep the record's order of keys).
            details["teleported_to"] = here.scene_name
            # (and the screen of where it now is: None renders the moved game's screen)
            ctx = replace(ctx, game=here, position=position_of(here), observation=None)
            details["position"] = ctx.position  # (logged as before)
        self.acted_position = ctx.position
        if decision is None:
            decision = await self.model_action(ctx, calls)
        decision.notes.update(details)
        decision.notes.setdefault("prompt_kinds", [c.kind for c in decision.calls])
        decision.notes["task_list"] = self.reflection.listing()
        decision.notes["try_queue"] = self.foresight.listing()
        if moved:
            decision.teleport_to = here.scene_name
            decision.position = ctx.position  # where it acts from
        return decision

    def observe(
        self, ctx: TurnContext, decision: Decision, result: StepResult, position_after: str
    ) -> dict[str, Any]:
        """Remember the step, apply the reflection rules, note new tools and trial outcomes."""
        if self.acted_position is not None and self.acted_position != ctx.position:
            ctx = replace(ctx, position=self.acted_position)  # the agent had moved itself
        self.remember(ctx, result)
        game = ctx.game
        scene_before = scene_of(ctx.position)
        self._perceive(game)
        record: dict[str, Any] = {}

        trial = decision.notes.get("trial")
        if trial is not None:
            proposal = self.foresight.get(trial["id"])
            if proposal is not None and trial["phase"] == "try":
                record["trial_outcome"] = self.foresight.finish(
                    proposal, result.success and not result.error
                )


        call = parse_call(result.action) if not result.error else None
        if call is not None and call.verb != "move":
            if self.use_foresight:
                self.foresight.note(result.feedback, result.outcome)
            if self.use_reflection:
                if not result.success:
                    self.reflection.remember_failure(scene_before, str(call))
                rule = self._reflect_rules(ctx, str(call), result)
                if rule is not None:
                    record["reflection_rule"] = rule
        if self.use_foresight:
            for event in result.events:
                if event.kind in ("tool_collected", "tool_crafted") and event.name:
                    self.pending_tools.append(event.name)

        if result.progressed:
            self.stale_steps = 0
        elif decision.mode == "free explore" and trial is None:
            self.stale_steps += 1
        if trial is not None and result.success and not result.error:
            self.return_to = None  # a proposal worked: stay, as the original does
        record["task_list"] = self.reflection.listing()
        record["try_queue"] = self.foresight.listing()
        return record

    def snapshot(self) -> dict[str, Any]:
        """Working memory, both modules and the agent's own bookkeeping, as plain data."""
        return {
            **super().snapshot(),
            "reflection": self.reflection.snapshot(),
            "foresight": self.foresight.snapshot(),
            "visited": sorted(self.visited),
            "known_items": {k: as_plain(v) for k, v in self.known_items.items()},
            "pending_reflections": [as_plain(r) for r in self.pending_reflections],
            "pending_tools": list(self.pending_tools),
            "pending_tasks": list(self.pending_tasks),
            "stale_steps": self.stale_steps,
            "return_to": self.return_to,
            "acted_position": self.acted_position,
            "task_window": None if self.task_window is None else [
                self.task_window[0], list(self.task_window[1])],
            "tasks_shown": self.tasks_shown,
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Load a state made by :meth:`snapshot`."""
        super().restore(data)
        self._clear()
        self.reflection.restore(data.get("reflection", {}))
        self.foresight.restore(data.get("foresight", {}))
        self.visited = set(data.get("visited", []))
        self.known_items = {k: KnownItem(**v) for k, v in data.get("known_items", {}).items()}
        self.pending_reflections = [
            ReflectionRequest(**r) for r in data.get("pending_reflections", [])
        ]
        self.pending_tools = list(data.get("pending_tools", []))
        self.pending_tasks = [int(i) for i in data.get("pending_tasks", [])]
        self.stale_steps = int(data.get("stale_steps", 0))
        self.return_to = data.get("return_to")
        self.acted_position = data.get("acted_position")
        window = data.get("task_window")
        self.task_window = None if window is None else (int(window[0]), list(window[1]))
        self.tasks_shown = data.get("tasks_shown")

    # ----------------------------------------------------------------- perception
    def _perceive(self, game: EscapeGame) -> None:
        """Note the current scene as visited and the interactable items on screen."""
        screen = read_screen(game)
        self.visited.add(screen.scene)
        for item in screen.items:
            if item.interactable:
                self.known_items[normalize_name(item.name)] = KnownItem(item.name, screen.scene)

    @staticmethod
    def _on_screen(game: EscapeGame, item: str) -> bool:
        key = normalize_name(item)
        return any(
            i.interactable and normalize_name(i.name) == key for i in read_screen(game).items
        )

    @staticmethod
    def _bag(game: EscapeGame) -> list[tuple[str, str]]:
        """(name, description) of every tool in the bag."""
        return [(t.name, t.desc) for t in read_screen(game).bag]

    def _target_item(self, call_text: str, verb: str) -> str | None:
        """The item a click / apply / input acted on, if it is an item the agent knows."""
        arg = call_text[len(verb) + 1 : -1]
        if verb == "click":
            known = self.known_items.get(normalize_name(arg))
            return known.name if known else None  # None: a tool picked up from the scene
        if verb in ("apply", "input"):
            for _left, right in split_candidates(
                arg, right_commas=most_commas(self.known_items)
            ):
                known = self.known_items.get(normalize_name(right))
                if known is not None:
                    return known.name
        return None

    # ----------------------------------------------------------------- reflection
    def _reflect_rules(
        self, ctx: TurnContext, action: str, result: StepResult
    ) -> dict[str, Any] | None:
        verb = action.split("(", 1)[0]
        if verb not in ("click", "apply", "input"):
            return None  # tasks target items: nothing to reflect on for crafts and pick-ups
        target = self._target_item(action, verb)
        if target is None:
            return None
        request = ReflectionRequest(
            step=ctx.step,
            position=ctx.position,
            scene=scene_of(ctx.position),
            action=action,
            feedback=result.feedback,
            target=target,
            success=result.success,
        )
        rule, ask_model = self.reflection.after_action(request, result)
        if ask_model:
            self.pending_reflections.append(request)
        return rule

    async def _reflect(self, calls: list[ModelCallRecord], details: dict[str, Any]) -> None:
        outcomes = []
        for request in self.pending_reflections:
            text, record = await self.ask("reflection", self.reflection.messages(request))
            calls.append(record)
            outcome, created = self.reflection.apply_answer(text, request)
            outcomes.append(outcome)
            if created is not None and self.use_foresight:
                self.pending_tasks.append(created.index)
        self.pending_reflections = []
        if outcomes:
            details["reflection"] = outcomes

    # ----------------------------------------------------------------- foresight
    async def _foresee(
        self, game: EscapeGame, calls: list[ModelCallRecord], details: dict[str, Any]
    ) -> None:
        outcomes = []
        for tool in self.pending_tools:
            bag = self._bag(game)
            description = next((desc for name, desc in bag if name == tool), None)
            if description is None:
                continue  # already used up: nothing to foresee
            tasks = self.reflection.views()
            text, record = await self.ask(
                "foresight_tool", self.foresight.tool_messages(tool, description, bag, tasks)
            )
            calls.append(record)
            failed = {t.index: t.failed for t in self.reflection.tasks}
            outcomes.append(
                self.foresight.propose_for_tool(
                    text, tool, [n for n, _ in bag], self.known_items, tasks, failed
                )
            )
        for index in self.pending_tasks:
            task = self.reflection.get(index)
            if task is None:
                continue
            bag = self._bag(game)
            text, record = await self.ask(
                "foresight_task", self.foresight.task_messages(task.view(), bag)
            )
            calls.append(record)
            outcomes.append(
                self.foresight.propose_for_task(
                    text, task.view(), task.scene, [n for n, _ in bag], task.failed
                )
            )
        self.pending_tools = []
        self.pending_tasks = []
        if outcomes:
            details["foresight"] = outcomes

    # ----------------------------------------------------------------- Try Action
    def _next_trial(
        self, game: EscapeGame, calls: list[ModelCallRecord]
    ) -> tuple[Decision | None, EscapeGame]:
        """The next proposal to try, in the scene where its item was seen, and the game as
        the agent finds it there (``game`` itself when it stays).

        The agent asks to be put there without a step, as the original harness does (moves
        to a proposal are not counted; the trials are), and comes back where it was when the
        last proposal has failed.
        """
        bag = {normalize_name(n) for n, _ in self._bag(game)}
        here = game
        for proposal in self.foresight.pending():
            problem = self._stale(proposal, bag)
            if problem:
                self.foresight.drop(proposal, problem)
                continue
            if proposal.scene is not None and proposal.scene != here.scene_name:
                if proposal.scene not in here.defn.scene_index:
                    self.foresight.drop(proposal, f"no scene {proposal.scene}")
                    continue
                if self.return_to is None:
                    self.return_to = here.scene_name
                here = here.moved_to(proposal.scene)
            if proposal.item is not None and not self._on_screen(here, proposal.item):
                self.foresight.drop(proposal, f"{proposal.item} is not here any more")
                continue
            return self._trial_decision(proposal, proposal.action, "try", calls), here
        return None, here

    @staticmethod
    def _stale(proposal: Proposal, bag: set[str]) -> str:
        """Why a queued proposal can no longer be tried ("" if it still can)."""
        missing = [t for t in proposal.tools if normalize_name(t) not in bag]
        return f"no longer in the bag: {', '.join(missing)}" if missing else ""

    @staticmethod
    def _trial_decision(
        proposal: Proposal, action: str, phase: str, calls: list[ModelCallRecord]
    ) -> Decision:
        return Decision(
            action=action,
            reasoning=f"Trying proposal {proposal.id} ({proposal.action}) from foresight.",
            mode="try action",
            calls=list(calls),
            notes={
                "trial": {
                    "id": proposal.id,
                    "group": proposal.group,
                    "proposal": proposal.action,
                    "phase": phase,
                }
            },
        )

    # ----------------------------------------------------------------- exploring
    def _explore_teleport(
        self, game: EscapeGame, ctx: TurnContext, details: dict[str, Any]
    ) -> EscapeGame:
        """After ``explore_after`` free-explore steps without progress, as the original harness
        does: the agent goes to the nearest scene it has not explored (else the scene before
        this one on its path) for the model to act there. Returns the game as the agent
        finds it there (``game`` itself when it stays)."""
        if not 0 < self.explore_after <= self.stale_steps:
            return game
        self.stale_steps = 0
        target = nearest_unexplored(game, self.visited)
        if target is None:
            path = ctx.position.split(" -> ")
            target = path[-2].strip() if len(path) > 1 else None
        if target is not None and target in game.defn.scene_index:
            details["explore"] = {"to": target}
            return game.moved_to(target)
        return game

    # ----------------------------------------------------------------- prompt
    def lead_prompt_blocks(self, ctx: TurnContext) -> list[str]:
        """The task list as of the start of the history window (escapebench protocol): it
        changes only when the window moves; each change since is told under the step that
        made it, so the history is still only appended to."""
        if not self.use_reflection:
            return []
        now = [as_plain(v) for v in self.reflection.views()]
        start = prompts.window_start(ctx.step, self.memory_size)
        if self.task_window is None or self.task_window[0] != start or not self.memory:
            self.task_window = (start, now)
        elif self.tasks_shown is not None and now != self.tasks_shown:
            changes = prompts.task_changes(
                [prompts.TaskView(**t) for t in self.tasks_shown],
                [prompts.TaskView(**t) for t in now],
            )
            last = self.memory[-1]
            if changes and last.step == ctx.step - 1:
                self.memory[-1] = replace(last, response="\n".join([last.response, *changes]))
            elif changes:
                self.task_window = (start, now)  # nowhere to tell them: show the list again
        self.tasks_shown = now
        return [prompts.format_task_window([prompts.TaskView(**t) for t in self.task_window[1]])]

    def extra_prompt_blocks(self, ctx: TurnContext) -> list[str]:
        """The memory of this position (Reflection module)."""
        if not self.use_reflection:
            return []
        game = ctx.game
        return [
            prompts.format_position_memory(
                self.reflection.failed_at(game.scene_name),
                unexplored_exits(game, self.visited),
            ),
        ]
