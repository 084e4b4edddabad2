"""Measure the game generator: verified games per second and difficulty per tier.

    python benchmarks/generate.py [--games 50] [--speed-games 20] [--plot docs/generator.png]

Prints (1) verified games per CPU second of the process (and per wall second) at each tier
(median of 3 rounds of ``--speed-games`` games: built, checked with the solver in all three
versions, proven), with the rate of the built-in tutorial's check (CPU) measured in the same
run as the baseline ratio; (2) per tier over
``--games`` games: median oracle steps, key steps, the random and explorer baselines' steps
(under the paper's hint system) and early-exit progress (progress when the first hint came),
and the share of candidates rejected. Difficulty rises with the tier when oracle, key steps and
baseline steps rise and early-exit progress falls; and, at the creative steps (tools used for
a property their name does not suggest), when the candidates held rise, the chance of a blind
pick falls, the explorer's tool choice (bench/tool_choice.py, against chance) stays near 0
and the share of creative steps it needs a hint for rises. In between it prints (3) the share
of distinct item and tool descriptions, and of scene descriptions, over 200 normal games (40
per tier over 4 seeds), (4) how many of those games have a text naming its solution outright,
per version (the proof rejects such a candidate below easy; easy may name solutions), and (5)
the shape of tier 3 beside the original games' (``--original``, default
../shared/upstream/data when present): the mix of key steps by verb, where the first code
comes, and the spread of scenes and oracle length. The last column of the per-tier table counts
the crafts whose half is a guess (:func:`shared_halves`): the proof rejects it since version 10.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from escapebench.agents.explorer import ExplorerAgent
from escapebench.agents.random_agent import RandomAgent
from escapebench.bench.episode import EpisodeSpec, play_episode
from escapebench.bench.tool_choice import choice_of
from escapebench.engine.actions import normalize_name
from escapebench.games.loading import builtin_files, load_file
from escapebench.games.reference import replay_reference
from escapebench.games.validation import check_definition
from escapebench.generate import generate_games
from escapebench.generate.make import craft_guesses
from escapebench.generate.proof import naming_problems
from escapebench.generate.structure import VERBS, chain_shape

ORIGINAL = Path(__file__).resolve().parents[2] / "shared" / "upstream" / "data"


def play(defn, agent, steps: int = 4000) -> tuple[int, float, bool]:  # noqa: ANN001
    """Steps taken, early-exit progress and whether it escaped, played by the harness a run
    uses (bench.episode.play_episode: the paper's hints, the step log in a scratch folder)."""
    result = play_result(defn, agent, steps)
    return result.total_steps, result.early_exit_progress, result.escaped


def play_result(defn, agent, steps: int = 4000):  # noqa: ANN001, ANN201
    """The whole result of one episode (see :func:`play`)."""
    spec = EpisodeSpec(f"{defn.setting}__baseline", defn, "baseline", "none", max_steps=steps)
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(play_episode(spec, agent, Path(folder), fsync=False))


def creative_pairs(g) -> set[tuple[str, str]]:  # noqa: ANN001
    """A generated game's creative steps as (tool, item), names normalized."""
    return {(normalize_name(t), normalize_name(i)) for t, i, _ in g.design.cues}


def creative_play(result, pairs: set[tuple[str, str]]) -> tuple[list[float], int]:  # noqa: ANN001
    """The choice of each creative tool solve the agent made itself (k >= 2), and how many
    creative steps the hint system gave it (the hint's action is a creative apply, or the
    craft of a tool whose use is creative: the tool-choice score counts the apply after a
    hinted craft as hinted too, rule 3)."""
    choices = [c for s in result.tool_solve_log if s["creative"]
               for c in [choice_of(s["tries"], s["candidates"])] if c is not None]
    given: set[tuple[str, str]] = set()
    for h in result.hints:
        verb, _, rest = h.action.partition("(")
        tool, _, item = rest[:-1].partition(",")
        if verb == "apply":
            given |= {(normalize_name(tool), normalize_name(item))} & pairs
        elif verb == "craft":
            made = {normalize_name(tool), normalize_name(item)}
            given |= {p for p in pairs if p[0] in made}
    return choices, len(given)


def shared_halves(g) -> tuple[int, int]:  # noqa: ANN001
    """Crafts of a generated game, and those whose half is a guess: following the reference
    chain, at the craft another tool held then (in its first state) has all that one part
    alone gives the product of what the obstacle asks (the affordance table's ``because``,
    less what the other part has), so a reader cannot tell which tool pairs with the other
    part (our format takes one set of parts per crafted state). The proof's rule since
    version 10 (``craft_guesses``), so 0 for this version's games."""
    guessed = {m.split(": the ")[0] for m in craft_guesses(g)}
    return len(g.design.crafts), len(guessed)


def quartiles(xs: list[float]) -> tuple[float, float]:
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return q[0], q[2]


def shape_line(name: str, defs: list, creative: list | None = None) -> str:  # noqa: ANN001
    """Key steps by verb (median share), where the first code comes (median share of the
    reference), and the interquartile range of scenes and of oracle steps."""
    shapes = [chain_shape(d, c) for d, c in zip(defs, creative or [None] * len(defs),
                                                strict=True)]
    mix = ", ".join(f"{v} {statistics.median(s.share(v) for s in shapes):.0%}" for v in VERBS)
    firsts = [s.first_input for s in shapes if s.first_input is not None]
    oracle = [replay_reference(d).oracle_steps or 0 for d in defs]
    scenes = [len(d.scenes) for d in defs]
    (s1, s3), (o1, o3) = quartiles(scenes), quartiles(oracle)
    return (f"{name}: {len(defs)} settings; key steps {mix}; first code at "
            f"{statistics.median(firsts):.0%} of the reference (earliest {min(firsts):.0%}); "
            f"scenes {min(scenes)}-{max(scenes)}, IQR {s1:g}-{s3:g} ({s3 - s1:g}); oracle "
            f"{min(oracle)}-{max(oracle)}, IQR {o1:g}-{o3:g} ({o3 - o1:g})")


def speed(tier: int, count: int, rounds: int = 3) -> tuple[float, float]:
    """Verified games per CPU second of this process (``time.process_time``: what other jobs
    on a shared machine disturb least) and per wall second, each the median of ``rounds``
    rounds of ``count`` games (seeds 10000, 10001, ...), after one game not timed (the first
    game of a process reads the data files)."""
    generate_games(tier, 1, 9_999)
    cpu, wall = [], []
    for r in range(rounds):
        c0, t0 = time.process_time(), time.perf_counter()
        generate_games(tier, count, 10_000 + r)
        cpu.append(count / (time.process_time() - c0))
        wall.append(count / (time.perf_counter() - t0))
    return statistics.median(cpu), statistics.median(wall)


def baseline_rate(rounds: int = 3) -> float:
    """Built-in games checked per CPU second (the tutorial, all three versions), same run."""
    path = builtin_files()[0]
    rates = []
    for _ in range(rounds):
        c0 = time.process_time()
        for _ in range(10):
            for d in load_file(path):
                check_definition(d, path.read_text())
        rates.append(10 / (time.process_time() - c0))
    return statistics.median(rates)


def description_share(per_tier: int = 10, seeds: tuple[int, ...] = (101, 102, 103, 104)
                      ) -> tuple[float, int, list]:  # noqa: ANN001
    """Distinct share of the item and tool descriptions (every state) of the normal version,
    pooled over ``per_tier`` games x ``seeds`` at each tier (200 games by default); also
    returns the games, for the naming check."""
    texts, games = [], []
    for tier in range(1, 6):
        for seed in seeds:
            for g in generate_games(tier, per_tier, seed):
                games.append(g)
                d = next(x for x in g.settings if x.difficulty == "normal")
                texts += [st.desc for thing in (*d.items, *d.tools) for st in thing.states]
    return len(set(texts)) / len(texts), len(texts), games


def scene_share(games: list) -> tuple[float, int]:  # noqa: ANN001
    """Distinct share of the scene descriptions of the normal versions of ``games``."""
    texts = [sc.desc for g in games for d in g.settings if d.difficulty == "normal"
             for sc in d.scenes]
    return len(set(texts)) / len(texts), len(texts)


def naming_counts(games: list) -> dict[str, int]:  # noqa: ANN001
    """Per version: how many of ``games`` have a text naming a solution outright."""
    out = {"easy": 0, "normal": 0, "hard": 0}
    for g in games:
        for d in g.settings:
            out[d.difficulty] += bool(naming_problems(d))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50, help="games per tier for the table")
    ap.add_argument("--speed-games", type=int, default=20, help="games per speed round")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plot", type=Path, default=None, help="write the per-tier plot (PNG)")
    ap.add_argument("--original", type=Path, default=ORIGINAL,
                    help="a folder of original game files to compare tier 3's shape with")
    ap.add_argument("--skip-speed", action="store_true", help="leave out the speed rounds")
    ap.add_argument("--speed-tiers", default="1,2,3,4,5", help="tiers of the speed rounds")
    ap.add_argument("--speed-only", action="store_true", help="only the speed rounds")
    ap.add_argument("--tiers", default="1,2,3,4,5", help="tiers of the per-tier table")
    ap.add_argument("--skip-words", action="store_true",
                    help="leave out the description shares and the naming count")
    args = ap.parse_args()
    if not args.skip_speed:
        base = baseline_rate()
        print(f"tier | verified games per CPU second (median of 3 rounds of {args.speed_games}) "
              "| per wall second | ratio to the tutorial's check rate (CPU, same run)")
        for tier in map(int, args.speed_tiers.split(",")):
            cpu, wall = speed(tier, args.speed_games)
            print(f"{tier} | {cpu:.1f} | {wall:.1f} | {cpu / base:.3f}", flush=True)
        print()
    if args.speed_only:
        return
    if not args.skip_words:
        share, n_texts, games = description_share()
        print(f"distinct item and tool descriptions over {len(games)} normal games "
              f"(40 per tier, 4 seeds): {share:.1%} of {n_texts}")
        sshare, n_scenes = scene_share(games)
        print(f"distinct scene descriptions over the same games: {sshare:.1%} of {n_scenes}")
        named = naming_counts(games)
        naming_rejects = sum(r.count(": naming:") > 0 for g in games for r in g.reasons)
        print(f"games with a text naming its solution, of {len(games)}: "
              + ", ".join(f"{k} {v}" for k, v in named.items())
              + f" (candidates rejected for it: {naming_rejects})")
    print()
    t3 = generate_games(3, args.games, args.seed)
    print(shape_line("tier 3", [next(x for x in g.settings if x.difficulty == "normal")
                                for g in t3], [creative_pairs(g) for g in t3]))
    if args.original.is_dir():
        orig = [d for f in sorted(args.original.glob("game*.yaml")) for d in load_file(f)]
        print(shape_line("original", orig))
    print()
    cols = ["oracle", "key steps", "explorer steps", "random steps", "explorer early-exit",
            "random early-exit", "rejects", "explorer escapes", "candidates at creative steps",
            "blind pick", "explorer creative choice", "explorer hints on creative steps",
            "mix click/apply/input/craft", "crafts whose half is a guess"]
    print("| tier | " + " | ".join(cols) + " |")
    print("|" + "---|" * (len(cols) + 1))
    rows = []
    tiers = [int(t) for t in args.tiers.split(",")]
    for tier in tiers:
        games = generate_games(tier, args.games, args.seed)
        oracle, keys, ex_s, rd_s, ex_e, rd_e = [], [], [], [], [], []
        cands, choices, shapes = [], [], []
        hinted = n_creative = 0
        escapes = n_crafts = n_guessed = 0
        rejects = sum(g.rejects for g in games)
        for i, g in enumerate(games):
            d = next(x for x in g.settings if x.difficulty == "normal")
            rep = check_definition(d, g.text, run_solver=False)
            oracle.append(rep.oracle_steps or 0)
            keys.append(d.total_key_steps)
            pairs = creative_pairs(g)
            made, guessed = shared_halves(g)
            n_crafts += made
            n_guessed += guessed
            shape = chain_shape(d, pairs)
            shapes.append(shape)
            cands += shape.creative_candidates
            n_creative += len(pairs)
            result = play_result(d, ExplorerAgent())
            s, e, escaped = result.total_steps, result.early_exit_progress, result.escaped
            got, hints = creative_play(result, pairs)
            choices += got
            hinted += hints
            escapes += escaped
            ex_s.append(s)
            ex_e.append(e)
            s, e, _ = play(d, RandomAgent(i))
            rd_s.append(s)
            rd_e.append(e)
        med = [statistics.median(v) for v in (oracle, keys, ex_s, rd_s, ex_e, rd_e)]
        share = rejects / (rejects + len(games))
        rows.append(med)
        mix = "/".join(f"{statistics.median(x.share(v) for x in shapes):.0%}" for v in VERBS)
        cand = (f"{statistics.median(cands):g} (min {min(cands)})" if cands else "-")
        blind = f"{statistics.median(1 / c for c in cands):.2f}" if cands else "-"
        choice = f"{statistics.mean(choices):+.2f} ({len(choices)})" if choices else "-"
        hint = f"{hinted / n_creative:.0%} of {n_creative}" if n_creative else "-"
        print(f"| {tier} | {med[0]:.0f} | {med[1]:.0f} | {med[2]:.0f} | {med[3]:.0f} | "
              f"{med[4]:.2f} | {med[5]:.2f} | {share:.0%} | {escapes}/{len(games)} | "
              f"{cand} | {blind} | {choice} | {hint} | {mix} | {n_guessed} of {n_crafts} |",
              flush=True)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        for k, name in enumerate(cols[:4]):
            ax.plot(tiers, [r[k] for r in rows], marker="o", label=name)
        ax.set_yscale("log")
        ax.set_xlabel("tier")
        ax.set_ylabel("median steps (log)")
        ax.set_xticks(tiers)
        ax.legend(fontsize=8)
        ax.set_title(f"Generated games: difficulty per tier ({args.games} games each)")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"plot written to {args.plot}")


if __name__ == "__main__":
    main()
