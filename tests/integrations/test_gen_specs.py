"""``gen:tier=T,count=N,seed=S`` works wherever ``--games`` does: ``escapebench check``, the
Inspect task (``inspect eval -T games=gen:...`` as a subprocess against ``escapebench
fake-server``, and Inspect's Python API with mockllm), the verifiers taskset (and a ``vf-eval``
rollout) and the Gym game env. Each generated game is made in memory; the records say which
spec, generator version and text hash it was. (``run`` is tested in tests/generate, ``play`` in
tests/play, ``serve`` in tests/web.)"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from escapebench.catalog import load_games
from escapebench.generate import GENERATOR_VERSION, generate_games
from tests.support.reference_walk import typed_reference

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
GEN = "gen:tier=1,count=1,seed=3"
SETTING = "gen-t1-s3-000"


def env() -> dict[str, str]:
    """A subprocess's environment: this checkout's sources first on the path, unless they are
    the installed package (then the checkout's own ``*.egg-info`` beside them would be a second
    ``escapebench`` distribution, and Inspect finds no task)."""
    out = {"PATH": f"{BIN}{os.pathsep}/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}
    import escapebench

    if Path(escapebench.__file__).resolve().parents[1] != (ROOT / "src").resolve():
        out["PYTHONPATH"] = str(ROOT / "src")
    return out


def normal():  # noqa: ANN201
    return next(d for d in load_games([GEN]) if d.difficulty == "normal")


def reference_answers() -> list[str]:
    """The reference chain as a player types it (walks included), in the paper's format."""
    return [f"Thought: next.\nAction: {'move(' + w + ')' if k == 'move' else w}"
            for k, w in typed_reference(normal())]


def expected_record() -> dict:
    [g] = generate_games(1, 1, 3)
    return {"sha256": g.sha256, "generated": {"spec": GEN, "generator_version": GENERATOR_VERSION}}


def test_check_passes_a_gen_spec_with_no_error_and_no_warning(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "escapebench.cli", "check", GEN], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env=env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 setting(s) checked: all passed (0 error(s), 0 warning(s))" in done.stdout
    assert {f"{SETTING}", f"{SETTING}-easy", f"{SETTING}-hard"} <= set(
        re.findall(r"^(gen-\S+)", done.stdout, re.M))
    assert list(tmp_path.iterdir()) == []  # nothing written: the games are made in memory


