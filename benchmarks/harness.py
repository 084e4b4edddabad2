"""Harness speed: concurrency speed-up against a 50 ms model, and the harness's own time per step.

    python benchmarks/harness.py [--concurrency 36] [--latency 0.05] [--max-steps 100]
                                 [--runs 3] [--json]

1. **Speed-up.** A suite of 36 episodes (six built-in games x three difficulties x two repeats,
   BaseAgent through the registry) is played by :func:`escapebench.bench.suite.run_suite`
   against the test OpenAI-compatible server (``tests/support/fake_openai_server.py``, real HTTP
   through the ``openai`` SDK) answering every call after a fixed latency. Episodes are capped
   at ``--max-steps`` so that they all have the same length (a suite of unequal episodes cannot
   reach the full speed-up: the last one runs alone). Reported: the run's wall time, the sum of
   the episodes' own wall times, their ratio (the speed-up; target >= 0.8 x concurrency), and
   the ideal wall time (steps x latency / concurrency).
2. **Harness time per step.** The same games at concurrency 1 with an agent that answers
   instantly without a model, so that all the time is the harness's: hint system, engine
   step, observation, step record and checkpoint (JSON), the checkpoint write and the
   append to steps.jsonl (+ their syncs), metrics.
   Reported with fsync (the default) and without (``--no-fsync``). Target: < 1 ms.

Figures are medians over ``--runs`` runs. Run it from the repository root (it imports the test
server from ``tests/support``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from escapebench.agents.base import Agent, Decision, TurnContext  # noqa: E402
from escapebench.bench.settings import RunSettings  # noqa: E402
from escapebench.bench.suite import run_suite  # noqa: E402
from escapebench.llm.openai_client import OpenAIChatModel  # noqa: E402
from escapebench.llm.scripted import ScriptedChatModel  # noqa: E402
from tests.bench.answers import pick_answer  # noqa: E402
from tests.support.fake_openai_server import FakeOpenAIServer  # noqa: E402

GAMES = ["cabin", "clocktower", "lab", "museum", "ship", "submarine"]
TARGET_SPEEDUP_FRACTION = 0.8
TARGET_HARNESS_MS = 1.0

class InstantAgent(Agent):
    """Answers at once, without a model: clicks the first visible item (or moves)."""

    name = "instant"

    async def decide(self, ctx: TurnContext) -> Decision:
        g = ctx.game
        items = g.visible_items()
        if items and ctx.step % 3:
            return Decision(f"click({g.defn.items[items[ctx.step % len(items)]].name})")
        links = g.open_links()
        return Decision(f"move({links[ctx.step % len(links)][0]})" if links else "click(x)")


def make_instant_agent(**_: Any) -> InstantAgent:
    """Factory for ``--agent benchmarks.harness:make_instant_agent``."""
    return InstantAgent()


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _serve(latency: float, conn: Connection) -> None:
    """Child process: run the test server until the parent says stop; report its CPU time
    on request."""
    with FakeOpenAIServer(answer=pick_answer, latency_s=latency) as server:
        conn.send(server.base_url)
        while conn.recv() == "cpu":
            conn.send(_cpu_s())


class ServerProcess:
    """The test server in its own process, as a real model server would be (in-process,
    its threads would compete with the harness for the interpreter lock)."""

    def __init__(self, latency: float) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(latency, child), daemon=True)

    def __enter__(self) -> ServerProcess:
        self._proc.start()
        self.base_url = str(self._conn.recv())
        return self

    def cpu_s(self) -> float:
        """CPU seconds the server process has used so far."""
        self._conn.send("cpu")
        return float(self._conn.recv())

    def __exit__(self, *exc: object) -> None:
        self._conn.send("stop")
        self._proc.join(timeout=10)


async def speedup_run(base_url: str | None, latency: float, concurrency: int, max_steps: int,
                      out: Path, fsync: bool = True) -> dict[str, float]:
    """One suite; ``base_url=None`` uses an in-process model that only sleeps ``latency``
    (the harness and the agent without any HTTP client)."""
    settings = RunSettings(
        agent="base", model="fake-model", games=list(GAMES), repeats=2,
        max_steps=max_steps, out=out, concurrency=concurrency, no_cache=True, quiet=True,
        fsync=fsync,
    )
    model: Any
    if base_url is None:
        model = ScriptedChatModel(
            lambda messages: pick_answer({"messages": list(messages)}),
            name="fake-model", latency_s=latency,
        )
    else:
        model = OpenAIChatModel("fake-model", [base_url], max_in_flight=concurrency)
    outcome = await run_suite(settings, model=model)
    if outcome.exit_code != 0:
        raise SystemExit(f"benchmark run failed: {outcome.failed or outcome.model_error}")
    results = _results(out)
    calls = sum(r.model_calls for r in results)
    episode_sum = sum(outcome.episode_wall_s.values())
    return {
        "episodes": outcome.planned,
        "model_calls": calls,
        "wall_s": outcome.wall_s,
        "episode_sum_s": episode_sum,
        "speedup": episode_sum / outcome.wall_s,
        "serial_s": calls * latency,
        "speedup_vs_serial": calls * latency / outcome.wall_s,
        "ideal_wall_s": calls * latency / concurrency,
    }


async def harness_run(out: Path, max_steps: int, fsync: bool) -> dict[str, float]:
    settings = RunSettings(
        agent="benchmarks.harness:make_instant_agent", games=list(GAMES),
        difficulties=["normal"], max_steps=max_steps, out=out, concurrency=1,
        quiet=True, fsync=fsync,
    )
    t0 = time.perf_counter()
    outcome = await run_suite(settings)
    wall = time.perf_counter() - t0
    steps = sum(r.total_steps for r in _results(out))
    play = sum(outcome.episode_wall_s.values())
    return {"steps": steps, "ms_per_step": 1000 * play / steps, "run_wall_s": wall}


def _results(out: Path) -> list[Any]:
    from escapebench.bench.folders import collect_results

    return collect_results(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=36)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per model call")
    parser.add_argument("--max-steps", type=int, default=100)
    parser.add_argument("--harness-steps", type=int, default=1000,
                        help="max steps per episode of the harness-time measurement")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="escapebench-harness-"))
    try:
        speed = []
        with ServerProcess(args.latency) as server:
            for i in range(args.runs):
                server_cpu, own_cpu = server.cpu_s(), _cpu_s()
                row = asyncio.run(speedup_run(
                    server.base_url, args.latency, args.concurrency, args.max_steps,
                    work / f"speed{i}"))
                row["server_cpu_s"] = server.cpu_s() - server_cpu
                row["harness_cpu_s"] = _cpu_s() - own_cpu
                speed.append(row)
        in_process = {True: [], False: []}
        for fsync in (True, False):
            for i in range(args.runs):
                in_process[fsync].append(asyncio.run(speedup_run(
                    None, args.latency, args.concurrency, args.max_steps,
                    work / f"inproc{int(fsync)}{i}", fsync=fsync)))
        harness: dict[bool, list[dict[str, float]]] = {True: [], False: []}
        for fsync in (True, False):
            for i in range(args.runs):
                harness[fsync].append(asyncio.run(harness_run(
                    work / f"harness{int(fsync)}{i}", args.harness_steps, fsync)))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def med(rows: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in rows)

    figures = {
        "concurrency": args.concurrency,
        "latency_s": args.latency,
        "episodes": speed[0]["episodes"],
        "model_calls": speed[0]["model_calls"],
        "wall_s": med(speed, "wall_s"),
        "episode_sum_s": med(speed, "episode_sum_s"),
        "speedup": med(speed, "speedup"),
        "serial_s": med(speed, "serial_s"),
        "speedup_vs_serial": med(speed, "speedup_vs_serial"),
        "ideal_wall_s": med(speed, "ideal_wall_s"),
        "speedup_target": TARGET_SPEEDUP_FRACTION * args.concurrency,
        "harness_cpu_s": med(speed, "harness_cpu_s"),
        "server_cpu_s": med(speed, "server_cpu_s"),
        "cpus": os.cpu_count() or 1,
        "in_process_wall_s_fsync": med(in_process[True], "wall_s"),
        "in_process_speedup_fsync": med(in_process[True], "speedup_vs_serial"),
        "in_process_wall_s_no_fsync": med(in_process[False], "wall_s"),
        "in_process_speedup_no_fsync": med(in_process[False], "speedup_vs_serial"),
        "harness_steps": harness[True][0]["steps"],
        "harness_ms_per_step_fsync": med(harness[True], "ms_per_step"),
        "harness_ms_per_step_no_fsync": med(harness[False], "ms_per_step"),
        "harness_target_ms": TARGET_HARNESS_MS,
        "runs": args.runs,
    }
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    f = figures
    print(f"Concurrency speed-up ({f['episodes']} episodes, {f['model_calls']} model calls, "
          f"{1000 * f['latency_s']:.0f} ms per call, concurrency {f['concurrency']}; "
          f"medians of {f['runs']} runs)")
    print(f"  wall time               {f['wall_s']:8.2f} s   (ideal {f['ideal_wall_s']:.2f} s)")
    print(f"  sum of episode times    {f['episode_sum_s']:8.2f} s")
    ok = "ok" if f["speedup"] >= f["speedup_target"] else "BELOW TARGET"
    print(f"  speed-up                {f['speedup']:8.2f} x  (target >= "
          f"{f['speedup_target']:.1f} x: {ok})")
    ok = "ok" if f["speedup_vs_serial"] >= f["speedup_target"] else "BELOW TARGET"
    print(f"  vs calls x latency      {f['speedup_vs_serial']:8.2f} x  ({f['serial_s']:.0f} s "
          f"of pure model time: {ok})")
    print(f"  CPU time                harness process {f['harness_cpu_s']:.1f} s, test server "
          f"process {f['server_cpu_s']:.1f} s ({f['cpus']} cores)")
    print("Same suite, in-process model sleeping the same latency (no HTTP client)")
    for label, key in (("with fsync", "fsync"), ("without fsync", "no_fsync")):
        speedup = f[f"in_process_speedup_{key}"]
        ok = "ok" if speedup >= f["speedup_target"] else "BELOW TARGET"
        print(f"  {label:<23} {f[f'in_process_wall_s_{key}']:8.2f} s   speed-up vs calls x "
              f"latency {speedup:.2f} x ({ok})")
    print(f"Harness time per step, no model ({f['harness_steps']} steps, concurrency 1)")
    for label, key in (("with fsync", "harness_ms_per_step_fsync"),
                       ("without fsync", "harness_ms_per_step_no_fsync")):
        ok = "ok" if f[key] < TARGET_HARNESS_MS else "ABOVE TARGET"
        print(f"  {label:<23} {f[key]:8.3f} ms  (target < {TARGET_HARNESS_MS} ms: {ok})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
