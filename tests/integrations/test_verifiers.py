"""The verifiers environment: a rollout through ``vf-eval`` against a real OpenAI-compatible
server on 127.0.0.1 reports the metrics our own harness reports for the same answers.

Needs the ``verifiers`` extra (skipped without it) and ``uv`` (verifiers runs its chat
harness as a uv script; ``pip install uv`` provides it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("verifiers.v1")

from escapebench.cli import main as cli_main  # noqa: E402
from escapebench.integrations import verifiers as ev  # noqa: E402
from tests.support.fake_openai_server import FakeOpenAIServer  # noqa: E402

BIN = Path(sys.executable).parent
# Answers in the paper's format, played in turn (the last repeats): two wasted steps, the
# first two key actions, then stalling on the cactus until the hint system takes over.
ANSWERS = [
    "- Thought: look around.\n- Action: click(door)",
    "- Thought: nothing.\n- Action: move(To the shelf)",
    "- Thought: back.\n- Action: move(Back to the room)",
    "- Thought: the drawer.\n- Action: click(desk drawer)",
    "Thought: a battery!\nAction: click(battery)",
    "I will try the cactus. Action: click(potted cactus)",
]
PATIENCE, HELP_STEPS, MAX_STEPS = 3, 2, 14
COMPARED = (
    "escaped",
    "ended_by",
    "hints_used",
    "total_steps",
    "early_exit_progress",
    "early_exit_units",
    "tool_hints",
    "key_step_hints",
    "progress",
    "key_steps",
    "tools_collected",
    "forced_steps",
    "successful_actions",
    "error_actions",
    "hint_steps",
    "progress_curve",
)


def uv_env() -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "FAKE_KEY": "test-key",
        "OPENAI_API_KEY": "test-key",
    }


@pytest.fixture()
def harness_result(tmp_path, monkeypatch) -> dict:
    """The same answers through ``escapebench run --agent base``."""
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    out = tmp_path / "run"
    with FakeOpenAIServer(answer=ANSWERS) as server:
        code = cli_main(
            [
                "run",
                "--agent",
                "base",
                "--model",
                "fake-model",
                "--base-url",
                server.base_url,
                "--games",
                "tutorial",
                "--difficulty",
                "normal",
                "--patience",
                str(PATIENCE),
                "--help-steps",
                str(HELP_STEPS),
                "--max-steps",
                str(MAX_STEPS),
                "--out",
                str(out),
                "--quiet",
                "--no-fsync",
                "--no-cache",
                "--max-retries",
                "1",
            ]
        )
    assert code == 0
    (result,) = out.glob("episodes/*/result.json")
    return json.loads(result.read_text())


def test_the_taskset_has_one_task_per_setting_with_the_first_observation():
    env = ev.load_environment(["tutorial", "lab"], difficulties=["hard"], max_steps=7)
    tasks = list(env.taskset.load())
    assert [t.data.name for t in tasks] == ["tutorial-hard", "lab-hard"]
    first = tasks[0].data
    assert "You are now at: practice room" in first.prompt
    assert "Action:" in first.system_prompt
    assert first.info["max_steps"] == 7


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("uv", path=str(BIN)) is None and shutil.which("uv") is None,
    reason="verifiers runs its chat harness with uv (pip install uv)",
)
def test_a_vf_eval_rollout_reports_the_metrics_of_our_harness(tmp_path, harness_result):
    out = tmp_path / "vf"
    with FakeOpenAIServer(answer=ANSWERS) as server:
        proc = subprocess.run(
            [
                str(BIN / "vf-eval"),
                ev.TASKSET_ID,
                "-m",
                "fake-model",
                "--client.base-url",
                server.base_url,
                "--client.api-key-var",
                "FAKE_KEY",
                "--no-push",
                "--no-rich",
                "-o",
                str(out),
                "--env.player.runtime.type",
                "subprocess",
                "--env.taskset.games",
                "tutorial",
                "--env.taskset.difficulties",
                "normal",
                "--env.taskset.max-steps",
                str(MAX_STEPS),
                "--env.taskset.patience",
                str(PATIENCE),
                "--env.taskset.help-steps",
                str(HELP_STEPS),
            ],
            env=uv_env(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        model_calls = server.request_count
    assert proc.returncode == 0, proc.stderr[-3000:]
    (traces,) = out.glob("*/traces.jsonl")
    (episode,) = [json.loads(line) for line in traces.read_text().splitlines()]
    (trace,) = episode["traces"]
    assert trace["errors"] == []
    ours = trace["info"]["escapebench"]
    assert {k: ours[k] for k in COMPARED} == {k: harness_result[k] for k in COMPARED}
    assert ours["hints_used"] > 0 and ours["forced_steps"] > 0  # the hint system played
    assert model_calls == ours["total_steps"] - ours["forced_steps"]
    assert trace["rewards"]["progress"]["score"] == pytest.approx(harness_result["progress"])
    assert trace["metrics"]["hints_used"] == harness_result["hints_used"]


class _Segment:
    def __init__(self, reply: str) -> None:
        self.last_reply, self.terminated = reply, False


class _Interaction:
    """The verifiers interaction as ModelPlayer uses it: a turn sends a text, a reply returns."""

    def __init__(self, replies: list[str]) -> None:
        self.replies, self.sent = list(replies), []

    async def turn(self, text: str | None = None) -> _Segment:
        self.sent.append(text)
        return _Segment(self.replies.pop(0) if len(self.replies) > 1 else self.replies[0])


def test_the_taskset_and_the_player_speak_the_original_protocol_for_a_checkout(tmp_path):
    import asyncio

    from escapebench.bench.episode import Episode, EpisodeSpec
    from escapebench.engine import EscapeGame
    from escapebench.protocols import make_protocol
    from tests.conftest import UPSTREAM
    from tests.support.original_harness import make_checkout

    if not (UPSTREAM / "original" / "src").is_dir():
        pytest.skip("needs ../shared/upstream (the original code and data)")
    data = str(make_checkout(tmp_path) / "data")
    env = ev.load_environment([data], difficulties=["normal"], max_steps=5)
    first = next(iter(env.taskset.load())).data
    protocol = make_protocol("original", [data])
    assert first.info["protocol"] == "original"  # the default for a checkout's games
    assert first.system_prompt == protocol.action_system_prompt()
    defn = ev._definition(first.info)
    game, session = EscapeGame(defn), protocol.session(defn)
    assert first.prompt == protocol.action_user_prompt(
        step=0, position=session.begin_step(game, None), observation=session.observation(game),
        history=[], hint=None,
    )

    # A few turns of the player under that protocol: its feedback reaches the next turn.
    interaction = _Interaction(["Action: click(nothing at all)", "Action: dance(now)"])
    spec = EpisodeSpec("vf-original", defn, "verifiers", "verifiers", max_steps=3,
                       protocol=protocol.label)
    episode = Episode(spec, ev.ModelPlayer(interaction), tmp_path / "ep", fsync=False,
                      protocol=protocol)
    asyncio.run(episode.run())
    assert interaction.sent[0] is None and len(interaction.sent) == 3
    steps = [json.loads(line) for line in (tmp_path / "ep" / "steps.jsonl").open()]
    assert steps[0]["outcome"] == "unknown_item"
    assert steps[0]["feedback"] and steps[0]["feedback"] in interaction.sent[1]
    ours = make_protocol("escapebench").session(defn).play(
        EscapeGame(defn), "click(nothing at all)"
    )
    assert ours.feedback not in interaction.sent[1]  # the original's words, not ours
