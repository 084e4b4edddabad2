"""Issue 5: the built-in games.

Every game file in the built-in folder (found by globbing, so new games are covered without
editing this file) must:

1. pass ``escapebench check --json`` and, except the tutorial, meet the size rules of the
   benchmark (scenes, hidden scenes, key steps, tools, oracle steps, crafts, input puzzles) and
   list at least six creative tool uses in its ``notes`` as ``creative: apply(tool, item)`` lines,
   each of which the reference solution performs;
2. play its reference solution to GAME END with full progress in all three versions, walking
   between scenes with real ``move`` actions;
3. share one logic across its three versions: only texts may differ, and the hard version gives
   no custom feedback for wrong actions;
4. never end under 200 random valid actions (several seeds).

The tutorial is exempt from the size rules but must stay short and use all five actions.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import random
import re
from collections import deque
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from escapebench.agents.random_agent import RandomAgent
from escapebench.cli import main
from escapebench.engine import EscapeGame, GameDefinition, parse_call
from escapebench.engine.model import GAME_END_MARK
from escapebench.games.loading import builtin_files, load_file

FILES = builtin_files()
TUTORIAL = "tutorial"
GAME_FILES = [p for p in FILES if p.stem != TUTORIAL]
FILE_IDS = [p.stem for p in FILES]
GAME_IDS = [p.stem for p in GAME_FILES]

#: The figures every non-tutorial built-in game must reach, by ``check --json`` field.
MINIMUMS = {
    "scenes": 8,
    "hidden_scenes": 1,
    "key_steps": 30,
    "tools": 15,
    "oracle_steps": 80,
    "crafts": 3,
    "inputs": 3,
}
MIN_CREATIVE_USES = 6
TUTORIAL_MAX_STEPS = 15  # "under 15 reference steps"
RANDOM_SEEDS = (0, 1, 2, 3, 4)
RANDOM_STEPS = 200

CREATIVE_LINE = re.compile(r"^\s*creative:\s*(apply\(.*?\))", re.MULTILINE)


def test_the_builtin_folder_holds_the_tutorial_and_games() -> None:
    stems = {p.stem for p in FILES}
    assert TUTORIAL in stems
    assert {"lab", "ship", "museum"} <= stems
    assert FILES[0].stem == TUTORIAL  # listed first, for people who start at the top


# ------------------------------------------------------------------ helpers
@cache
def _check(path: Path) -> dict[str, Any]:
    """``escapebench check --json PATH`` as a user runs it: exit code and JSON document."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["check", "--json", str(path)])
    return {"code": code, "doc": json.loads(out.getvalue())}


@cache
def _settings(path: Path) -> tuple[GameDefinition, ...]:
    return tuple(load_file(path))


def _norm_action(text: str) -> str:
    """An action written as ``verb(a, b)`` with single spaces, for comparing lists of them."""
    call = parse_call(text)
    assert call is not None, f"not an action: {text!r}"
    args = ", ".join(" ".join(part.split()) for part in call.arg_text.split(","))
    return f"{call.verb.lower()}({args})"


def _walk(game: EscapeGame, goal: str) -> list[str]:
    """Labels of the shortest walk to ``goal`` over the links open now (breadth first)."""
    d = game.defn
    start = game.scene
    target = d.scene_index[goal]
    prev: dict[int, tuple[int, str] | None] = {start: None}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        if cur == target:
            break
        for link in d.scenes[cur].links:
            nxt = d.scene_index.get(link.target)
            if nxt is None or nxt in prev or not game.scene_visible[nxt]:
                continue
            prev[nxt] = (cur, link.label)
            queue.append(nxt)
    assert target in prev, f"{d.setting}: cannot walk to {goal!r} from {d.scenes[start].name!r}"
    labels: list[str] = []
    node = target
    while prev[node] is not None:
        node, label = prev[node]  # type: ignore[misc]
        labels.append(label)
    return labels[::-1]


