"""The engine's own feedback texts (the game author's reward texts are shown as written)."""

from __future__ import annotations

GAME_OVER = "The game is over: you have already escaped."

_LIST_LIMIT = 40


def _names(names: list[str]) -> str:
    if not names:
        return "none"
    shown = names[:_LIST_LIMIT]
    more = f" (and {len(names) - _LIST_LIMIT} more)" if len(names) > _LIST_LIMIT else ""
    return ", ".join(shown) + more


def not_an_action(text: str) -> str:
    snippet = text.strip().replace("\n", " ")
    if len(snippet) > 80:
        snippet = snippet[:77] + "..."
    return (
        f"Could not read an action in {snippet!r}. Answer with one of: move(<scene>), "
        "click(<item>), apply(<tool>, <item>), input(<text>, <item>), craft(<tool>, <tool>)."
    )


def wrong_arity(verb: str) -> str:
    forms = {
        "move": "move(<scene>)",
        "click": "click(<item>)",
        "apply": "apply(<tool>, <item>)",
        "input": "input(<text>, <item>)",
        "craft": "craft(<tool>, <tool>)",
    }
    return f"Wrong number of arguments for {verb}: write it as {forms[verb]}."


def unknown_scene(text: str, labels: list[str]) -> str:
    return (
        f"You cannot move to {text.strip()!r} from here. Scenes you can move to: {_names(labels)}."
    )


def unknown_item(text: str, names: list[str]) -> str:
    return f"There is no {text.strip()!r} to interact with here. Items here: {_names(names)}."


def unknown_tool(text: str, names: list[str]) -> str:
    return f"There is no {text.strip()!r} in your bag. Tools in your bag: {_names(names)}."


def moved(scene: str) -> str:
    return f"You went to: {scene}."


def collected(tool: str) -> str:
    return f"You took the {tool} and put it in your bag."


def partial(item: str) -> str:
    return f"That did something to the {item}, but it still seems to need something more."


def changed(item: str) -> str:
    return f"It worked: the {item} changed."


def fired(reward: str) -> str:
    """A transition fired: said to be a success, then the author's reward text."""
    return f"It worked. {reward}"


def failed(kind: str, neg_reward: str | None, item: str = "", wants: bool = False) -> str:
    """Nothing happened; ``wants``: the item waits for a tool (apply) or an input (input), but
    not this one (the original says so too: in hard settings the only clue)."""
    base = "Nothing happens." if kind in ("click", "apply") else "That is not accepted."
    if wants and kind == "apply":
        base = f"The {item} needs a tool, but not this one. {base}"
    elif wants and kind == "input":
        base = f"The {item} takes an input, but not this one. {base}"
    return f"{base} {neg_reward}" if neg_reward else base


def crafted(src: str, dst: str) -> str:
    return f"You combined the {src} with the {dst}."


def craft_failed() -> str:
    return "These two tools do not go together."


def craft_same() -> str:
    return "You cannot craft a tool with itself."


def not_interactable(item: str) -> str:
    return f"The {item} does not react to anything any more."
