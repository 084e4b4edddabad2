"""The hint system of the original harness (appendix D.1, section 5.1), shared by the harness
and human play; the same in both protocols.

Rules (those of the original ``BaseAgent.run``):

* progress after a step is key steps + tools collected;
* help starts after step ``i`` when ``i >= patience`` and the progress after step ``i`` equals
  the progress after step ``i - patience`` (and a reference action is left);
* before every step in help the player is put (teleported) in the scene of the target action;
  the prompt shows the hint and no history;
* on the ``help_steps``-th step in help (default 10: nine model calls, then this one) the target
  action is played for the player, without a model call, and again on every later step until
  it is done;
* the target is the first reference action not yet matched (moves aside: they never make
  progress, and the teleport does their work). After a step that made progress,
  the first remaining reference action that is *the same action* (same verb and arguments, any
  letter case; a craft's two tools in either order) taken *in the same scene* (any scene for a
  craft) is matched and taken off the list; when it is the target, help ends.

This module is pure logic over :class:`~escapebench.engine.env.EscapeGame`: no I/O, no model.
It never plays a player's turn (the turn loop, ``bench.loop``, does: its ``HintSystem`` wraps
this policy); one step::

    hint = policy.before_step(game)          # may teleport (during help)
    action = policy.forced_action() or ask_the_player(hint)
    result = ...                              # the turn loop plays the action
    policy.after_step(game, result)
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Literal

from escapebench.agents.base import Hint
from escapebench.engine.actions import ActionKey, action_key
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import TOOL_IN_SCENE, GameDefinition

HINT_STATE_VERSION = 2
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
    """The step in help (counted from 1) on which the target action is played for the player."""

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
    player who follows every hint would play it. A simulation on a game of its own, once per
    setting, not a player's turn (``tests/test_architecture.py`` lists it among the engine's
    steps allowed outside the turn loop).
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


def reference_keys(defn: GameDefinition) -> tuple[ActionKey | None, ...]:
    """Each reference action of ``defn`` read once for the same-action check (kept with the
    definition)."""
    keys = defn.caches.get("hint keys")
    if keys is None:
        keys = defn.caches["hint keys"] = tuple(action_key(r.action) for r in defn.reference)
    return keys  # type: ignore[no-any-return]


@dataclass(frozen=True)
class HintUpdate:
    """What a step did to the hint system (for logs). Not the step's outcome (the engine's
    ``StepResult.outcome``, what the action did in the game); ``HintOutcome`` until 0.2."""

    completed: int | None = None  # reference index of the hint that was completed
    skipped: int | None = None  # (kept for old logs: the original never skips a hint)
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
        self.keys: tuple[ActionKey | None, ...] = reference_keys(defn)
        """Each reference action read once, for the same-action check."""
        # A move is never progress, so it could never be matched: reference chains in our
        # format may hold moves (the original's key logs hold none); the hint's teleport does
        # their work.
        self.remaining: list[int] = [
            i for i, ref in enumerate(defn.reference)
            if ref.action.split("(", 1)[0].strip().lower() != "move"
        ]
        """Reference actions not yet matched, in order; the first is the next hint."""
        self.active = False
        """Whether the player is in help."""
        self.steps_in_help = 0
        """The step in help the player is at (1 on the first), 0 outside help."""
        self.hints_started = 0
        self.steps = 0
        """Steps taken."""
        self.window: list[int] = []
        """Progress (key steps + tools) after each of the last ``patience + 1`` steps."""
        self.scene = ""
        """The scene of the step being taken (where its action is made)."""
        self.requested_at: int | None = None
        """The step at which the player last asked for the hint in force (None: not asked)."""

    # ------------------------------------------------------------------ queries
    @property
    def target(self) -> int | None:
        """Reference index of the hint in force, or None."""
        return self.remaining[0] if self.active and self.remaining else None

    @property
    def pointer(self) -> int:
        """Index of the first reference action not yet matched (the length when none is left)."""
        return self.remaining[0] if self.remaining else len(self.effects)

    @property
    def hint(self) -> Hint | None:
        """The hint in force, as the player sees it (``steps_in_help`` counted from 0)."""
        index = self.target
        if index is None:
            return None
        ref = self.defn.reference[index]
        return Hint(ref.action, ref.scene, index, max(self.steps_in_help - 1, 0),
                    requested=self.requested_at == self.steps)

    def forced_action(self) -> str | None:
        """The action to play for the player at this step, when its help period is over."""
        index = self.target
        if index is None or self.steps_in_help < max(self.options.help_steps, 1):
            return None
        return self.defn.reference[index].action

    # ------------------------------------------------------------------ the step
    def before_step(self, game: EscapeGame) -> Hint | None:
        """Count the step in help and put the player in the target scene (during help);
        return the hint in force (or None)."""
        if self.target is not None:
            self.steps_in_help += 1
            self._teleport(game)
        else:
            self.steps_in_help = 0
        self.scene = game.scene_name
        return self.hint

    def request(self, game: EscapeGame) -> Hint | None:
        """Start help now, without waiting for patience to run out (a person asking for help),
        after :meth:`before_step` of this step; this step is the first in help and the hint
        counts like any other. Returns the hint in force (the one already in force if there is
        one), None when the reference chain is done."""
        if self.target is None and self.remaining:
            self.active = True
            self.hints_started += 1
            self.steps_in_help = 1
            self.requested_at = self.steps
            self._teleport(game)
            self.scene = game.scene_name
        return self.hint

    def after_step(self, game: EscapeGame, result: StepResult) -> HintUpdate:
        """Update the counters with the outcome of the step just played."""
        progress = game.key_steps + game.tools_collected
        before = self.window[-1] if self.window else 0
        progressed = progress > before
        outcome = HintUpdate(progressed=progressed)
        if progressed:
            action = result.action
            played = action_key(action)  # the step's action, read once
            for index in self.remaining:
                ref = self.defn.reference[index]
                key = self.keys[index]
                if played is not None and key is not None and key.same(played) and (
                    ref.scene.lower() == self.scene.lower() or "craft(" in action
                ):
                    if self.target == index:
                        self.active = False
                        outcome = HintUpdate(completed=index, progressed=True)
                    self.remaining.remove(index)
                    break
        self.window.append(progress)
        patience = self.options.patience
        del self.window[: max(len(self.window) - patience - 1, 0)]
        step = self.steps
        self.steps += 1
        if (
            not self.active
            and step >= patience
            and self.window[-1] == self.window[-1 - patience]
            and self.remaining
        ):
            self.active = True
            self.hints_started += 1
        return outcome

    def _teleport(self, game: EscapeGame) -> None:
        index = self.target
        if index is not None:
            scene = self.defn.reference[index].scene
            if scene in game.defn.scene_index:
                game.teleport(scene)

    # ------------------------------------------------------------------ state
    def snapshot(self) -> dict[str, Any]:
        """The policy's state as plain JSON-able data."""
        return {
            "v": HINT_STATE_VERSION,
            "remaining": list(self.remaining),
            "active": self.active,
            "steps_in_help": self.steps_in_help,
            "hints_started": self.hints_started,
            "steps": self.steps,
            "window": list(self.window),
            "scene": self.scene,
        } | ({} if self.requested_at is None else {"requested_at": self.requested_at})

    def restore(self, data: dict[str, Any]) -> None:
        """Load a state made by :meth:`snapshot` for the same setting."""
        if data.get("v") != HINT_STATE_VERSION:
            raise ValueError(f"unsupported hint state version {data.get('v')!r}")
        n = len(self.defn.reference)
        remaining = [int(x) for x in data["remaining"]]
        if any(not 0 <= x < n for x in remaining):
            raise ValueError("hint state does not fit this game's reference chain")
        self.remaining = remaining
        self.active = bool(data["active"])
        self.steps_in_help = int(data["steps_in_help"])
        self.hints_started = int(data["hints_started"])
        self.steps = int(data["steps"])
        self.window = [int(x) for x in data["window"]]
        self.scene = str(data.get("scene", ""))
        requested = data.get("requested_at")
        self.requested_at = None if requested is None else int(requested)


def __getattr__(name: str) -> Any:
    if name == "HintOutcome":  # the name until 0.2, easily read as a step's outcome
        warnings.warn("escapebench.bench.hints.HintOutcome is now HintUpdate (what a step did to "
                      "the hint system)", DeprecationWarning, stacklevel=2)
        return HintUpdate
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
