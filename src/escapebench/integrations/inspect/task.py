"""The Inspect AI task: ``inspect eval escapebench/escapebench --model PROVIDER/MODEL``.

One sample per game setting and repeat. The solver plays the episode with our own episode
loop (:class:`escapebench.bench.episode.Episode`: engine, hint system, step records), our
agents (BaseAgent, EscapeAgent and its ablations) and an :class:`InspectChatModel` that sends
every model call of the agent to the model being evaluated. So an Inspect run plays exactly
what ``escapebench run`` plays, and changes to the harness (hint timing, protocols) apply to
both. Each step is written to the transcript (what the model saw, answered, the action played,
the feedback and the hint); the scorer's value holds the paper's metrics of the episode, and
the task's metrics give the Table 3 figures with standard errors.

Task parameters (``-T name=value``) mirror ``escapebench run``'s options: ``games``
(comma-separated: built-in games or settings, ``builtin``, a game file or folder, or a
``gen:tier=T,count=N,seed=S`` spec of generated games, whose own commas stay with it),
``difficulty`` (comma-separated), ``agent`` (base, escape or escape-original), ``protocol``,
``action_format`` (text or tools), ``repeats``, ``max_steps``, ``patience``, ``help_steps``,
``memory``, ``no_reflection``, ``no_foresight``, ``temperature``, ``max_tokens``, ``seed``.
"""

from __future__ import annotations

import inspect as pyinspect
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import span

from escapebench.bench.build import make_episode_agent
from escapebench.bench.episode import Episode, EpisodeSpec
from escapebench.bench.metrics import EpisodeResult
from escapebench.bench.plan import RunPlan, episode_id, plan_run
from escapebench.bench.records import StepRecord
from escapebench.bench.settings import (
    MODEL_AGENTS,
    RunConfigError,
    RunSettings,
    settings_from,
    task_parameters,
    task_value,
)
from escapebench.catalog import split_specs
from escapebench.integrations.inspect.model import InspectChatModel
from escapebench.integrations.inspect.scorer import RESULT_KEY, escape_metrics
from escapebench.llm.base import Completion, Message, SamplingSettings


class _NoModel:
    """Stands in for the evaluated model while the task is built (never called)."""

    name = "inspect"

    async def complete(self, messages: list[Message], settings: SamplingSettings) -> Completion:
        raise RuntimeError("the task's model is only known when a sample is played")


def _split(value: str | list[str] | None) -> list[str] | None:
    if value is None:
        return None
    # (Inspect itself splits a -T value with commas into a list; a gen: spec's parts are
    # joined again.)
    items = split_specs(value if isinstance(value, list) else [value])
    return [v for v in items if v.strip()] or None


def run_settings(**params: Any) -> RunSettings:
    """The :class:`RunSettings` that ``escapebench run`` would get for the same options, from
    the task's parameters by name (:func:`~escapebench.bench.settings.task_parameters`: the
    run settings marked as task parameters, with their help and defaults).

    Raises :class:`RunConfigError` for options that cannot work (an agent that plays without
    a model, an unknown protocol...) and TypeError for a name that is not a parameter.
    """
    defaults = {p.name: p.default for p in task_parameters()}
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise TypeError(f"the escapebench task has no parameter {', '.join(unknown)} "
                        f"(it has: {', '.join(defaults)})")
    values = {k: task_value(k, v) for k, v in {**defaults, **params}.items()}
    values["games"] = _split(values["games"]) or ["builtin"]
    values["difficulty"] = _split(values["difficulty"])
    if values["agent"] not in MODEL_AGENTS:
        raise RunConfigError(
            f"agent {values['agent']!r}: the Inspect task evaluates a model; choose one of "
            f"{', '.join(MODEL_AGENTS)}"
        )
    # no cache of ours: Inspect has its own (--cache-prompt, eval-set retries)
    settings = settings_from(values, model="inspect", no_cache=True, quiet=True)
    settings.validate()
    return settings


def _sample_input(spec: EpisodeSpec) -> str:
    d = spec.defn
    return (
        f"Escape room {d.setting!r} ({d.game}, {d.difficulty}): {len(d.scenes)} scenes, "
        f"{d.total_key_steps} key steps, {d.total_tools} tools. Agent {spec.agent}, repeat "
        f"{spec.repeat}, at most {spec.max_steps} steps."
    )


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in str(text).splitlines()) or "> "


def step_markdown(record: dict[str, Any]) -> str:
    """One step record (``steps.jsonl``) as Markdown for the transcript: the outcome first
    (hint, answer, action, feedback, progress), then the observation the model was shown."""
    n = int(record["step"]) + 1
    action = record.get("action") or "(no action read)"
    outcome = "error" if record.get("error") else ("ok" if record.get("success") else "no effect")
    kind = str(record.get("outcome") or "").replace("_", " ")
    if kind and kind != outcome:  # what the engine reports, e.g. wrong tool, unknown item
        outcome += f": {kind}"
    lines = [
        f"**Step {n}** at *{record.get('position', '')}* ({record.get('mode', '')}): "
        f"`{action}` ({outcome})"
    ]
    hint = record.get("hint")
    if hint:
        forced = " — played for the agent (help period over)" if hint.get("forced") else ""
        lines.append(
            f"**Hint:** `{hint['action']}` in *{hint['scene']}* "
            f"(step {hint.get('steps_in_help', 0) + 1} in help){forced}"
        )
    answer = record.get("raw_answer") or ""
    if answer:
        lines.append("**Answer:**\n" + _quote(answer))
    details = record.get("agent") or {}
    if details.get("tool_call"):
        call = details["tool_call"]
        lines.append(f"**Function call:** `{call['name']}({call['arguments']})`")
    if details.get("tool_call_problem"):
        lines.append(f"**Malformed answer:** {details['tool_call_problem']}")
    lines.append("**Feedback:**\n" + _quote(record.get("feedback", "")))
    progress = (
        f"key steps {record.get('key_steps')}, tools {record.get('tools_collected')}, "
        f"progress {100 * float(record.get('progress', 0)):.0f}%"
    )
    if record.get("progressed"):
        progress += " — progress!"
    if record.get("game_end"):
        progress += " — **escaped**"
    calls = record.get("calls") or []
    if calls:
        progress += f"; model calls: {', '.join(c['kind'] for c in calls)}"
    lines.append(f"*{progress}*")
    lines.append("**Observation:**\n" + _quote(record.get("observation", "")))
    return "\n\n".join(lines)


