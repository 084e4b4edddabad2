"""The hint system of the paper (appendix D.1, section 5.1), shared by the harness and human play.

Rules:

* progress is a new key step or a newly collected tool;
* after ``patience`` (50) consecutive steps without progress the player gets a hint: it is put
  (teleported) in the scene of the target action and told the action;
* the hint stays until that action is done; once the player has spent ``help_steps`` (10)
  steps in help, the next step is *forced*: the target action is played for it, in the target
  scene;
* the hint is always the first action of the reference chain that the player has not yet
  completed, even if later actions of the chain are already done.

**When is a reference action "completed"?** Not by comparing action strings: the player may
reach the same effect another way (a tool picked up in another order, a multi-wait transition
whose waits came in another order). Instead the reference chain is replayed once, on a shadow
game, as the hint system would play it (teleport, then act), and the *effect* of every
reference action is recorded: the key steps it counts (the engine's ``counted`` wait keys)
and the tools it collects. A reference action is completed once all of its effects hold in the
live game. Both are monotone (key steps and collected tools are never lost), so completion is
a pure function of the engine state, never undone, and the pointer to the first uncompleted
action only moves forward. Resuming therefore needs only the engine state plus a few counters.

Two fallbacks keep any game playable:

* a reference action with no effect in the shadow replay (an author's no-op click, a broken
  reference) counts as completed once the player performs that exact canonical action
  successfully;
* a forced action that does not complete its target (the player took another route and the
  reference action no longer applies) marks the target *skipped*, so the system never forces
  the same impossible action forever.

This module is pure logic over :class:`~escapebench.engine.env.EscapeGame`: no I/O, no model.
Typical use, one step::

    hint = policy.before_step(game)          # may start a hint and teleport
    action = policy.forced_action() or ask_the_player(hint)
    result = game.step(action)
    policy.after_step(game, result)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from escapebench.agents.base import Hint
from escapebench.engine.env import _IN_SCENE as TOOL_IN_SCENE
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition

HINT_STATE_VERSION = 1
DEFAULT_PATIENCE = 50
DEFAULT_HELP_STEPS = 10

HintKind = Literal["tool", "key_step", "other"]
CountedKey = tuple[int, int, int, int, int]


@dataclass(frozen=True)
class HintOptions:
    """Thresholds of the hint system; the defaults are the paper's."""

    patience: int = DEFAULT_PATIENCE
    """Consecutive steps without progress after which a hint starts."""
    help_steps: int = DEFAULT_HELP_STEPS
    """Steps the player may take in help before the target action is forced."""

    def __post_init__(self) -> None:
        if self.patience < 0 or self.help_steps < 0:
            raise ValueError("hint patience and help steps must be >= 0")


@dataclass(frozen=True)
class ReferenceEffect:
    """One action of the reference chain and what it does when played in order."""

    index: int
    action: str  # canonical form, as the engine prints it
    scene: str  # where it is taken
    path: tuple[str, ...]  # the reference position: scenes from the first one
    verb: str  # move, click, apply, input or craft
    key_steps: int  # key steps it gains
    tools: int  # tools it collects
    counted: tuple[CountedKey, ...]  # the engine's wait keys it counts
    collected: tuple[int, ...]  # tool indices it collects

    @property
    def kind(self) -> HintKind:
        """A *tool hint* if the action only collects tools, a *key-step hint* if it gains a key
        step, otherwise (a move, or an action that makes no progress) ``"other"``.

        The paper's "hints used for tool collection" vs "hints used for key steps"; an action
        that does both (an apply whose item becomes a tool) is a key step. A hint whose
        target is a move or a no-progress action is neither, so it counts in the hints used
        but in neither share.
        """
        if self.verb == "move" or (self.key_steps == 0 and self.tools == 0):
            return "other"
        return "tool" if self.key_steps == 0 else "key_step"

    @property
    def trackable(self) -> bool:
        """Whether completion can be read off the engine state."""
        return bool(self.counted or self.collected)


