"""Hostile model answers: every parser and agent reads any answer without an exception, in work
linear in its length, and answers past MAX_ANSWER_CHARS are read from their end only.

The linear-work tests count operations (how many cut candidates, how many names normalized),
never time."""

from __future__ import annotations

import asyncio
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from escapebench.agents.base import TurnContext
from escapebench.agents.escape_agent import EscapeAgent
from escapebench.agents.foresight import Foresight, KnownItem
from escapebench.agents.reflection import Reflection, ReflectionRequest, parse_task_operation
from escapebench.engine import actions, env
from escapebench.engine.actions import Call, extract_call, split_candidates
from escapebench.engine.env import EscapeGame
from escapebench.games.loading import load_games
from escapebench.llm.scripted import ScriptedChatModel
from escapebench.protocols.escapebench import parsing as answer_parsing
from escapebench.protocols.escapebench import play_text
from escapebench.protocols.escapebench.feedback import feedback_text
from escapebench.protocols.escapebench.parsing import (
    MAX_ANSWER_CHARS,
    answer_reasoning,
    cut_answer,
    find_calls,
    parse_action_answer,
    thought_section,
)
from escapebench.protocols.escapebench.prompts import REFLECTION_SYSTEM_PROMPT
from tests.support.hostile_inputs import hostile_answer

TUTORIAL = load_games(["tutorial"], ["normal"])[0]


# ------------------------------------------------------------------ the reference parsers
def extract_call_by_scanning(text: str) -> Call | None:
    """What extract_call means, written the direct (quadratic) way: for every call start,
    scan forward for its closing parenthesis; a line break at the call's own depth after more
    than two line breaks inside it makes it a runaway."""
    found = None
    for m in actions._CALL_START.finditer(text):
        depth, i, n = 1, m.end(), len(text)
        while i < n:
            c = text[i]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    break
            elif c == "\n" and depth == 1 and text[m.end() : i].count("\n") > 2:
                break
            i += 1
        if depth == 0:
            found = Call(m.group(1).lower(), text[m.end() : i])
    return found


def split_candidates_by_slicing(arg_text: str) -> list[tuple[str, str]]:
    out = []
    idx = arg_text.rfind(",")
    while idx != -1:
        left, right = arg_text[:idx], arg_text[idx + 1 :]
        if left.strip(actions._WRAPPERS) and right.strip(actions._WRAPPERS):
            out.append((left, right))
        idx = arg_text.rfind(",", 0, idx)
    return out


_PIECES = st.sampled_from(
    ["click", "apply", "input", "move", "craft", "(", ")", ",", " ", "\n", "a", "box", "'",
     "*", "Action:", "delete", "²"]
)
TEXTS = st.lists(_PIECES, max_size=40).map("".join)


@settings(max_examples=1500, deadline=None)
@given(TEXTS)
def test_extract_call_finds_what_scanning_from_each_call_finds(text: str) -> None:
    assert extract_call(text) == extract_call_by_scanning(text)


@settings(max_examples=800, deadline=None)
@given(TEXTS, st.none() | st.integers(0, 3), st.none() | st.integers(0, 3))
def test_bounded_cuts_are_the_cuts_whose_parts_hold_few_enough_commas(
    text: str, left: int | None, right: int | None
) -> None:
    expected = [
        (a, b) for a, b in split_candidates_by_slicing(text)
        if (left is None or a.count(",") <= left) and (right is None or b.count(",") <= right)
    ]
    assert split_candidates(text, left_commas=left, right_commas=right) == expected


# ------------------------------------------------------------------ never an exception
@settings(max_examples=500, deadline=None)
@given(st.one_of(TEXTS, st.text(max_size=200)))
def test_no_answer_makes_a_parser_raise(text: str) -> None:
    parse_action_answer(text)
    find_calls(text, ["click", "delete", "new", "update", "none"])
    thought_section(text)
    op = parse_task_operation(text)
    request = ReflectionRequest(0, "room", "room", "click(door)", "It is locked.", "door", False)
    Reflection().apply_answer(text, request)
    items = {"door": KnownItem("door", "room"), "box": KnownItem("box", "room")}
    Foresight().propose_for_tool(text, "key", ["key"], items, [], {})
    assert op.op in ("update", "new", "delete", "none")


@pytest.mark.parametrize(
    "operation", ["delete(²)", "delete(①)", "delete(٣)", f"delete({'9' * 4301})",
                  f"delete({'0' * 5000}2)", "delete()", "new()", "new(,)", "update()"],
    ids=["²", "①", "٣", "4301 digits", "5000 zeros", "delete()", "new()", "new(,)", "update()"],
)
def test_task_operations_with_odd_numbers_or_no_arguments_change_nothing(operation: str):
    reflection = Reflection()
    request = ReflectionRequest(0, "room", "room", "click(door)", "It is locked.", "door", False)
    reflection.apply_answer("- Action: new(open the door, it is locked)", request)
    record, created = reflection.apply_answer(f"- Action: {operation}", request)
    assert created is None and record["applied"] is False
    assert [t.index for t in reflection.tasks] == [1]  # delete(٣) is no task 3 either


