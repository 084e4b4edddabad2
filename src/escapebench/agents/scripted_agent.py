"""A test agent that plays a fixed list of actions, in order, without a model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from escapebench.agents.base import Agent, Decision, TurnContext
from escapebench.engine.env import EscapeGame


class ScriptedAgent(Agent):
    """Plays ``actions`` one per step.

    Args:
        actions: the actions (or any text: it is played as written).
        cycle: start the list again when it runs out; otherwise the last action is repeated.
        follow_hints: play the active hint's action instead of the list (the list waits).
    """

    name = "scripted"

    def __init__(
        self, actions: Sequence[str], *, cycle: bool = True, follow_hints: bool = False
    ) -> None:
        if isinstance(actions, str):
            actions = [actions]  # one action, not a list of characters
        if not actions:
            raise ValueError("a scripted agent needs at least one action")
        self.actions = list(actions)
        self.cycle = cycle
        self.follow_hints = follow_hints
        self.position = 0

    def settings(self) -> dict[str, Any]:
        """The script and its options."""
        return {
            "agent": self.name,
            "actions": list(self.actions),
            "cycle": self.cycle,
            "follow_hints": self.follow_hints,
        }

    def reset(self, game: EscapeGame) -> None:
        """Start the script from its first action."""
        self.position = 0

    async def decide(self, ctx: TurnContext) -> Decision:
        """The next scripted action (or the hint's, with ``follow_hints``)."""
        if self.follow_hints and ctx.hint is not None:
            return Decision(ctx.hint.action, reasoning="following the hint", mode="help")
        n = len(self.actions)
        index = self.position % n if self.cycle else min(self.position, n - 1)
        self.position += 1
        return Decision(self.actions[index], reasoning=f"scripted action {index + 1} of {n}")

    def snapshot(self) -> dict[str, Any]:
        """Where the script is."""
        return {"position": self.position}

    def restore(self, data: dict[str, Any]) -> None:
        """Continue the script where :meth:`snapshot` left it."""
        self.position = int(data.get("position", 0))
