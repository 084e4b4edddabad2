"""The original EscapeAgent's decision procedure, checked against recordings of the original.

``../shared/upstream/prompts/creative/<setting>.json.gz`` holds every model call the original
harness made in 150 steps under the scripted model of ``../shared/tools/scripted_answers.py``,
and every step it played. Here the agent plays those settings on our engine, with the
environment's side of each step taken from the recording (the scene as the original printed it,
its response, whether the hint system was in charge), and must send the same calls in the same
order, byte for byte, choose the same modes and positions, and play the same actions. The
texts of the agent itself come from the checkout (``../shared/upstream/original/src``), read
with ``ast``. Skipped without ../shared.
"""

from __future__ import annotations

import asyncio
import gzip
import importlib.util
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from escapebench.agents.base import Hint, TurnContext
from escapebench.agents.escape_original import (
    OriginalEscapeAgent,
    same_action,
)
from escapebench.engine.env import EscapeGame
from escapebench.games.loading import load_original
from escapebench.llm.base import Completion
from escapebench.protocols.base import HintView
from escapebench.protocols.original import OriginalProtocol
from escapebench.protocols.original.escape_texts import (
    OriginalTextError,
    read_original_escape_texts,
)
from escapebench.protocols.original.source import OriginalSource
from tests.conftest import SHARED, UPSTREAM

RECORDINGS = UPSTREAM / "prompts" / "creative"
SOURCE = UPSTREAM / "original" / "src"
TOOLS = SHARED / "tools"
# The recordings' names of the original's modes, and ours.
MODES = {
    "free explore": "free explore",
    "try action": "try action",
    "force new explore": "forced explore",
    "need help": "help",
}
SETTINGS = sorted(p.name.split(".")[0] for p in RECORDINGS.glob("*.json.gz"))


def _recording(setting: str) -> dict[str, Any]:
    with gzip.open(RECORDINGS / f"{setting}.json.gz") as f:
        return json.load(f)


def _needs_shared() -> None:
    if not (RECORDINGS.is_dir() and SOURCE.is_dir() and (TOOLS / "scripted_answers.py").is_file()):
        pytest.skip(f"recordings of the original harness not present at {UPSTREAM}")


