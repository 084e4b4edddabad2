"""Hostile inputs against escapebench: tracebacks, hangs and memory, counted (issue 17).

    python benchmarks/hostile.py games   [--count 1000] [--seed 17] [--jobs 2] [--timeout 10]
    python benchmarks/hostile.py answers [--count 10000] [--seed 17] [--timeout 10]
    python benchmarks/hostile.py reading [--runs 5]
    python benchmarks/hostile.py large   [--mib 1] [--seed 25] [--limit 5]

``games``: writes ``--count`` mutated game files (``tests/support/hostile_inputs.py``: aliases,
billion laughs, deep nesting, tags, broken bytes, absurd numbers, oversized files...) and runs
``escapebench check FILE`` and ``escapebench run --games FILE --agent explorer`` on each, every
command in a child forked from a warm parent (so thousands of commands take minutes), with an
address-space limit of 2 GiB as a safety net. Counted per command: tracebacks (in its output,
an exception out of ``main``, or an episode's ``error.txt``), hangs (still running after
``--timeout`` seconds: killed), runs over 500 MB (the child's peak resident memory from
``wait4``); shown too, not a problem: ``run`` refusals that list several problems of a file
on several lines (one line each).

``answers``: ``--count`` hostile model answers (nested calls, comma lists, Unicode digits,
4,301-digit numbers, empty arguments, NUL bytes, lone surrogates, a megabyte of text...), each
read by every answer parser, played by the engine, and answered by the model to EscapeAgent
(for its actions, reflection and foresight calls) and BaseAgent over a few steps of the
tutorial. Counted: exceptions, answers taking more than ``--timeout`` seconds (stopped by an
alarm), and the process's peak memory.

``large``: seeded game files of ``--mib`` MiB (the most a game file may be) in shapes that
stress the checks (unreachable scenes, a chain of scenes, many items, many hidden tools, long
texts), each checked as ``escapebench check`` does; prints the check time per MB. Exit status 1
if one takes longer than ``--limit`` seconds (5).

``reading``: the time to read a 64 KB answer of nested calls and to play the action read
from it, against a 64 KB answer of plain text in the same run (medians of ``--runs``).

Run from the repository root (it imports ``tests/support``). Exit status 1 if any count that
should be zero is not.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import resource
import signal
import statistics
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MEMORY_LIMIT_MB = 500
AS_LIMIT = 2 * 1024**3


# ------------------------------------------------------------------ game files
def _child(args: list[str], out_file: Path) -> None:
    """In a forked child: run one CLI command, its output to ``out_file``; never returns."""
    code = 99
    try:
        resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
        from escapebench.cli import main

        with (
            open(out_file, "w", encoding="utf-8", errors="replace") as f,
            contextlib.redirect_stdout(f),
            contextlib.redirect_stderr(f),
        ):
            try:
                code = main(args)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 2
            except BaseException:  # noqa: BLE001 - what we count
                f.write("\nEXCEPTION OUT OF MAIN\n" + traceback.format_exc())
                code = 99
    finally:
        os._exit(code if isinstance(code, int) else 98)


def _commands(case: Any, work: Path) -> list[tuple[str, list[str]]]:
    out = work / f"run-{case.number:05d}"
    return [
        ("check", ["check", str(case.path)]),
        ("run", ["run", "--games", str(case.path), "--agent", "explorer", "--max-steps", "30",
                 "--difficulty", "normal", "--out", str(out), "--quiet", "--no-fsync",
                 "--no-cache"]),
    ]


def games(args: argparse.Namespace) -> int:
    import escapebench.cli  # noqa: F401 - warm: every child starts with the package imported
    import escapebench.games.validation  # noqa: F401
    from tests.support.hostile_inputs import mutated_game_files

    work = Path(tempfile.mkdtemp(prefix="escapebench-hostile-games-"))
    os.environ["ESCAPEBENCH_GAME_CACHE"] = str(work / "yaml-cache")  # the cache is exercised
    shared = os.environ.get("ESCAPEBENCH_SHARED")
    shared_dir = Path(shared) if shared else Path(__file__).resolve().parents[2] / "shared"
    cases = mutated_game_files(args.count, args.seed, work / "files",
                               shared_dir if shared_dir.is_dir() else None)
    jobs = [(case, verb, argv) for case in cases for verb, argv in _commands(case, work)]
    print(f"{len(cases)} mutated game files in {work}; {len(jobs)} commands, "
          f"{args.jobs} at a time, timeout {args.timeout:g} s", file=sys.stderr)
    results: list[dict[str, Any]] = []
    running: dict[int, tuple[Any, str, Path, float]] = {}
    pending = list(jobs)
    started = time.perf_counter()
    while pending or running:
        while pending and len(running) < args.jobs:
            case, verb, argv = pending.pop(0)
            out_file = case.path.parent / f"{verb}.out"
            pid = os.fork()
            if pid == 0:
                _child(argv, out_file)
            running[pid] = (case, verb, out_file, time.perf_counter())
        time.sleep(0.005)
        for pid, (case, verb, out_file, t0) in list(running.items()):
            done, status, usage = os.wait4(pid, os.WNOHANG)
            hung = False
            if done == 0:
                if time.perf_counter() - t0 <= args.timeout:
                    continue
                os.kill(pid, signal.SIGKILL)
                _, status, usage = os.wait4(pid, 0)
                hung = True
            del running[pid]
            code = os.waitstatus_to_exitcode(status)
            text = out_file.read_text(encoding="utf-8", errors="replace")
            error_files = list((work / f"run-{case.number:05d}").glob("episodes/*/error.txt"))
            lines = [x for x in text.splitlines() if x.startswith("escapebench")]
            results.append({
                "number": case.number, "kind": case.kind, "verb": verb, "code": code,
                "hung": hung, "seconds": time.perf_counter() - t0,
                "mb": usage.ru_maxrss / 1024,
                "traceback": (not hung) and ("Traceback" in text or code in (98, 99)
                                             or code < 0 or bool(error_files)),
                "multi_line_error": verb == "run" and code == 2 and len(
                    [x for x in text.strip().splitlines() if x.strip()]) > 1,
                "message": lines[0][:160] if lines else text.strip()[:160],
            })
    wall = time.perf_counter() - started
    return _report_games(results, wall)


def _report_games(results: list[dict[str, Any]], wall: float) -> int:
    bad = 0
    print(f"\n{'command':8} {'runs':>6} {'tracebacks':>10} {'hangs>10s':>9} "
          f"{'>500MB':>7} {'multi-line':>10} {'max s':>7} {'max MB':>7}  exit codes")
    for verb in ("check", "run"):
        rows = [r for r in results if r["verb"] == verb]
        tb = sum(r["traceback"] for r in rows)
        hangs = sum(r["hung"] for r in rows)
        big = sum(r["mb"] > MEMORY_LIMIT_MB for r in rows)
        multi = sum(r["multi_line_error"] for r in rows)
        bad += tb + hangs + big
        codes = dict(sorted(Counter(r["code"] for r in rows).items()))
        print(f"{verb:8} {len(rows):6d} {tb:10d} {hangs:9d} {big:7d} {multi:10d} "
              f"{max(r['seconds'] for r in rows):7.2f} {max(r['mb'] for r in rows):7.0f}  {codes}")
    print("\nby mutation (commands: median s / max s / max MB):")
    for kind in sorted({r["kind"] for r in results}):
        rows = [r for r in results if r["kind"] == kind]
        secs = [r["seconds"] for r in rows]
        print(f"  {kind:40} {len(rows):5d}  {statistics.median(secs):6.2f} / {max(secs):6.2f}"
              f" / {max(r['mb'] for r in rows):5.0f}")
    worst = [r for r in results if r["traceback"] or r["hung"] or r["mb"] > MEMORY_LIMIT_MB]
    for r in worst[:20]:
        print(f"  FAILED case {r['number']} ({r['kind']}) {r['verb']}: code {r['code']}, "
              f"{r['seconds']:.1f} s, {r['mb']:.0f} MB: {r['message']}")
    print(f"\nwall time {wall:.0f} s; {'all zero' if not bad else f'{bad} problems'}")
    return 1 if bad else 0


# ------------------------------------------------------------------ answers
class _Stalled(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Stalled


def _tutorial_steps() -> list[str]:
    from escapebench.games.loading import load_games

    (defn,) = load_games(["tutorial"], ["normal"])
    return [step.action for step in defn.reference]


def _play_answer(answer: str, reference: list[str], defn: Any) -> None:
    """Everything that reads a model answer, on ``answer``."""
    from escapebench.agents.base import TurnContext
    from escapebench.agents.escape_agent import EscapeAgent
    from escapebench.agents.reflection import parse_task_operation
    from escapebench.agents.registry import make_agent
    from escapebench.engine.actions import VERBS
    from escapebench.engine.env import EscapeGame
    from escapebench.llm.scripted import ScriptedChatModel
    from escapebench.protocols.escapebench import play_text, position_text
    from escapebench.protocols.escapebench.parsing import (
        actions_section,
        find_calls,
        parse_action_answer,
        thought_section,
    )
    from escapebench.protocols.escapebench.prompts import (
        FORESIGHT_TASK_SYSTEM_PROMPT,
        FORESIGHT_TOOL_SYSTEM_PROMPT,
        REFLECTION_SYSTEM_PROMPT,
    )

    parsed = parse_action_answer(answer)
    find_calls(answer, VERBS)
    actions_section(answer)
    thought_section(answer)
    parse_task_operation(answer)
    play_text(EscapeGame(defn), parsed.action or answer)
    side_prompts = {REFLECTION_SYSTEM_PROMPT, FORESIGHT_TOOL_SYSTEM_PROMPT,
                    FORESIGHT_TASK_SYSTEM_PROMPT}
    turn = {"n": 0}

    def model_answer(messages: Any) -> str:
        if messages[0]["content"] in side_prompts:
            return answer  # reflection and foresight read the hostile answer
        turn["n"] += 1  # actions: the hostile answer, then the tutorial's, in turn
        if turn["n"] % 2:
            return answer
        return f"- Thought: go on.\n- Action: {reference[(turn['n'] // 2 - 1) % len(reference)]}"

    for agent in (EscapeAgent(ScriptedChatModel(model_answer)),
                  make_agent("base", model=ScriptedChatModel(model_answer))):
        game = EscapeGame(defn)
        steps = 8 if isinstance(agent, EscapeAgent) else 2
        for step in range(steps):
            if game.ended:
                break
            ctx = TurnContext(game, step, position_text(game), None)
            decision = asyncio.run(agent.decide(ctx))
            result = play_text(game, decision.action)
            agent.observe(ctx, decision, result, position_text(game))


def answers(args: argparse.Namespace) -> int:
    from escapebench.games.loading import load_games
    from tests.support.hostile_inputs import hostile_answer

    (defn,) = load_games(["tutorial"], ["normal"])
    reference = _tutorial_steps()
    signal.signal(signal.SIGALRM, _alarm)
    failures: list[tuple[int, str, str]] = []
    stalls: list[tuple[int, str]] = []
    seconds: dict[str, list[float]] = {}
    started = time.perf_counter()
    for number in range(args.count):
        kind, text = hostile_answer(number, args.seed)
        t0 = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, args.timeout)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                _play_answer(text, reference, defn)
        except _Stalled:
            stalls.append((number, kind))
        except Exception as exc:  # noqa: BLE001 - what we count
            failures.append((number, kind, f"{type(exc).__name__}: {exc}"[:200]))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        seconds.setdefault(kind, []).append(time.perf_counter() - t0)
    wall = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'answer kind':24} {'count':>6} {'median ms':>10} {'max ms':>9}")
    for kind, values in sorted(seconds.items()):
        print(f"{kind:24} {len(values):6d} {statistics.median(values) * 1000:10.1f} "
              f"{max(values) * 1000:9.1f}")
    print(f"\n{args.count} answers: {len(failures)} exceptions, {len(stalls)} over "
          f"{args.timeout:g} s, peak memory {peak_mb:.0f} MB (limit {MEMORY_LIMIT_MB}); "
          f"wall {wall:.0f} s")
    for number, kind, message in failures[:20]:
        print(f"  answer {number} ({kind}): {message}")
    for number, kind in stalls[:20]:
        print(f"  answer {number} ({kind}) stalled")
    return 1 if failures or stalls or peak_mb > MEMORY_LIMIT_MB else 0


# ------------------------------------------------------------------ reading
def reading(args: argparse.Namespace) -> int:
    from escapebench.engine.env import EscapeGame
    from escapebench.games.loading import load_games
    from escapebench.protocols.escapebench import play_text
    from escapebench.protocols.escapebench.parsing import parse_action_answer

    (defn,) = load_games(["tutorial"], ["normal"])
    size = 64 * 1024
    cases = {
        "plain text (baseline)": ("A" * size),
        "click( nested": ("click(" * (size // 6 + 1))[:size],
        "apply( commas": ("apply(" + "a," * size)[:size] + ")",
        "input( commas and lines": ("input(" + ",\n" * size)[:size] + ")",
        "balanced nesting": "click(" + "(" * (size // 2 - 4) + ")" * (size // 2 - 3),
        "1 MB of click(": "click(" * (1024 * 1024 // 6),
    }
    base = None
    print(f"{'64 KB answer':26} {'read ms':>8} {'step ms':>8} {'ratio':>7}")
    for name, text in cases.items():
        reads, steps = [], []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            parsed = parse_action_answer(text)
            t1 = time.perf_counter()
            play_text(EscapeGame(defn), parsed.action or text)
            t2 = time.perf_counter()
            reads.append(t1 - t0)
            steps.append(t2 - t1)
        read, step = statistics.median(reads), statistics.median(steps)
        base = base or (read + step)
        print(f"{name:26} {read * 1000:8.1f} {step * 1000:8.1f} {(read + step) / base:7.1f}")
    return 0


# ------------------------------------------------------------------ large game files
def _large_game(shape: str, target: int, rng: Any) -> str:
    """A game file of about ``target`` bytes in one of the shapes that stress the checks."""
    def word() -> str:
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(8))

    head = "escapebench: 1\nid: large\ntitle: Large\nscenes:\n"
    parts: list[str] = [head]
    size = len(head)
    n = 0
    while size < target:
        if shape == "unreachable scenes":  # issue 25: quadratic in these before
            chunk = f"- name: s{n}\n  desc: d\n  visible: {str(n == 0).lower()}\n"
        elif shape == "chain of scenes":
            chunk = f"- name: s{n}\n  desc: d\n  scene_relations:\n    on: s{n + 1}\n"
        elif shape == "many items":
            chunk = (("- name: room\n  desc: d\n  items:\n" if n == 0 else "")
                     + f"  - position: p{n}\n    item:\n      name: i{n} {word()}\n"
                     "      states:\n      - desc: x\n        transitions:\n"
                     f"        - wait_for: [click]\n          trigger: [change_state, 1]\n"
                     "      - desc: y\n")
        elif shape == "many tools":
            chunk = (("- name: room\n  desc: d\n  items:\n" if n == 0 else "")
                     + f"  - position: p{n}\n    item:\n      name: box{n}\n"
                     "      states:\n      - desc: x\n        transitions:\n"
                     f"        - wait_for: [click]\n          trigger:\n"
                     f"          - change_visible, tool, t{n}, true\n"
                     f"    tools:\n    - name: t{n}\n      desc: z\n      visible: false\n")
        else:  # "long texts"
            chunk = f"- name: s{n}\n  desc: {word() * 200}\n"
        parts.append(chunk)
        size += len(chunk)
        n += 1
    return "".join(parts)


LARGE_SHAPES = ("unreachable scenes", "chain of scenes", "many items", "many tools", "long texts")


def large(args: argparse.Namespace) -> int:
    import random

    from escapebench.games.validation import check_paths

    rng = random.Random(args.seed)
    bad = 0
    print(f"{'shape':20} {'MB':>6} {'check s':>8} {'s per MB':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes or LARGE_SHAPES:
            path = Path(tmp) / f"{shape.replace(' ', '-')}.yaml"
            path.write_text(_large_game(shape, int(args.mib * 1024**2) - 4096, rng), "utf-8")
            mb = path.stat().st_size / 1024**2
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                check_paths([str(path)], run_solver=not args.no_solver)
                times.append(time.perf_counter() - t0)
            took = statistics.median(times)
            bad += took > args.limit
            print(f"{shape:20} {mb:6.2f} {took:8.2f} {took / mb:9.2f}", flush=True)
    print(f"over {args.limit:g} s: {bad}")
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    g = sub.add_parser("games")
    g.add_argument("--count", type=int, default=1000)
    g.add_argument("--seed", type=int, default=17)
    g.add_argument("--jobs", type=int, default=2)
    g.add_argument("--timeout", type=float, default=10.0)
    a = sub.add_parser("answers")
    a.add_argument("--count", type=int, default=10_000)
    a.add_argument("--seed", type=int, default=17)
    a.add_argument("--timeout", type=float, default=10.0)
    r = sub.add_parser("reading")
    r.add_argument("--runs", type=int, default=5)
    g = sub.add_parser("large")
    g.add_argument("--mib", type=float, default=1.0)
    g.add_argument("--seed", type=int, default=25)
    g.add_argument("--runs", type=int, default=1)
    g.add_argument("--limit", type=float, default=5.0)
    g.add_argument("--no-solver", action="store_true")
    g.add_argument("--shape", dest="shapes", action="append", choices=LARGE_SHAPES)
    args = parser.parse_args()
    return {"games": games, "answers": answers, "reading": reading, "large": large}[args.what](
        args
    )


if __name__ == "__main__":
    sys.exit(main())
