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
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from escapebench.agents.base import TurnContext
from escapebench.agents.escape_original import (
    OriginalEscapeAgent,
    _call_args,
    last_action_call,
    last_task_operation,
    same_action,
)
from escapebench.engine.env import EscapeGame
from escapebench.games.loading import load_original
from escapebench.llm.base import Completion
from escapebench.protocols.original_escape_texts import (
    OriginalTextError,
    read_original_escape_texts,
)
from tests.conftest import SHARED, UPSTREAM

RECORDINGS = UPSTREAM / "prompts" / "creative"
SOURCE = UPSTREAM / "original" / "src"
TOOLS = SHARED / "tools"
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


@dataclass(frozen=True)
class RecordedHint:
    action: str
    scene: str
    index: int
    steps_in_help: int
    position: str
    reference_action: str


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


class RecordedWorld:
    """The original's observation and bag listing at each step, as the recording shows them."""

    def __init__(self, recording: dict[str, Any], texts: Any) -> None:
        self.prompts = {c["step"]: c["user"] for c in recording["calls"] if c["kind"] == "action"}
        self.texts = texts
        self.bag_marker = texts.text("bag_header_end")
        self.bag_heading = texts.text("bag_heading")
        self.step = 0
        self.paths: list[tuple[int, str, str]] = []

    def _scene_prompt(self) -> str:
        user = self.prompts[self.step]
        head = self.texts.agent["step_head"].fill({"step": str(self.step)})
        start = user.index(head) + len(head)
        end = user.find("\n\n", user.index(self.bag_heading, start))
        return user[start : end if end >= 0 else len(user)]

    def describe(self, game: EscapeGame, path: Any) -> str:
        text = self._scene_prompt()
        self.paths.append((self.step, " -> ".join(path), text))
        return text

    def bag_text(self, game: EscapeGame, ignore: Any = ()) -> str:
        listing = self._scene_prompt().split(self.bag_heading + "\n", 1)[1]
        if not game.bag:
            return listing
        lines = [
            line
            for line in listing.split(self.bag_marker, 1)[-1].split("\n")
            if not any(line.startswith(f"<applicable tool> {name}: ") for name in ignore)
        ]
        return "(bag)" + self.bag_marker + "\n".join(lines)


def _helper(texts: Any) -> Any:
    block = texts.constants["HELPER_PROMPT"]

    def helper(scene: str, action: str) -> str:
        return (
            block.replace("<cur_pos>", scene)
            .replace("<tar_pos>", scene)
            .replace("<tar_action>", action)
        )

    return helper


def _agent(
    recording: dict[str, Any], **options: Any
) -> tuple[OriginalEscapeAgent, ScriptedModel, RecordedWorld]:
    texts = read_original_escape_texts(SOURCE)
    model = ScriptedModel(_scripted_answers())
    world = RecordedWorld(recording, texts)
    action_system = recording["calls"][0]["system"]  # the BaseAgent's, read by the protocol
    agent = OriginalEscapeAgent(
        model,  # type: ignore[arg-type]
        texts=texts,
        action_system=action_system,
        helper_prompt=_helper(texts),
        world=world,
        **options,
    )
    return agent, model, world


async def _play(setting: str, **options: Any) -> dict[str, Any]:
    recording = _recording(setting)
    game = EscapeGame(load_original(UPSTREAM / "data" / f"{setting}.yaml"))
    agent, model, world = _agent(recording, **options)
    agent.reset(game)
    played: list[dict[str, Any]] = []
    for rec in recording["steps"]:
        step = rec["step"]
        world.step = step
        hint = None
        if rec["state"][0] == "need help":
            helper = rec["state"][1]
            scene = helper["position"].split(" -> ")[-1]
            hint = RecordedHint(
                helper["action_answer"], scene, 0, 0, helper["position"], helper["action_answer"]
            )
        ctx = TurnContext(game, step, "", hint)
        if rec["direct_hint_answer"]:
            decision = await agent.forced_turn(ctx, rec["state"][1]["action_answer"])
        else:
            decision = await agent.decide(ctx)
        result = game.step(decision.action)._replace(feedback=rec["response"])
        played.append(
            {
                "mode": decision.details["original_mode"],
                "position": decision.details["position"],
                "action": decision.action,
                "kinds": decision.details["prompt_kinds"],
            }
        )
        after = await agent.after_step(ctx, decision, result)
        played[-1]["kinds"] += [c.kind for c in after]
    return {"recording": recording, "sent": model.sent, "played": played, "world": world}


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
        assert step["mode"] == rec["state"][0], f"step {rec['step']}"
        assert step["position"] == rec["position"], f"step {rec['step']}"
        assert step["action"] == rec["action_answer"], f"step {rec['step']}"
    # The path line of every observation the agent asked for is its own position.
    for step, path, text in out["world"].paths:
        assert any(line.endswith(": " + path) for line in text.split("\n")), f"step {step}"


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
    assert modes["force new explore"] > 0 and modes["need help"] > 0


def _kinds(out: dict[str, Any]) -> Counter[str]:
    return Counter(k for step in out["played"] for k in step["kinds"])


