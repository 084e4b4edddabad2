"""``escapebench estimate``: what a run would cost, before it is played; spends nothing.

It takes the arguments of ``escapebench run`` and prints, per setting and in total, the
episodes, model calls and tokens in and out of two cases:

* **reference**: a model that plays the reference chain. The real agent and protocol play each
  setting with a scripted model that answers the next reference action (as a function call
  with ``--action-format tools``, whose definitions are counted with every call); every prompt
  it would have sent is counted (no request leaves the process);
* **upper bound**: a model that never progresses. The hint system is played with an action
  that does nothing (patience, help steps, the hinted action forced at the end of help, the
  step limit), which gives its exact steps, forced steps and model calls; the tokens of a call
  at each point of the chain are those of the largest reference prompt so far (its history
  window full), and each answer is taken at ``--max-tokens`` (the most a call can return).

Tokens are counted with the model's own tokenizer when one is at hand: the GGUF's
(``--model local`` or ``gguf:PATH``, read with ``llama_cpp`` and ``vocab_only``), or a
Hugging Face ``tokenizer.json`` already on disk for that model name (no download). Otherwise
they are estimated as characters / 4 (rounded up per message, plus 4 tokens of framing each),
and the table says so.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from escapebench.bench.costs import Prices, format_cost, prices_from_args
from escapebench.bench.records import StepRecord
from escapebench.bench.result_tables import short_count
from escapebench.bench.settings import RunConfigError, RunSettings
from escapebench.exit_codes import EXIT_OK, EXIT_USAGE
from escapebench.llm.base import (
    Completion,
    Message,
    SamplingSettings,
    ToolCall,
    ToolSpec,
    estimate_prompt_tokens,
    estimate_tokens,
)

__all__ = ["Estimate", "SettingEstimate", "TokenCounter", "add_arguments", "estimate_run",
           "main", "token_counter"]

FRAMING_TOKENS = 4  # per message (role and separators), as the character estimate counts it
NO_OP_ACTION = "wait()"  # no verb of the engine: an error step, never progress


# ---------------------------------------------------------------------- counting tokens
@dataclass(frozen=True)
class TokenCounter:
    """Counts the tokens of a text; ``how`` says with what (shown under the table)."""

    count: Callable[[str], int]
    how: str
    exact: bool

    def prompt(self, messages: Sequence[Message]) -> int:
        """Tokens of a whole prompt: each message's content plus its framing."""
        if not self.exact:
            return estimate_prompt_tokens(messages)
        return sum(self.count(str(m.get("content", ""))) + FRAMING_TOKENS for m in messages)


CHARACTER_ESTIMATE = TokenCounter(estimate_tokens, "estimated as characters / 4 (no tokenizer "
                                  "of this model at hand)", exact=False)


def _gguf_counter(path: Path) -> TokenCounter | None:
    try:
        from llama_cpp import Llama
    except ImportError:
        return None
    try:
        llm = Llama(model_path=str(path), vocab_only=True, verbose=False)
    except Exception:  # a file llama.cpp cannot read: fall back to the estimate
        return None

    @functools.lru_cache(maxsize=4096)  # the system prompt and answers repeat
    def count(text: str) -> int:
        return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    return TokenCounter(count, f"counted with the tokenizer of {path.name}", exact=True)


def _hf_tokenizer_file(model: str) -> Path | None:
    """A ``tokenizer.json`` of ``model`` in the Hugging Face cache (never downloaded)."""
    if "/" not in model:
        return None
    home = Path(os.environ.get("HF_HOME") or Path.home() / ".cache" / "huggingface")
    hub = Path(os.environ.get("HF_HUB_CACHE") or home / "hub")
    repo = hub / ("models--" + model.replace("/", "--"))
    found = sorted(repo.glob("snapshots/*/tokenizer.json")) if repo.is_dir() else []
    return found[-1] if found else None


