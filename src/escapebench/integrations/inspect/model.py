"""A :class:`~escapebench.llm.base.ChatModel` that asks Inspect's model.

Our agents talk to a ``ChatModel``; inside an Inspect task this adapter turns every one of
their calls (action, reflection, foresight) into ``Model.generate``, so Inspect does the
provider, retries, rate limits, usage accounting and the transcript (each call is a model
event in ``inspect view``). Sampling settings become Inspect's ``GenerateConfig``; the
functions of the tools action format become ``ToolInfo`` (Inspect only offers them: it runs
nothing, the answer's call is read by the agent).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
)
from inspect_ai.tool import ToolInfo, ToolParam, ToolParams

from escapebench.llm.base import (
    Completion,
    Message,
    SamplingSettings,
    ToolCall,
    ToolSpec,
    clean_model_text,
    estimate_prompt_tokens,
    estimate_tokens,
)


def inspect_messages(messages: Sequence[Message]) -> list[ChatMessage]:
    """Our chat messages as Inspect's."""
    out: list[ChatMessage] = []
    for m in messages:
        role, content = m.get("role"), str(m.get("content", ""))
        if role == "system":
            out.append(ChatMessageSystem(content=content))
        elif role == "assistant":
            out.append(ChatMessageAssistant(content=content))
        else:
            out.append(ChatMessageUser(content=content))
    return out


def inspect_tool(spec: ToolSpec) -> ToolInfo:
    """One offered function as Inspect's ``ToolInfo`` (the same JSON schema)."""
    return ToolInfo(
        name=spec.name,
        description=spec.description,
        parameters=ToolParams(
            properties={
                p.name: ToolParam(type="string", description=p.description) for p in spec.params
            },
            required=[p.name for p in spec.params],
        ),
    )


def generate_config(settings: SamplingSettings) -> GenerateConfig:
    """Our sampling settings as Inspect's ``GenerateConfig``."""
    return GenerateConfig(
        temperature=settings.temperature,
        top_p=settings.top_p,
        max_tokens=settings.max_tokens,
        seed=settings.seed,
        stop_seqs=list(settings.stop) or None,
    )


class InspectChatModel:
    """Our agents' model calls, answered by an Inspect :class:`~inspect_ai.model.Model`.

    ``name`` is Inspect's ``provider/model`` name, as results record it.
    """

    backend = "inspect"

    def __init__(self, model: Model) -> None:
        self.model = model
        self.name = str(model)

    def describe(self) -> dict[str, object]:
        """Backend settings for result metadata."""
        return {"backend": self.backend, "model": self.name}

    async def complete(self, messages: Sequence[Message], settings: SamplingSettings) -> Completion:
        """Ask Inspect's model; usage from Inspect (estimated when the provider gives none)."""
        tools = [inspect_tool(t) for t in settings.tools]
        output = await self.model.generate(
            inspect_messages(messages),
            tools=tools,
            tool_choice="auto" if tools else None,
            config=generate_config(settings),
        )
        text = clean_model_text(output.completion or "")
        calls: list[ToolCall] = []
        for call in output.message.tool_calls or []:
            # A call Inspect could not parse keeps its error as its "arguments": not JSON,
            # so the agent plays it as a malformed call (feedback in the game).
            arguments = call.parse_error if call.parse_error else json.dumps(call.arguments)
            calls.append(ToolCall(name=call.function, arguments=arguments, id=call.id or ""))
        usage = output.usage
        estimated = usage is None
        return Completion(
            text=text,
            tokens_in=estimate_prompt_tokens(messages) if usage is None else usage.input_tokens,
            tokens_out=estimate_tokens(text) if usage is None else usage.output_tokens,
            model=output.model or self.name,
            latency_s=float(output.time or 0.0),
            extra={"tokens_estimated": estimated, "finish_reason": output.stop_reason},
            tool_calls=tuple(calls),
        )
