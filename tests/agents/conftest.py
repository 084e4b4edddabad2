"""Fixtures of the agent tests: a small game, a model that answers per prompt kind, a driver."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from escapebench.agents.base import Agent, Decision, Hint, TurnContext
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.games.loading import load_file
from escapebench.llm.base import Message
from escapebench.llm.scripted import ScriptedChatModel
from escapebench.protocols.escapebench import play_text, prompts
from escapebench.protocols.escapebench.observation import observation_text

WORKSHOP = Path(__file__).with_name("workshop.yaml")

KIND_OF_SYSTEM_PROMPT = {
    prompts.ACTION_SYSTEM_PROMPT: "action",
    prompts.REFLECTION_SYSTEM_PROMPT: "reflection",
    prompts.FORESIGHT_TOOL_SYSTEM_PROMPT: "foresight_tool",
    prompts.FORESIGHT_TASK_SYSTEM_PROMPT: "foresight_task",
}

Answer = str | Callable[[Sequence[Message]], str]


def kind_of(messages: Sequence[Message]) -> str:
    """Which of the agent's prompts ``messages`` is, from its system prompt."""
    return KIND_OF_SYSTEM_PROMPT[messages[0]["content"]]


class RoutedModel(ScriptedChatModel):
    """A scripted model with one answer list per prompt kind (action, reflection, ...).

    A kind's list is consumed in order; its last answer repeats when it runs out. A kind
    without answers fails the test loudly when asked.
    """

    def __init__(self, **answers: Sequence[Answer] | Answer) -> None:
        self.queues: dict[str, list[Answer]] = {
            kind: [a] if isinstance(a, str) or callable(a) else list(a)
            for kind, a in answers.items()
        }
        self.kinds: list[str] = []
        super().__init__(self._answer, name="routed")

    def _answer(self, messages: Sequence[Message]) -> str:
        kind = kind_of(messages)
        self.kinds.append(kind)
        queue = self.queues.get(kind)
        if not queue:
            raise AssertionError(f"unexpected {kind} call:\n{messages[-1]['content']}")
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        return answer(messages) if callable(answer) else answer

    def prompts_of(self, kind: str) -> list[str]:
        """The user messages of every call of ``kind``, in order."""
        return [m[-1]["content"] for m in self.history if kind_of(m) == kind]


def act(action: str, thought: str = "Let me try this.") -> str:
    """An action answer in the format the prompt asks for."""
    return f"- Thought: {thought}\n- Action: {action}"


def position_of(game: EscapeGame) -> str:
    path = game.path_to(game.scene_name) or [game.scene_name]
    return " -> ".join(path)


@dataclass
class Turn:
    """One driven step."""

    ctx: TurnContext
    decision: Decision
    result: StepResult
    observed: dict[str, Any]


@dataclass
class Driver:
    """Plays an agent against a game the way the harness does (decide, the move it asks for,
    step, observe), and fails when the agent changes the game while deciding."""

    agent: Agent
    game: EscapeGame
    turns: list[Turn] = field(default_factory=list)

    async def play(self, steps: int = 1, hint: Hint | None = None) -> list[Turn]:
        """Play ``steps`` steps (fewer if the game ends); returns those turns."""
        played = []
        for _ in range(steps):
            if self.game.ended:
                break
            # the screen as the turn loop hands it over (rendered before the agent decides)
            ctx = TurnContext(self.game, len(self.turns), position_of(self.game), hint,
                              observation=observation_text(self.game))
            before = self.game.snapshot()
            decision = await self.agent.decide(ctx)
            # an agent never changes the game: it asks for a move, and the harness makes it
            assert self.game.snapshot() == before, "the agent changed the game while deciding"
            if decision.teleport_to is not None:
                self.game.teleport(decision.teleport_to)
            # played and said as the escapebench protocol does (the engine reports data only)
            result = play_text(self.game, decision.action)
            observed = self.agent.observe(ctx, decision, result, position_of(self.game))
            turn = Turn(ctx, decision, result, observed)
            self.turns.append(turn)
            played.append(turn)
        return played


@pytest.fixture(scope="session")
def workshop() -> GameDefinition:
    """The normal version of the agent tests' game."""
    return next(d for d in load_file(WORKSHOP) if d.setting == "workshop")


@pytest.fixture
def workshop_game(workshop: GameDefinition) -> EscapeGame:
    """A fresh play-through of the workshop."""
    return EscapeGame(workshop)