def test_a_leading_zeros_delete_still_names_its_task() -> None:
    reflection = Reflection()
    request = ReflectionRequest(0, "room", "room", "click(door)", "It is locked.", "door", False)
    reflection.apply_answer("- Action: new(open the door, it is locked)", request)
    record, _ = reflection.apply_answer("- Action: delete(0001)", request)
    assert record["applied"] is True and reflection.tasks == []


def test_escape_agent_plays_a_sample_of_hostile_answers_without_an_exception() -> None:
    """300 of the generator's answers (``benchmarks/hostile.py answers`` plays 10,000), each
    the model's answer to every reflection call and every other action call."""
    reference = [s.action for s in TUTORIAL.reference]
    for number in range(300):
        kind, answer = hostile_answer(number, seed=5)
        turn = {"n": 0}

        def model(messages, answer=answer, turn=turn):  # noqa: ANN001, ANN202
            if messages[0]["content"] == REFLECTION_SYSTEM_PROMPT or turn["n"] % 2:
                turn["n"] += 1
                return answer
            turn["n"] += 1
            return f"- Action: {reference[(turn['n'] // 2) % len(reference)]}"

        agent, game = EscapeAgent(ScriptedChatModel(model)), EscapeGame(TUTORIAL)
        for step in range(6):
            ctx = TurnContext(game, step, game.scene_name, None)
            decision = asyncio.run(agent.decide(ctx))
            result = play_text(game, decision.action)
            agent.observe(ctx, decision, result, game.scene_name)


# ------------------------------------------------------------------ linear work
def test_answers_past_the_limit_are_read_from_their_end() -> None:
    action = "- Action: click(desk drawer)"
    answer = "x" * (3 * MAX_ANSWER_CHARS) + action
    assert cut_answer(answer) == answer[-MAX_ANSWER_CHARS:]
    assert parse_action_answer(answer).action == "click(desk drawer)"
    early = action + "x" * (3 * MAX_ANSWER_CHARS)
    assert parse_action_answer(early).action is None  # beyond the part read
    assert "raw_answer" in answer_reasoning(early, parse_action_answer(early).thought)
    assert answer_reasoning("short", "thought") == "thought"


def test_reading_an_answer_pairs_its_parentheses_once(monkeypatch) -> None:
    """``click(`` repeated: every call start used to scan to the end of the answer."""
    passes = []
    real = actions._closing_parentheses
    monkeypatch.setattr(actions, "_closing_parentheses",
                        lambda text: passes.append(len(text)) or real(text))
    answer = "- Action: " + "click(" * 10_000
    assert parse_action_answer(answer).action is None
    assert len(passes) <= 2 and sum(passes) <= 2 * len(answer)  # after the marker, and all


def test_find_calls_pairs_its_parentheses_once(monkeypatch) -> None:
    passes = []
    real = answer_parsing._balanced_closings
    monkeypatch.setattr(answer_parsing, "_balanced_closings",
                        lambda text: passes.append(len(text)) or real(text))
    find_calls("delete(" * 10_000 + "none()", ["delete", "none"])
    assert len(passes) == 1


@pytest.mark.parametrize(
    "action", ["apply(" + "key, " * 12_000 + "door)", "input(" + "," * 60_000 + "door)",
               "craft(" + "a," * 30_000 + "b)", "click(" + "door," * 12_000 + ")"],
    ids=["apply", "input", "craft", "click"],
)
def test_an_engine_step_on_a_long_argument_list_normalizes_few_names(monkeypatch, action):
    """Every comma used to be a cut, each normalizing both long halves: quadratic. Only the
    cuts whose halves hold no more commas than a name does are tried now."""
    normalized = []
    real = env.normalize_name
    monkeypatch.setattr(env, "normalize_name",
                        lambda text: normalized.append(len(text)) or real(text))
    result = EscapeGame(TUTORIAL).step(action)
    assert not result.success
    assert len(normalized) <= 8
    assert sum(normalized) <= 8 * len(action)


def test_feedback_on_a_long_action_is_short() -> None:
    result = EscapeGame(TUTORIAL).step("click(" + "door " * 20_000 + ")")
    assert result.error and len(feedback_text(result.outcome)) < 2_000 + 5 * 20_000
    assert re.search(r"click\(", result.action) or result.action == ""
