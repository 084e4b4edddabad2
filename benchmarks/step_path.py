"""The path of one step: how often an answer is read, and how many calls a step makes.

    python benchmarks/step_path.py [--steps 150] [--games tutorial,lab,ship]
                                   [--original-games game1-1,game2-1,game3-1] [--json]

Plays, for each protocol (``escapebench`` on built-in games, and ``original`` on the
original's games when the original release is in ``../shared/upstream``), each game and each
agent (the
``explorer`` and a BaseAgent on a scripted model, which answers every reference action of the
game in turn with a thought and an "Action:" line, then a sentence without an action), the
first ``--steps`` steps of an episode of ``escapebench run`` (the harness's episode, its step
log and hint system, in a temporary folder), with :func:`sys.setprofile` counting every Python
call. Printed, per protocol and agent, medians over the steps of every game:

* **parses per answer**: calls of the functions that read an action from text
  (:data:`PARSERS`: the engine's ``extract_call`` and ``parse_call``, the hint check's
  ``_call_parts`` / ``action_key``, the protocols' ``extract_action`` / ``parse_action_answer``
  / ``read_answer`` / ``read``), in the whole step (the agent's decide and observe, the hint
  system and the tool-choice count included). ``entries`` counts only the calls
  made outside another parser (a text read once, however the reader is built); ``all`` counts
  every call.
* **calls per step**: calls of functions of ``src/escapebench`` during the step, except those
  made inside the agent's own ``decide`` / ``forced_turn`` (what the agent thinks is not the
  step's path); **hops**: those of them that go from one module into another; **from the
  harness**: the hops made by a module of ``bench/`` into another part.

Deterministic: the same commit gives the same figures (no clocks are read). The script runs
on any commit since the turn loop (``bench/loop.py``), so a before/after comparison is two
runs of this file in two checkouts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import escapebench
from escapebench.agents.base import Agent
from escapebench.agents.base_agent import BaseAgent
from escapebench.agents.explorer import ExplorerAgent
from escapebench.bench import episode as episode_module
from escapebench.bench.episode import EpisodeSpec, play_episode
from escapebench.engine.model import GameDefinition
from escapebench.games.loading import builtin_files, load_file
from escapebench.llm.scripted import ScriptedChatModel
from escapebench.protocols import make_protocol
from escapebench.protocols.base import PromptProtocol

ROOT = Path(__file__).resolve().parents[1]
SRC = str(Path(escapebench.__file__).resolve().parent)
DEFAULT_UPSTREAM = ROOT.parent / "shared" / "upstream"

PARSERS = {
    "escapebench/engine/actions.py": {"extract_call", "parse_call", "_call_parts", "action_key"},
    "escapebench/protocols/escapebench/parsing.py": {"parse_action_answer"},
    "escapebench/protocols/escapebench/protocol.py": {"extract_action", "read_answer"},
    "escapebench/protocols/original/protocol.py": {"extract_action", "read_answer", "read"},
}
"""The functions that read an action out of text, by file (relative to ``src``) and name."""

EXCLUDED = {"decide", "forced_turn"}
"""The agent's own thinking: left out of the calls of a step (the agent is not the path)."""


def _module_of(code: CodeType) -> str | None:
    """``part/module.py`` of a code object of the package, None for anything else."""
    name = code.co_filename
    if not name.startswith(SRC):
        return None
    return name[len(SRC) + 1:]


class StepCounter:
    """The profile function: counts per step (a step starts at each ``Episode._play_step``)."""

    def __init__(self) -> None:
        self.steps: list[Counter[str]] = []
        self._step_code = episode_module.Episode._play_step.__code__
        self._parser_codes: set[CodeType] = set()
        self._seen: dict[CodeType, bool] = {}
        self._excluded: FrameType | None = None
        self._parsing: list[FrameType] = []
        self._step_frame: FrameType | None = None

    def _is_parser(self, code: CodeType) -> bool:
        known = self._seen.get(code)
        if known is None:
            module = _module_of(code)
            known = module is not None and code.co_name in PARSERS.get(
                "escapebench/" + module, ())
            self._seen[code] = known
        return known

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "return":
            if frame is self._excluded:
                self._excluded = None
            if self._parsing and frame is self._parsing[-1]:
                self._parsing.pop()
            return
        if event != "call":
            return
        code = frame.f_code
        if code is self._step_code and frame is not self._step_frame:
            self._step_frame = frame
            self.steps.append(Counter())
            return
        if not self.steps:
            return
        counts = self.steps[-1]
        if self._is_parser(code):
            counts["parses_all"] += 1
            if not self._parsing:
                counts["parses"] += 1
                counts[f"by {_module_of(code)}:{code.co_name}"] += 1
            self._parsing.append(frame)
        if self._excluded is not None:
            return
        module = _module_of(code)
        if module is None:
            return
        if code.co_name in EXCLUDED and module.startswith("agents/"):
            self._excluded = frame
            return
        counts["calls"] += 1
        caller = frame.f_back
        caller_module = _module_of(caller.f_code) if caller is not None else None
        if caller_module is not None and caller_module != module:
            counts["hops"] += 1
            if caller_module.startswith("bench/") and not module.startswith("bench/"):
                counts["harness"] += 1


