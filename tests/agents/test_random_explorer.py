"""Non-model baselines: the explorer escapes and never repeats a failure; both resume exactly."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from escapebench.agents.base import Agent, Decision, TurnContext
from escapebench.agents.explorer import ExplorerAgent
from escapebench.agents.random_agent import RandomAgent
from escapebench.agents.screen import candidate_strings, read_screen
from escapebench.bench.episode import EpisodeSpec, play_episode
from escapebench.bench.hints import HintPolicy
from escapebench.engine.actions import Action
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.games.loading import builtin_files, load_file, load_games
from escapebench.protocols.escapebench import play_text
from escapebench.protocols.escapebench.observation import observation_text


def builtin_settings() -> list[GameDefinition]:
    return [d for f in builtin_files() for d in load_file(f)]


BUILTIN = builtin_settings()
# The built-in setting with the longest reference chain: hints and resumes happen in it.
LONGEST = max(BUILTIN, key=lambda d: len(d.reference))


def run_sync(coro: Any) -> Any:
    """Run a coroutine that never waits (the baselines decide without I/O), without a loop."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("decide() waited for something")


def engine_state_key(game: EscapeGame, action: Action) -> tuple[Any, ...] | None:
    """What decides an action's outcome, read from the engine (independent of the explorer):
    the scene, the names, and the state indices of the item and tools involved."""
    d = game.defn
    here = game.visible_items()
    item_state = {d.items[i].name: game.item_state[i] for i in here}
    tool_state = {d.tools[t].name: game.tool_state[t] for t in game.bag}
    kind, args = action.kind, action.args
    if kind == "click" and args[0] in item_state:
        return (kind, game.scene_name, args[0], item_state[args[0]])
    if kind == "apply":
        return (kind, game.scene_name, args[1], item_state[args[1]], args[0], tool_state[args[0]])
    if kind == "input":
        return (kind, game.scene_name, args[1], item_state[args[1]], args[0].lower())
    if kind == "craft":
        return (kind, *sorted(((args[0], tool_state[args[0]]), (args[1], tool_state[args[1]]))))
    return None  # moves, and picking up a tool lying here


class Step:
    """One step of the test loop: what was decided, in which state, and what happened."""

    def __init__(self, decision: Decision, key: tuple[Any, ...] | None, result: StepResult,
                 forced: bool, hinted: bool) -> None:
        self.decision = decision
        self.key = key
        self.result = result
        self.forced = forced
        self.hinted = hinted


def play(
    defn: GameDefinition,
    agent: Agent,
    steps: int = 4000,
    game: EscapeGame | None = None,
    policy: HintPolicy | None = None,
) -> list[Step]:
    """Play ``agent`` under the hint system, as the harness does, recording every step."""
    game = game or EscapeGame(defn)
    policy = policy or HintPolicy(defn)
    out: list[Step] = []
    for n in range(steps):
        if game.ended:
            break
        hint = policy.before_step(game)
        forced = policy.forced_action()
        ctx = TurnContext(game, n, game.scene_name, hint)
        decision = Decision(forced) if forced else run_sync(agent.decide(ctx))
        resolved = game.resolve(decision.action)
        key = engine_state_key(game, resolved) if isinstance(resolved, Action) else None
        result = play_text(game, decision.action)
        if not forced:
            agent.observe(ctx, decision, result, game.scene_name)
        policy.after_step(game, result)
        out.append(Step(decision, key, result, forced is not None, hint is not None))
    return out


def check_no_failed_action_repeated(defn: GameDefinition) -> list[Step]:
    """Play the explorer; fail if it repeats an action that failed while its state is unchanged."""
    agent = ExplorerAgent()
    agent.reset(EscapeGame(defn))
    failed: dict[tuple[Any, ...], int] = {}
    steps = play(defn, agent)
    for n, step in enumerate(steps):
        if step.forced or step.key is None:
            continue
        assert step.key not in failed, (
            f"{defn.setting} step {n}: {step.result.action} failed at step {failed[step.key]} "
            "in the same state"
        )
        if not step.result.success:
            failed[step.key] = n
    assert len(failed) >= 3, defn.setting  # it did explore: the check above is not vacuous
    return steps


@pytest.mark.parametrize("defn", BUILTIN, ids=[d.setting for d in BUILTIN])
def test_explorer_never_repeats_a_failed_action_in_an_unchanged_state(defn: GameDefinition) -> None:
    steps = check_no_failed_action_repeated(defn)
    assert steps[-1].result.game_end


def test_explorer_takes_the_hinted_action_at_once() -> None:
    defn = LONGEST
    agent = ExplorerAgent()
    agent.reset(EscapeGame(defn))
    steps = play(defn, agent)
    hinted = [s for s in steps if s.hinted]
    assert hinted, "the explorer should need at least one hint on a built-in game"
    assert not any(s.forced for s in steps), "the explorer never lets a hint run out"
    assert all(s.result.success for s in hinted)


def test_explorer_escapes_every_builtin_game_through_the_harness(tmp_path: Path) -> None:
    async def run_all() -> list[Any]:
        results = []
        for defn in BUILTIN:
            spec = EpisodeSpec(f"{defn.setting}__explorer__none__r0", defn, "explorer", "none")
            results.append(
                await play_episode(spec, ExplorerAgent(), tmp_path / defn.setting, fsync=False)
            )
        return results

    results = asyncio.run(run_all())
    assert {d.difficulty for d in BUILTIN} == {"easy", "normal", "hard"}
    for defn, result in zip(BUILTIN, results, strict=True):
        assert result.escaped, f"{defn.setting}: not escaped in {result.total_steps} steps"
        assert result.progress == 1.0
        # Brute force, but bounded: far from the 4000-step cap.
        assert result.total_steps < 2000, (defn.setting, result.total_steps)


