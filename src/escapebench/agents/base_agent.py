"""BaseAgent: the paper's baseline (section 4.1, appendix C.1).

Each step it shows the model the system prompt, the working memory of the last N steps
(position, action, response; left out during help), the current position and observation,
the hint when the hint system gives one, and the closing instruction. Every text, and how the
action is read from the answer, is the protocol's (``ctx.protocol``: ``original`` or
``escapebench``, see :mod:`escapebench.protocols`). An answer without a readable action is
played as it is, so the protocol answers with its own feedback (a malformed answer is a wasted
step, never a crash).
"""

from __future__ import annotations

from collections import deque
from dataclasses import asdict
from typing import Any

from escapebench.agents import prompts
from escapebench.agents.answer_parsing import answer_reasoning, parse_action_answer
from escapebench.agents.base import Agent, Decision, ModelCallRecord, TurnContext
from escapebench.agents.plain_data import as_plain
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.llm.base import ChatModel, Completion, Message, SamplingSettings
from escapebench.protocols.base import HintView, HistoryStep, Protocol
from escapebench.protocols.escapebench import NO_ACTION_READ, EscapebenchProtocol

DEFAULT_MEMORY = 10  # steps of working memory (paper section 5.1)

__all__ = ["NO_ACTION_READ", "BaseAgent", "call_record", "hint_position", "protocol_of"]

_ESCAPEBENCH = EscapebenchProtocol()


def protocol_of(ctx: TurnContext) -> Protocol:
    """The protocol of this turn (the escapebench protocol when the harness names none)."""
    return ctx.protocol or _ESCAPEBENCH


def hint_view(ctx: TurnContext) -> HintView | None:
    """The hint of this turn as the protocol shows it."""
    if ctx.hint_view is not None or ctx.hint is None:
        return ctx.hint_view
    return HintView(hint_position(ctx), ctx.hint.action, ctx.hint.steps_in_help)


def call_record(kind: str, completion: Completion) -> ModelCallRecord:
    """The accounting of one model call, tagged with what the call was for."""
    return ModelCallRecord(
        kind=kind,
        tokens_in=completion.tokens_in,
        tokens_out=completion.tokens_out,
        cached=completion.cached,
        retries=completion.retries,
        latency_s=completion.latency_s,
    )


def hint_position(ctx: TurnContext) -> str:
    """Where the active hint must be taken, as a path from the start scene."""
    assert ctx.hint is not None
    path = ctx.game.path_to(ctx.hint.scene) or ctx.game.path_to(
        ctx.hint.scene, only_visible=False
    )
    return " -> ".join(path) if path else ctx.hint.scene


class BaseAgent(Agent):
    """The paper's BaseAgent.

    Args:
        model: the chat model that picks actions.
        memory: steps of working memory shown in each prompt (paper: 10).
        sampling: sampling settings of every call (default: temperature 0, as the paper).
    """

    name = "base"

    def __init__(
        self,
        model: ChatModel,
        *,
        memory: int = DEFAULT_MEMORY,
        sampling: SamplingSettings | None = None,
    ) -> None:
        if memory < 0:
            raise ValueError(f"memory must be 0 or more steps, not {memory}")
        self.model = model
        self.memory_size = memory
        self.sampling = sampling or SamplingSettings()
        self.memory: deque[HistoryStep] = deque(maxlen=memory)

    # ----------------------------------------------------------------- contract
    def settings(self) -> dict[str, Any]:
        """Agent name, model, memory length, sampling and prompt version."""
        return {
            "agent": self.name,
            "model": self.model.name,
            "memory": self.memory_size,
            "sampling": asdict(self.sampling),
            "prompt_version": prompts.PROMPT_VERSION,  # (the protocol is recorded by the run)
        }

    def reset(self, game: EscapeGame) -> None:
        """Forget everything: a new episode starts."""
        self.memory.clear()

    async def decide(self, ctx: TurnContext) -> Decision:
        """Ask the model for the next action."""
        return await self.model_action(ctx)

    def observe(
        self, ctx: TurnContext, decision: Decision, result: StepResult, position_after: str
    ) -> dict[str, Any]:
        """Remember the step (position, action, response) in working memory."""
        self.remember(ctx, result)
        return {}

    def snapshot(self) -> dict[str, Any]:
        """Working memory as plain data."""
        return {"memory": [as_plain(m) for m in self.memory]}

    def restore(self, data: dict[str, Any]) -> None:
        """Load working memory saved by :meth:`snapshot`."""
        self.memory.clear()
        for m in data.get("memory", []):
            if "feedback" in m:  # a checkpoint of an earlier version: 1-based steps
                m = {"step": m["step"] - 1, "position": m["position"], "action": m["action"],
                     "response": m["feedback"]}
            self.memory.append(HistoryStep(**m))

    # ----------------------------------------------------------------- helpers
    def remember(self, ctx: TurnContext, result: StepResult) -> None:
        """Add one step to working memory (the oldest falls out past ``memory`` steps)."""
        if self.memory_size == 0:
            return
        action = protocol_of(ctx).shown_action(result.action, result)
        self.memory.append(HistoryStep(ctx.step, ctx.position, action, result.feedback))

    def extra_prompt_blocks(self, ctx: TurnContext) -> list[str]:
        """Agent-specific parts of the action prompt (none for the BaseAgent)."""
        return []

    def action_messages(self, ctx: TurnContext) -> list[Message]:
        """The messages of the action call for this turn (history left out during help)."""
        return protocol_of(ctx).action_messages(
            step=ctx.step,
            position=ctx.position,
            observation=ctx.observation if ctx.observation is not None else ctx.game.observation(),
            history=list(self.memory),
            hint=hint_view(ctx),
            extra_blocks=self.extra_prompt_blocks(ctx),
        )

    async def ask(self, kind: str, messages: list[Message]) -> tuple[str, ModelCallRecord]:
        """One model call; returns the answer text and its accounting record."""
        completion = await self.model.complete(messages, self.sampling)
        return completion.text or "", call_record(kind, completion)

    async def model_action(
        self, ctx: TurnContext, calls: list[ModelCallRecord] | None = None
    ) -> Decision:
        """Ask the model for an action; ``calls`` are earlier calls of this turn to record."""
        text, record = await self.ask("action", self.action_messages(ctx))
        all_calls = [*(calls or []), record]
        return Decision(
            # No readable call: the answer as the protocol plays it (its own feedback).
            action=protocol_of(ctx).extract_action(text),
            reasoning=answer_reasoning(text, parse_action_answer(text).thought),
            raw_answer=text,
            mode="help" if ctx.hint else "free explore",
            calls=all_calls,
            details={"prompt_kinds": [c.kind for c in all_calls]},
        )
