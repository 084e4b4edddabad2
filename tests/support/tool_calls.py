"""Actions as the function calls of the ``tools`` action format, for scripted answers."""

from __future__ import annotations

from escapebench.games.loading import load_games

ARGUMENT_NAMES = {
    "move": ["scene"], "click": ["item"], "apply": ["tool", "item"],
    "input": ["text", "item"], "craft": ["tool", "other_tool"],
}


def as_function_call(action: str) -> tuple[str, dict[str, str]]:
    """``apply(flashlight, dark cupboard)`` -> ``("apply", {"tool": ..., "item": ...})``."""
    verb, _, rest = action.partition("(")
    args = [a.strip() for a in rest[:-1].split(",")]
    return verb, dict(zip(ARGUMENT_NAMES[verb], args, strict=True))


def reference_calls(setting: str) -> list[tuple[str, dict[str, str]]]:
    """The reference solution of a setting (moves included) as function calls."""
    [defn] = [d for d in load_games([setting], None) if d.setting == setting]
    return [as_function_call(ref.action) for ref in defn.reference]
