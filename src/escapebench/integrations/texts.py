"""What a learner reads, for the Gymnasium and verifiers environments: one function.

Both environments send every observation through :func:`environment_text`, so that what a
policy or a model reads is decided by the protocol chosen (``escapebench`` by default, or
``original`` with a checkout of the original release): its position line, its screen, its
feedback and hint, laid out by :meth:`~escapebench.protocols.base.PromptProtocol.environment_text`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from escapebench.agents.base import Hint
from escapebench.engine.env import EscapeGame
from escapebench.protocols import HintView, HistoryStep, PromptProtocol, Session, make_protocol
from escapebench.protocols.escapebench import prompts

#: Recorded with results of the escapebench protocol: a change to its environment layout
#: changes what learners see. (Under another protocol, its label says what was read.)
TEXTS_VERSION = f"integrations-v1+{prompts.PROMPT_VERSION}"


def texts_version(protocol: PromptProtocol) -> str:
    """What a learner's texts under ``protocol`` are, as results record it."""
    return TEXTS_VERSION if protocol.name == "escapebench" else protocol.label


def choose_protocol(
    protocol: str | PromptProtocol | None, games: Sequence[str] = (),
    original_source: str | Path | None = None,
) -> PromptProtocol:
    """A protocol given by name (None: the default for ``games``, as ``run`` picks it) or
    as itself."""
    if isinstance(protocol, PromptProtocol):
        return protocol
    return make_protocol(protocol, games, original_source)


def hint_view(session: Session, hint: Hint | None) -> HintView | None:
    """``hint`` as the protocol shows it (where the reference takes it, and its action)."""
    return None if hint is None else session.reference_hint(hint.index, hint.steps_in_help)


def environment_text(
    protocol: PromptProtocol,
    session: Session,
    game: EscapeGame,
    *,
    step: int,
    last: HistoryStep | None = None,
    hint: Hint | None = None,
) -> str:
    """The text of the current state under ``protocol``: what the last step did, the
    position and the screen, then the hint while one is in force."""
    view = hint_view(session, hint)
    position = session.begin_step(game, view)
    return protocol.environment_text(
        step=step, position=position, observation=session.observation(game), last=last,
        hint=view,
    )