def token_counter(model: str | None) -> TokenCounter:
    """The best token counter at hand for ``model`` (the character estimate without one)."""
    if not model:
        return CHARACTER_ESTIMATE
    if model == "local" or model.startswith("gguf:"):
        try:
            if model == "local":
                from escapebench.llm.local import find_smollm2_gguf

                path = find_smollm2_gguf()
            else:
                path = Path(model[len("gguf:"):])
        except Exception:
            return CHARACTER_ESTIMATE
        return _gguf_counter(path) or CHARACTER_ESTIMATE
    file = _hf_tokenizer_file(model)
    if file is not None:
        try:
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(file))
        except Exception:
            return CHARACTER_ESTIMATE
        return TokenCounter(lambda t: len(tok.encode(t, add_special_tokens=False).ids),
                            f"counted with the Hugging Face tokenizer of {model} (on disk)",
                            exact=True)
    return CHARACTER_ESTIMATE


# ---------------------------------------------------------------------- the reference model
class _ReferenceModel:
    """A scripted model that answers every call with the next reference action and counts
    the tokens of what it was sent. Nothing leaves the process."""

    backend = "estimate"

    def __init__(self, name: str, counter: TokenCounter) -> None:
        self.name = name
        self.counter = counter
        self.action = ""

    async def complete(self, messages: Sequence[Message], settings: SamplingSettings
                       ) -> Completion:
        text = f"Thought: this is the next step of the solution.\nAction: {self.action}"
        calls = _as_tool_call(self.action, settings.tools)
        if calls:  # --action-format tools: the action as a function call
            text = "Thought: this is the next step of the solution."
        shown = text + "".join(c.name + c.arguments for c in calls)
        tokens_out = self.counter.count(shown) if self.counter.exact else estimate_tokens(shown)
        tokens_in = self.counter.prompt(messages)
        if settings.tools:  # the function definitions are sent with every call
            schema = json.dumps([t.openai_tool() for t in settings.tools])
            tokens_in += self.counter.count(schema)
        return Completion(text=text, tokens_in=tokens_in, tokens_out=tokens_out,
                          model=self.name, tool_calls=calls)


def _as_tool_call(action: str, tools: Sequence[ToolSpec]) -> tuple[ToolCall, ...]:
    """``click(box)`` as a call of the offered function ``click`` (none when not offered)."""
    verb, _, rest = action.partition("(")
    spec = next((t for t in tools if t.name == verb.strip().lower()), None)
    if spec is None:
        return ()
    values = [v.strip() for v in rest.rstrip().removesuffix(")").split(",", len(spec.params) - 1)]
    arguments = {p.name: v for p, v in zip(spec.params, values, strict=False)}
    return (ToolCall(spec.name, json.dumps(arguments)),)


# ---------------------------------------------------------------------- estimates
@dataclass
class Case:
    """Calls and tokens of one setting's episodes in one case (all repeats)."""

    calls: int = 0
    steps: int = 0
    tokens_in: int = 0
    tokens_out: int = 0

    def add(self, other: Case) -> None:
        self.calls += other.calls
        self.steps += other.steps
        self.tokens_in += other.tokens_in
        self.tokens_out += other.tokens_out

    def cost(self, prices: Prices) -> float:
        """USD at ``prices`` (no prefix-cache discount: what a server without one charges)."""
        return prices.cost(self.tokens_in, 0, self.tokens_out)


@dataclass
class SettingEstimate:
    """Both cases for one setting."""

    setting: str
    episodes: int
    reference: Case
    upper: Case


@dataclass
class Estimate:
    """Per setting and in total, with how tokens were counted."""

    settings: list[SettingEstimate]
    counter: str
    exact: bool
    needs_model: bool = True
    seconds: float = 0.0
    total_reference: Case = field(default_factory=Case)
    total_upper: Case = field(default_factory=Case)
    episodes: int = 0


