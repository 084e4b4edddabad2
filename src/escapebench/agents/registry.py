"""Agents by name: ``make_agent("escape", model=..., no_foresight=True)``.

Model-free agents are imported only when asked for, so that choosing one never loads the
prompt machinery (and the other way round). ``escape`` is the paper's EscapeAgent as the
``escapebench`` protocol plays it; ``escape-original`` the original release's EscapeAgent,
which plays under the ``original`` protocol only. :func:`played_agent` says which one a name
plays under a protocol (``escape`` under ``original`` is ``escape-original``).
"""

from __future__ import annotations

import inspect
from typing import Any

from escapebench.agents.base import DEFAULT_MEMORY, Agent
from escapebench.llm.base import ChatModel, SamplingSettings

#: Every name :func:`make_agent` accepts.
AGENT_NAMES: tuple[str, ...] = (
    "base", "escape", "random", "explorer", "oracle", "scripted", "escape-original"
)
#: The agents that need a model (in the order messages list them).
MODEL_AGENTS: tuple[str, ...] = ("base", "escape", "escape-original")
#: The agents with the reflection and foresight modules (``--no-reflection``, ``--no-foresight``).
ESCAPE_AGENTS: tuple[str, ...] = ("escape", "escape-original")
#: The agents that play under one protocol only.
ONLY_UNDER: dict[str, str] = {"escape-original": "original"}


class AgentConfigError(ValueError):
    """An agent name or option combination that cannot be built; the message says why."""


def played_agent(name: str, protocol: str) -> tuple[str, str | None]:
    """The agent that plays ``name`` under the protocol called ``protocol``, and a note for
    the user when it is another one (``escape`` under ``original`` is ``escape-original``, the
    original release's EscapeAgent: what produced the paper's Table 5).

    Raises :class:`AgentConfigError` for an agent that cannot play under ``protocol``.
    """
    key = name.strip().lower()
    if key == "escape" and protocol == "original":
        return "escape-original", (
            "--agent escape under the original protocol plays escape-original, the original "
            "release's EscapeAgent (see docs/protocols.md)"
        )
    only = ONLY_UNDER.get(key)
    if only is not None and protocol != only:
        raise AgentConfigError(
            f"the {key!r} agent plays under the {only} protocol only (--protocol {only}), "
            f"not under {protocol!r}"
        )
    return name, None


def make_agent(
    name: str,
    *,
    model: ChatModel | None = None,
    memory: int = DEFAULT_MEMORY,
    seed: int = 0,
    no_reflection: bool = False,
    no_foresight: bool = False,
    sampling: SamplingSettings | None = None,
    **options: Any,
) -> Agent:
    """Build the agent called ``name``.

    ``model``, ``memory`` and ``sampling`` apply to the model-driven agents ("base",
    "escape", "escape-original"); ``no_reflection`` / ``no_foresight`` are the EscapeAgents'
    ablations; ``seed`` is
    the random agent's; other ``options`` go to the agent's constructor (for example
    ``actions=[...]`` for "scripted", ``explore_after=`` for "escape").

    Raises :class:`AgentConfigError` for an unknown name, a missing model, or an option the
    agent does not have.
    """
    key = name.strip().lower()
    if key not in AGENT_NAMES:
        raise AgentConfigError(
            f"unknown agent {name!r}; choose one of: {', '.join(AGENT_NAMES)}"
        )
    if (no_reflection or no_foresight) and key not in ESCAPE_AGENTS:
        flags = [f for f, on in (("--no-reflection", no_reflection),
                                 ("--no-foresight", no_foresight)) if on]
        raise AgentConfigError(
            f"{' and '.join(flags)} only apply to the escape agents, not to {key!r}"
        )
    if key in MODEL_AGENTS and model is None:
        raise AgentConfigError(f"the {key!r} agent needs a model (give --model)")
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = dict(options)
    if key == "base":
        from escapebench.agents.base_agent import BaseAgent as cls
    elif key == "escape":
        from escapebench.agents.escape_agent import EscapeAgent as cls

        kwargs.update(no_reflection=no_reflection, no_foresight=no_foresight)
    elif key == "escape-original":
        from escapebench.agents.escape_original import OriginalEscapeAgent as cls

        kwargs.update(no_reflection=no_reflection, no_foresight=no_foresight)
    elif key == "random":
        from escapebench.agents.random_agent import RandomAgent as cls
    elif key == "explorer":
        from escapebench.agents.explorer import ExplorerAgent as cls
    elif key == "oracle":
        from escapebench.agents.oracle import OracleAgent as cls
    else:
        from escapebench.agents.scripted_agent import ScriptedAgent as cls

        if "actions" not in kwargs:
            raise AgentConfigError("the 'scripted' agent needs actions=[...]")
    if key in MODEL_AGENTS:
        args = (model,)
        kwargs.update(memory=memory, sampling=sampling)
    else:
        args = (seed,) if key == "random" else ()
    try:
        inspect.signature(cls).bind(*args, **kwargs)
    except TypeError as exc:
        raise AgentConfigError(f"agent {key!r}: {exc}") from None
    return cls(*args, **kwargs)
