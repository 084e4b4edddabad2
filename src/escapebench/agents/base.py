"""The contract between agents and the harness.

Every step the harness (``escapebench.bench``) builds a :class:`TurnContext`, awaits
:meth:`Agent.decide`, plays the decided action in the engine, and reports the outcome with
:meth:`Agent.observe`. The hint system lives in the harness: the agent only sees the hint in
its context. Agents keep all their memory in plain data so that a run killed mid-episode
resumes exactly (:meth:`Agent.snapshot` / :meth:`Agent.restore`).
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from escapebench.engine.actions import Call
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.protocols.base import Reading

if TYPE_CHECKING:
    from escapebench.protocols.base import HintView, PromptProtocol

AgentMode = Literal["free explore", "try action", "help"]
DEFAULT_MEMORY = 10  # steps of working memory in a model agent's prompt (paper section 5.1)


@dataclass(frozen=True)
class Hint:
    """Help from the hint system: the next reference action and where to take it."""

    action: str  # e.g. "apply(hairpin, drawer)"
    scene: str  # where it must be taken; the harness has already put the agent there
    index: int  # position of the action in the reference chain
    steps_in_help: int = 0  # steps taken since this hint started
    requested: bool = False  # the player asked for it at this step (a person's ``hint``)


@dataclass(frozen=True)
class TurnContext:
    """What an agent may look at before deciding. Treat ``game`` as read-only: to see another
    scene, look at ``game.moved_to(scene)`` and ask for the move (``Decision.teleport_to``)."""

    game: EscapeGame
    step: int  # 0-based index of the step about to be taken
    position: str  # "first scene -> ... -> current scene", as the protocol shows it
    hint: Hint | None = None
    protocol: PromptProtocol | None = None
    """What the model reads and how answers are read (None: the escapebench protocol)."""
    observation: str | None = None
    """The observation as the protocol renders it (None: the escapebench protocol's screen)."""
    hint_view: HintView | None = None
    """The hint as the protocol shows it (position and action as the reference writes them)."""


@dataclass(frozen=True)
class ModelCallRecord:
    """Accounting for one model call made while deciding."""

    kind: str  # "action", "reflection", "foresight_tool", "foresight_task", ...
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False  # answered from the response cache: nothing sent, nothing paid
    retries: int = 0
    latency_s: float = 0.0
    tokens_cached: int = 0  # the part of tokens_in the server read from its prefix cache


@dataclass
class Decision:
    """An agent's choice for one step.

    ``action`` is what is played: either a canonical action string or the model's answer
    (the protocol reads the call it holds). An agent that has read a model's answer with the
    protocol (``PromptProtocol.read_answer``) puts the reading in ``reading`` and its text in
    ``action``: the turn loop then plays the reading's call (or, without one, gives the
    protocol's "no action" feedback) without reading the answer again.
    """

    action: str
    reasoning: str = ""
    raw_answer: str = ""
    mode: AgentMode = "free explore"
    calls: list[ModelCallRecord] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)
    """What the step record keeps of the agent's thinking (its ``agent`` entry: task list,
    proposals, prompt kinds...); never read by the harness. (``details`` until 0.2.)"""
    teleport_to: str | None = None
    """A scene to be put in before the action is played (without a step: trying an action
    where it belongs, exploring). The harness moves the player and logs the move (the step's
    ``teleported_to``), so that a resumed episode makes it again; an agent never moves the
    player itself."""
    reading: Reading | None = field(default=None, kw_only=True)
    """The model's answer as the protocol read it (None: ``action`` is read when played)."""
    position: str | None = field(default=None, kw_only=True)
    """The position the step record shows, for an agent that keeps its own (the original
    EscapeAgent's scene stack; None: the protocol's)."""

    @property
    def details(self) -> dict[str, Any]:
        """The old name of :attr:`notes` (until 0.2)."""
        warnings.warn("Decision.details is now Decision.notes (what the step record keeps; "
                      "control goes in typed fields: teleport_to, position, reading)",
                      DeprecationWarning, stacklevel=2)
        return self.notes

    @property
    def call(self) -> Call | None:
        """The call the answer holds, as the protocol read it (None: none, or not read yet)."""
        return None if self.reading is None else self.reading.call


class Agent(ABC):
    """Base class of every agent (model-driven, scripted, random, explorer)."""

    #: short name used in results ("base", "escape", "random", "explorer", "oracle",
    #: "human")
    name: str = "agent"

    def settings(self) -> dict[str, Any]:
        """Everything about this agent a result depends on (written next to the result)."""
        return {"agent": self.name}

    def reset(self, game: EscapeGame) -> None:  # noqa: B027 - optional hook
        """Called once before the first step of an episode."""

    @abstractmethod
    async def decide(self, ctx: TurnContext) -> Decision:
        """Choose the next action."""

    def observe(  # noqa: B027 - optional hook
        self, ctx: TurnContext, decision: Decision, result: StepResult, position_after: str
    ) -> dict[str, Any]:
        """Learn from the outcome of the decided action.

        May call no model (kept synchronous); what it returns is merged into the step's log
        record (for example the task list after the step).
        """
        return {}

    async def after_step(
        self, ctx: TurnContext, decision: Decision, result: StepResult
    ) -> list[ModelCallRecord]:
        """Model-using follow-ups of a step (reflection, foresight); returns their calls."""
        return []

    async def forced_turn(self, ctx: TurnContext, action: str) -> Decision | None:
        """The hint system plays ``action`` for the agent this step (its help period is over).

        An agent that still has work before a step (the original EscapeAgent's foresight) does
        it here and returns the decision to log, whose action must be ``action``; None (the
        default) lets the harness log the forced step itself.
        """
        return None

    def snapshot(self) -> dict[str, Any]:
        """The agent's whole memory as JSON-able data."""
        return {}

    def restore(self, data: dict[str, Any]) -> None:  # noqa: B027 - optional hook
        """Load memory produced by :meth:`snapshot`."""