def _never_progress(defn: Any, spec: Any, effects: Any, sizes: list[int],
                    calls_per_step: float, max_tokens: int) -> Case:
    """Play the hint system with an action that does nothing: the steps, forced steps and
    calls of a model that never progresses; each call priced at the largest reference
    prompt seen up to its point of the chain."""
    from escapebench.agents.base import Decision
    from escapebench.bench.loop import EscapeEnv, HintSystem, StepLimit
    from escapebench.protocols.escapebench import EscapebenchProtocol

    env = HintSystem(StepLimit(EscapeEnv(defn, EscapebenchProtocol()), spec.max_steps),
                     spec.hints, effects=effects)
    running_max = [max(sizes[: i + 1] or [0]) for i in range(max(len(sizes), 1))]
    case = Case()
    model_steps = 0
    tokens_in = 0.0
    while not env.ended:
        forced = env.turn.forced
        if forced is None:
            model_steps += 1
            stage = min(env.policy.pointer, len(running_max) - 1)
            tokens_in += running_max[stage] * calls_per_step
        env.step_now(Decision(forced or NO_OP_ACTION))
        case.steps += 1
    case.calls = round(model_steps * calls_per_step)
    case.tokens_in = round(tokens_in)
    case.tokens_out = case.calls * max_tokens
    return case


async def _reference_play(settings: RunSettings, plan: Any, spec: Any, counter: TokenCounter,
                          folder: Path) -> tuple[Case, list[int], float]:
    """Play ``spec`` along the reference chain with the real agent and protocol; the
    setting's case, the prompt tokens of each model step and the calls per model step."""
    from escapebench.bench.build import make_episode_agent
    from escapebench.bench.episode import Episode

    effects = plan.effects[spec.defn.setting]
    model = _ReferenceModel(plan.model_name, counter)
    actions = [e.action for e in effects] or [NO_OP_ACTION]
    model.action = actions[0]
    agent = make_episode_agent(settings, model, spec.repeat)
    sizes: list[int] = []
    calls = [0]

    def on_record(record: StepRecord) -> None:
        step_calls = record.calls
        if step_calls:
            sizes.append(max(c.tokens_in for c in step_calls))
            calls[0] += len(step_calls)
        nxt = record.step + 1
        model.action = actions[min(nxt, len(actions) - 1)]

    # A reference play takes one step per reference action; a few more are allowed for an
    # agent that spends a step otherwise, not the whole step limit.
    short = replace(spec, max_steps=min(spec.max_steps, len(actions) + 10))
    episode = Episode(short, agent, folder, effects=effects, on_record=on_record, fsync=False,
                      protocol=plan.protocol)
    result = await episode.run()
    case = Case(calls=result.model_calls, steps=result.total_steps,
                tokens_in=result.tokens_in, tokens_out=result.tokens_out)
    model_steps = max(len(sizes), 1)
    return case, sizes, calls[0] / model_steps if sizes else 1.0


async def _estimate(settings: RunSettings) -> Estimate:
    from escapebench.bench.build import make_episode_agent
    from escapebench.bench.plan import plan_run
    from escapebench.bench.settings import NO_MODEL

    started = time.perf_counter()
    model_name = settings.model or NO_MODEL
    counter = token_counter(settings.model) if settings.needs_model else CHARACTER_ESTIMATE
    probe = _ReferenceModel(model_name, counter) if settings.needs_model else None
    sample = make_episode_agent(settings, probe, 0)  # type: ignore[arg-type]
    from escapebench.bench.plan import normalized

    plan = plan_run(settings, model_name, normalized(sample.settings()), sample.name)
    by_setting: dict[str, list[Any]] = {}
    for spec in plan.specs:
        by_setting.setdefault(spec.defn.setting, []).append(spec)
    out = Estimate([], counter.how, counter.exact, needs_model=settings.needs_model)
    with tempfile.TemporaryDirectory(prefix="escapebench-estimate-") as tmp:
        for n, (setting, specs) in enumerate(sorted(by_setting.items())):
            spec = specs[0]
            if settings.needs_model:
                ref, sizes, per_step = await _reference_play(
                    settings, plan, spec, counter, Path(tmp) / str(n))
            else:
                ref, sizes, per_step = Case(), [], 0.0
            upper = _never_progress(spec.defn, spec, plan.effects[setting], sizes, per_step,
                                    settings.max_tokens)
            if not settings.needs_model:
                ref = Case(steps=len(plan.effects[setting]))
            k = len(specs)
            ref_all = Case(ref.calls * k, ref.steps * k, ref.tokens_in * k, ref.tokens_out * k)
            up_all = Case(upper.calls * k, upper.steps * k, upper.tokens_in * k,
                          upper.tokens_out * k)
            out.settings.append(SettingEstimate(setting, k, ref_all, up_all))
            out.total_reference.add(ref_all)
            out.total_upper.add(up_all)
            out.episodes += k
    out.seconds = time.perf_counter() - started
    return out


