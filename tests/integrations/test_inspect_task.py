"""The Inspect AI task end to end, with Inspect's own ``mockllm/model`` answering.

The same scripted answers are given to ``escapebench run`` (through a scripted ChatModel) and
to the Inspect task (through mockllm's ``custom_outputs``): the episodes must be the same,
step for step, hint for hint, and the scorer's values must be the run's metrics.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import EvalLog, resolve_sample_attachments  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from escapebench.bench.folders import collect_results  # noqa: E402
from escapebench.bench.metrics import EpisodeResult  # noqa: E402
from escapebench.bench.settings import RunSettings  # noqa: E402
from escapebench.bench.suite import run_suite  # noqa: E402
from escapebench.games.loading import load_games  # noqa: E402
from escapebench.integrations.inspect import escapebench  # noqa: E402
from escapebench.integrations.inspect.scorer import score_value  # noqa: E402
from escapebench.llm.base import Message, estimate_prompt_tokens, estimate_tokens  # noqa: E402
from escapebench.llm.scripted import ScriptedChatModel  # noqa: E402
from escapebench.protocols.escapebench import prompts
from tests.agents.conftest import kind_of  # noqa: E402
from tests.agents.oracle import exploring_actions, foresight_oracle  # noqa: E402
from tests.support.original_harness import make_checkout  # noqa: E402
from tests.support.tool_calls import reference_calls  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = "tutorial,lab-easy"  # the tutorial in its three versions and one built-in setting
OPTIONS: dict[str, Any] = dict(max_steps=90, patience=8, help_steps=3)
# What differs between two plays of the same episode: where it ran and how long it took.
NOT_PLAY = {"episode_id", "model", "wall_time_s"}

TextAnswer = Callable[[Sequence[Message]], str]


def scripted_answers() -> TextAnswer:
    """Answers for every call kind: a seeded exploration that follows hints, and reflection /
    foresight answers that know the game's rules (an answer depends only on the prompt)."""
    oracles = {d.setting: foresight_oracle(d) for d in load_games(GAMES.split(","), None)}
    merged = {
        kind: (lambda messages, kind=kind: _first_useful(oracles, kind, messages))
        for kind in ("reflection", "foresight_task", "foresight_tool")
    }
    explore = exploring_actions(seed=5)

    def answer(messages: Sequence[Message]) -> str:
        kind = kind_of(messages)
        return explore(messages) if kind == "action" else merged[kind](messages)

    return answer


def _first_useful(oracles: dict, kind: str, messages: Sequence[Message]) -> str:
    # The oracle of the game the prompt is about: the one that proposes something.
    answers = [o[kind](messages) for o in oracles.values()]
    return max(answers, key=len)


def mockllm(answer: TextAnswer):
    """Inspect's mockllm/model answering with ``answer``; usage set as our scripted model counts
    it (so token totals are comparable, and mockllm needs no tokenizer download)."""

    def output(input, tools, tool_choice, config) -> ModelOutput:
        messages = [{"role": m.role, "content": m.text} for m in input]
        text = answer(messages)
        out = ModelOutput.from_content("mockllm/model", text)
        out.usage = ModelUsage(
            input_tokens=estimate_prompt_tokens(messages), output_tokens=estimate_tokens(text),
            total_tokens=estimate_prompt_tokens(messages) + estimate_tokens(text),
        )
        return out

    return get_model("mockllm/model", custom_outputs=output, memoize=False)


def run_with_escapebench(tmp: Path, agent: str, answer: TextAnswer) -> dict[str, EpisodeResult]:
    settings = RunSettings(
        agent=agent, model="mockllm/model", games=GAMES.split(","), out=tmp / "run",
        no_cache=True, quiet=True, fsync=False, concurrency=2, **OPTIONS,
    )
    model = ScriptedChatModel(answer, name="mockllm/model")
    outcome = asyncio.run(run_suite(settings, model=model))
    assert outcome.exit_code == 0, outcome.failed
    return {r.setting: r for r in collect_results(outcome.out)}


def run_with_inspect(tmp: Path, agent: str, answer: TextAnswer, **task: Any) -> EvalLog:
    [log] = inspect_eval(
        escapebench(games=GAMES, agent=agent, **OPTIONS, **task),
        model=mockllm(answer), log_dir=str(tmp / "logs"), display="none", max_samples=2,
    )
    assert log.status == "success", log.error
    return log


