"""Run settings are declared once, on the fields of ``RunSettings``: ``escapebench run``'s
options and the Inspect task's parameters are made from them, so their defaults cannot drift."""

from __future__ import annotations

import argparse
import inspect
from dataclasses import fields

import pytest

from escapebench.agents import MODEL_AGENTS as AGENT_MODEL_AGENTS
from escapebench.agents.base_agent import BaseAgent
from escapebench.bench.command_run import add_arguments, settings_from_args
from escapebench.bench.settings import MODEL_AGENTS, RunSettings, run_options
from escapebench.llm.base import SamplingSettings

NOT_OPTIONS = {"command_line", "prices"}


def _parsed(*argv: str) -> RunSettings:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return settings_from_args(parser.parse_args(list(argv)))


def _options(settings: RunSettings) -> dict[str, object]:
    return {f.name: getattr(settings, f.name) for f in fields(settings)
            if f.name not in NOT_OPTIONS}


def test_a_bare_run_command_line_gives_the_default_settings() -> None:
    assert _options(_parsed()) == _options(RunSettings())
    assert {f.name for f, _ in run_options()} == {f.name for f in fields(RunSettings)} - NOT_OPTIONS


def test_every_option_reaches_its_field() -> None:
    s = _parsed("--agent", "base", "--model", "m", "--base-url", "http://127.0.0.1:1/v1",
                "--games", "lab,tutorial", "--difficulty", "hard", "--memory", "3",
                "--max-tokens", "7", "--no-fsync", "--shard", "2/3", "--protocol", "escapebench",
                "--cache", "c.sqlite", "--skip-unplayable")
    assert (s.agent, s.model, s.base_urls, s.games, s.difficulties) == (
        "base", "m", ["http://127.0.0.1:1/v1"], ["lab", "tutorial"], ["hard"])
    assert (s.memory, s.max_tokens, s.fsync, s.shard, s.protocol, str(s.cache)) == (
        3, 7, False, (2, 3), "escapebench", "c.sqlite")
    assert s.skip_unplayable


def test_one_constant_each() -> None:
    assert MODEL_AGENTS is AGENT_MODEL_AGENTS
    assert RunSettings().memory == inspect.signature(BaseAgent).parameters["memory"].default
    assert RunSettings().max_tokens == SamplingSettings().max_tokens


def test_the_inspect_task_takes_the_run_settings_with_their_defaults() -> None:
    pytest.importorskip("inspect_ai")
    from escapebench.integrations.inspect.task import escapebench, run_settings

    params = inspect.signature(escapebench).parameters
    assert {"games", "difficulty", "max_steps", "memory", "max_tokens", "seed"} <= set(params)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())
    # the task's defaults are run's, but for the agent (the task evaluates a model)
    task = run_settings()
    assert _options(task) == _options(RunSettings(agent="base", model="inspect", no_cache=True,
                                                  quiet=True))
    assert params["max_steps"].default == RunSettings().max_steps
    with pytest.raises(TypeError, match="no parameter max_step "):
        run_settings(max_step=3)
