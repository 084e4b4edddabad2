"""Steps per second of the OpenEnv environment: in process, and over HTTP (WebSocket) through
OpenEnv's own client against ``escapebench openenv`` on 127.0.0.1.

    python benchmarks/openenv_http.py [--game lab] [--steps 2000] [--runs 3] [--clients 4]

Every loop plays the same random valid-action policy (a uniform choice among
``observation.valid_actions``, from a seeded generator), resetting at the end of an episode:

* ``environment``: :class:`EscapeBenchEnvironment` called directly (the baseline);
* ``client x1``: :class:`EscapeBenchClient` (OpenEnv's WebSocket client, ``.sync()``) against
  the server in a child process;
* ``client xN``: N clients at once, each its own session, in threads (steps of all counted).

Figures are steps per second, the median of ``--runs`` runs, and the baseline divided by each
(> 1: slower than in process). The number of CPUs is printed with them: the server, the
clients and the game share them.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from escapebench.integrations.openenv import (
    EscapeBenchAction,
    EscapeBenchClient,
    EscapeBenchEnvironment,
    OpenEnvConfig,
)

ROOT = Path(__file__).resolve().parents[1]


def play(env, steps: int, seed: int) -> float:
    """Steps per second of the random valid-action policy on ``env`` (either API)."""
    rng = random.Random(seed)
    obs = env.reset()
    obs = getattr(obs, "observation", obs)
    started = time.perf_counter()
    for _ in range(steps):
        result = env.step(EscapeBenchAction(action=rng.choice(obs.valid_actions)))
        obs = getattr(result, "observation", result)
        if obs.done:
            obs = env.reset()
            obs = getattr(obs, "observation", obs)
    return steps / (time.perf_counter() - started)


def in_process(game: str, steps: int) -> float:
    return play(EscapeBenchEnvironment(OpenEnvConfig(games=(game,))), steps, 0)


def over_http(url: str, steps: int, clients: int) -> float:
    rates: list[float] = []

    def one(k: int) -> None:
        with EscapeBenchClient(base_url=url).sync() as env:
            rates.append(play(env, steps, k))

    threads = [threading.Thread(target=one, args=(k,)) for k in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return clients * steps / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="lab")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    proc = subprocess.Popen(
        [sys.executable, "-m", "escapebench.cli", "openenv", "--games", args.game,
         "--port", "0", "--max-sessions", str(args.clients)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        url = None
        for line in proc.stdout:
            m = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
            if m:
                url = m.group(1)
                break
        if url is None:
            sys.exit("escapebench openenv did not start")
        rows = [
            ("environment (in process)", lambda: in_process(args.game, args.steps)),
            ("client x1 over HTTP", lambda: over_http(url, args.steps, 1)),
            (f"client x{args.clients} over HTTP",
             lambda: over_http(url, args.steps // args.clients, args.clients)),
        ]
        print(f"escapebench OpenEnv on {args.game}, {args.steps} steps, median of {args.runs} "
              f"runs; Python {platform.python_version()}, {os.cpu_count()} CPUs")
        base = None
        for name, fn in rows:
            rate = statistics.median(fn() for _ in range(args.runs))
            base = base or rate
            print(f"| {name} | {rate:,.0f} steps/s | {base / rate:.2f}x |")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