def figure(log: EvalLog, key: str, metric: str) -> float:
    """The value of ``metric`` over the samples for the score key ``key``."""
    [score] = [s for s in log.results.scores if s.name == key]
    return score.metrics[metric].value


def same_values(a: dict[str, float], b: dict[str, float]) -> bool:
    """Equal score values, NaN (an episode without a tool choice to make) equal to NaN."""
    return a.keys() == b.keys() and all(
        a[k] == b[k] or (math.isnan(a[k]) and math.isnan(b[k])) for k in a)


def comparable(result: EpisodeResult) -> dict[str, Any]:
    return {k: v for k, v in result.to_dict().items() if k not in NOT_PLAY}


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["base", "escape"])
def test_inspect_task_plays_what_escapebench_run_plays(tmp_path: Path, agent: str) -> None:
    answer = scripted_answers()
    ours = run_with_escapebench(tmp_path, agent, answer)
    log = run_with_inspect(tmp_path, agent, answer)
    assert log.samples is not None
    assert sorted(s.id for s in log.samples) == sorted(f"{k}__r0" for k in ours)
    for sample in log.samples:
        setting = sample.metadata["setting"]
        score = next(iter(sample.scores.values()))
        theirs = EpisodeResult.from_dict(score.metadata["result"])
        # The same episode: every hint at the same step, the same steps, calls and tokens.
        assert comparable(theirs) == comparable(ours[setting]), setting
        assert same_values(score.value, score_value(ours[setting]))
        assert theirs.model == "mockllm/model"
    escaped = [r for r in ours.values() if r.escaped]
    assert escaped and len(escaped) < len(ours) or agent == "escape"  # the runs say something
    assert any(r.hints_used for r in ours.values())

    # Table 3 over the samples: means of hints and steps, pooled shares (as the run's table).
    from escapebench.bench.summaries import ALL, aggregate

    [overall] = [s for s in aggregate(ours.values()) if s.difficulty == ALL]
    assert figure(log, "hints_used", "mean") == pytest.approx(overall.hints_used)
    assert figure(log, "total_steps", "mean") == pytest.approx(overall.total_steps)
    assert figure(log, "escaped", "mean") == pytest.approx(overall.escaped / overall.episodes)
    for key in ("key_step_hint_share", "tool_hint_share", "early_exit_progress"):
        assert figure(log, key, "escapebench/table3") == pytest.approx(getattr(overall, key))
    # the tool-choice score: the table's mean and its 95% interval, over the episodes that
    # had a tool choice to make (Inspect leaves the others unscored)
    chose = [r for r in ours.values() if r.tool_choice is not None]
    if chose:
        [among] = [s for s in aggregate(chose) if s.difficulty == ALL]
        assert among.tool_choice == pytest.approx(overall.tool_choice)
        assert figure(log, "tool_choice", "escapebench/table3") == pytest.approx(
            among.tool_choice)
        if "tool_choice" in among.ci:
            low, high = among.ci["tool_choice"]
            interval = ("escapebench/interval95_low", "escapebench/interval95_high")
            assert figure(log, "tool_choice", interval[0]) == pytest.approx(low)
            assert figure(log, "tool_choice", interval[1]) == pytest.approx(high)
    steps = [float(r.total_steps) for r in ours.values()]
    n, mean = len(steps), sum(steps) / len(steps)
    sem = (sum((x - mean) ** 2 for x in steps) / (n - 1)) ** 0.5 / n**0.5
    assert figure(log, "total_steps", "stderr") == pytest.approx(sem)


