"""CPU cost of one model call: N calls through ``OpenAIChatModel`` at a given concurrency.

    python benchmarks/model_calls.py [--calls 1800] [--concurrency 36] [--latency 0.05]
                                     [--runs 3] [--prompt-chars 4000] [--json]

``--concurrency`` workers each make ``calls / concurrency`` calls one after the other (as
episodes do) against the test OpenAI-compatible server (``tests/support/fake_openai_server.py``)
in its own process, answering after ``--latency`` seconds. Reported (medians over ``--runs``):
wall time against the ideal ``calls x latency / concurrency``, the speed-up against pure model
time (``calls x latency / wall``), and the CPU time of this process per call, which is what the
client costs: building the request, the SDK and httpx, parsing the answer. On a machine with
few cores that CPU time is what keeps concurrency from scaling.

``--profile FILE`` runs the calls once more under ``cProfile`` and writes the statistics to
FILE (or use ``py-spy record -o out.svg -- python benchmarks/model_calls.py --runs 1``).
Run it from the repository root.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import importlib.util
import json
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.harness import ServerProcess  # noqa: E402

from escapebench.llm.base import Message, SamplingSettings  # noqa: E402
from escapebench.llm.openai_client import OpenAIChatModel  # noqa: E402


def _cpu() -> tuple[float, float]:
    """(user, system) CPU seconds of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def prompt(chars: int, worker: int, call: int) -> list[Message]:
    """A conversation of about ``chars`` characters, different for every call (like a game's
    prompts: a fixed system part and an observation that changes)."""
    system = "You are a player of an escape room game. " * max(1, chars // 160)
    user = f"Step {call} of worker {worker}. " + "You see a locked door and a desk. " * max(
        1, (chars - len(system)) // 34
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def client_class(path: Path | None) -> type[OpenAIChatModel]:
    """``OpenAIChatModel`` from the package, or from another version of its module (for A/B
    comparisons: ``git show REV:src/escapebench/llm/openai_client.py > /tmp/old.py``)."""
    if path is None:
        return OpenAIChatModel
    spec = importlib.util.spec_from_file_location("_client_under_test", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module.OpenAIChatModel  # type: ignore[no-any-return]


async def calls_run(
    base_url: str, calls: int, concurrency: int, prompt_chars: int,
    model_class: type[OpenAIChatModel] = OpenAIChatModel, http_backend: str | None = None,
) -> dict[str, float]:
    """``calls`` calls over ``concurrency`` sequential workers; wall and CPU seconds."""
    options = {"http_backend": http_backend} if http_backend else {}
    model = model_class("fake-model", [base_url], max_in_flight=concurrency, **options)
    settings = SamplingSettings()
    per_worker = calls // concurrency

    async def worker(w: int) -> int:
        retries = 0
        for i in range(per_worker):
            completion = await model.complete(prompt(prompt_chars, w, i), settings)
            retries += completion.retries
        return retries

    (user0, sys0), t0 = _cpu(), time.perf_counter()
    retries = await asyncio.gather(*(worker(w) for w in range(concurrency)))
    wall = time.perf_counter() - t0
    user1, sys1 = _cpu()
    await model.aclose()
    return {"calls": per_worker * concurrency, "wall_s": wall, "cpu_s": user1 + sys1 - user0 - sys0,
            "user_s": user1 - user0, "sys_s": sys1 - sys0, "retries": sum(retries)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1800)
    parser.add_argument("--concurrency", type=int, default=36)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per model call")
    parser.add_argument("--prompt-chars", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", type=Path, help="also write cProfile statistics here")
    parser.add_argument("--http-backend", choices=["auto", "aiohttp", "httpx"],
                        help="the client's http_backend (default: its own default)")
    parser.add_argument("--client", type=Path,
                        help="take OpenAIChatModel from this file (another version of "
                             "src/escapebench/llm/openai_client.py)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    rows = []
    with ServerProcess(args.latency) as server:
        model_class = client_class(args.client)
        run = (server.base_url, args.calls, args.concurrency, args.prompt_chars, model_class,
               args.http_backend)
        # Warm-up: imports, lazily built SDK state.
        asyncio.run(calls_run(server.base_url, args.concurrency, args.concurrency, 100,
                              model_class, args.http_backend))
        for _ in range(args.runs):
            server_cpu = server.cpu_s()
            row = asyncio.run(calls_run(*run))
            row["server_cpu_s"] = server.cpu_s() - server_cpu
            rows.append(row)
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(asyncio.run, calls_run(*run))
            profiler.dump_stats(args.profile)

    def med(key: str) -> float:
        return statistics.median(r[key] for r in rows)

    calls = rows[0]["calls"]
    f = {
        "calls": calls,
        "concurrency": args.concurrency,
        "latency_s": args.latency,
        "prompt_chars": args.prompt_chars,
        "wall_s": med("wall_s"),
        "ideal_wall_s": calls * args.latency / args.concurrency,
        "speedup_vs_serial": calls * args.latency / med("wall_s"),
        "cpu_s": med("cpu_s"),
        "cpu_ms_per_call": 1000 * med("cpu_s") / calls,
        "user_s": med("user_s"),
        "sys_s": med("sys_s"),
        "server_cpu_s": med("server_cpu_s"),
        "retries": med("retries"),
        "runs": args.runs,
    }
    if args.json:
        print(json.dumps(f, indent=1))
        return 0
    print(f"{f['calls']} calls of ~{f['prompt_chars']} characters, concurrency "
          f"{f['concurrency']}, {1000 * f['latency_s']:.0f} ms per call (medians of "
          f"{f['runs']} runs)")
    print(f"  wall time            {f['wall_s']:7.2f} s   (ideal {f['ideal_wall_s']:.2f} s)")
    print(f"  speed-up vs serial   {f['speedup_vs_serial']:7.2f} x  (of {f['concurrency']})")
    print(f"  client CPU           {f['cpu_s']:7.2f} s   = {f['cpu_ms_per_call']:.2f} ms per call "
          f"(user {f['user_s']:.2f} s, system {f['sys_s']:.2f} s)")
    print(f"  server CPU           {f['server_cpu_s']:7.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
