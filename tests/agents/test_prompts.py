"""The escapebench prompts: what they tell a model, their layout, and one module holding them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from escapebench.agents.reflection import TASK_OPERATIONS, parse_task_operation
from escapebench.engine.actions import VERBS
from escapebench.protocols.escapebench import prompts
from escapebench.protocols.escapebench.parsing import parse_action_answer

SRC = Path(prompts.__file__).resolve().parents[1]


def test_the_action_prompt_names_every_action_with_its_form() -> None:
    system = prompts.ACTION_SYSTEM_PROMPT
    for form in ("move(scene)", "click(item)", "apply(tool, item)", "input(text, item)",
                 "craft(tool, tool)"):
        assert form in system
    assert set(VERBS) == {"move", "click", "apply", "input", "craft"}


def test_an_answer_in_the_asked_format_is_read_by_the_parser() -> None:
    # The format line of the instruction, filled in as a model would.
    answer = prompts.CHAIN_OF_THOUGHT_INSTRUCTION.split("\n", 1)[1]
    answer = answer.replace("<your reasoning>", "the drawer may hold a key").replace(
        "<one action, e.g. click(drawer)>", "apply(key, locked door)"
    )
    parsed = parse_action_answer(answer)
    assert parsed.action == "apply(key, locked door)"
    assert parsed.thought == "the drawer may hold a key"


def test_the_reflection_prompt_offers_the_four_operations_the_reader_knows() -> None:
    for op in TASK_OPERATIONS:
        assert f"- {op}(" in prompts.REFLECTION_SYSTEM_PROMPT
    examples = prompts.REFLECTION_SYSTEM_PROMPT.split("Examples:", 1)[1].split("\n\n")[0]
    read = [parse_task_operation(f"- Action: {e.strip()}") for e in
            re.split(r"(?<=\)),\s", examples.strip().rstrip("."))]
    assert [op.op for op in read] == ["update", "new", "delete", "none"]
    assert all(op.readable for op in read)


def test_the_foresight_prompts_ask_for_the_actions_the_validator_takes() -> None:
    assert "craft(" in prompts.FORESIGHT_TOOL_SYSTEM_PROMPT
    assert "apply(" in prompts.FORESIGHT_TOOL_SYSTEM_PROMPT
    for verb in ("click(", "apply(", "input("):
        assert verb in prompts.FORESIGHT_TASK_SYSTEM_PROMPT
    for system in (prompts.FORESIGHT_TOOL_SYSTEM_PROMPT, prompts.FORESIGHT_TASK_SYSTEM_PROMPT):
        assert "- Actions:" in system and "- Thought:" in system


def test_prompt_version_is_named() -> None:
    assert re.fullmatch(r"escapebench-prompts-\d+", prompts.PROMPT_VERSION)
    assert prompts.PROMPT_VERSION != "escapebench-paper-c-v1"


def test_no_other_module_holds_prompt_text() -> None:
    # Distinctive sentences of each prompt: any copy outside prompts.py would drift.
    markers = [
        "You are playing a room escape game",
        "keep a task list",
        "You seem to be stuck",
        "Your recent steps, oldest first",
    ]
    offenders = [
        f"{path.relative_to(SRC)}: {marker}"
        for path in SRC.rglob("*.py")
        if path.name != "prompts.py"
        for marker in markers
        if marker in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


def test_action_prompt_layout_puts_what_changes_last() -> None:
    history = [prompts.MemoryStep(3, "hall -> study", "click(drawer)", "It opens.")]
    messages = prompts.action_messages(
        observation="Scene Description: ...",
        position="hall -> study",
        history=history,
        extra_blocks=[prompts.EMPTY_TASK_LIST],
        hint=prompts.format_hint("hall", "click(box)"),
    )
    assert messages[0] == {"role": "system", "content": prompts.ACTION_SYSTEM_PROMPT}
    user = messages[1]["content"]
    order = [
        "You are now at: hall -> study\nScene Description: ...",
        "Step 3 at hall -> study: click(drawer)\nResult: It opens.",
        prompts.EMPTY_TASK_LIST,
        prompts.format_hint("hall", "click(box)"),
        prompts.CHAIN_OF_THOUGHT_INSTRUCTION,
    ]
    positions = [user.index(part) for part in order]
    assert positions == sorted(positions)


def test_one_more_step_of_history_keeps_the_previous_prompt_as_a_prefix() -> None:
    steps = [prompts.MemoryStep(k, "hall", f"click(box {k})", "Nothing happens.")
             for k in range(1, 13)]

    def call(n: int) -> str:
        return json.dumps(prompts.action_messages(
            observation="Scene Description: the hall.", position="hall", history=steps[:n],
            extra_blocks=["Here you recently failed with: ..."],
        ))

    before, now = call(11), call(12)
    end_of_history = before.index("Here you recently failed")
    assert now.startswith(before[:end_of_history].removesuffix("\\n\\n"))
    assert end_of_history / len(now) > 0.75


def test_the_window_moves_in_blocks_and_shows_at_least_memory_steps() -> None:
    for memory in (1, 2, 10):
        for step in range(0, 60):
            start = prompts.window_start(step, memory)
            shown = step - start
            assert shown == step if step <= memory else memory <= shown <= 2 * memory - 1
            assert start % memory == 0
    assert [prompts.window_start(s, 10) for s in (10, 19, 20, 29, 30)] == [0, 0, 10, 10, 20]


def test_task_entry_layout() -> None:
    task = prompts.TaskView(1, "open the chest", "chest", "It is nailed shut.", "hall")
    text = prompts.format_task(task)
    assert text.splitlines()[0] == "Task 1: open the chest (target item: chest)"
    assert "It is nailed shut." in text and text.endswith("hall")