@pytest.mark.slow
def test_transcript_shows_every_step_and_every_model_call(tmp_path: Path) -> None:
    answer = scripted_answers()
    log = run_with_inspect(tmp_path, "escape", answer)
    sample = resolve_sample_attachments(next(s for s in log.samples if s.id == "tutorial__r0"))
    result = EpisodeResult.from_dict(next(iter(sample.scores.values())).metadata["result"])
    infos = [e for e in sample.events if e.event == "info"]
    steps = [e for e in infos if str(e.source).startswith("escapebench step")]
    assert len(steps) == result.total_steps
    # each step is a span of the transcript holding its model calls and its summary
    spans = [e for e in sample.events if e.event == "span_begin" and e.type == "escapebench-step"]
    assert [e.name for e in spans] == [f"step {k + 1}" for k in range(result.total_steps)]
    assert {e.span_id for e in steps} == {e.id for e in spans}
    first = steps[0].data
    assert "**Step 1**" in first and "**Observation:**" in first and "**Feedback:**" in first
    assert "**Answer:**" in first and "- Action:" in first  # what the model answered
    hinted = [e.data for e in steps if "**Hint:**" in e.data]
    assert len(hinted) >= result.hints_used
    # every model call of the agent (action, reflection, foresight) went to Inspect's model
    model_events = [e for e in sample.events if e.event == "model"]
    assert len(model_events) == result.model_calls
    kinds = {"reflection": 0}
    for e in model_events:
        system = e.input[0].text
        if system == prompts.REFLECTION_SYSTEM_PROMPT:
            kinds["reflection"] += 1
    assert kinds["reflection"] > 0
    assert sample.model_usage["mockllm/model"].input_tokens == result.tokens_in
    # the Messages tab: the game as an exchange, one user and one assistant message a step
    assert len(sample.messages) == 1 + 2 * result.total_steps


def tool_answers(defn_setting: str = "tutorial") -> Callable:
    """mockllm answers with function calls: two broken answers, then the reference chain."""
    plan: list[ModelOutput] = [
        ModelOutput.from_content("mockllm/model", "I think I should open the drawer."),
        ModelOutput.for_tool_call("mockllm/model", "open", {"thing": "drawer"}),
    ]
    for name, arguments in reference_calls(defn_setting):
        plan.append(ModelOutput.for_tool_call(
            "mockllm/model", name, arguments, content=f"Next I call {name}.",
        ))
    seen: list[list[str]] = []

    def output(input, tools, tool_choice, config) -> ModelOutput:
        seen.append([t.name for t in tools])
        out = plan[min(len(seen) - 1, len(plan) - 1)]
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out

    output.seen = seen  # type: ignore[attr-defined]
    return output


@pytest.mark.slow
def test_inspect_task_in_tools_format_escapes_the_tutorial(tmp_path: Path) -> None:
    answers = tool_answers()
    [log] = inspect_eval(
        escapebench(games="tutorial", difficulty="normal", action_format="tools"),
        model=get_model("mockllm/model", custom_outputs=answers, memoize=False),
        log_dir=str(tmp_path), display="none",
    )
    assert log.status == "success", log.error
    [sample] = log.samples
    sample = resolve_sample_attachments(sample)
    score = next(iter(sample.scores.values()))
    result = EpisodeResult.from_dict(score.metadata["result"])
    assert result.escaped and result.total_steps == 2 + 9 and result.hints_used == 0
    assert result.error_actions == 2 and result.action_format == "tools"
    assert result.agent == "base-tools"
    # the five functions were offered with every action call
    assert all(names == ["move", "click", "apply", "input", "craft"] for names in answers.seen)
    steps = [e.data for e in sample.events if e.event == "info"]
    assert "no function call" in steps[0] and "unknown function 'open'" in steps[1]
    assert "**Function call:** `click" in steps[2]


def test_bad_task_parameters_are_clear_errors() -> None:
    from escapebench.bench.settings import RunConfigError

    with pytest.raises(RunConfigError, match="evaluates a model"):
        escapebench(games="tutorial", agent="explorer")
    with pytest.raises(RunConfigError, match="protocol 'nonesuch'"):
        escapebench(games="tutorial", protocol="nonesuch")
    with pytest.raises(RunConfigError, match="action-format"):
        escapebench(games="tutorial", action_format="json")


def test_task_has_one_sample_per_setting_and_repeat() -> None:
    task = escapebench(games="tutorial,lab-easy", repeats=2)
    ids = [s.id for s in task.dataset]
    assert sorted(ids) == sorted(
        f"{s}__r{r}" for s in ("tutorial-easy", "tutorial", "tutorial-hard", "lab-easy")
        for r in (0, 1)
    )
    assert json.dumps(task.metadata["fingerprint"])  # what the results depend on, as JSON
    # the protocol played, chosen as run chooses it (not the empty parameter)
    assert task.metadata["protocol"].startswith("escapebench/escapebench-")
    assert {s.metadata["protocol"] for s in task.dataset} == {task.metadata["protocol"]}


