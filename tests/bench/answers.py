"""Deterministic scripted answers for the fake OpenAI server, derived from the request."""

from __future__ import annotations

import hashlib
from typing import Any

from tests.bench.echo_agent import ACTIONS_HEAD, HINT_HEAD


def pick_answer(request: dict[str, Any]) -> str:
    """An answer that depends only on the request's text: follows a hint half of the time,
    otherwise picks one of the valid actions by a hash of the prompt, and sometimes rambles
    without any action (which the harness must turn into feedback, not a crash)."""
    prompt = str(request["messages"][-1]["content"])
    digest = int(hashlib.sha256(prompt.encode("utf-8")).hexdigest(), 16)
    hint = next((ln[len(HINT_HEAD):] for ln in prompt.splitlines() if ln.startswith(HINT_HEAD)),
                None)
    if hint is not None and digest % 2 == 0:
        return f"Thought: the hint says what to do.\nAction: {hint}"
    if digest % 11 == 0:
        return "I am not sure what to do here; let me think about the room first."
    line = next((ln for ln in prompt.splitlines() if ln.startswith(ACTIONS_HEAD)), "")
    actions = [a for a in line[len(ACTIONS_HEAD):].split(" | ") if a]
    if not actions:
        return "move(nowhere)"
    return f"Thought: let me try something.\nAction: {actions[(digest // 11) % len(actions)]}"
