"""The prompts are the paper's, word for word, and live in one module only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from escapebench.protocols.escapebench import prompts

SRC = Path(prompts.__file__).resolve().parents[1]

# The templates the paper prints (appendix C, C.1, C.2, C.3 and D.1).
PAPER_TEMPLATES = {
    "ACTION_SYSTEM_PROMPT": prompts.ACTION_SYSTEM_PROMPT,
    "HISTORY_STEP_TEMPLATE": prompts.HISTORY_STEP_TEMPLATE,
    "REFLECTION_SYSTEM_PROMPT": prompts.REFLECTION_SYSTEM_PROMPT,
    "TASK_TEMPLATE": prompts.TASK_TEMPLATE,
    "FORESIGHT_TOOL_SYSTEM_PROMPT": prompts.FORESIGHT_TOOL_SYSTEM_PROMPT,
    "FORESIGHT_TASK_SYSTEM_PROMPT": prompts.FORESIGHT_TASK_SYSTEM_PROMPT,
    "HINT_TEMPLATE": prompts.HINT_TEMPLATE,
}


def _flat(text: str) -> str:
    """Compare texts without the PDF's typographic quotes and line layout."""
    return re.sub(r"\s+", " ", text.replace("’", "'")).strip()


@pytest.mark.parametrize("name", sorted(PAPER_TEMPLATES))
def test_paper_templates_are_the_papers_words(name: str, paper_text: str) -> None:
    paper = _flat(paper_text)
    # Our placeholders stand where the paper writes <...> or "..."; every fixed piece around
    # them must be in the paper as written, typos included.
    for piece in re.split(r"\{\w+\}", PAPER_TEMPLATES[name]):
        piece = _flat(piece)
        if piece:
            assert piece in paper, f"{name}: {piece[:80]!r} is not in the paper"


def test_paper_typos_are_kept() -> None:
    assert "whcih" in prompts.ACTION_SYSTEM_PROMPT
    assert "update ,new, delete or none" in prompts.REFLECTION_SYSTEM_PROMPT
    assert "use acton 'craft" in prompts.FORESIGHT_TOOL_SYSTEM_PROMPT
    assert "You shuold justify" in prompts.FORESIGHT_TASK_SYSTEM_PROMPT


def test_prompt_version_is_named() -> None:
    assert re.fullmatch(r"escapebench-paper-c-v\d+", prompts.PROMPT_VERSION)


def test_no_other_module_holds_prompt_text() -> None:
    # Distinctive sentences of each prompt: any copy outside prompts.py would drift.
    markers = [
        "You are in a Room Escape game",
        "maintain a task list with solving suggestions",
        "Since you're stuck",
        "Response from the environment:",
    ]
    offenders = [
        f"{path.relative_to(SRC)}: {marker}"
        for path in SRC.rglob("*.py")
        if path.name != "prompts.py"
        for marker in markers
        if marker in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


def test_action_prompt_layout() -> None:
    history = [prompts.MemoryStep(3, "hall -> study", "click(drawer)", "It opens.")]
    messages = prompts.action_messages(
        observation="Scene Description: ...",
        position="hall -> study",
        history=history,
        extra_blocks=["Task list: empty."],
        hint=prompts.format_hint("hall", "click(box)"),
    )
    assert messages[0] == {"role": "system", "content": prompts.ACTION_SYSTEM_PROMPT}
    user = messages[1]["content"]
    order = [
        "History: [Step 3]\nYour position: hall -> study\nYour action: click(drawer)\n"
        "Response from the environment: It opens.",
        "Current step:\nYour position: hall -> study\nScene Description: ...",
        "Task list: empty.",
        "The next target location should be: hall.\n"
        "Your next target action should be: click(box).",
        prompts.CHAIN_OF_THOUGHT_INSTRUCTION,
    ]
    positions = [user.index(part) for part in order]
    assert positions == sorted(positions)


def test_task_entry_layout() -> None:
    task = prompts.TaskView(1, "open the chest", "chest", "It is nailed shut.", "hall")
    assert prompts.format_task(task) == (
        "[Task Index 1] Name: open the chest, Target Item: chest\n"
        "- Task description: It is nailed shut.\n"
        "- Found at: hall"
    )