# ------------------------------------------------------------------ 1. check and figures
@pytest.mark.parametrize("path", FILES, ids=FILE_IDS)
def test_check_passes(path: Path) -> None:
    result = _check(path)
    doc = result["doc"]
    problems = [e["message"] for s in doc["settings"] for e in s["errors"]]
    assert result["code"] == 0 and doc["ok"] is True, problems
    assert [s["difficulty"] for s in doc["settings"]] == ["easy", "normal", "hard"]
    for setting in doc["settings"]:
        assert setting["ok"] and setting["loaded"] and setting["solver"] == "reached", setting
        assert setting["warnings"] == [], setting["warnings"]


@pytest.mark.parametrize("path", GAME_FILES, ids=GAME_IDS)
def test_game_meets_the_size_rules(path: Path) -> None:
    for setting in _check(path)["doc"]["settings"]:
        short = {
            field: setting[field]
            for field, least in MINIMUMS.items()
            if setting[field] is None or setting[field] < least
        }
        assert not short, f"{setting['setting']} is below the minimums {MINIMUMS}: {short}"


@pytest.mark.parametrize("path", GAME_FILES, ids=GAME_IDS)
def test_game_lists_creative_tool_uses_that_the_reference_makes(path: Path) -> None:
    defn = _settings(path)[1]
    listed = [_norm_action(a) for a in CREATIVE_LINE.findall(defn.notes)]
    assert len(set(listed)) >= MIN_CREATIVE_USES, (
        f"{path.name}: list at least {MIN_CREATIVE_USES} different 'creative: apply(tool, item)' "
        f"lines in notes (found {listed})"
    )
    reference = {_norm_action(step.action) for step in defn.reference}
    missing = [a for a in listed if a not in reference]
    assert not missing, f"{path.name}: creative uses never made by the reference: {missing}"
    assert all(a.startswith("apply(") for a in listed)


@pytest.mark.parametrize("path", GAME_FILES, ids=GAME_IDS)
def test_game_has_distractors_with_feedback(path: Path) -> None:
    """Items that react to nothing, and tell easy/normal players so."""
    easy, normal, hard = _settings(path)
    distractors = [
        k for k, it in enumerate(normal.items)
        if not any(st.transitions for st in it.states)
    ]
    assert distractors, f"{path.name} has no distractor items"
    for version in (easy, normal):
        quiet = [version.items[k].name for k in distractors
                 if any(st.neg_reward is None for st in version.items[k].states)]
        assert not quiet, f"{version.setting}: distractors without feedback: {quiet}"


def test_tutorial_is_short_and_uses_every_action() -> None:
    (path,) = [p for p in FILES if p.stem == TUTORIAL]
    for setting in _check(path)["doc"]["settings"]:
        assert setting["reference_length"] < TUTORIAL_MAX_STEPS
        for field in ("clicks", "applies", "inputs", "crafts"):
            assert setting[field] >= 1, (field, setting)
    defn = _settings(path)[1]
    moves = setting["moves"] + sum(
        1 for a, b in pairwise(defn.reference) if a.scene != b.scene
    )
    assert moves >= 1, "the tutorial never moves between scenes"


# ------------------------------------------------------------------ 2. reference plays
@pytest.mark.parametrize("path", FILES, ids=FILE_IDS)
def test_reference_walks_to_game_end_in_every_version(path: Path) -> None:
    for defn in _settings(path):
        game = EscapeGame(defn)
        steps = 0
        for k, ref in enumerate(defn.reference):
            for label in _walk(game, ref.scene):
                moved = game.step(f"move({label})")
                assert moved.success, f"{defn.setting}: move({label}) failed: {moved.outcome}"
                steps += 1
            assert game.scene_name == ref.scene
            result = game.step(ref.action)
            steps += 1
            last = k == len(defn.reference) - 1
            assert result.success and not result.error, (
                f"{defn.setting} step {k + 1} {ref.action!r}: {result.outcome}"
            )
            assert result.game_end == last, f"{defn.setting} step {k + 1}: early or no GAME END"
        assert game.ended and GAME_END_MARK in result.outcome.text
        assert game.progress == pytest.approx(1.0)
        assert game.key_steps == defn.total_key_steps
        assert game.tools_collected == defn.total_tools
        oracle = _check(path)["doc"]["settings"][["easy", "normal", "hard"].index(defn.difficulty)]
        assert steps == oracle["oracle_steps"], defn.setting