def test_ablations_remove_exactly_their_module_calls() -> None:
    """The original has no flags for Table 7's ablations; ours remove one module each.

    The recording fixes the environment's side, so only the first steps, up to the first call
    the full agent makes and the ablated one does not, can be compared call by call.
    """
    _needs_shared()
    full = asyncio.run(_play("game1-1"))
    kinds_full = _kinds(full)

    def until_divergence(ablated: dict[str, Any]) -> int:
        n = 0
        for a, b in zip(full["played"], ablated["played"], strict=False):
            if a["kinds"] != b["kinds"]:
                break
            n += 1
        return n

    no_foresight = asyncio.run(_play_until_diverged("game1-1", no_foresight=True))
    first = until_divergence(no_foresight)
    removed = [k for k in full["played"][first]["kinds"] if k.startswith("foresight")]
    assert removed, "the first difference is a foresight call of the full agent"
    # ... and the trial it would have led to is a free-explore action call instead.
    assert [k for k in full["played"][first]["kinds"] if not k.startswith("foresight")][
        0
    ] == "trial"
    assert no_foresight["played"][first]["kinds"][0] == "action"
    assert not any(k.startswith("foresight") or k == "trial" for k in _kinds(no_foresight))
    assert all(step["mode"] != "try action" for step in no_foresight["played"])

    no_reflection = asyncio.run(_play_until_diverged("game1-1", no_reflection=True))
    first = until_divergence(no_reflection)
    assert "reflection" in full["played"][first]["kinds"]
    assert "reflection" not in no_reflection["played"][first]["kinds"]
    kinds_ablated = _kinds(no_reflection)
    assert kinds_ablated["reflection"] == 0 and kinds_ablated["foresight_task"] == 0
    assert kinds_full["reflection"] > 0 and kinds_full["foresight_task"] > 0


async def _play_until_diverged(setting: str, **options: Any) -> dict[str, Any]:
    """Play with the recording's environment for as long as the ablated agent plays the
    recorded actions in the recorded scenes (after that the recording says nothing)."""
    recording = _recording(setting)
    game = EscapeGame(load_original(UPSTREAM / "data" / f"{setting}.yaml"))
    agent, model, world = _agent(recording, **options)
    agent.reset(game)
    played: list[dict[str, Any]] = []
    for rec in recording["steps"]:
        step = rec["step"]
        if step not in world.prompts or rec["state"][0] == "need help":
            break
        world.step = step
        decision = await agent.decide(TurnContext(game, step, "", None))
        if (
            decision.action != rec["action_answer"]
            or decision.details["position"] != rec["position"]
        ):
            played.append({"kinds": decision.details["prompt_kinds"], "mode": "?"})
            break
        result = game.step(decision.action)._replace(feedback=rec["response"])
        after = await agent.after_step(TurnContext(game, step, "", None), decision, result)
        played.append(
            {
                "kinds": decision.details["prompt_kinds"] + [c.kind for c in after],
                "mode": decision.details["original_mode"],
            }
        )
    return {"played": played, "sent": model.sent}


# ------------------------------------------------------------------ the reading rules
def test_answer_readers_follow_the_original_rules() -> None:
    assert last_action_call("Thought: x\nAction: click(box) then move(hall)") == "move(hall)"
    assert last_action_call("CLICK(box)") == "No action"
    assert last_action_call("click(a(b))") == "No action"
    assert last_action_call("apply(key, door)  \n") == "apply(key, door)  \n"
    assert last_task_operation("Action: new(open box, needs a key)") == "new(open box, needs a key)"
    assert last_task_operation("nothing") == "none()"
    assert same_action("craft(a, B)", "craft(b,a)")
    assert same_action("apply(Key, door)", "apply(key,  door)")
    assert not same_action("apply(door, key)", "apply(key, door)")
    assert not same_action("No action", "click(box)")


def test_proposal_lines_are_read_as_the_original_reads_them() -> None:
    assert _call_args("- apply(key, red door): Task index 0", "- apply(", two=True) == (
        "key",
        "red door",
    )
    assert _call_args("- apply(key,  )", "- apply(", two=True) == ("key", " ")
    assert _call_args("- apply(key)", "- apply(", two=True) is None
    assert _call_args("  - apply(key, door)", "- apply(", two=True) is None  # indented
    assert _call_args("- click(box)", "- click(", two=False) == ("box",)
    assert _call_args("- click(a, b)", "- click(", two=False) is None
    assert _call_args("- click(a)b, c)", "- click(", two=False) == ("a",)


def test_a_checkout_without_the_texts_is_refused_with_the_file_named(tmp_path: Path) -> None:
    _needs_shared()
    for name in ("agent_creative.py", "instruction.py"):
        (tmp_path / name).write_text((SOURCE / name).read_text())
    broken = (tmp_path / "agent_creative.py").read_text().replace("def forethought", "def foresee")
    (tmp_path / "agent_creative.py").write_text(broken)
    with pytest.raises(OriginalTextError, match="agent_creative.py.*forethought"):
        read_original_escape_texts(tmp_path)
    (tmp_path / "agent_creative.py").unlink()
    with pytest.raises(OriginalTextError, match="agent_creative.py: cannot be read"):
        read_original_escape_texts(tmp_path)
