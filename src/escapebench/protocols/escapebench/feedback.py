"""The escapebench protocol's feedback: an :class:`~escapebench.engine.outcome.Outcome` in our
words (the game author's reward and failure texts are shown as written).

:func:`feedback_text` renders one outcome; :class:`FeedbackTexts` keeps the rendering of each
outcome a definition hands out again and again (the engine makes those once), so a step's
feedback is a dictionary lookup.
"""

from __future__ import annotations

from escapebench.engine.outcome import Outcome

_LIST_LIMIT = 40

FORMS = {
    "move": "move(<scene>)",
    "click": "click(<item>)",
    "apply": "apply(<tool>, <item>)",
    "input": "input(<text>, <item>)",
    "craft": "craft(<tool>, <tool>)",
}


def _names(names: tuple[str, ...]) -> str:
    if not names:
        return "none"
    shown = names[:_LIST_LIMIT]
    more = f" (and {len(names) - _LIST_LIMIT} more)" if len(names) > _LIST_LIMIT else ""
    return ", ".join(shown) + more


def _snippet(text: str) -> str:
    snippet = text.strip().replace("\n", " ")
    return snippet[:77] + "..." if len(snippet) > 80 else snippet


def _failed(outcome: Outcome) -> str:
    item = outcome.names[-1] if outcome.names else ""
    base = "That is not accepted." if outcome.verb == "input" else "Nothing happens."
    if outcome.kind == "wrong_tool":
        base = f"The {item} needs a tool, but not this one. {base}"
    elif outcome.kind == "wrong_input":
        base = f"The {item} takes an input, but not this one. {base}"
    return f"{base} {outcome.text}" if outcome.text else base


def _it(name: str) -> str:
    """``them`` for a plural or a pair (``tweezers``, ``frozen peas``), else ``it``."""
    return "them" if name.endswith("s") and not name.endswith(("ss", "us", "is", "ous")) else "it"


def feedback_text(outcome: Outcome) -> str:
    """What the player reads after an action with this outcome."""
    kind, names, text = outcome.kind, outcome.names, outcome.text
    if kind == "moved":
        return f"You went to: {names[0]}."
    if kind == "collected":
        return f"You took the {names[0]} and put {_it(names[0])} in your bag."
    if kind == "triggered":
        return f"It worked. {text}" if text else f"It worked: the {names[0]} changed."
    if kind == "partial":
        return f"That did something to the {names[0]}, but it still seems to need something more."
    if kind in ("wrong_tool", "wrong_input", "no_effect"):
        return _failed(outcome)
    if kind == "not_interactable":
        return f"The {names[0]} does not react to anything any more."
    if kind == "crafted":
        made = f" and made the {names[2]}" if len(names) > 2 else ""
        return f"You combined the {names[0]} with the {names[1]}{made}."
    if kind == "craft_mismatch":
        return "These two tools do not go together." + (f" {text}" if text else "")
    if kind == "craft_same":
        return "You cannot craft a tool with itself."
    if kind == "unknown_scene":
        return (
            f"You cannot move to {text!r} from here. Scenes you can move to: "
            f"{_names(outcome.options)}."
        )
    if kind == "unknown_item":
        return f"There is no {text!r} to interact with here. Items here: {_names(outcome.options)}."
    if kind == "unknown_tool":
        return f"There is no {text!r} in your bag. Tools in your bag: {_names(outcome.options)}."
    if kind == "wrong_arity":
        return f"Wrong number of arguments for {outcome.verb}: write it as {FORMS[outcome.verb]}."
    if kind == "malformed":
        return (
            f"Could not read an action in {_snippet(text)!r}. Answer with one of: "
            + ", ".join(FORMS.values()) + "."
        )
    if kind == "game_over":
        return "The game is over: you have already escaped."
    return text  # broken_game: what is wrong with the game file, as the engine says it


_MEMO_LIMIT = 4096


# Outcomes that hold what a player typed (many, rarely repeated, maybe long): not memoized.
_TYPED = frozenset(("malformed", "unknown_scene", "unknown_item", "unknown_tool", "broken_game"))


class FeedbackTexts:
    """The feedback of outcomes, kept once rendered (bounded; outcomes holding what a player
    typed are rendered afresh)."""

    __slots__ = ("memo",)

    def __init__(self) -> None:
        self.memo: dict[Outcome, str] = {}

    def text(self, outcome: Outcome) -> str:
        """:func:`feedback_text` of ``outcome``, memoized."""
        memo = self.memo
        found = memo.get(outcome)
        if found is None:
            found = feedback_text(outcome)
            if outcome.kind in _TYPED:
                return found
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            memo[outcome] = found
        return found
