"""escapebench.agents: the players of an episode, with a model or without.

An agent sees one step at a time (:class:`TurnContext`: the game, the observation, the
protocol, a hint) and answers a :class:`Decision`; it knows the engine, the protocol and the
model client, never the harness. Start with :mod:`.base` (the contract) and :mod:`.registry`
(agents by name), then the agent you need:

* :mod:`.base_agent`: BaseAgent, chain of thought over the last steps (paper section 5.1);
* :mod:`.escape_agent`: EscapeAgent, BaseAgent with Reflection (:mod:`.reflection`, a task list)
  and Foresight (:mod:`.foresight`, hypotheses on new tools and tasks);
* :mod:`.escape_original`: EscapeAgent exactly as the original release plays it;
* :mod:`.random_agent`, :mod:`.explorer`, :mod:`.scripted_agent`: agents without a model,
  reading the screen as data (:mod:`.screen`); :mod:`.oracle`, the reference chain played;
* :mod:`.tool_actions`: function calling in place of text actions.

The agent classes are loaded on first use (``escapebench.agents.EscapeAgent``), so that a
model-free run never imports the prompt machinery.
"""

from __future__ import annotations

import importlib
from typing import Any

from escapebench.agents.base import Agent, Decision, Hint, ModelCallRecord, TurnContext
from escapebench.agents.registry import AGENT_NAMES, MODEL_AGENTS, AgentConfigError, make_agent

_AGENT_CLASSES = {
    "BaseAgent": "escapebench.agents.base_agent",
    "EscapeAgent": "escapebench.agents.escape_agent",
    "OriginalEscapeAgent": "escapebench.agents.escape_original",
    "RandomAgent": "escapebench.agents.random_agent",
    "ExplorerAgent": "escapebench.agents.explorer",
    "OracleAgent": "escapebench.agents.oracle",
    "ScriptedAgent": "escapebench.agents.scripted_agent",
}

__all__ = [
    "AGENT_NAMES",
    "MODEL_AGENTS",
    "Agent",
    "AgentConfigError",
    "Decision",
    "Hint",
    "ModelCallRecord",
    "TurnContext",
    "make_agent",
    *_AGENT_CLASSES,
]


def __getattr__(name: str) -> Any:
    if name in _AGENT_CLASSES:
        return getattr(importlib.import_module(_AGENT_CLASSES[name]), name)
    raise AttributeError(f"module 'escapebench.agents' has no attribute {name!r}")