def reference_effects(defn: GameDefinition) -> tuple[ReferenceEffect, ...]:
    """Replay ``defn``'s reference chain on a fresh game and record each action's effect.

    Every action is played in its reference scene (teleporting there first), exactly as a
    player who follows every hint would play it.
    """
    game = EscapeGame(defn)
    out: list[ReferenceEffect] = []
    for i, ref in enumerate(defn.reference):
        counted_before = set(game.counted)
        where_before = list(game.tool_where)
        if ref.scene in defn.scene_index:
            game.teleport(ref.scene)
        result = game.step(ref.action)
        new_counted = tuple(sorted(game.counted - counted_before))
        collected = tuple(
            t
            for t, (before, now) in enumerate(zip(where_before, game.tool_where, strict=True))
            if before == TOOL_IN_SCENE and now != TOOL_IN_SCENE
        )
        verb = ref.action.split("(", 1)[0].strip().lower()
        out.append(
            ReferenceEffect(
                index=i,
                action=result.action if not result.error else ref.action,
                scene=ref.scene,
                path=tuple(ref.path),
                verb=verb,
                key_steps=result.key_steps_gained,
                tools=len(collected),
                counted=new_counted,
                collected=collected,
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class HintOutcome:
    """What a step did to the hint system (for logs)."""

    completed: int | None = None  # reference index of the hint that was completed
    skipped: int | None = None  # reference index of a forced hint that did not complete
    progressed: bool = False


class HintPolicy:
    """The hint system for one play-through of one setting.

    Call :meth:`before_step` before every step and :meth:`after_step` after it; if
    :meth:`forced_action` returns an action, play that instead of asking the player.
    All state is plain data (:meth:`snapshot` / :meth:`restore`).
    """

    def __init__(
        self,
        defn: GameDefinition,
        options: HintOptions | None = None,
        *,
        effects: tuple[ReferenceEffect, ...] | None = None,
    ) -> None:
        self.defn = defn
        self.options = options or HintOptions()
        self.effects = effects if effects is not None else reference_effects(defn)
        # Fallback tracking for reference actions the engine state cannot show as done.
        self._untrackable: dict[str, list[int]] = {}
        for e in self.effects:
            if not e.trackable:
                self._untrackable.setdefault(e.action, []).append(e.index)
        self.no_progress = 0
        """Consecutive steps without progress (reset by progress and when a hint ends)."""
        self.pointer = 0
        """Index of the first reference action not yet completed."""
        self.active: int | None = None
        """Reference index of the hint in force, or None."""
        self.steps_in_help = 0
        """Steps taken since the active hint started."""
        self.hints_started = 0
        self.skipped: list[int] = []
        self.done_by_action: list[int] = []

    # ------------------------------------------------------------------ queries
    def completed(self, game: EscapeGame, index: int) -> bool:
        """Whether reference action ``index`` counts as done in ``game``."""
        e = self.effects[index]
        if index in self.skipped or index in self.done_by_action:
            return True
        if not e.trackable:
            return False
        counted = game.counted
        if any(key not in counted for key in e.counted):
            return False
        where = game.tool_where
        return all(where[t] != TOOL_IN_SCENE for t in e.collected)

    @property
    def hint(self) -> Hint | None:
        """The hint in force, as the player sees it."""
        if self.active is None:
            return None
        e = self.effects[self.active]
        return Hint(e.action, e.scene, e.index, self.steps_in_help)

    def forced_action(self) -> str | None:
        """The action to play for the player at this step, when its help period is over."""
        if self.active is None or self.steps_in_help < self.options.help_steps:
            return None
        return self.effects[self.active].action

    # ------------------------------------------------------------------ the step
    def before_step(self, game: EscapeGame) -> Hint | None:
        """Start a hint if patience has run out; return the hint in force (or None).

        Teleports the player to the target scene when a hint starts and again before a forced
        step (the player may have walked away during the help period).
        """
        self._advance(game)
        if self.active is None and self.no_progress >= self.options.patience:
            self._start(game)
        elif self.forced_action() is not None:
            assert self.active is not None
            self._teleport(game, self.effects[self.active].scene)
        return self.hint

    def request(self, game: EscapeGame) -> Hint | None:
        """Start the next hint now, without waiting for patience to run out (a person asking
        for help); it counts as a hint like any other. Call it before a step, in place of
        :meth:`before_step`'s own timing. Returns the hint in force: the one already in force
        if there is one (not counted again), None when the reference chain is done."""
        self._advance(game)
        if self.active is None:
            self._start(game)
        return self.hint

    def _start(self, game: EscapeGame) -> None:
        """Start the hint on the first uncompleted reference action (if any is left) and put
        the player in its scene."""
        if self.pointer >= len(self.effects):
            return
        self.active = self.pointer
        self.steps_in_help = 0
        self.hints_started += 1
        self._teleport(game, self.effects[self.active].scene)

    def after_step(self, game: EscapeGame, result: StepResult) -> HintOutcome:
        """Update the counters with the outcome of the step just played."""
        progressed = result.progressed
        self.no_progress = 0 if progressed else self.no_progress + 1
        if result.success and result.action in self._untrackable:
            for index in self._untrackable[result.action]:
                if index not in self.done_by_action:
                    self.done_by_action.append(index)
        outcome = HintOutcome(progressed=progressed)
        if self.active is not None:
            was_forced = self.steps_in_help >= self.options.help_steps
            self.steps_in_help += 1
            index = self.active
            if self.completed(game, index):
                outcome = HintOutcome(completed=index, progressed=progressed)
                self._end_hint()
            elif was_forced:
                self.skipped.append(index)
                outcome = HintOutcome(skipped=index, progressed=progressed)
                self._end_hint()
        self._advance(game)
        return outcome

    def _end_hint(self) -> None:
        self.active = None
        self.steps_in_help = 0
        self.no_progress = 0  # a hint ends a stuck period: the count starts again

    def _advance(self, game: EscapeGame) -> None:
        n = len(self.effects)
        while self.pointer < n and self.completed(game, self.pointer):
            self.pointer += 1

    @staticmethod
    def _teleport(game: EscapeGame, scene: str) -> None:
        if scene in game.defn.scene_index:
            game.teleport(scene)

    # ------------------------------------------------------------------ state
    def snapshot(self) -> dict[str, Any]:
        """The policy's state as plain JSON-able data."""
        return {
            "v": HINT_STATE_VERSION,
            "no_progress": self.no_progress,
            "pointer": self.pointer,
            "active": self.active,
            "steps_in_help": self.steps_in_help,
            "hints_started": self.hints_started,
            "skipped": list(self.skipped),
            "done_by_action": list(self.done_by_action),
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Load a state made by :meth:`snapshot` for the same setting."""
        if data.get("v") != HINT_STATE_VERSION:
            raise ValueError(f"unsupported hint state version {data.get('v')!r}")
        n = len(self.effects)
        active = data.get("active")
        pointer = int(data["pointer"])
        if not 0 <= pointer <= n or (active is not None and not 0 <= int(active) < n):
            raise ValueError("hint state does not fit this game's reference chain")
        self.no_progress = int(data["no_progress"])
        self.pointer = pointer
        self.active = None if active is None else int(active)
        self.steps_in_help = int(data["steps_in_help"])
        self.hints_started = int(data["hints_started"])
        self.skipped = [int(x) for x in data.get("skipped", [])]
        self.done_by_action = [int(x) for x in data.get("done_by_action", [])]
