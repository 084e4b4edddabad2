"""Deterministic scripted answers for the fake OpenAI server, derived from the request only.

The answer depends on nothing but the request's text (no counters, no randomness), so the same
conversation always gets the same answer: after a retry, a restart, a resume or on another
replica. That is what lets the end-to-end tests demand identical results.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

_ITEM = re.compile(r"^<interactable item> (.+)$", re.MULTILINE)
_SCENE = re.compile(r"^<interactable scene> (.+?): It leads to", re.MULTILINE)
_TOOL = re.compile(r"^<applicable tool> (.+?): ", re.MULTILINE)
_HINT = re.compile(r"next key action is (.+?), taken at ", re.MULTILINE)
# What the harness tests' own EchoAgent shows (tests/bench/echo_agent.py).
_ECHO_ACTIONS = "Valid actions:"
_ECHO_HINT = "Hint: you must now do "


def pick_answer(request: dict[str, Any]) -> str:
    """A player that reads the last observation of the prompt: follows a hint half of the
    time; otherwise clicks, moves, applies a bag tool or types "42", chosen by a hash of the
    prompt; one answer in eleven holds no action at all (the harness must turn that into
    feedback, not a crash)."""
    prompt = str(request["messages"][-1]["content"])
    digest = int(hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:12], 16)
    hints = _HINT.findall(prompt) or [
        line[len(_ECHO_HINT):] for line in prompt.splitlines() if line.startswith(_ECHO_HINT)
    ]
    if hints and digest % 2 == 0:
        return f"- Thought: the hint says what to do.\n- Action: {hints[-1]}"
    if digest % 11 == 0:
        return "I am not sure what to do here; let me think about the room first."
    options = _options(prompt)
    if not options:
        return "- Thought: nothing to do.\n- Action: move(nowhere)"
    choice = options[(digest // 11) % len(options)]
    return f"- Thought: let me try something.\n- Action: {choice}"


def _options(prompt: str) -> list[str]:
    echo = [line for line in prompt.splitlines() if line.startswith(_ECHO_ACTIONS)]
    if echo:
        return [a for a in echo[-1][len(_ECHO_ACTIONS):].split(" | ") if a]
    current = prompt[prompt.rfind("Scene Description") :]
    items = _ITEM.findall(current)
    tools = _TOOL.findall(current[current.find("Tools in Bag") :])
    out = [f"click({name})" for name in items]
    out += [f"move({label})" for label in _SCENE.findall(current)]
    out += [f"apply({tool}, {item})" for tool in tools for item in items]
    out += [f"input(42, {item})" for item in items]
    return out


def stuck_answer(request: dict[str, Any]) -> str:
    """A player that never makes progress on the mini test game (the note does nothing; in
    the hall there is no note at all, which is an error, also no progress)."""
    return "- Thought: the note must matter.\n- Action: click(note)"
