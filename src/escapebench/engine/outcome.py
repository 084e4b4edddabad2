"""What an action did, as data: the kind of outcome and the names involved.

The engine says *what* happened; a protocol (``escapebench.protocols``) says it in words. An
:class:`Outcome` is an immutable value: the engine makes the usual ones once per definition and
hands out the same object step after step, so a protocol may keep its rendering of each.

Kinds, with what ``names``, ``text`` and ``options`` hold:

======================  ===============================  =========================================
kind                    names                            text / options
======================  ===============================  =========================================
``moved``               (scene,)
``collected``           (tool,)                          (a tool picked up, or an item become one)
``triggered``           (item,)                          text: the author's reward ("" for none)
``partial``             (item,)                          (a transition still waits for more)
``wrong_tool``          (tool, item)                     text: the author's failure text
``wrong_input``         (item,)                          text: the author's failure text
``no_effect``           (item,) or (tool, item)          text: the author's failure text
``not_interactable``    (item,)
``crafted``             (tool used, tool crafted into)
``craft_mismatch``      (tool, tool)                     text: a tool's craft refusal or ""
``craft_same``          (tool,)
``unknown_scene``       ()                               text: as written; options: exits here
``unknown_item``        ()                               text: as written; options: items here
``unknown_tool``        ()                               text: as written; options: the bag
``wrong_arity``         ()                               (``verb`` says which form)
``malformed``           ()                               text: the answer as written
``game_over``           ()                               (the game has already ended)
``broken_game``         ()                               text: what is wrong with the game file
======================  ===============================  =========================================

``verb`` is the action's verb (``move``, ``click``, ``apply``, ``input``, ``craft``; "" when no
action could be read).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

OutcomeKind = Literal[
    "moved",
    "collected",
    "triggered",
    "partial",
    "wrong_tool",
    "wrong_input",
    "no_effect",
    "not_interactable",
    "crafted",
    "craft_mismatch",
    "craft_same",
    "unknown_scene",
    "unknown_item",
    "unknown_tool",
    "wrong_arity",
    "malformed",
    "game_over",
    "broken_game",
]

OUTCOME_KINDS: tuple[str, ...] = OutcomeKind.__args__  # type: ignore[attr-defined]


class Outcome(NamedTuple):
    """What one action did, for a protocol to put into words (see the module's table)."""

    kind: OutcomeKind
    verb: str = ""
    names: tuple[str, ...] = ()
    text: str = ""
    options: tuple[str, ...] = ()


GAME_OVER = Outcome("game_over")