def test_explorer_escapes_the_original_games_without_repeating_failures(upstream_dir: Path) -> None:
    for defn in load_games([str(upstream_dir / "data")]):
        steps = check_no_failed_action_repeated(defn)
        assert steps[-1].result.game_end, defn.setting


def test_explorer_is_deterministic() -> None:
    defn = BUILTIN[-1]
    runs = []
    for _ in range(2):
        agent = ExplorerAgent()
        agent.reset(EscapeGame(defn))
        runs.append([s.result.action for s in play(defn, agent)])
    assert runs[0] == runs[1]


def test_random_agent_is_deterministic_for_a_seed_and_only_plays_valid_actions() -> None:
    defn = LONGEST

    def actions(seed: int) -> list[str]:
        agent = RandomAgent(seed)
        agent.reset(EscapeGame(defn))
        steps = play(defn, agent, steps=400)
        assert not any(s.result.error for s in steps), "random agent played an invalid action"
        return [s.decision.action for s in steps]

    assert actions(7) == actions(7)
    assert actions(7) != actions(8)
    kinds = {a.split("(")[0] for a in actions(7)}
    assert kinds >= {"move", "click", "apply"}


Played = tuple[Any, EscapeGame, HintPolicy]  # an agent, its game and hint policy


def played_and_resumed(make: Callable[[], Any], steps: int) -> tuple[Played, Played]:
    """An agent from ``make`` that played ``steps`` steps of LONGEST, and a second one resumed
    from their snapshots as a resumed run is: plain JSON, no object shared with the first."""
    defn = LONGEST
    game, policy = EscapeGame(defn), HintPolicy(defn)
    agent = make()
    agent.reset(game)
    play(defn, agent, steps=steps, game=game, policy=policy)
    saved = json.loads(json.dumps(
        {"agent": agent.snapshot(), "game": game.snapshot(), "hints": policy.snapshot()}
    ))
    game2, policy2 = EscapeGame(defn), HintPolicy(defn)
    game2.restore(saved["game"])
    policy2.restore(saved["hints"])
    agent2 = make()
    agent2.reset(game2)
    agent2.restore(saved["agent"])
    return (agent, game, policy), (agent2, game2, policy2)


@pytest.mark.parametrize(
    "make", [ExplorerAgent, lambda: RandomAgent(3)], ids=["explorer", "random"]
)
def test_snapshot_restore_round_trip_continues_identically(make: Any) -> None:
    (agent, game, policy), (agent2, game2, policy2) = played_and_resumed(make, 150)
    first = [s.result.action for s in play(LONGEST, agent, steps=300, game=game, policy=policy)]
    second = [
        s.result.action for s in play(LONGEST, agent2, steps=300, game=game2, policy=policy2)
    ]
    assert first == second
    assert len(set(first)) > 20


def test_screen_lists_what_the_observation_shows() -> None:
    defn = BUILTIN[0]
    game = EscapeGame(defn)
    screen = read_screen(game)
    text = observation_text(game)
    assert screen.scene == game.scene_name
    for item in screen.items:
        assert item.name in text and item.desc in text
    for exit_ in screen.exits:
        assert f"{exit_.label}: It leads to {exit_.target}" in text


def test_candidate_strings_are_numbers_capitals_codes_and_quoted_words() -> None:
    text = (
        "The panel glows: SWIPE STAFF CARD. Founded 1987. A tag reads A3B7; the dials show "
        "4, 2, 7. Someone wrote 'sunflower' on it. GAME END"
    )
    found = candidate_strings(text)
    for expected in ("SWIPE STAFF CARD", "SWIPE", "1987", "A3B7", "427", "sunflower"):
        assert expected in found
    assert "GAME END" not in found and "END" not in found
    assert len(found) == len(set(found))


@pytest.mark.parametrize("agent_name", ["explorer", "random"])
def test_an_episode_cut_in_the_middle_resumes_to_the_same_result(
    tmp_path: Path, agent_name: str
) -> None:
    """Through the harness: kill an episode halfway (its log cut), run it again, same result."""
    from escapebench.agents.registry import make_agent

    defn = LONGEST
    spec = EpisodeSpec(f"{defn.setting}__{agent_name}__none__r0", defn, agent_name, "none")

    class Killed(Exception):
        pass

    def run(folder: Path, on_step: Any = None) -> Any:
        agent = make_agent(agent_name, seed=5)
        return asyncio.run(play_episode(spec, agent, folder, fsync=False, on_step=on_step))

    whole = run(tmp_path / "whole")

    def kill_halfway(progress: Any) -> None:
        if progress.step >= whole.total_steps // 2 and not progress.done:
            raise Killed

    cut = tmp_path / "cut"
    with pytest.raises(Killed):
        run(cut, kill_halfway)
    log = cut / "steps.jsonl"
    assert len(log.read_text().splitlines()) == whole.total_steps // 2
    resumed = run(cut)
    keep = ("escaped", "hints_used", "total_steps", "early_exit_progress", "progress_curve")
    assert {k: getattr(resumed, k) for k in keep} == {k: getattr(whole, k) for k in keep}
    actions = [json.loads(line)["action"] for line in log.read_text().splitlines()]
    expected = [
        json.loads(line)["action"] for line in (tmp_path / "whole" / "steps.jsonl").open()
    ]
    assert actions == expected
