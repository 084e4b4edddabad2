"""Finding the original harness's texts in a checkout: by function name and place, not by code."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from escapebench.protocols.original.escape_texts import read_original_escape_texts
from escapebench.protocols.original.protocol import OriginalTexts
from escapebench.protocols.original.source import Message, OriginalSource, OriginalSourceError


def _texts(source: OriginalSource) -> dict[str, list[str]]:
    """Every message the two agents use, as its literal pieces (holes left out)."""
    found: dict[str, list[str]] = {}
    for name, value in vars(OriginalTexts(source)).items():
        for k, msg in enumerate(value if isinstance(value, tuple) else (value,)):
            if isinstance(msg, Message):
                found[f"{name}.{k}"] = msg.pieces()
    for name, msg in read_original_escape_texts(source).messages.items():
        found[f"escape.{name}"] = msg.pieces()
    return found


def test_renaming_the_checkout_s_local_variables_finds_the_same_texts(
    upstream_dir: Path, tmp_path: Path
) -> None:
    # The texts are found by the functions they are in and their place there, so code around
    # them that reads differently (here: other local names inside the filled-in places) does
    # not change what a model is shown.
    src = tmp_path / "src"
    shutil.copytree(upstream_dir / "original" / "src", src)
    renames = {
        "env/bag.py": {"tool_1": "first_tool", "tool_2": "second_tool"},
        "env/item.py": {"chosen_tool": "picked", "transition": "edge"},
        "agent_creative.py": {"bad_acts_string": "refused", "tools_in_bag": "bag_text"},
        "agent_base.py": {"scene_prompt": "screen"},
    }
    for rel, names in renames.items():
        path = src / rel
        text = path.read_text(encoding="utf-8")
        for old, new in names.items():
            assert re.search(rf"\b{old}\b", text), (rel, old)  # the rename changes something
            text = re.sub(rf"\b{old}\b", new, text)
        path.write_text(text, encoding="utf-8")
    before = _texts(OriginalSource(upstream_dir / "original" / "src"))
    after = _texts(OriginalSource(src))
    assert len(before) > 60
    assert after == before


def test_a_message_missing_from_its_place_is_refused_naming_file_and_function(
    upstream_dir: Path,
) -> None:
    source = OriginalSource(upstream_dir / "original" / "src")
    assert source.message("env/scene.py", "Scene.move", 0, 1).holes  # found where it stands
    with pytest.raises(OriginalSourceError, match=r"env/scene\.py: Scene\.move has no message 5"):
        source.message("env/scene.py", "Scene.move", 4, 1)
    with pytest.raises(OriginalSourceError, match=r"Scene\.move has 1 hole\(s\) in the message 1"):
        source.message("env/scene.py", "Scene.move", 0, 2)
    with pytest.raises(OriginalSourceError, match="--original-source"):
        source.message("env/scene.py", "Scene.no_such_method", 0, 0)