def estimate_run(settings: RunSettings) -> Estimate:
    """The estimate of the run ``settings`` describe (nothing is played against a model,
    nothing is written outside a temporary folder)."""
    settings.validate()
    return asyncio.run(_estimate(settings))


# ---------------------------------------------------------------------- output
def format_estimate(est: Estimate, prices: Prices | None) -> str:
    """The table: per setting and in total, both cases (and the cost range when priced)."""
    headers = ["Setting", "Episodes", "Calls (ref)", "In (ref)", "Out (ref)",
               "Calls (max)", "Steps (max)", "In (max)", "Out (max)"]
    if prices is not None:
        headers += ["Cost (ref)", "Cost (max)"]

    def cells(name: str, episodes: int, ref: Case, up: Case) -> list[str]:
        row = [name, str(episodes), short_count(ref.calls), short_count(ref.tokens_in),
               short_count(ref.tokens_out), short_count(up.calls), short_count(up.steps),
               short_count(up.tokens_in), short_count(up.tokens_out)]
        if prices is not None:
            row += [format_cost(ref.cost(prices)), format_cost(up.cost(prices))]
        return row

    rows = [headers] + [cells(s.setting, s.episodes, s.reference, s.upper)
                        for s in est.settings]
    rows.append(cells("total", est.episodes, est.total_reference, est.total_upper))
    widths = [max(len(r[i]) for r in rows) for i in range(len(headers))]
    lines = []
    for n, r in enumerate(rows):
        if n == len(rows) - 1:
            lines.append("  ".join("-" * w for w in widths))
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    notes = [
        "ref: a model that plays the reference chain; max: the upper bound of a model that "
        "never progresses (hints after --patience steps, the hinted action played for it "
        "after --help-steps, up to --max-steps; every answer at --max-tokens).",
        f"Tokens {est.counter}." if est.needs_model else
        "This agent calls no model: its steps cost nothing (steps shown for the upper bound).",
    ]
    if prices is not None:
        ref, up = est.total_reference.cost(prices), est.total_upper.cost(prices)
        notes.append(f"Cost between {format_cost(ref)} and {format_cost(up)} at "
                     f"{prices.label()} (no prompt-cache discount; nothing was spent).")
    return "\n".join(lines) + "\n" + "\n".join(notes)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``escapebench run`` (the same definitions)."""
    from escapebench.bench.command_run import add_arguments as run_arguments

    run_arguments(parser)
    parser.epilog = ("Spends nothing: no model is called, nothing is sent over the network "
                     "and no result folder is written.")


def main(args: argparse.Namespace) -> int:
    """Print the estimate; user errors are one line."""
    from escapebench.bench.command_run import settings_from_args
    from escapebench.games.loading import GameFileError

    try:
        settings = settings_from_args(args)
        est = estimate_run(settings)
    except (RunConfigError, GameFileError) as exc:
        print(f"escapebench estimate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(format_estimate(est, prices_from_args(args)))
    print(f"(estimated in {est.seconds:.1f}s)", file=sys.stderr)
    return EXIT_OK
