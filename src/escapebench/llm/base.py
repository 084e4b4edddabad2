"""The one protocol every language-model backend implements.

Agents talk to a :class:`ChatModel`; the harness never knows whether the answer came from a
hosted API, a local GGUF file, the response cache or a scripted fake.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Protocol, runtime_checkable

Message = dict[str, str]
"""A chat message: ``{"role": "system" | "user" | "assistant", "content": str}``."""


@dataclass(frozen=True)
class ToolParam:
    """One string argument of a function offered to the model."""

    name: str
    description: str


@dataclass(frozen=True)
class ToolSpec:
    """A function the model may call (native tool calling); every argument is a string."""

    name: str
    description: str
    params: tuple[ToolParam, ...] = ()

    def json_schema(self) -> dict[str, object]:
        """The JSON schema of the arguments (an object of required strings)."""
        return {
            "type": "object",
            "properties": {
                p.name: {"type": "string", "description": p.description} for p in self.params
            },
            "required": [p.name for p in self.params],
            "additionalProperties": False,
        }

    def openai_tool(self) -> dict[str, object]:
        """The function in the ``tools`` list of an OpenAI chat-completions request."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.json_schema(),
            },
        }


@dataclass(frozen=True)
class ToolCall:
    """A function call in a model's answer; ``arguments`` is the JSON text as the model wrote
    it (possibly malformed: the agent decides what a broken call means)."""

    name: str
    arguments: str
    id: str = ""


@dataclass(frozen=True)
class SamplingSettings:
    """Everything about sampling that changes the answer (and so is part of the cache key)."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 1024
    seed: int | None = None
    stop: tuple[str, ...] = ()
    tools: tuple[ToolSpec, ...] = ()
    """Functions offered with the call (native tool calling); none for a text answer."""


@dataclass(frozen=True)
class Completion:
    """One answer of a model, with its accounting."""

    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    model: str = ""
    cached: bool = False
    """Answered from escapebench's own response cache (no request was sent)."""
    retries: int = 0
    latency_s: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)
    tool_calls: tuple[ToolCall, ...] = ()
    """The answer's function calls, in order (only when functions were offered)."""
    tokens_cached: int = 0
    """The part of ``tokens_in`` the server read from its prompt (prefix) cache, where it
    reports one (``usage.prompt_tokens_details.cached_tokens``, llama.cpp's ``cache_n``)."""


def settings_record(settings: SamplingSettings) -> dict[str, object]:
    """``settings`` as plain data (cache keys, result metadata).

    Without functions offered, the record is what it was before tool calling existed, so
    that cache entries and result folders of text runs stay valid.
    """
    record = asdict(settings)
    if not settings.tools:
        del record["tools"]
    return record


class ModelUnavailableError(RuntimeError):
    """The model server could not be reached or kept failing after all retries.

    The harness stops the run with a clear message when it sees this; finished steps stay on
    disk and the same command resumes later.
    """


class ServerNotReachedError(ModelUnavailableError):
    """The very first call to a server found nobody there: the connection was refused or its
    name does not resolve. Almost always a wrong ``--base-url`` (or a server not started), so
    it is not retried; its message is one line naming the server, the error and what to check.
    """


@runtime_checkable
class ChatModel(Protocol):
    """A chat model. ``name`` identifies it in results and in the cache key."""

    name: str

    async def complete(
        self, messages: Sequence[Message], settings: SamplingSettings
    ) -> Completion:
        """Return the model's answer to ``messages``."""
        ...


def estimate_tokens(text: str) -> int:
    """Rough token count (characters / 4, rounded up) for backends that report no usage."""
    return (len(text) + 3) // 4


def estimate_prompt_tokens(messages: Sequence[Message]) -> int:
    """Rough token count of a whole prompt, including a few tokens of per-message framing."""
    return sum(estimate_tokens(str(m.get("content", ""))) + 4 for m in messages)


# Lone UTF-16 surrogates: JSON allows them as "\\udXXX" escapes and ``json.loads`` keeps them,
# but no file, SQLite cache or terminal can encode them.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_model_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD, so it can be written as UTF-8.

    A model's answer is played in the game whatever it holds; only characters that cannot
    exist in UTF-8 (which would make the step log, the cache and the console fail) go.
    """
    return _LONE_SURROGATE.sub("\ufffd", text)
