"""The upper bound: an agent that plays the game's reference chain, without a model.

Each reference action is taken where the reference takes it: the oracle walks there from where
it stands, over the exits open at that moment (the shortest walk, as ``escapebench check``
counts the oracle's steps), and then plays the action. It goes through the harness like any
agent, the paper's hint system included: it never needs a hint, since a walk is shorter than
the hint system's patience, so its row has 0 hints and, every tool it applies or crafts being
the right one at the first try, a tool choice of 1 (docs/metrics.md). With a hint showing
(a game whose chain cannot be walked, only teleported) it plays the hinted action.

Its memory is the index of the next reference action.
"""

from __future__ import annotations

from typing import Any

from escapebench.agents.base import Agent, Decision, TurnContext
from escapebench.agents.screen import route
from escapebench.engine.env import EscapeGame, StepResult


class OracleAgent(Agent):
    """Plays the reference chain in order, walking to each action's scene."""

    name = "oracle"

    def __init__(self) -> None:
        self.next = 0  # index of the next reference action

    def reset(self, game: EscapeGame) -> None:
        self.next = 0

    async def decide(self, ctx: TurnContext) -> Decision:
        game = ctx.game
        reference = game.defn.reference
        if ctx.hint is not None:
            return Decision(ctx.hint.action, reasoning="following the hint", mode="help",
                            notes={"reference": ctx.hint.index})
        if self.next >= len(reference):
            return Decision("move(nowhere)", reasoning="the reference chain is played")
        step = reference[self.next]
        walk = route(game, step.scene)  # the shortest walk over the exits open now
        if walk:
            return Decision(f"move({walk[0]})",
                            reasoning=f"walking to {step.scene!r} for reference action "
                            f"{self.next + 1}")
        return Decision(step.action, reasoning=f"reference action {self.next + 1} of "
                        f"{len(reference)}", notes={"reference": self.next})

    def observe(self, ctx: TurnContext, decision: Decision, result: StepResult,
                position_after: str) -> dict[str, Any]:
        index = decision.notes.get("reference")
        if index is not None and result.success and not result.error:
            self.next = max(self.next, int(index) + 1)
        return {}

    def snapshot(self) -> dict[str, Any]:
        return {"next": self.next}

    def restore(self, data: dict[str, Any]) -> None:
        self.next = int(data.get("next", 0))