def _entry_point_declared() -> str:
    """The ``inspect_ai`` entry point pyproject.toml declares for this package."""
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "inspect" in project["optional-dependencies"]
    return project["entry-points"]["inspect_ai"]["escapebench"]


def test_entry_point_registers_the_task() -> None:
    import importlib

    from inspect_ai._util.registry import registry_lookup

    module = _entry_point_declared()
    importlib.import_module(module)
    assert registry_lookup("task", "escapebench/escapebench") is not None


@pytest.mark.slow
def test_inspect_eval_command_finds_and_runs_the_task(tmp_path: Path) -> None:
    """``inspect eval escapebench/escapebench`` as a user types it, with Inspect's OpenAI-
    compatible provider against the fake server; the task is found through the entry point."""
    import os
    import subprocess
    from importlib.metadata import entry_points

    from inspect_ai.log import read_eval_log

    from tests.support.fake_openai_server import FakeOpenAIServer

    env = dict(os.environ)
    if not any(e.name == "escapebench" for e in entry_points(group="inspect_ai")):
        # Installed from a checkout without the entry point (metadata is written at install
        # time): declare the same entry point in a throwaway distribution on the path.
        dist = tmp_path / "path" / "escapebench_inspect_entry-0.dist-info"
        dist.mkdir(parents=True)
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: escapebench-inspect-entry\n"
                                       "Version: 0\n")
        (dist / "entry_points.txt").write_text(
            f"[inspect_ai]\nescapebench = {_entry_point_declared()}\n"
        )
        env["PYTHONPATH"] = os.pathsep.join(
            [str(dist.parent), str(ROOT / "src"), str(ROOT), env.get("PYTHONPATH", "")]
        )
    explore = exploring_actions(seed=2)
    with FakeOpenAIServer(answer=lambda body: explore(body["messages"])) as server:
        env.update(FAKE_BASE_URL=server.base_url, FAKE_API_KEY="none")
        done = subprocess.run(
            ["inspect", "eval", "escapebench/escapebench", "--model",
             "openai-api/fake/fake-model", "-T", "games=tutorial", "-T", "agent=base",
             "-T", "max_steps=60", "-T", "patience=5", "--limit", "2", "--log-dir",
             str(tmp_path / "logs"), "--display", "plain"],
            capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
        )
        asked = server.request_count
    assert done.returncode == 0, done.stdout + done.stderr
    assert "escaped" in done.stdout and "total_steps" in done.stdout
    [path] = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success" and len(log.samples) == 2
    results = [EpisodeResult.from_dict(next(iter(s.scores.values())).metadata["result"])
               for s in log.samples]
    assert sum(r.model_calls for r in results) == asked
    assert all(r.model == "openai-api/fake/fake-model" for r in results)


def test_inspect_task_on_an_original_checkout_sends_the_original_harness_messages(
    tmp_path: Path, upstream_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Games of an original checkout are played under the original protocol by default, as
    ``escapebench run`` plays them: the first calls Inspect's model gets are the ones the
    original harness sends (the recordings in ../shared), byte for byte."""
    import gzip

    monkeypatch.syspath_prepend(str(upstream_dir.parent / "tools"))
    from scripted_answers import answer as scripted  # the recordings' scripted model

    root = make_checkout(tmp_path)
    recording = json.loads(
        gzip.decompress((upstream_dir / "prompts" / "base" / "game1-1.json.gz").read_bytes())
    )
    steps = 12
    expected = [c for c in recording["calls"] if c["step"] < steps]

    def answer(messages: Sequence[Message]) -> str:
        return scripted(messages[0]["content"], messages[-1]["content"])

    [log] = inspect_eval(
        escapebench(games=str(root / "data" / "game1-1.yaml"), agent="base", max_steps=steps),
        model=mockllm(answer), log_dir=str(tmp_path / "logs"), display="none",
    )
    assert log.status == "success", log.error
    [sample] = log.samples
    sent = [
        [m.text for m in event.input]
        for event in resolve_sample_attachments(sample).events
        if event.event == "model"
    ]
    assert [s[0] for s in sent] == [c["system"] for c in expected]
    assert [s[-1] for s in sent] == [c["user"] for c in expected]
