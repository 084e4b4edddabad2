"""What a learner reads, for the Gymnasium and verifiers environments: one function.

Both environments send every observation through :func:`observation_text`, so that what a
policy or a model reads is decided here alone (the harness's prompt pieces, in the layout of
the escapebench protocol, with its hint instruction while a hint is active).
"""

from __future__ import annotations

from escapebench.agents.base import Hint
from escapebench.bench.episode import position_text
from escapebench.engine.env import EscapeGame
from escapebench.protocols.escapebench import prompts

#: Recorded with results: a change to the layout below changes what learners see.
TEXTS_VERSION = f"integrations-v1+{prompts.PROMPT_VERSION}"


def hint_position(game: EscapeGame, hint: Hint) -> str:
    """Where ``hint`` must be taken, as a path of scenes from the first one."""
    path = game.path_to(hint.scene) or game.path_to(hint.scene, only_visible=False)
    return " -> ".join(path) if path else hint.scene


def observation_text(game: EscapeGame, feedback: str = "", hint: Hint | None = None) -> str:
    """The text of the current state: the last action's feedback (if any), the position and
    the scene's observation, then the hint instruction when a hint is in force."""
    parts = [f"Feedback: {feedback}"] if feedback else []
    parts.append(
        prompts.CURRENT_STEP_TEMPLATE.format(
            position=position_text(game), observation=game.observation()
        )
    )
    if hint is not None:
        parts.append(prompts.format_hint(hint_position(game, hint), hint.action))
    return "\n\n".join(parts)
