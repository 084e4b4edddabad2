"""The ``escapebench`` protocol: our own wording in a prefix-stable layout, the forgiving
answer parser, the same information and mechanics as ``original``.

The texts are those of ``.prompts`` (prompts), ``.feedback`` (what a step's outcome is said
as) and ``.observation`` (the screen); docs/protocols.md lists every difference from the
original protocol and its reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from escapebench.engine.actions import cut_answer, extract_call, parse_call
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.engine.outcome import Outcome
from escapebench.protocols.base import (
    HintView,
    HistoryStep,
    Play,
    PromptProtocol,
    Reading,
    Session,
    not_played,
)
from escapebench.protocols.escapebench import prompts
from escapebench.protocols.escapebench.feedback import FeedbackTexts
from escapebench.protocols.escapebench.observation import OBSERVATION_VERSION, observation_text
from escapebench.protocols.escapebench.parsing import parse_action_answer

ESCAPEBENCH_VERSION = f"escapebench-2+{prompts.PROMPT_VERSION}+{OBSERVATION_VERSION}"

NO_ACTION_READ = "(no action could be read from your answer)"
"""Shown as "Your action" for a step whose answer held no readable action."""


def position_text(game: EscapeGame) -> str:
    """The player's position: the shortest path of scenes from the first one."""
    scene = game.scene_name
    path = game.path_to(scene) or game.path_to(scene, only_visible=False) or [scene]
    return " -> ".join(path)


def feedback_texts(defn: GameDefinition) -> FeedbackTexts:
    """The feedback renderings of ``defn``'s outcomes, kept with the definition."""
    texts = defn.caches.get("escapebench feedback")
    if texts is None:
        texts = defn.caches["escapebench feedback"] = FeedbackTexts()
    return texts


def prepare_answer(game: EscapeGame, answer: Reading | str) -> Play:
    """What the engine plays for an answer read before (its call), a canonical call as text,
    or free text holding one (the last one); text without a call is not played: its outcome
    (malformed) is the feedback."""
    if isinstance(answer, Reading):
        call = answer.call
        answer = answer.text
    else:
        call = parse_call(answer) or extract_call(cut_answer(answer))
    if call is None and game.ended:
        return Play(answer, shown="")  # the engine says the game is over
    if call is not None:
        return Play(call)
    malformed = Outcome("malformed", "", (), str(answer))
    return not_played("", malformed, feedback_texts(game.defn).text(malformed))


def render_result(game: EscapeGame, play: Play, result: StepResult) -> StepResult:
    """A step's result with its outcome said in the escapebench protocol's words."""
    action = result.action if play.shown is None else play.shown
    return result._replace(action=action, feedback=feedback_texts(game.defn).text(result.outcome))


def play_text(game: EscapeGame, text: str) -> StepResult:
    """Play a canonical call, or free text holding one, outside a turn loop (benchmarks,
    tests): :meth:`EscapebenchSession.play`."""
    return EscapebenchSession(game.defn).play(game, text)


class EscapebenchSession(Session):
    def __init__(self, defn: GameDefinition) -> None:
        self.defn = defn

    def begin_step(self, game: EscapeGame, hint: HintView | None) -> str:
        return position_text(game)

    def observation(self, game: EscapeGame) -> str:
        return observation_text(game)

    def prepare(self, game: EscapeGame, answer: Reading | str) -> Play:
        return prepare_answer(game, answer)

    def render(self, game: EscapeGame, play: Play, result: StepResult) -> StepResult:
        return render_result(game, play, result)

    def reference_hint(self, index: int, steps_in_help: int) -> HintView:
        ref = self.defn.reference[index]
        return HintView(" -> ".join(ref.path), ref.action, steps_in_help)


class EscapebenchProtocol(PromptProtocol):
    """Our texts and the forgiving parser (``parse_action_answer``)."""

    name = "escapebench"
    version = ESCAPEBENCH_VERSION

    def session(self, defn: GameDefinition) -> EscapebenchSession:
        return EscapebenchSession(defn)

    def read_answer(self, answer: str) -> Reading:
        parsed = parse_action_answer(answer)
        if parsed.call is not None:
            return Reading(parsed.call, str(parsed.call), parsed.thought)
        # No well-formed call: the answer itself (its end, if it is huge) is played, as an
        # action written as the grammar says ("click(a(b)") or for the "no action" feedback.
        text = cut_answer(answer)
        return Reading(parse_call(text), text, parsed.thought)

    def shown_action(self, played: str, result: StepResult) -> str:
        # A step's action is the engine's call when the answer held one, else empty.
        return result.action.strip() or NO_ACTION_READ

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

    def environment_text(
        self,
        *,
        step: int,
        position: str,
        observation: str,
        last: HistoryStep | None,
        hint: HintView | None,
    ) -> str:
        """The last step's feedback (if any), the position and the screen, then the hint
        instruction while a hint is in force: short, as a learner reads one every step."""
        parts = [f"Feedback: {last.response}"] if last is not None and last.response else []
        parts.append(
            prompts.CURRENT_STEP_TEMPLATE.format(position=position, observation=observation)
        )
        if hint is not None:
            parts.append(self.hint_text(hint))
        return "\n\n".join(parts)

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
