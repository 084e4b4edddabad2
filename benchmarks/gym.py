"""Environment steps per second of the Gymnasium environments against our own engine loop.

    python benchmarks/gym.py [--game lab] [--steps 4000] [--runs 5] [--envs 16] [--json]

Every loop plays the same random valid-action policy (a uniform choice among the well-formed
actions on screen, from a seeded generator) with episodes cut at ``--episode-steps``:

* ``engine x1``: our own loop, the baseline: ``EscapeGame.step``, the observation text, and
  the valid actions from the screen (what a policy over valid actions needs), one game;
* ``gym x1``: ``gymnasium.make(id)`` (with its TimeLimit, order and checker wrappers);
* ``engine xN``: the engine loop over N games in turn;
* ``gym sync xN`` / ``gym async xN``: ``gymnasium.make_vec`` with N environments.

Figures are env steps per second (a vector step of N environments counts N), the median of
``--runs`` runs, and the engine loop's rate divided by the wrapper's (the overhead ratio,
> 1 means slower than the engine loop). The async vector env's figure depends on the free
cores: the number of CPUs is printed with it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable

import gymnasium as gym

import escapebench.gym as eg
from escapebench.agents.screen import candidate_strings, read_screen, screen_actions
from escapebench.engine.env import EscapeGame
from escapebench.integrations.gym import MAX_INPUT_TEXTS, _load
from escapebench.protocols.escapebench.observation import observation_text


def valid_actions(game: EscapeGame, feedback: str) -> list[str]:
    """The same valid actions the Gymnasium environment lists in ``info``."""
    screen = read_screen(game)
    texts = candidate_strings("\n".join([*screen.texts, feedback]))
    return screen_actions(screen, texts[:MAX_INPUT_TEXTS])


def engine_loop(setting: str, n_envs: int, steps: int, episode_steps: int) -> float:
    """Steps per second of the plain engine loop over ``n_envs`` games in turn."""
    defn = _load(setting, None)
    games = [EscapeGame(defn) for _ in range(n_envs)]
    rng = random.Random(0)
    state = [(valid_actions(g, ""), 0) for g in games]
    started = time.perf_counter()
    done = 0
    while done < steps:
        for k, game in enumerate(games):
            actions, taken = state[k]
            result = game.step(rng.choice(actions))
            observation_text(game)
            if game.ended or taken + 1 >= episode_steps:
                game.reset()
                state[k] = (valid_actions(game, ""), 0)
            else:
                state[k] = (valid_actions(game, result.feedback), taken + 1)
        done += n_envs
    return done / (time.perf_counter() - started)


def gym_single(setting: str, steps: int, episode_steps: int) -> float:
    env = gym.make(eg.env_id(setting), max_episode_steps=episode_steps)
    rng = random.Random(0)
    _, info = env.reset(seed=0)
    started = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, info = env.step(rng.choice(info["valid_actions"]))
        if terminated or truncated:
            _, info = env.reset()
    rate = steps / (time.perf_counter() - started)
    env.close()
    return rate


def gym_vector(setting: str, n_envs: int, steps: int, episode_steps: int, mode: str) -> float:
    envs = gym.make_vec(
        eg.env_id(setting),
        num_envs=n_envs,
        vectorization_mode=mode,
        max_episode_steps=episode_steps,
    )
    rng = random.Random(0)
    _, info = envs.reset(seed=0)
    vector_steps = max(1, steps // n_envs)
    started = time.perf_counter()
    for _ in range(vector_steps):
        # (an env that has just ended resets on this step whatever the action)
        actions = [rng.choice(v) if len(v) else "click(nothing)" for v in info["valid_actions"]]
        _, _, _, _, info = envs.step(actions)
    rate = vector_steps * n_envs / (time.perf_counter() - started)
    envs.close()
    return rate


def median_rate(fn: Callable[[], float], runs: int) -> float:
    return statistics.median(fn() for _ in range(runs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="lab", help="built-in setting (default: lab)")
    parser.add_argument("--steps", type=int, default=4000, help="env steps per run")
    parser.add_argument(
        "--episode-steps", type=int, default=200, help="steps before an episode is cut and reset"
    )
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--envs", type=int, default=16, help="environments of the vector runs")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    s, n, steps, ep = args.game, args.envs, args.steps, args.episode_steps

    figures: dict[str, float] = {}
    figures["engine_x1"] = median_rate(lambda: engine_loop(s, 1, steps, ep), args.runs)
    figures["gym_x1"] = median_rate(lambda: gym_single(s, steps, ep), args.runs)
    figures[f"engine_x{n}"] = median_rate(lambda: engine_loop(s, n, steps, ep), args.runs)
    figures[f"gym_sync_x{n}"] = median_rate(lambda: gym_vector(s, n, steps, ep, "sync"), args.runs)
    figures[f"gym_async_x{n}"] = median_rate(
        lambda: gym_vector(s, n, steps, ep, "async"), args.runs
    )
    ratios = {
        "gym_x1": figures["engine_x1"] / figures["gym_x1"],
        f"gym_sync_x{n}": figures[f"engine_x{n}"] / figures[f"gym_sync_x{n}"],
        f"gym_async_x{n}": figures[f"engine_x{n}"] / figures[f"gym_async_x{n}"],
    }
    setup = {
        "setting": s,
        "steps_per_run": steps,
        "episode_steps": ep,
        "runs": args.runs,
        "envs": n,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "gymnasium": gym.__version__,
    }
    if args.json:
        print(json.dumps({"setup": setup, "steps_per_s": figures, "overhead": ratios}))
        return 0
    print(
        f"setting {s}, random valid actions, episodes cut at {ep} steps, {steps} env steps "
        f"per run, median of {args.runs} runs; {os.cpu_count()} CPUs, Python "
        f"{setup['python']}, gymnasium {setup['gymnasium']}"
    )
    print(f"{'loop':<18}{'env steps/s':>14}{'engine / this':>16}")
    for name, rate in figures.items():
        ratio = ratios.get(name)
        shown = f"{ratio:>15.2f}x" if ratio is not None else f"{'(baseline)':>16}"
        print(f"{name.replace('_', ' '):<18}{rate:>14,.0f}{shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
