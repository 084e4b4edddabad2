"""An agent that breaks on one setting, for the harness's error handling tests."""

from __future__ import annotations

from typing import Any

from escapebench.agents.base import Agent, Decision, TurnContext


class FlakyAgent(Agent):
    """Clicks the door; raises at step 5 of the hard setting (a bug in an agent)."""

    name = "flaky"

    async def decide(self, ctx: TurnContext) -> Decision:
        if ctx.game.defn.difficulty == "hard" and ctx.step == 5:
            raise ValueError("agent bug")
        return Decision("click(door)")


def make_flaky_agent(**_: Any) -> FlakyAgent:
    return FlakyAgent()


class OnceFlakyAgent(FlakyAgent):
    """The flaky agent while :data:`BROKEN` is true (the bug fixed, it plays on)."""

    name = "once-flaky"

    async def decide(self, ctx: TurnContext) -> Decision:
        if BROKEN:
            return await super().decide(ctx)
        return Decision("click(door)")


BROKEN = True


def make_once_flaky_agent(**_: Any) -> OnceFlakyAgent:
    return OnceFlakyAgent()