# ------------------------------------------------------------------ 3. one logic, three texts
def _logic(defn: GameDefinition) -> tuple[Any, ...]:
    """The definition with every player-facing text blanked; whether a transition ends the game
    is kept, as it is logic."""
    def transition(tr: Any) -> Any:
        return dataclasses.replace(tr, reward=GAME_END_MARK if tr.ends_game else None)

    scenes = tuple(dataclasses.replace(s, desc="") for s in defn.scenes)
    items = tuple(
        dataclasses.replace(it, states=tuple(
            dataclasses.replace(st, desc="", neg_reward=None,
                                transitions=tuple(transition(tr) for tr in st.transitions))
            for st in it.states
        ))
        for it in defn.items
    )
    tools = tuple(
        dataclasses.replace(t, states=tuple(dataclasses.replace(st, desc="") for st in t.states))
        for t in defn.tools
    )
    return defn.game, defn.title, scenes, items, tools, defn.reference


@pytest.mark.parametrize("path", FILES, ids=FILE_IDS)
def test_versions_share_the_logic_and_differ_only_in_texts(path: Path) -> None:
    easy, normal, hard = _settings(path)
    assert (easy.difficulty, normal.difficulty, hard.difficulty) == ("easy", "normal", "hard")
    assert _logic(easy) == _logic(normal) == _logic(hard)
    descs = {v.difficulty: [st.desc for it in v.items for st in it.states] for v in (easy, hard)}
    assert descs["easy"] != descs["hard"], f"{path.name}: easy and hard texts are identical"


@pytest.mark.parametrize("path", FILES, ids=FILE_IDS)
def test_hard_version_gives_no_custom_feedback(path: Path) -> None:
    hard = _settings(path)[2]
    chatty = [it.name for it in hard.items for st in it.states if st.neg_reward is not None]
    assert not chatty, f"{hard.setting}: neg_reward texts in the hard version: {chatty}"


# ------------------------------------------------------------------ 4. random play never wins
@pytest.mark.parametrize("path", GAME_FILES, ids=GAME_IDS)
def test_random_valid_actions_never_end_the_game(path: Path) -> None:
    # The tutorial is left out on purpose: it is meant to be finished in a few actions.
    for defn in _settings(path):
        for seed in RANDOM_SEEDS:
            game = EscapeGame(defn)
            agent = RandomAgent(seed)  # its choices: moves, clicks, applies, crafts, and
            agent.reset(game)          # inputs of strings read on the screen
            rng = random.Random(seed)
            for n in range(RANDOM_STEPS):
                options = agent.choices(game)
                assert options, f"{defn.setting} seed {seed}: no valid action at step {n}"
                result = game.step(rng.choice(options))
                assert not result.game_end, (
                    f"{defn.setting} seed {seed}: random play ended the game at step {n + 1}"
                )
            assert game.progress < 1.0


# ------------------------------------------------------------------ the guide's example
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "authoring.md"


def test_the_authoring_guide_example_passes_check(tmp_path: Path) -> None:
    """docs/authoring.md ends with a complete game; it must stay valid as the engine evolves."""
    if not GUIDE.is_file():
        pytest.skip("docs/authoring.md is not part of this installation")
    blocks = re.findall(r"```yaml\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.DOTALL)
    path = tmp_path / "attic.yaml"
    path.write_text(blocks[-1], encoding="utf-8")
    result = _check(path)
    assert result["code"] == 0 and result["doc"]["ok"], result["doc"]
    for setting in result["doc"]["settings"]:
        for field in ("clicks", "applies", "inputs", "crafts", "moves"):
            assert setting[field] >= 1, (field, setting)