def _scripted_answers() -> Any:
    spec = importlib.util.spec_from_file_location("scripted_answers", TOOLS / "scripted_answers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ScriptedModel:
    """The scripted model of ../shared/tools, remembering what it was sent."""

    name = "scripted"

    def __init__(self, answers: Any) -> None:
        self.answers = answers
        self.sent: list[tuple[str, str]] = []

    async def complete(self, messages: Any, settings: Any) -> Completion:
        system, user = messages[0]["content"], messages[1]["content"]
        self.sent.append((system, user))
        return Completion(self.answers.answer(system, user))


async def _play(setting: str, *, follow: bool = True, **options: Any) -> dict[str, Any]:
    """Play ``setting`` under the original protocol for the steps of its recording.

    The hint system's part (when help starts, the forced step) is taken from the recording;
    everything else is the agent's, rendered and played by the protocol. With ``follow``
    False (an ablation) the recording's hints no longer apply once the play differs from it,
    so the play stops at the first step where the recording was in help.
    """
    recording = _recording(setting)
    protocol = OriginalProtocol(OriginalSource(SOURCE))
    defn = load_original(UPSTREAM / "data" / f"{setting}.yaml")
    game = EscapeGame(defn)
    session = protocol.session(defn)  # the harness's: it plays the answers
    model = ScriptedModel(_scripted_answers())
    agent = OriginalEscapeAgent(model, **options)  # type: ignore[arg-type]
    agent.reset(game)
    played: list[dict[str, Any]] = []
    for rec in recording["steps"]:
        step = rec["step"]
        view = None
        if rec["state"][0] == "need help":
            if not follow:
                break
            helper = rec["state"][1]
            view = HintView(helper["position"], helper["action_answer"])
            game.teleport(helper["position"].split(" -> ")[-1])  # as the hint system does
        hint = None if view is None else Hint(view.action, view.position.split(" -> ")[-1], 0)
        ctx = TurnContext(game, step, "", hint, protocol=protocol, hint_view=view)
        before = game.snapshot()
        if rec["direct_hint_answer"]:
            decision = await agent.forced_turn(ctx, rec["state"][1]["action_answer"])
        else:
            decision = await agent.decide(ctx)
        # the agent asks for its moves (Try Action, exploring) and never makes them itself
        assert game.snapshot() == before, f"step {step}: the agent changed the game"
        if decision.teleport_to is not None:
            game.teleport(decision.teleport_to)
        result = session.play(game, decision.action)
        await agent.after_step(ctx, decision, result)
        played.append(
            {
                "mode": decision.notes["original_mode"],
                "position": decision.notes["position"],
                "action": decision.action,
                "response": result.feedback,
                "kinds": list(decision.notes["prompt_kinds"]),
            }
        )
    return {"recording": recording, "sent": model.sent, "played": played}


@pytest.mark.parametrize("setting", SETTINGS or ["none"])
def test_sends_the_recorded_calls_and_plays_the_recorded_steps(setting: str) -> None:
    _needs_shared()
    out = asyncio.run(_play(setting))
    recording, sent = out["recording"], out["sent"]
    for k, (call, (system, user)) in enumerate(zip(recording["calls"], sent, strict=False)):
        assert (call["system"], call["user"]) == (system, user), (
            f"{setting}: call {k} (step {call['step']}, {call['kind']}) differs"
        )
    assert len(sent) == len(recording["calls"])
    for rec, step in zip(recording["steps"], out["played"], strict=True):
        assert step["mode"] == MODES[rec["state"][0]], f"step {rec['step']}"
        assert step["position"] == rec["position"], f"step {rec['step']}"
        assert step["action"] == rec["action_answer"], f"step {rec['step']}"
        assert step["response"] == rec["response"], f"step {rec['step']}"


def test_calls_by_kind_and_modes_on_game1_1() -> None:
    _needs_shared()
    out = asyncio.run(_play("game1-1"))
    kinds = Counter(k for step in out["played"] for k in step["kinds"])
    modes = Counter(step["mode"] for step in out["played"])
    assert out["recording"]["result"]["calls_by_kind"] == {
        "action": kinds["action"] + kinds["trial"],
        "reflection": kinds["reflection"],
        "foresight_tool": kinds["foresight_tool"],
        "foresight_task": kinds["foresight_task"],
    }
    assert kinds["trial"] == modes["try action"] > 0
    assert modes["forced explore"] > 0 and modes["help"] > 0


def _kinds(out: dict[str, Any]) -> Counter[str]:
    return Counter(k for step in out["played"] for k in step["kinds"])


def test_ablations_remove_exactly_their_module_calls() -> None:
    """The original has no flags for Table 7's ablations; ours remove one module each.

    Played on game1-1 up to the first hint of the full agent's recording (the hint system's
    timing is the recording's): without foresight there is no foresight call and no trial;
    without reflection no reflection call, no task, so no task foresight either. Each
    ablation plays the full agent's steps call for call, with its own module's calls taken
    out, up to the first step where the missing module changes what is played.
    """
    _needs_shared()
    full = asyncio.run(_play("game1-1", follow=False))
    no_foresight = asyncio.run(_play("game1-1", follow=False, no_foresight=True))
    no_reflection = asyncio.run(_play("game1-1", follow=False, no_reflection=True))
    kinds = {
        name: _kinds(out)
        for name, out in (
            ("full", full),
            ("no_foresight", no_foresight),
            ("no_reflection", no_reflection),
        )
    }
    assert kinds["full"]["foresight_task"] > 0 and kinds["full"]["trial"] > 0
    assert kinds["full"]["reflection"] > 0
    assert not any(k.startswith("foresight") or k == "trial" for k in kinds["no_foresight"])
    assert kinds["no_foresight"]["reflection"] > 0
    assert kinds["no_reflection"]["reflection"] == kinds["no_reflection"]["foresight_task"] == 0
    assert all(step["mode"] != "try action" for step in no_foresight["played"])

    def same_until(ablated: dict[str, Any], removed: set[str]) -> int:
        """Steps the ablation plays as the full agent, calls of ``removed`` kinds aside."""
        n = 0
        for a, b in zip(full["played"], ablated["played"], strict=False):
            if [k for k in a["kinds"] if k not in removed] != b["kinds"]:
                break
            n += 1
        return n

    first = same_until(no_foresight, {"foresight_tool", "foresight_task"})
    # The first difference: the full agent tried a proposal where the ablation explores.
    assert full["played"][first]["mode"] == "try action"
    assert no_foresight["played"][first]["mode"] == "free explore"
    first = same_until(no_reflection, {"reflection"})
    assert first == 0 or "foresight_task" in full["played"][first]["kinds"]


# ------------------------------------------------------------------ the reading rules
def test_answer_readers_follow_the_original_rules() -> None:
    _needs_shared()
    texts = read_original_escape_texts(SOURCE)
    assert (
        texts.read_operation("Action: new(open box, needs a key)") == "new(open box, needs a key)"
    )
    assert texts.read_operation("update(x) then none() ") == "none() "
    assert texts.read_operation("NEW(box, key)") == texts.no_operation == "none()"
    assert texts.read_operation("new(box (red), key)") == "none()"
    assert same_action("craft(a, B)", "craft(b,a)")
    assert same_action("apply(Key, door)", "apply(key,  door)")
    assert not same_action("apply(door, key)", "apply(key, door)")
    assert not same_action("No action", "click(box)")


def test_proposal_lines_are_read_by_the_checkout_rules() -> None:
    """The original reads foresight answers with regular expressions: read from the checkout."""
    _needs_shared()
    rules = read_original_escape_texts(SOURCE).patterns
    found = rules["tool_apply"].match("- apply(key, red door): Task index 0")
    assert found is not None and found.groups() == ("key", "red door")
    assert rules["tool_apply"].match("- apply(key)") is None
    assert rules["task_apply"].match("  - apply(key, door)") is None  # indented: never read
    assert rules["task_click"].match("- click(a, b)") is None
    assert rules["task_index"].search("Task index 12, the box").group(1) == "12"


def test_a_checkout_without_the_texts_is_refused_with_the_file_named(tmp_path: Path) -> None:
    _needs_shared()
    src = tmp_path / "src"
    shutil.copytree(SOURCE, src)
    agent_file = src / "agent_creative.py"
    agent_file.write_text(agent_file.read_text().replace("def forethought", "def foresee"))
    with pytest.raises(OriginalTextError, match=r"agent_creative\.py.*forethought"):
        read_original_escape_texts(src)
    # A string literal more in act() shifts every literal after it.
    agent_file.write_text(
        (SOURCE / "agent_creative.py")
        .read_text()
        .replace("def act(self, step):\n", "def act(self, step):\n        note = 'added'\n")
    )
    with pytest.raises(OriginalTextError, match=r"agent_creative\.py.*EscapeAgent\.act"):
        read_original_escape_texts(src)
    agent_file.unlink()
    with pytest.raises(OriginalTextError, match=r"agent_creative\.py: cannot read"):
        read_original_escape_texts(src)


# ------------------------------------------------------------------ resuming
class _Killed(Exception):
    """Stands for a kill between two steps."""


def _kill_after(steps: int) -> Any:
    def on_step(progress: Any) -> None:
        if progress.step >= steps and not progress.done:
            raise _Killed

    return on_step


async def _harness_play(folder: Path, kill_at: int | None = None) -> list[tuple[Any, ...]]:
    from escapebench.bench.episode import EpisodeSpec, play_episode, read_step_log
    from escapebench.bench.hints import HintOptions

    protocol = OriginalProtocol(OriginalSource(SOURCE))
    defn = load_original(UPSTREAM / "data" / "game1-1.yaml")
    spec = EpisodeSpec("ep", defn, "escape", "scripted", max_steps=150, hints=HintOptions(50, 10))
    answers = _scripted_answers()

    def model() -> Any:
        return ScriptedModel(answers)

    if kill_at is not None:
        with pytest.raises(_Killed):
            await play_episode(
                spec, OriginalEscapeAgent(model()), folder, on_step=_kill_after(kill_at),
                protocol=protocol, fsync=False,
            )  # fmt: skip
    await play_episode(spec, OriginalEscapeAgent(model()), folder, protocol=protocol, fsync=False)
    return [
        (r["position"], r["scene"], r["action"], r["feedback"], r["agent"]["prompt_kinds"])
        for r in read_step_log(folder / "steps.jsonl")
    ]


def test_a_killed_run_resumes_as_the_uninterrupted_one(tmp_path: Path) -> None:
    """Killed right after trials (teleports there and back), forced exploring and help, the
    resumed episode replays the agent's own teleports and plays on as if never stopped."""
    _needs_shared()
    straight = asyncio.run(_harness_play(tmp_path / "straight"))
    assert [s[:3] for s in straight] == [
        (r["position"], r["position"].split(" -> ")[-1], r["action_answer"])
        for r in _recording("game1-1")["steps"]
    ]
    for cut in (5, 8, 17, 33, 117):
        resumed = asyncio.run(_harness_play(tmp_path / f"cut{cut}", kill_at=cut))
        assert resumed == straight, cut