def scripted_model(defn: GameDefinition) -> ScriptedChatModel:
    """Every reference action in turn with a thought, each followed by an answer without one."""
    answers: list[str] = []
    for ref in defn.reference:
        answers.append(f"- Thought: this might help.\n- Action: {ref.action}")
        answers.append("I am not sure what to do here; let me think again.")
    return ScriptedChatModel(answers, name="scripted", cycle=True)


AGENTS: dict[str, Callable[[GameDefinition], Agent]] = {
    "explorer": lambda defn: ExplorerAgent(),
    "base": lambda defn: BaseAgent(scripted_model(defn)),  # type: ignore[arg-type]
}


def measure(protocol: PromptProtocol, defn: GameDefinition, agent_name: str,
            steps: int) -> list[Counter[str]]:
    """The per-step counts of the first ``steps`` steps of one episode."""
    agent = AGENTS[agent_name](defn)
    spec = EpisodeSpec(f"{defn.setting}-{agent_name}", defn, agent_name, "none",
                       max_steps=steps, protocol=protocol.name)
    counter = StepCounter()
    with tempfile.TemporaryDirectory() as folder:
        sys.setprofile(counter)
        try:
            asyncio.run(play_episode(spec, agent, Path(folder) / "episode", fsync=False,
                                     protocol=protocol))
        finally:
            sys.setprofile(None)
    return counter.steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150, help="steps played per episode")
    parser.add_argument("--games", default="tutorial,lab,ship",
                        help="built-in games (normal difficulty)")
    parser.add_argument("--upstream", type=Path, default=DEFAULT_UPSTREAM,
                        help="holds the original release (original/) and its games (data/)")
    parser.add_argument("--original-games", default="game1-1,game2-1,game3-1",
                        help="the original's games played under the original protocol")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    files = {p.stem: p for p in builtin_files()}
    defns = [next(d for d in load_file(files[name]) if d.setting == name)
             for name in args.games.split(",")]
    plays = [(make_protocol("escapebench"), defns)]
    data = args.upstream / "data"
    if (args.upstream / "original").is_dir() and data.is_dir():
        games = [load_file(data / f"{name}.yaml")[0] for name in args.original_games.split(",")]
        plays.append((make_protocol("original", original_source=args.upstream / "original"),
                      games))
    else:
        print(f"(no original release in {args.upstream}: the original protocol is skipped)")
    out: dict[str, dict[str, Any]] = {}
    for protocol, defns in plays:
        for agent_name in AGENTS:
            per_step: list[Counter[str]] = []
            for defn in defns:
                per_step += measure(protocol, defn, agent_name, args.steps)
            figures = {
                key: statistics.median(c[key] for c in per_step)
                for key in ("parses", "parses_all", "calls", "hops", "harness")
            }
            figures["mean parses"] = round(statistics.mean(c["parses"] for c in per_step), 2)
            figures["steps"] = len(per_step)
            by = Counter()
            for c in per_step:
                by.update({k[3:]: v for k, v in c.items() if k.startswith("by ")})
            figures["parsers"] = {k: round(v / len(per_step), 2) for k, v in sorted(by.items())}
            out[f"{protocol.name} {agent_name}"] = figures
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"median per step over {args.games} ({args.steps} steps each); parses per answer "
          "(entries / all calls), calls, hops between modules, hops from the harness")
    for name, f in out.items():
        print(f"  {name:22} parses {f['parses']:g} / {f['parses_all']:g} "
              f"(mean {f['mean parses']:g})  calls {f['calls']:g}  hops {f['hops']:g}  "
              f"from the harness {f['harness']:g}  ({f['steps']} steps)")
        print("      parses per step by reader: " + ", ".join(
            f"{k} {v:g}" for k, v in f["parsers"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
