"""Result folders for report tests, played through the real engine, hint system and metrics.

Until the harness's runner writes folders for the tests, this plays scripted "agents" through
:class:`EscapeGame`, :class:`HintPolicy` and :class:`EpisodeMetrics` and writes the shared
layout with the harness's own writers (``results.csv``, ``summary.*``, ``result.json``,
``steps.jsonl``), so that the numbers a report shows come from the same code as a real run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from escapebench.bench.hints import HintOptions, HintPolicy, reference_effects
from escapebench.bench.metrics import (
    EpisodeMetrics,
    EpisodeResult,
    aggregate,
    write_result_json,
    write_results_csv,
    write_summary_csv,
    write_summary_md,
)
from escapebench.engine import EscapeGame
from escapebench.engine.model import GameDefinition
from escapebench.games.loading import load_file

GAME_FILE = Path(__file__).parent / "games" / "closet.yaml"
# Small thresholds so that a short game shows hints and forced steps.
OPTIONS = HintOptions(patience=4, help_steps=2)

Policy = Callable[[EscapeGame, int], str]


def fumbler(game: EscapeGame, step: int) -> str:
    """Never makes progress on its own: only failing and malformed actions."""
    return ("click(front door)", "apply(nothing, keypad)", "dance()")[step % 3]


def solver(game: EscapeGame, step: int) -> str:
    """Plays the reference chain, walking where it has to, with a slip every fifth step."""
    if step % 5 == 4:
        return "click(front door)"
    for ref in game.defn.reference:
        if ref.action in DONE.get(id(game), set()):
            continue
        if game.scene_name != ref.scene:
            links = dict((game.defn.scenes[t].name, label) for label, t in game.open_links())
            if ref.scene in links:
                return f"move({links[ref.scene]})"
            return "click(front door)"
        return ref.action
    return "click(front door)"


DONE: dict[int, set[str]] = {}


def play_episode(
    run_dir: Path,
    defn: GameDefinition,
    agent: str,
    model: str,
    policy: Policy,
    *,
    repeat: int = 0,
    player: str = "agent",
    max_steps: int = 200,
    finish: bool = True,
) -> EpisodeResult | None:
    """Play one episode and write its log (and, if ``finish``, its result.json)."""
    effects = reference_effects(defn)
    game = EscapeGame(defn)
    DONE[id(game)] = set()
    hints = HintPolicy(defn, OPTIONS, effects=effects)
    metrics = EpisodeMetrics(defn, effects)
    episode_id = f"{defn.setting}__{agent}__{model or 'none'}__r{repeat}"
    folder = run_dir / "episodes" / episode_id
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "steps.jsonl").open("w", encoding="utf-8") as log:
        for step in range(max_steps):
            hint = hints.before_step(game)
            forced = hints.forced_action()
            observation = game.observation()
            position = " -> ".join(game.path_to(game.scene_name) or [game.scene_name])
            action = forced or policy(game, step)
            result = game.step(action)
            if result.success:
                DONE[id(game)].add(result.action)
            outcome = hints.after_step(game, result)
            record = {
                "step": step,
                "position": position,
                "scene": game.scene_name,
                "observation": observation,
                "action": result.action,
                "raw_answer": f"I will try {action}.",
                "reasoning": f"Step {step}: trying {action}.",
                "feedback": result.feedback,
                "success": result.success,
                "error": result.error,
                "events": [{"kind": e.kind, "name": e.name} for e in result.events],
                "key_steps": game.key_steps,
                "tools_collected": game.tools_collected,
                "progress": game.progress,
                "progressed": result.progressed,
                "hint": None if hint is None else {
                    "action": hint.action, "scene": hint.scene, "index": hint.index,
                    "steps_in_help": hint.steps_in_help, "forced": forced is not None,
                },
                "hint_done": "completed" if outcome.completed is not None else (
                    "skipped" if outcome.skipped is not None else None
                ),
                "mode": "help" if hint else "free explore",
                "calls": [{"kind": "action", "tokens_in": 100, "tokens_out": 10}],
                "agent": {"tasks": [f"task {step % 3}"], "proposals": ["click(note)"]},
                "agent_state": {},
                "wall_s": 0.01,
                "game_end": result.game_end,
            }
            metrics.add(record)
            log.write(json.dumps(record) + "\n")
            if result.game_end:
                break
    if not finish:
        return None
    result = metrics.result(
        episode_id=episode_id, agent=agent, model=model, repeat=repeat,
        prompt_version="test-v1", max_steps=max_steps, player=player,
    )
    write_result_json(folder / "result.json", result)
    return result


def write_run(run_dir: Path, plays: list[tuple[str, str, Policy, str, int]]) -> list[
    EpisodeResult
]:
    """Play ``(agent, model, policy, player, repeat)`` on every closet setting; write tables."""
    run_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for defn in load_file(GAME_FILE):
        for agent, model, policy, player, repeat in plays:
            r = play_episode(run_dir, defn, agent, model, policy, repeat=repeat, player=player)
            assert r is not None
            results.append(r)
    write_results_csv(run_dir / "results.csv", results)
    summaries = aggregate(results)
    write_summary_csv(run_dir / "summary.csv", summaries)
    write_summary_md(run_dir / "summary.md", summaries)
    (run_dir / "run.json").write_text(
        json.dumps({"escapebench_version": "test", "prompt_version": "test-v1",
                    "hints": {"patience": OPTIONS.patience, "help_steps": OPTIONS.help_steps}}),
        encoding="utf-8",
    )
    return results


STANDARD_PLAYS: list[tuple[str, str, Policy, str, int]] = [
    ("base", "model-a", fumbler, "agent", 0),
    ("base", "model-b", solver, "agent", 0),
    ("escape", "model-a", solver, "agent", 0),
    ("human", "human", solver, "alice", 0),
]
