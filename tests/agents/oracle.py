"""Scripted models for comparing agents on real games.

* :func:`exploring_actions`: the "same scripted exploration" for every agent: a seeded walk
  that clicks what it sees and moves around, follows hints, and never applies, crafts or
  types on its own (those are the creative steps).
* :func:`foresight_oracle`: reflection and foresight answers that know the game: a task for
  every item an action failed on, and for foresight the actions the game's rules accept (the
  right tool; never a code, which takes reading clues). The agent still validates them
  against what it has seen.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from escapebench.engine import Outcome
from escapebench.engine.model import GameDefinition
from escapebench.llm.base import Message
from escapebench.protocols.escapebench.feedback import feedback_text
from tests.agents.conftest import act

AnswerFunction = Callable[[Sequence[Message]], str]

_HINT_ACTION = re.compile(r"The next key action is (.*), taken at ")
_STEP = re.compile(r"^Step (\d+) at ", re.MULTILINE)
_ITEM = re.compile(r"^<interactable item> (.+)$", re.MULTILINE)
_SCENE = re.compile(r"^<interactable scene> (.+?): It leads to ", re.MULTILINE)
_FAILED = tuple(
    feedback_text(Outcome("no_effect", verb, ("it",))) for verb in ("click", "input")
)


def exploring_actions(seed: int = 0) -> AnswerFunction:
    """Action answers: follow the hint if there is one, else a seeded click-or-move."""

    def answer(messages: Sequence[Message]) -> str:
        prompt = messages[-1]["content"]
        hint = _HINT_ACTION.search(prompt)
        if hint:
            return act(hint.group(1), "I follow the hint.")
        steps = [int(n) for n in _STEP.findall(prompt)]
        step = (steps[-1] if steps else 0) + 1
        current = prompt[prompt.index("You are now at:") :]
        current = current[: current.index("Tools in Bag:")]
        options = [f"click({n})" for n in _ITEM.findall(current)]
        options += [f"move({label})" for label in _SCENE.findall(current)]
        if not options:
            return act("click(nothing)")
        return act(random.Random(seed * 100003 + step).choice(options))

    return answer


def _field(prompt: str, pattern: str) -> str:
    m = re.search(pattern, prompt)
    return m.group(1).strip() if m else ""


def foresight_oracle(defn: GameDefinition) -> dict[str, AnswerFunction]:
    """Reflection and foresight answers that know ``defn``'s rules."""

    def reflection(messages: Sequence[Message]) -> str:
        prompt = messages[-1]["content"]
        action = _field(prompt, r"Action at [^\n]*?: (.*)")
        response = _field(prompt, r"Game's answer: (.*)")
        if not response.startswith(_FAILED):
            return "- Thought: that worked.\n- Action: none()"
        target = action[action.index("(") + 1 : -1].rsplit(",", 1)[-1].strip()
        return f"- Thought: not yet.\n- Action: new(deal with the {target}, {response})"

    def task(messages: Sequence[Message]) -> str:
        target = _field(messages[-1]["content"], r"\(target item: (.*)\)")
        proposals = []
        for item in defn.items:
            if item.name != target:
                continue
            for state in item.states:
                for transition in state.transitions:
                    # the right tool only: codes come from clues, which this oracle cannot read
                    proposals += [
                        f"apply({w.arg}, {target})" for w in transition.waits if w.kind == "apply"
                    ]
        return "- Thought: the rules say so.\n- Actions: " + ", ".join(proposals)

    def tool(messages: Sequence[Message]) -> str:
        name = _field(messages[-1]["content"], r"New tool: (.*)")
        items = {it.name for it in defn.items}
        proposals = []
        for t in defn.tools:
            for state in t.states:
                for other in state.apply_to:
                    if t.name == name:
                        verb = "apply" if other in items else "craft"
                        proposals.append(f"{verb}({name}, {other})")
                    elif other == name:
                        proposals.append(f"craft({t.name}, {name})")
        return "- Thought: the rules say so.\n- Actions: " + ", ".join(proposals)

    return {"reflection": reflection, "foresight_task": task, "foresight_tool": tool}
