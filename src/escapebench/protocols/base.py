"""The contract of a protocol: what a model reads and how its answers are read.

A :class:`PromptProtocol` is chosen once per run (``--protocol``); it makes a :class:`Session` per
episode. The harness (``escapebench.bench.episode``) asks the session, every step, for the
position line (:meth:`Session.begin_step`) and the observation, and has it play the action
(:meth:`Session.play`: parse the answer by the protocol's rules, step the engine, render the
feedback). Agents build their prompts with the protocol (:meth:`PromptProtocol.action_messages` and
the pieces it is made of), so the same agent speaks either protocol.

The engine itself holds no protocol text that a model reads in the ``original`` protocol: it
reports what happened (``StepResult``: success, error, events, counts) and the protocol turns
that, and the state, into words.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.llm.base import Message


@dataclass(frozen=True)
class HintView:
    """A hint as a prompt shows it: where to act (a path of scenes) and what to do."""

    position: str  # "first scene -> ... -> target scene"
    action: str  # the reference action as written in the reference chain
    steps_in_help: int = 0


@dataclass(frozen=True)
class HistoryStep:
    """One step of working memory as a prompt shows it (``step`` as the protocol numbers it)."""

    step: int
    position: str
    action: str
    response: str


class Session(ABC):
    """One episode under a protocol. Its state (``snapshot``/``restore``) is plain data."""

    @abstractmethod
    def begin_step(self, game: EscapeGame, hint: HintView | None) -> str:
        """Called once at the start of every step (after the hint system's teleport); returns
        the position the prompt shows."""

    @abstractmethod
    def observation(self, game: EscapeGame) -> str:
        """What the player sees now."""

    @abstractmethod
    def play(self, game: EscapeGame, action: str) -> StepResult:
        """Play an answer (free text or an action): read it by the protocol's rules, step the
        engine, and return the result with the protocol's feedback text. ``result.action`` is
        what the step log keeps; playing it again from the same state does the same."""

    @abstractmethod
    def reference_hint(self, index: int, steps_in_help: int) -> HintView:
        """Reference action ``index`` of the setting as a hint shows it."""

    def snapshot(self) -> dict[str, Any]:
        return {}

    def restore(self, data: dict[str, Any]) -> None:  # noqa: B027 - optional
        pass


class PromptProtocol(ABC):
    """What a model reads (system prompt, user prompt, history, hint, observation, feedback)
    and how its answers are parsed; ``name`` and ``version`` are recorded with every result."""

    name: str = ""
    version: str = ""

    @abstractmethod
    def session(self, defn: GameDefinition) -> Session:
        """A new episode of ``defn``."""

    def record(self) -> dict[str, Any]:
        """What run.json records of the protocol."""
        return {"name": self.name, "version": self.version}

    @property
    def label(self) -> str:
        """``name/version``, as result rows record it."""
        return f"{self.name}/{self.version}"

    # ---------------------------------------------------------------- answers
    @abstractmethod
    def extract_action(self, answer: str) -> str:
        """The action an answer holds, as the harness plays it (free text if it holds none,
        for the protocol's own "no action" feedback)."""

    @abstractmethod
    def shown_action(self, played: str, result: StepResult) -> str:
        """"Your action" of a step in the history, for the action ``played``."""

    # ---------------------------------------------------------------- the action prompt
    def history_window(
        self, history: Sequence[HistoryStep], step: int, memory: int
    ) -> list[HistoryStep]:
        """The steps of working memory an action prompt at 0-based ``step`` shows, from the
        agent's ``history`` (oldest first; it keeps up to ``2 * memory - 1`` steps). By
        default the last ``memory`` steps."""
        return list(history[-memory:]) if memory > 0 else []

    @abstractmethod
    def action_system_prompt(self) -> str:
        """The system prompt of an action call."""

    @abstractmethod
    def action_user_prompt(
        self,
        *,
        step: int,
        position: str,
        observation: str,
        history: Sequence[HistoryStep],
        hint: HintView | None,
        extra_blocks: Sequence[str] = (),
    ) -> str:
        """The user prompt of an action call at 0-based ``step``. ``history`` is what working
        memory holds (the protocol leaves it out during help); ``extra_blocks`` are an agent's
        own parts (task list, position memory), placed after the observation."""

    def environment_text(
        self,
        *,
        step: int,
        position: str,
        observation: str,
        last: HistoryStep | None,
        hint: HintView | None,
    ) -> str:
        """What a learner reads at 0-based ``step`` of an environment (Gymnasium, verifiers):
        what the last step did (``last``, None at the start), the position, the screen and
        the hint, in this protocol's words. By default the action user prompt with the last
        step as its memory."""
        return self.action_user_prompt(
            step=step, position=position, observation=observation,
            history=[last] if last is not None else [], hint=hint,
        )

    def action_messages(self, **kwargs: Any) -> list[Message]:
        """[system, user] of an action call (keywords of :meth:`action_user_prompt`)."""
        return [
            {"role": "system", "content": self.action_system_prompt()},
            {"role": "user", "content": self.action_user_prompt(**kwargs)},
        ]
