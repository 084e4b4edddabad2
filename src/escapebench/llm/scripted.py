"""A deterministic fake model for tests and offline demos."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from escapebench.llm.base import (
    Completion,
    Message,
    SamplingSettings,
    estimate_prompt_tokens,
    estimate_tokens,
)

AnswerFunction = Callable[[Sequence[Message]], str]


class ScriptedAnswersExhausted(RuntimeError):
    """A :class:`ScriptedChatModel` was asked more often than it has answers."""


class ScriptedChatModel:
    """Answers from a fixed list (in order) or from a function of the messages.

    Args:
        answers: the answers in order, or a function ``(messages) -> str``.
        name: model name for results and cache keys.
        cycle: start the list again when it runs out (otherwise
            :class:`ScriptedAnswersExhausted` is raised, which makes test mistakes loud).
        latency_s: simulated think time per call (an ``asyncio.sleep``).
    """

    backend = "scripted"

    def __init__(
        self,
        answers: Sequence[str] | AnswerFunction,
        *,
        name: str = "scripted",
        cycle: bool = False,
        latency_s: float = 0.0,
    ) -> None:
        if isinstance(answers, str):
            answers = [answers]  # a lone string is one answer, not a list of characters
        self.name = name
        self._answers: list[str] | None = None if callable(answers) else list(answers)
        self._function: AnswerFunction | None = answers if callable(answers) else None
        self.cycle = cycle
        self.latency_s = latency_s
        self.calls = 0
        """Number of :meth:`complete` calls so far."""
        self.history: list[list[Message]] = []
        """Copies of the messages of every call, in order."""
        self.settings_history: list[SamplingSettings] = []
        """The sampling settings of every call, in order."""

    @property
    def call_count(self) -> int:
        """Alias of :attr:`calls`."""
        return self.calls

    def describe(self) -> dict[str, object]:
        """Backend settings for result metadata."""
        return {"backend": self.backend, "model": self.name}

    def _next_answer(self, messages: Sequence[Message]) -> str:
        if self._function is not None:
            return self._function(messages)
        assert self._answers is not None
        index = self.calls - 1
        if index >= len(self._answers):
            if not self.cycle or not self._answers:
                raise ScriptedAnswersExhausted(
                    f"scripted model {self.name!r} has {len(self._answers)} answers "
                    f"but was called {self.calls} times"
                )
            index %= len(self._answers)
        return self._answers[index]

    async def complete(self, messages: Sequence[Message], settings: SamplingSettings) -> Completion:
        """Return the next scripted answer."""
        self.calls += 1
        self.history.append([dict(m) for m in messages])
        self.settings_history.append(settings)
        if self.latency_s > 0:
            await asyncio.sleep(self.latency_s)
        text = self._next_answer(messages)
        return Completion(
            text=text,
            tokens_in=estimate_prompt_tokens(messages),
            tokens_out=estimate_tokens(text),
            model=self.name,
            latency_s=self.latency_s,
            extra={"tokens_estimated": True},
        )
