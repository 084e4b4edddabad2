"""The ``escapebench`` protocol: our own wording in a prefix-stable layout, the forgiving
answer parser, the same information and mechanics as ``original``.

The texts are those of ``.prompts`` (prompts), ``escapebench.engine.feedback``
(feedback) and ``escapebench.engine.observation`` (the observation); docs/protocols.md lists
every difference from the original protocol and its reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from escapebench.engine.actions import cut_answer, extract_call, parse_call
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.engine.observation import OBSERVATION_VERSION
from escapebench.protocols.base import HintView, HistoryStep, Protocol, Session
from escapebench.protocols.escapebench import prompts
from escapebench.protocols.escapebench.parsing import parse_action_answer

ESCAPEBENCH_VERSION = f"escapebench-2+{prompts.PROMPT_VERSION}+{OBSERVATION_VERSION}"

NO_ACTION_READ = "(no action could be read from your answer)"
"""Shown as "Your action" for a step whose answer held no readable action."""


def position_text(game: EscapeGame) -> str:
    """The player's position: the shortest path of scenes from the first one."""
    scene = game.scene_name
    path = game.path_to(scene) or game.path_to(scene, only_visible=False) or [scene]
    return " -> ".join(path)


def play_text(game: EscapeGame, text: str) -> StepResult:
    """Play a canonical call, or free text holding one (the last one); text without a call is
    played as it is, so that the engine's error result is the feedback."""
    call = parse_call(text) or extract_call(cut_answer(text))
    if call is None:
        result = game.step(text)
        return StepResult("", result.success, result.error, result.feedback)
    return game.step(call)


class EscapebenchSession(Session):
    def __init__(self, defn: GameDefinition) -> None:
        self.defn = defn

    def begin_step(self, game: EscapeGame, hint: HintView | None) -> str:
        return position_text(game)

    def observation(self, game: EscapeGame) -> str:
        return game.observation()

    def play(self, game: EscapeGame, action: str) -> StepResult:
        return play_text(game, action)

    def reference_hint(self, index: int, steps_in_help: int) -> HintView:
        ref = self.defn.reference[index]
        return HintView(" -> ".join(ref.path), ref.action, steps_in_help)


class EscapebenchProtocol(Protocol):
    """Our texts and the forgiving parser (``parse_action_answer``)."""

    name = "escapebench"
    version = ESCAPEBENCH_VERSION

    def session(self, defn: GameDefinition) -> EscapebenchSession:
        return EscapebenchSession(defn)

    def extract_action(self, answer: str) -> str:
        parsed = parse_action_answer(answer)
        # No readable call: play the answer itself (its end, if it is huge) so that the engine
        # gives feedback.
        return parsed.action if parsed.action is not None else cut_answer(answer)

    def shown_action(self, played: str, result: StepResult) -> str:
        action = result.action.strip()
        return action if parse_call(action) is not None else NO_ACTION_READ

    def action_system_prompt(self) -> str:
        return prompts.ACTION_SYSTEM_PROMPT

    def history_window(
        self, history: Sequence[HistoryStep], step: int, memory: int
    ) -> list[HistoryStep]:
        """A window that slides in blocks: ``memory`` to ``2 * memory - 1`` steps, only
        appended to between two moves (see :func:`.prompts.window_start`)."""
        return prompts.history_window(history, step, memory, lambda h: h.step)

    def hint_text(self, hint: HintView) -> str:
        return prompts.format_hint(hint.position, hint.action)

    def action_user_prompt(
        self,
        *,
        step: int,
        position: str,
        observation: str,
        history: Sequence[HistoryStep],
        hint: HintView | None,
        extra_blocks: Sequence[str] = (),
        lead_blocks: Sequence[str] = (),
    ) -> str:
        memory = [] if hint is not None else [
            prompts.MemoryStep(h.step + 1, h.position, h.action, h.response) for h in history
        ]
        messages = prompts.action_messages(
            observation=observation,
            position=position,
            history=memory,
            extra_blocks=extra_blocks,
            hint=self.hint_text(hint) if hint is not None else None,
            step=step + 1,
            lead_blocks=lead_blocks,
        )
        return str(messages[1]["content"])

    def record(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version}
