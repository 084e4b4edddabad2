"""The model of a run and the agent of each episode, built from the run's settings.

:func:`build_model` makes the run's chat model (wrapped in the response cache unless disabled);
:func:`make_episode_agent` a fresh agent for one episode, of a built-in agent (through the
registry) or of a user's ``module:function`` factory, with the options of its repeat
(:func:`agent_options`, :func:`sampling_for`). :func:`played_agent_name` is the agent that
plays ``--agent`` under the run's protocol (``escape`` under ``original`` is
``escape-original``). Anything that cannot be built is a
:class:`~escapebench.bench.settings.RunConfigError`.
"""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from escapebench.agents.base import Agent
from escapebench.agents.registry import ESCAPE_AGENTS
from escapebench.bench.settings import (
    MODEL_AGENTS,
    RunConfigError,
    RunSettings,
    default_cache_path,
)
from escapebench.llm.base import ChatModel, SamplingSettings


def sampling_for(settings: RunSettings, repeat: int) -> SamplingSettings:
    """Sampling settings of one repeat.

    Repeats get different seeds (``seed + repeat``), so that with a temperature above 0 they
    are different samples and not one cached answer replayed; repeat 0 without ``--seed``
    sends no seed at all.
    """
    seed = None if settings.seed is None and repeat == 0 else (settings.seed or 0) + repeat
    return SamplingSettings(
        temperature=settings.temperature, max_tokens=settings.max_tokens, seed=seed
    )


def played_agent_name(settings: RunSettings) -> tuple[str, str | None]:
    """The agent that plays ``settings.agent`` under the run's protocol (``--protocol``, or
    the default for its games), and a note for the user when it is another one; a user's
    ``module:function`` plays as it is. :class:`RunConfigError` when the agent cannot play
    under that protocol."""
    if ":" in settings.agent:
        return settings.agent, None
    from escapebench.agents.registry import AgentConfigError, played_agent
    from escapebench.catalog import split_specs
    from escapebench.protocols import default_protocol_name

    protocol = settings.protocol or default_protocol_name(
        split_specs(settings.games), settings.original_source
    )
    try:
        name, note = played_agent(settings.agent, protocol)
    except AgentConfigError as exc:
        raise RunConfigError(str(exc)) from None
    if name == "escape-original" and settings.action_format != "text":
        raise RunConfigError(
            f"--action-format {settings.action_format} is not available to escape-original "
            "(the original release's EscapeAgent reads text answers, as the original does)"
        )
    return name, note


def agent_options(settings: RunSettings, repeat: int, agent: str | None = None) -> dict[str, Any]:
    """Keyword options for the agent factory of one repeat (of ``agent``, the agent that plays:
    by default ``settings.agent``)."""
    agent = settings.agent if agent is None else agent
    if agent in MODEL_AGENTS:
        options: dict[str, Any] = {
            "memory": settings.memory,
            "sampling": sampling_for(settings, repeat),
        }
        if agent in ESCAPE_AGENTS:
            options["no_reflection"] = settings.no_reflection
            options["no_foresight"] = settings.no_foresight
        if settings.action_format != "text":
            options["action_format"] = settings.action_format
        return options
    if agent == "random":
        return {"seed": (settings.seed or 0) + repeat}
    if agent in ("explorer", "oracle"):
        return {}
    # A user's factory gets everything that might matter to it.
    return {
        "memory": settings.memory,
        "sampling": sampling_for(settings, repeat),
        "seed": (settings.seed or 0) + repeat,
    }


def agent_factory(name: str) -> Callable[..., Agent]:
    """The factory of a built-in agent (through the registry) or of ``module:function``."""
    if ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            if not module_name or not attr:
                raise ValueError("expected module:function, e.g. mypackage.agents:make_agent")
            module = importlib.import_module(module_name)
            factory = getattr(module, attr)
        except Exception as exc:  # noqa: BLE001 - any failure of the user's module, e.g. a
            # SyntaxError, or a relative name that import_module rejects with TypeError
            raise RunConfigError(
                f"cannot load agent factory {name!r}: {type(exc).__name__}: {exc}"
            ) from None
        return factory  # type: ignore[no-any-return]
    try:
        from escapebench.agents.registry import make_agent
    except ImportError as exc:  # pragma: no cover - the registry ships with the package
        raise RunConfigError(f"the agent registry is not available: {exc}") from None

    def build(*, model: ChatModel | None, **options: Any) -> Agent:
        return make_agent(name, model=model, **options)

    return build


def make_episode_agent(settings: RunSettings, model: ChatModel | None, repeat: int) -> Agent:
    """A fresh agent for one episode: the one that plays ``settings.agent`` under the run's
    protocol (:func:`played_agent_name`)."""
    from escapebench.agents.registry import AgentConfigError

    name, _note = played_agent_name(settings)
    factory = agent_factory(name)
    if not callable(factory):
        raise RunConfigError(f"agent factory {settings.agent!r} is not callable")
    options = agent_options(settings, repeat, name)
    try:
        agent = factory(model=model, **options)
    except AgentConfigError as exc:
        raise RunConfigError(str(exc)) from None
    except TypeError as exc:
        if ":" not in settings.agent:
            raise
        # A user's function that does not take the factory's keywords (os:system, a typo).
        keywords = ", ".join(["model", *options])
        raise RunConfigError(
            f"agent factory {settings.agent!r} cannot be called with the keyword arguments "
            f"{keywords} ({exc}); it must return an Agent (see escapebench.agents.base)"
        ) from None
    if not isinstance(agent, Agent):
        raise RunConfigError(
            f"agent factory {settings.agent!r} returned {type(agent).__name__}, not an Agent"
        )
    return agent


def server_identity(model: ChatModel | None) -> str | None:
    """Which server (or weights) answers ``model``'s calls: its ``cache_identity()``, the one
    the response cache keys on; None for a run without a model or a backend that has none."""
    inner = getattr(model, "inner", model)
    identity = getattr(inner, "cache_identity", None)
    return str(identity()) if callable(identity) else None


def build_model(settings: RunSettings) -> ChatModel | None:
    """The chat model of a run, wrapped in the response cache unless disabled."""
    if not settings.model:
        return None
    from escapebench.llm.cache import ResponseCacheError
    from escapebench.llm.factory import make_model

    cache = None if settings.no_cache else (settings.cache or default_cache_path())
    try:
        if cache is not None:
            Path(cache).parent.mkdir(parents=True, exist_ok=True)
        return make_model(
            settings.model,
            base_urls=settings.base_urls or None,
            api_key_env=settings.api_key_env,
            cache_path=cache,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
            max_in_flight=max(1, settings.concurrency),
        )
    except ValueError as exc:
        raise RunConfigError(str(exc)) from None
    except ResponseCacheError as exc:  # damaged: its one line names the file and the way on
        raise RunConfigError(str(exc)) from None
    except (OSError, sqlite3.Error) as exc:
        # A folder, a file that is not SQLite, a place that cannot be written.
        problem = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise RunConfigError(
            f"--cache {cache}: cannot be the response cache ({problem}); give another file "
            "or --no-cache"
        ) from None
