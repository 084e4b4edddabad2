"""The Gymnasium environments: registration, the checker, determinism, rewards, wrappers."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import escapebench.gym as eg  # noqa: E402
from escapebench.cli import main as cli_main  # noqa: E402

MINI_GAME = Path(__file__).parents[1] / "bench" / "mini_game.yaml"
TUTORIAL_SOLUTION = [
    "click(desk drawer)",
    "click(battery)",
    "move(To the shelf)",
    "click(flashlight)",
    "craft(battery, flashlight)",
    "move(Back to the room)",
    "apply(flashlight, dark cupboard)",
    "input(427, door)",
    "click(door)",
]


def random_episode(env, seed: int, steps: int) -> list[tuple]:
    """A random valid-action episode: everything the learner sees, step by step."""
    rng = random.Random(seed)
    obs, info = env.reset(seed=seed)
    seen = [(obs, json.dumps(info, sort_keys=True))]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(rng.choice(info["valid_actions"]))
        seen.append((obs, reward, terminated, truncated, json.dumps(info, sort_keys=True)))
        if terminated or truncated:
            break
    return seen


@pytest.mark.parametrize("env_id", [*eg.builtin_ids(), eg.GENERIC_ID])
def test_check_env_passes_for_every_registered_id(env_id, capsys):
    env = gym.make(env_id)
    check_env(env.unwrapped)  # its "human" render check prints the screen
    env.close()
    assert env_id in gym.registry


def test_one_id_per_builtin_setting_plus_the_generic_one():
    ids = eg.builtin_ids()
    assert len(ids) == 21 and "escapebench/lab-hard-v0" in ids
    assert "escapebench/tutorial-v0" in ids and "escapebench/tutorial-easy-v0" in ids
    assert gym.spec("escapebench/lab-hard-v0").max_episode_steps == 4000


def test_module_prefix_registers_in_a_fresh_registry_lookup():
    env = gym.make("escapebench.gym:escapebench/cabin-hard-v0")
    _, info = env.reset(seed=0)
    assert info["setting"] == "cabin-hard"


def test_observation_and_info_show_the_screen_and_the_counters():
    env = gym.make("escapebench/tutorial-v0")
    obs, info = env.reset(seed=0)
    assert "practice room" in obs and "You are now at:" in obs
    assert obs in env.observation_space
    assert info["items"] == ["desk drawer", "dark cupboard", "door"]
    assert info["exits"] == ["To the shelf"] and info["bag"] == []
    assert "click(desk drawer)" in info["valid_actions"]
    assert (info["key_steps"], info["tools_collected"], info["steps"]) == (0, 0, 0)
    obs, _, _, _, info = env.step("click(desk drawer)")
    assert obs.startswith("Feedback: It worked. The drawer slides open.")  # a success says so
    assert "click(battery)" in info["valid_actions"]
    obs, _, _, _, info = env.step("Thought: take it.\nAction: click(battery)")
    assert info["bag"] == ["battery"] and info["action"] == "click(battery)"


def test_a_seeded_episode_is_identical_twice():
    env = gym.make("escapebench/lab-v0", max_episode_steps=300)
    first = random_episode(env, seed=7, steps=300)
    again = random_episode(env, seed=7, steps=300)
    other = gym.make("escapebench/lab-v0", max_episode_steps=300)
    assert first == again == random_episode(other, seed=7, steps=300)
    assert len(first) == 301


def test_the_progress_reward_sums_to_the_progress_made():
    env = gym.make("escapebench/submarine-v0", max_episode_steps=2000)
    rng = random.Random(1)
    _, info = env.reset(seed=1)
    total = 0.0
    for _ in range(2000):
        _, reward, terminated, truncated, info = env.step(rng.choice(info["valid_actions"]))
        total += reward
        if terminated or truncated:
            break
    assert total > 5
    assert total == info["key_steps"] + info["tools_collected"]


def test_the_solution_escapes_terminated_and_earns_every_unit():
    env = gym.make("escapebench/tutorial-v0")
    _, info = env.reset()
    rewards = []
    for action in TUTORIAL_SOLUTION:
        _, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
    assert terminated and not truncated and info["escaped"]
    assert sum(rewards) == info["total_key_steps"] + info["total_tools"] == 7


def test_sparse_reward_and_step_cost():
    env = gym.make("escapebench/tutorial-v0", reward="sparse", step_cost=0.01)
    env.reset()
    rewards = [env.step(a)[1] for a in TUTORIAL_SOLUTION]
    assert rewards[:-1] == [pytest.approx(-0.01)] * 8
    assert rewards[-1] == pytest.approx(0.99)
    with pytest.raises(ValueError, match="reward must be"):
        gym.make("escapebench/tutorial-v0", reward="dense")


def test_truncated_at_max_episode_steps():
    env = gym.make("escapebench/tutorial-v0", max_episode_steps=3)
    env.reset()
    flags = [env.step("click(door)")[2:4] for _ in range(3)]
    assert flags == [(False, False), (False, False), (False, True)]


def test_a_malformed_action_is_feedback_and_stays_in_the_spaces():
    env = gym.make("escapebench/tutorial-v0")
    env.reset()
    obs, reward, terminated, _, info = env.step("open sesame \u2603")
    assert info["error"] and reward == 0 and not terminated
    assert "Could not read an action" in obs
    assert obs in env.observation_space  # the snowman is outside the game's alphabet
    assert env.action_space.sample() in env.action_space


def test_generic_id_takes_a_game_file_and_a_setting(tmp_path):
    env = gym.make(eg.GENERIC_ID, game=str(MINI_GAME), setting="mini-hard")
    _, info = env.reset()
    assert info["setting"] == "mini-hard"
    with pytest.raises(ValueError, match="no setting 'nope'.*mini-easy"):
        gym.make(eg.GENERIC_ID, game=str(MINI_GAME), setting="nope")


def test_generic_id_takes_an_original_data_folder(upstream_dir):
    env = gym.make(eg.GENERIC_ID, game=str(upstream_dir / "data"), setting="game1-1-hard")
    _, info = env.reset(seed=0)
    assert info["setting"] == "game1-1-hard" and info["valid_actions"]
    check_env(env.unwrapped, skip_render_check=True)


def test_async_vector_env_steps_and_resets_itself():
    envs = gym.make_vec(
        "escapebench/tutorial-v0", num_envs=4, vectorization_mode="async", max_episode_steps=20
    )
    try:
        obs, info = envs.reset(seed=3)
        assert len(obs) == 4 and all("practice room" in o for o in obs)
        rng = random.Random(0)
        returns = 0.0
        for _ in range(40):  # past the step limit: the envs reset themselves
            actions = [rng.choice(v) for v in info["valid_actions"]]
            obs, reward, terminated, truncated, info = envs.step(actions)
            returns += float(reward.sum())
        assert returns > 0 and len(obs) == 4
    finally:
        envs.close()


def test_record_steps_writes_a_line_per_reset_and_step(tmp_path):
    path = tmp_path / "steps.jsonl"
    env = eg.RecordSteps(gym.make("escapebench/tutorial-v0"), path)
    env.reset(seed=5)
    for action in TUTORIAL_SOLUTION[:3]:
        env.step(action)
    env.close()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[0]["reset"] and lines[0]["seed"] == 5
    assert [x["played"] for x in lines[1:]] == [
        "click(desk drawer)",
        "click(battery)",
        "move(shelf close-up)",
    ]
    assert [x["reward"] for x in lines[1:]] == [1.0, 1.0, 0.0]
    assert len(env.steps) == 3


def test_hints_are_off_by_default():
    env = gym.make("escapebench/tutorial-v0")
    env.reset()
    for _ in range(60):
        obs, _, _, _, info = env.step("click(door)")
    assert "hint" not in info and "you must follow it" not in obs


def test_hint_wrapper_gives_the_hints_and_steps_of_escapebench_run(tmp_path):
    """The same random actions through ``escapebench run`` and through the wrapper: the same
    hints, the same forced steps, the same scenes, the same progress, step by step."""
    out = tmp_path / "run"
    code = cli_main(
        [
            "run",
            "--agent",
            "random",
            "--seed",
            "4",
            "--games",
            "tutorial",
            "--difficulty",
            "normal",
            "--patience",
            "4",
            "--help-steps",
            "3",
            "--max-steps",
            "120",
            "--out",
            str(out),
            "--quiet",
            "--no-fsync",
            "--no-cache",
        ]
    )
    assert code == 0
    (log,) = out.glob("episodes/*/steps.jsonl")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert any(r["hint"] and r["hint"]["forced"] for r in records)

    env = eg.HintWrapper(
        gym.make("escapebench/tutorial-v0", max_episode_steps=120), patience=4, help_steps=3
    )
    obs, info = env.reset(seed=0)
    for rec in records:
        hint = info["hint"]
        assert info["scene"] == rec["scene"], rec["step"]
        if rec["hint"] is None:
            assert hint is None, rec["step"]
        else:
            assert hint["action"] == rec["hint"]["action"], rec["step"]
            assert hint["forced_next"] == rec["hint"]["forced"], rec["step"]
            assert "you must follow it" in obs
        action = "click(anything)" if hint and hint["forced_next"] else rec["action"]
        obs, _, terminated, _, info = env.step(action)
        assert info["action"] == rec["action"], rec["step"]
        assert info["forced"] == bool(rec["hint"] and rec["hint"]["forced"]), rec["step"]
        assert (info["key_steps"], info["tools_collected"]) == (
            rec["key_steps"],
            rec["tools_collected"],
        ), rec["step"]
    assert terminated == records[-1]["game_end"]
    result = json.loads((log.parent / "result.json").read_text())
    assert info["hints_started"] == result["hints_used"] > 0


def test_record_steps_outside_the_hint_wrapper_logs_hints_and_forced_steps(tmp_path):
    env = eg.RecordSteps(
        eg.HintWrapper(gym.make("escapebench/tutorial-v0"), patience=2, help_steps=1),
        tmp_path / "steps.jsonl",
    )
    env.reset()
    for _ in range(5):
        env.step("click(door)")
    env.close()
    # As the original harness: help after step 2 (no progress since step 0), and with
    # help_steps 1 its first step is the forced one.
    assert [(s["hint"], s["forced"], s["played"]) for s in env.steps] == [
        (None, False, "click(door)"),
        (None, False, "click(door)"),
        (None, False, "click(door)"),
        ("click(desk drawer)", True, "click(desk drawer)"),
        (None, False, "click(door)"),
    ]
