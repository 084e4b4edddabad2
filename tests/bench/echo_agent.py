"""A minimal model-driven agent for the harness tests (not a product agent).

It shows the model the position, the observation, its last few steps, the hint and a list of
the actions valid on screen, and plays the model's answer as it is (the harness extracts the
call). Its memory is plain data, so a killed run resumes it exactly.
"""

from __future__ import annotations

from typing import Any

from escapebench.agents.base import Agent, Decision, ModelCallRecord, TurnContext
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.llm.base import ChatModel, SamplingSettings
from escapebench.protocols.escapebench.observation import observation_text

ACTIONS_HEAD = "Valid actions:"
HINT_HEAD = "Hint: you must now do "


def valid_actions(game: EscapeGame) -> list[str]:
    """The well-formed actions on screen (inputs: only the text "42")."""
    d = game.defn
    items = [d.items[i].name for i in game.visible_items() if game.item_interact[i]]
    bag = [d.tools[t].name for t in game.bag]
    out = [f"move({label})" for label, _ in game.open_links()]
    out += [f"click({name})" for name in items]
    out += [f"click({d.tools[t].name})" for t in game.visible_scene_tools()]
    out += [f"apply({tool}, {item})" for tool in bag for item in items]
    out += [f"input(42, {item})" for item in items]
    return out


class EchoAgent(Agent):
    """Asks the model for one action per step; remembers the last ``memory`` steps."""

    name = "echo"

    def __init__(
        self,
        *,
        model: ChatModel,
        memory: int = 3,
        sampling: SamplingSettings | None = None,
        seed: int = 0,
    ) -> None:
        self.model = model
        self.memory_size = memory
        self.sampling = sampling or SamplingSettings()
        self.memory: list[str] = []

    def settings(self) -> dict[str, Any]:
        return {"agent": self.name, "memory": self.memory_size, "prompt_version": "echo-1"}

    def reset(self, game: EscapeGame) -> None:
        self.memory = []

    def prompt(self, ctx: TurnContext) -> str:
        actions = valid_actions(ctx.game)
        lines = [f"Position: {ctx.position}", observation_text(ctx.game), "Memory:", *self.memory]
        if ctx.hint is not None:
            lines.append(f"{HINT_HEAD}{ctx.hint.action}")
        lines.append(ACTIONS_HEAD + " | ".join(actions))
        return "\n".join(lines)

    async def decide(self, ctx: TurnContext) -> Decision:
        messages = [
            {"role": "system", "content": "You are in an escape room. Answer with one action."},
            {"role": "user", "content": self.prompt(ctx)},
        ]
        c = await self.model.complete(messages, self.sampling)
        call = ModelCallRecord("action", c.tokens_in, c.tokens_out, c.cached, c.retries,
                               c.latency_s)
        return Decision(c.text, reasoning="", raw_answer=c.text, calls=[call])

    def observe(
        self, ctx: TurnContext, decision: Decision, result: StepResult, position_after: str
    ) -> dict[str, Any]:
        self.memory.append(f"{result.action or '?'} -> {result.feedback[:60]}")
        del self.memory[: -self.memory_size or len(self.memory)]
        return {"memory_size": len(self.memory)}

    def snapshot(self) -> dict[str, Any]:
        return {"memory": list(self.memory)}

    def restore(self, data: dict[str, Any]) -> None:
        self.memory = list(data.get("memory", []))


def make_echo_agent(*, model: ChatModel, **options: Any) -> EchoAgent:
    """Factory for ``escapebench run --agent tests.bench.echo_agent:make_echo_agent``."""
    return EchoAgent(model=model, **options)
