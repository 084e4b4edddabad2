"""The contract of a protocol: what a model reads and how its answers are read.

A :class:`PromptProtocol` is chosen once per run (``--protocol``); it makes a :class:`Session` per
episode. The turn loop (``escapebench.bench.loop``) asks the session, every step, for the
position line (:meth:`Session.begin_step`) and the observation; to play a step it has the
session prepare the answer (:meth:`Session.prepare`: what the engine plays, read by the
protocol's rules), steps the engine itself, and has the session say the result
(:meth:`Session.render`: the feedback in the protocol's words). An answer is read once: an
agent reads a model's answer with :meth:`PromptProtocol.read_answer` and hands the
:class:`~escapebench.engine.actions.Call` on in its decision; a plain action string (a hint's,
a log's, a non-model agent's) is read by :meth:`Session.prepare`. Agents build their prompts
with the protocol (:meth:`PromptProtocol.action_messages` and the pieces it is made of), so the
same agent speaks either protocol.

The engine itself holds no protocol text that a model reads in the ``original`` protocol: it
reports what happened (``StepResult``: success, error, events, counts) and the protocol turns
that, and the state, into words.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from escapebench.engine.actions import Action, Call
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.engine.outcome import Outcome
from escapebench.llm.base import Message


@dataclass(frozen=True)
class Reading:
    """A model's answer read once by a protocol's rules."""

    call: Call | None  # the action it holds, None when there is none
    text: str  # the action as the protocol plays and logs it: the call's text, or what is
    # played for the protocol's "no action" feedback
    thought: str = ""  # the reasoning before the action


@dataclass(frozen=True)
class Play:
    """What a session makes of an answer before the step (:meth:`Session.prepare`).

    ``action`` is what the engine plays (None: nothing is, and ``result`` is the step's result
    as it is: a refusal, an answer without an action). ``shown`` is the action the result
    keeps (None: the engine's own), ``feedback`` the text said when it is decided before the
    step (a protocol that renders from the state before it). ``call`` is the call the answer
    held as the protocol read it, when ``action`` is not that call (the step record keeps it).
    """

    action: Call | Action | str | None
    shown: str | None = None
    feedback: str = ""
    result: StepResult | None = None
    call: Call | None = None


def not_played(action: str, outcome: Outcome, feedback: str = "", *,
               error: bool = True) -> Play:
    """A :class:`Play` that steps nothing: the result of an answer the engine never sees."""
    return Play(None, result=StepResult(action, False, error, feedback, (), 0, 0, False, outcome))


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
    def prepare(self, game: EscapeGame, answer: Reading | str) -> Play:
        """What the engine plays for ``answer`` in the current state: an answer this protocol
        has read (:meth:`PromptProtocol.read_answer`; its call is played as it is), or a string
        (an action as written, or free text), which is read here, once. Steps nothing: the
        turn loop steps the engine with ``Play.action`` and then calls :meth:`render`."""

    def render(self, game: EscapeGame, play: Play, result: StepResult) -> StepResult:
        """The step's result in the protocol's words (after the engine played
        ``play.action``). ``result.action`` is what the step log keeps; playing it again from
        the same state does the same. By default: ``play.shown`` and ``play.feedback``."""
        return result._replace(
            action=result.action if play.shown is None else play.shown, feedback=play.feedback
        )

    def play(self, game: EscapeGame, answer: Reading | str) -> StepResult:
        """:meth:`prepare`, the engine's step and :meth:`render` at once, for a caller outside
        a turn loop (the replay verb's trace check, tests). A player's turn is played by the
        turn loop (``bench.loop.EscapeEnv.step``), the one place that steps the engine for
        one."""
        play = self.prepare(game, answer)
        if play.result is not None:
            return play.result
        assert play.action is not None
        return self.render(game, play, game.step(play.action))

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
    def read_answer(self, answer: str) -> Reading:
        """Read a model's answer once: the call it holds (None: none), the action text the
        step plays and logs, the reasoning. The call goes on in the agent's decision
        (``Decision.call``) to the engine, the log and the hint check."""

    def extract_action(self, answer: str) -> str:
        """The action an answer holds, as the harness plays it (free text if it holds none,
        for the protocol's own "no action" feedback): ``read_answer(answer).text``."""
        return self.read_answer(answer).text

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