def _chat_view(state: TaskState, record: dict[str, Any]) -> None:
    """The step as a user/assistant exchange in the sample's messages (the Messages tab)."""
    hint = record.get("hint")
    hint_text = f"\n\nHint: {hint['action']} in {hint['scene']}" if hint else ""
    state.messages.append(
        ChatMessageUser(
            content=f"[Step {int(record['step']) + 1}] Your position: {record.get('position')}"
            f"\n\n{record.get('observation', '')}{hint_text}",
            source="input",
        )
    )
    answer = record.get("raw_answer") or ""
    played = record.get("action") or "(no action read)"
    state.messages.append(
        ChatMessageAssistant(
            content=f"{answer}\n\nAction played: {played}\n\nFeedback: "
            f"{record.get('feedback', '')}".strip(),
            model=state.model.name if state.model else None,
        )
    )


@solver
def play_episode(plan: RunPlan) -> Solver:
    """Play the sample's episode with our harness, the agent calling the evaluated model."""
    specs = {_sample_id(s): s for s in plan.specs}

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        spec = specs[str(state.sample_id)]
        model = InspectChatModel(get_model())
        agent = make_episode_agent(plan.settings, model, spec.repeat)
        spec = replace(
            spec,
            model=model.name,
            episode_id=episode_id(spec.defn.setting, spec.agent, model.name, spec.repeat),
        )
        log = transcript()

        def on_record(step: StepRecord) -> None:
            record = step.to_json()
            log.info(step_markdown(record), source=f"escapebench step {step.step + 1}")
            _chat_view(state, record)

        # The step log and checkpoints live only for the sample: Inspect keeps the transcript,
        # and an Inspect retry plays the sample again from the start.
        with tempfile.TemporaryDirectory(prefix="escapebench-inspect-") as folder:
            episode = Episode(
                spec, agent, Path(folder) / spec.episode_id,
                effects=plan.effects[spec.defn.setting], protocol=plan.protocol,
                on_record=on_record,
                step_scope=lambda step: span(f"step {step + 1}", type="escapebench-step"),
                fsync=False,
            )
            result = await episode.run()
        state.store.set(RESULT_KEY, result.to_dict())
        state.output = ModelOutput.from_content(model.name, summary_text(result))
        return state

    return solve


def summary_text(result: EpisodeResult) -> str:
    """One line about a finished episode."""
    outcome = "escaped" if result.escaped else "did not escape"
    return (
        f"{result.setting}: {outcome} in {result.total_steps} steps with {result.hints_used} "
        f"hints ({result.tool_hints} tool, {result.key_step_hints} key-step); progress "
        f"{100 * result.progress:.0f}%, early-exit progress "
        f"{100 * result.early_exit_progress:.0f}%; {result.model_calls} model calls, "
        f"{result.tokens_in} tokens in, {result.tokens_out} out"
    )


def _sample_id(spec: EpisodeSpec) -> str:
    return f"{spec.defn.setting}__r{spec.repeat}"


def build_plan(settings: RunSettings) -> RunPlan:
    """The run plan of the settings: games loaded and checked, one episode per setting x
    repeat, the hint system's reference effects (the model's name is filled in per sample)."""
    sample_agent = make_episode_agent(settings, _NoModel(), 0)
    return plan_run(settings, "inspect", sample_agent.settings(), sample_agent.name)


def escapebench(**params: Any) -> Task:
    """EscapeBench: room-escape games that measure creative reasoning (ACL 2025).

    One sample per game setting and repeat; see the module docstring for the parameters.
    """
    settings = run_settings(**params)
    plan = build_plan(settings)
    samples = [
        Sample(
            id=_sample_id(spec),
            input=_sample_input(spec),
            target="escape",
            metadata={
                "setting": spec.defn.setting,
                "game": spec.defn.game,
                "difficulty": spec.defn.difficulty,
                "repeat": spec.repeat,
                "agent": spec.agent,
                "action_format": spec.action_format,
                "protocol": spec.protocol,
                "prompt_version": spec.prompt_version,
            },
        )
        for spec in plan.specs
    ]
    return Task(
        dataset=MemoryDataset(samples, name="escapebench"),
        solver=play_episode(plan),
        scorer=escape_metrics(),
        metadata={
            "agent": plan.specs[0].agent if plan.specs else settings.agent,
            "protocol": plan.protocol.label,  # the protocol played (chosen as run does)
            "action_format": settings.action_format,
            "fingerprint": plan.fingerprint,
            "games": plan.games,
        },
        version=1,
    )


# The task's parameters are the run settings marked for it (bench.settings), with their defaults.
escapebench.__signature__ = pyinspect.Signature(  # type: ignore[attr-defined]
    task_parameters(), return_annotation="Task")
escapebench = task(escapebench)