# ----------------------------------------------------------------------------- Inspect
@pytest.mark.slow
def test_inspect_eval_takes_a_gen_spec_among_other_games(tmp_path: Path) -> None:
    """``-T games=gen:tier=1,count=1,seed=3,tutorial``: the spec keeps its own commas."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log

    openai_version = tuple(int(x) for x in version("openai").split(".")[:2])
    if openai_version < (3, 4):  # verifiers 0.4.0 pins openai<3: the two extras conflict
        pytest.skip(f"Inspect's OpenAI providers need openai>=3.4, not {version('openai')}")

    from tests.support.fake_openai_server import FakeOpenAIServer

    with FakeOpenAIServer(answer="Action: click(door)") as server:
        done = subprocess.run(
            [str(BIN / "inspect"), "eval", "escapebench/escapebench",
             "--model", "openai-api/fake/fake", "-T", f"games={GEN},tutorial",
             "-T", "difficulty=normal", "-T", "max_steps=4", "--display", "plain",
             "--log-dir", str(tmp_path / "logs")],
            cwd=tmp_path, capture_output=True, text=True, timeout=600,
            env={**env(), "FAKE_BASE_URL": server.base_url, "FAKE_API_KEY": "none"},
        )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    [path] = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success"
    assert sorted(s.id for s in log.samples) == [f"{SETTING}__r0", "tutorial__r0"]
    [rec] = [g for g in log.eval.metadata["games"] if g["setting"] == SETTING]
    assert {k: rec[k] for k in ("sha256", "generated")} == expected_record()


@pytest.mark.slow
def test_the_inspect_api_plays_a_generated_game_to_the_end(tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from escapebench.bench.metrics import EpisodeResult
    from escapebench.integrations.inspect import escapebench

    answers = reference_answers()
    calls: list[int] = []

    def output(input, tools, tool_choice, config) -> ModelOutput:  # noqa: ANN001, A002
        calls.append(1)
        out = ModelOutput.from_content("mockllm/model", answers[min(len(calls), len(answers))
                                                                - 1])
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out

    model = get_model("mockllm/model", custom_outputs=output, memoize=False)
    [log] = inspect_eval(escapebench(games=GEN, difficulty="normal", max_steps=200),
                         model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    [sample] = log.samples
    result = EpisodeResult.from_dict(next(iter(sample.scores.values())).metadata["result"])
    assert (result.setting, result.escaped, result.hints_used) == (SETTING, True, 0)
    assert result.total_steps == len(answers) == len(calls)


# ----------------------------------------------------------------------------- verifiers
def test_the_verifiers_taskset_takes_a_gen_spec() -> None:
    pytest.importorskip("verifiers.v1")
    from escapebench.integrations import verifiers as ev

    environment = ev.load_environment([GEN, "tutorial"], difficulties=["hard"], max_steps=9)
    tasks = list(environment.taskset.load())
    assert [t.data.name for t in tasks] == [f"{SETTING}-hard", "tutorial-hard"]
    first = tasks[0].data
    hard = next(d for d in load_games([GEN]) if d.difficulty == "hard")
    assert f"You are now at: {hard.start_scene}" in first.prompt
    assert first.info["game"] == GEN and first.info["max_steps"] == 9


@pytest.mark.slow
def test_a_vf_eval_rollout_of_a_generated_game_matches_our_harness(tmp_path: Path) -> None:
    pytest.importorskip("verifiers.v1")
    if shutil.which("uv", path=str(BIN)) is None and shutil.which("uv") is None:
        pytest.skip("verifiers runs its chat harness with uv (pip install uv)")
    from escapebench.integrations import verifiers as ev
    from tests.support.fake_openai_server import FakeOpenAIServer

    answers = reference_answers()
    with FakeOpenAIServer(answer=answers) as server:
        done = subprocess.run(
            [sys.executable, "-m", "escapebench.cli", "run", "--agent", "base", "--model",
             "fake-model", "--base-url", server.base_url, "--games", GEN, "--difficulty",
             "normal", "--out", str(tmp_path / "run"), "--quiet", "--no-cache"],
            cwd=tmp_path, capture_output=True, text=True, timeout=600,
            env={**env(), "OPENAI_API_KEY": "k"},
        )
    assert done.returncode == 0, done.stdout + done.stderr
    [ours] = [json.loads(p.read_text()) for p in (tmp_path / "run").glob("episodes/*/result.json")]
    assert ours["escaped"] and ours["total_steps"] == len(answers)
    with FakeOpenAIServer(answer=answers) as server:
        proc = subprocess.run(
            [str(BIN / "vf-eval"), ev.TASKSET_ID, "-m", "fake-model", "--client.base-url",
             server.base_url, "--client.api-key-var", "FAKE_KEY", "--no-push", "--no-rich",
             "-o", str(tmp_path / "vf"), "--env.player.runtime.type", "subprocess",
             "--env.taskset.games", GEN, "--env.taskset.difficulties", "normal"],
            env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
                 "PYTHONPATH": str(ROOT / "src"), "FAKE_KEY": "k", "OPENAI_API_KEY": "k"},
            capture_output=True, text=True, timeout=600, cwd=tmp_path,
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    [traces] = (tmp_path / "vf").glob("*/traces.jsonl")
    [episode] = [json.loads(line) for line in traces.read_text().splitlines()]
    [trace] = episode["traces"]
    theirs = trace["info"]["escapebench"]
    for key in ("setting", "escaped", "total_steps", "hints_used", "progress", "key_steps"):
        assert theirs[key] == ours[key], key


# ----------------------------------------------------------------------------- Gym
def test_the_gym_game_env_plays_a_gen_spec_to_the_end() -> None:
    gym = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    import escapebench.gym  # noqa: F401  (registers the ids)
    from escapebench.integrations.gym import GENERIC_ID

    env_ = gym.make(GENERIC_ID, game=GEN)
    check_env(env_.unwrapped, skip_render_check=True)
    obs, info = env_.reset(seed=0)
    assert info["setting"] == SETTING and f"You are now at: {normal().start_scene}" in obs
    terminated = False
    total = 0.0
    for kind, what in typed_reference(normal()):
        assert not terminated
        obs, reward, terminated, truncated, info = env_.step(
            f"move({what})" if kind == "move" else what)
        total += float(reward)
    assert terminated and not truncated and info["escaped"]
    # the progress reward: one per key step and per tool collected, all of them by the end
    assert info["key_steps"] == info["total_key_steps"] > 0
    assert total == pytest.approx(info["key_steps"] + info["tools_collected"])
    hard = gym.make(GENERIC_ID, game=GEN, setting=f"{SETTING}-hard")
    assert hard.unwrapped.defn.difficulty == "hard"
    env_.close()
    hard.close()
