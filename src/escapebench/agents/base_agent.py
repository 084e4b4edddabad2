"""BaseAgent: the paper's baseline (section 4.1, appendix C.1).

Each step it shows the model the system prompt, the working memory of at least the last N
steps (position, action, response; left out during help; the protocol picks the window),
the current position and observation, the hint when the hint system gives one, and the
closing instruction. Every text, and how the action is read from the answer, is the
protocol's (``ctx.protocol``: ``original`` or ``escapebench``, see
:mod:`escapebench.protocols`). An answer without a readable action is played as it is, so
the protocol answers with its own feedback (a malformed answer is a wasted step, never a
crash).
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any

from escapebench.agents.base import DEFAULT_MEMORY, Agent, Decision, ModelCallRecord, TurnContext
from escapebench.agents.plain_data import as_plain
from escapebench.agents.tool_actions import (
    ACTION_FORMATS,
    ACTION_TOOLS,
    DEFAULT_ACTION_FORMAT,
    TOOLS_VERSION,
    read_tool_answer,
    tools_messages,
)
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.llm.base import (
    ChatModel,
    Completion,
    Message,
    SamplingSettings,
    settings_record,
)
from escapebench.protocols.base import HintView, HistoryStep, PromptProtocol
from escapebench.protocols.escapebench import (
    NO_ACTION_READ,
    EscapebenchProtocol,
    observation_text,
    prompts,
)
from escapebench.protocols.escapebench.parsing import answer_reasoning

__all__ = ["NO_ACTION_READ", "BaseAgent", "call_record", "hint_position", "protocol_of"]

_ESCAPEBENCH = EscapebenchProtocol()


def protocol_of(ctx: TurnContext) -> PromptProtocol:
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
        tokens_cached=completion.tokens_cached,
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
        action_format: ``"text"`` (the paper's: the action is written in the answer) or
            ``"tools"`` (the five actions are offered as functions with every action call and
            the answer's function call is the action; see :mod:`.tool_actions`).
    """

    name = "base"

    def __init__(
        self,
        model: ChatModel,
        *,
        memory: int = DEFAULT_MEMORY,
        sampling: SamplingSettings | None = None,
        action_format: str = DEFAULT_ACTION_FORMAT,
    ) -> None:
        if memory < 0:
            raise ValueError(f"memory must be 0 or more steps, not {memory}")
        if action_format not in ACTION_FORMATS:
            raise ValueError(
                f"action format must be one of {', '.join(ACTION_FORMATS)}, not {action_format!r}"
            )
        self.action_format = action_format
        if action_format != DEFAULT_ACTION_FORMAT:
            # Its own label: tables never rank tool-calling results with text results.
            self.name = f"{self.name}-{action_format}"
        self.model = model
        self.memory_size = memory
        self.sampling = sampling or SamplingSettings()
        # Up to 2 * memory - 1 steps: the protocol picks its window from them (the escapebench
        # protocol's slides in blocks, see PromptProtocol.history_window).
        self.memory: deque[HistoryStep] = deque(maxlen=max(2 * memory - 1, 0))

    # ----------------------------------------------------------------- contract
    def settings(self) -> dict[str, Any]:
        """Agent name, model, memory length, sampling and prompt version."""
        settings: dict[str, Any] = {
            "agent": self.name,
            "model": self.model.name,
            "memory": self.memory_size,
            "sampling": settings_record(self.sampling),
            "prompt_version": prompts.PROMPT_VERSION,  # (the protocol is recorded by the run)
        }
        if self.action_format != DEFAULT_ACTION_FORMAT:
            # Only when not the default: text runs keep the settings (and folders) they had.
            settings["action_format"] = self.action_format
            settings["tools_version"] = TOOLS_VERSION
        return settings

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
        """Add one step to working memory (the oldest falls out past ``2 * memory - 1``
        steps)."""
        if self.memory_size == 0:
            return
        action = protocol_of(ctx).shown_action(result.action, result)
        self.memory.append(HistoryStep(ctx.step, ctx.position, action, result.feedback))

    def lead_prompt_blocks(self, ctx: TurnContext) -> list[str]:
        """Agent-specific parts placed before the history (escapebench protocol only; none
        for the BaseAgent)."""
        return []

    def extra_prompt_blocks(self, ctx: TurnContext) -> list[str]:
        """Agent-specific parts of the action prompt (none for the BaseAgent)."""
        return []

    def action_messages(self, ctx: TurnContext) -> list[Message]:
        """The messages of the action call for this turn (history left out during help)."""
        protocol = protocol_of(ctx)
        observation = ctx.observation
        messages = protocol.action_messages(
            step=ctx.step,
            position=ctx.position,
            observation=observation if observation is not None else observation_text(ctx.game),
            history=protocol.history_window(list(self.memory), ctx.step, self.memory_size),
            hint=hint_view(ctx),
            extra_blocks=self.extra_prompt_blocks(ctx),
            **({"lead_blocks": lead} if (lead := self.lead_prompt_blocks(ctx)) else {}),
        )
        if self.action_format == "tools":
            messages = tools_messages(messages, prompts.CHAIN_OF_THOUGHT_INSTRUCTION)
        return messages

    async def ask(self, kind: str, messages: list[Message]) -> tuple[str, ModelCallRecord]:
        """One model call; returns the answer text and its accounting record."""
        completion = await self.model.complete(messages, self.sampling)
        return completion.text or "", call_record(kind, completion)

    async def tools_action(
        self, ctx: TurnContext, calls: list[ModelCallRecord]
    ) -> Decision:
        """The action call of the tools format: the five actions offered as functions."""
        sampling = replace(self.sampling, tools=ACTION_TOOLS)
        completion = await self.model.complete(self.action_messages(ctx), sampling)
        text = completion.text or ""
        answer = read_tool_answer(completion.tool_calls)
        all_calls = [*calls, call_record("action", completion)]
        details: dict[str, Any] = {
            "prompt_kinds": [c.kind for c in all_calls],
            "tool_call": answer.call,
        }
        if answer.problem:
            details["tool_call_problem"] = answer.problem
        if answer.ignored_calls:
            details["tool_calls_ignored"] = answer.ignored_calls
        return Decision(
            action=answer.action,
            reasoning=text.strip(),
            raw_answer=text,
            mode="help" if ctx.hint else "free explore",
            calls=all_calls,
            notes=details,
        )

    async def model_action(
        self, ctx: TurnContext, calls: list[ModelCallRecord] | None = None
    ) -> Decision:
        """Ask the model for an action; ``calls`` are earlier calls of this turn to record."""
        if self.action_format == "tools":
            return await self.tools_action(ctx, list(calls or []))
        text, record = await self.ask("action", self.action_messages(ctx))
        all_calls = [*(calls or []), record]
        reading = protocol_of(ctx).read_answer(text)  # the one reading of the answer
        return Decision(
            # No readable call: the answer as the protocol plays it (its own feedback).
            action=reading.text,
            reading=reading,
            reasoning=answer_reasoning(text, reading.thought),
            raw_answer=text,
            mode="help" if ctx.hint else "free explore",
            calls=all_calls,
            notes={"prompt_kinds": [c.kind for c in all_calls]},
        )
