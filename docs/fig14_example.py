"""Redraw docs/fig14-tries.png: figure 14 with its chance line, the explorer beside a model.

    python docs/fig14_example.py [OUT_DIR]

No language model is called. The "model" is a scripted stand-in played through the real
BaseAgent and harness (``ScriptedChatModel``): each answer is a function of the prompt alone,
so it remembers only what the BaseAgent's working memory shows it (the last 10 steps). It clicks
what it has not clicked lately, then applies a bag tool to an item it has not tried lately
(picked by a hash of the prompt: blind), then moves. The explorer plays the same settings.
Both runs go into OUT_DIR (default: a temporary folder) and ``escapebench report`` draws the
figure, which is copied to docs/fig14-tries.png.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from escapebench.bench.settings import RunSettings
from escapebench.bench.suite import run_suite
from escapebench.llm.base import Message
from escapebench.llm.scripted import ScriptedChatModel
from escapebench.report.site import build_report

GAMES = ["lab", "ship", "museum"]
MAX_STEPS = 1500
_ITEM = re.compile(r"^\s*<interactable item>\s*(.+?)\s*$", re.MULTILINE)
_SCENE = re.compile(r"^\s*<interactable scene>\s*.*?It leads to\s+(.+?)\s*$", re.MULTILINE)
_TOOL = re.compile(r"^\s*<applicable tool>\s*(.+?):", re.MULTILINE)
_ACTION = re.compile(r"\b(?:click|apply|move)\([^()]*\)")


def _pick(options: Sequence[str], seed: str) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    return options[int.from_bytes(digest[:8], "big") % len(options)]


def blind_answer(messages: Sequence[Message]) -> str:
    """The scripted stand-in's answer (see the module docstring)."""
    text = "\n".join(str(m.get("content") or "") for m in messages)
    last = str(messages[-1].get("content") or "")
    recent = set(_ACTION.findall(last.split("Your recent steps", 1)[-1]))
    items = _ITEM.findall(last)
    tools = _TOOL.findall(last)
    scenes = _SCENE.findall(last)
    seed = hashlib.sha256(text.encode()).hexdigest()
    clicks = [f"click({i})" for i in items if f"click({i})" not in recent]
    if clicks:
        return f"Action: {_pick(clicks, seed)}"
    applies = [f"apply({t}, {i})" for t in tools for i in items
               if f"apply({t}, {i})" not in recent]
    if applies:
        return f"Action: {_pick(applies, seed)}"
    if scenes:
        return f"Action: move({_pick(scenes, seed)})"
    return f"Action: click({_pick(items, seed)})" if items else "Action: move(back)"


async def main(out: Path) -> Path:
    common = dict(games=GAMES, difficulties=["normal"], max_steps=MAX_STEPS, fsync=False,
                  quiet=True, no_cache=True, concurrency=1)
    explorer = RunSettings(agent="explorer", out=out / "explorer", **common)
    await run_suite(explorer, stream=sys.stderr)
    model = ScriptedChatModel(blind_answer, name="scripted-blind-stand-in")
    scripted = RunSettings(agent="base", model=model.name, out=out / "scripted", **common)
    await run_suite(scripted, model=model, stream=sys.stderr)
    report = out / "report"
    build_report([out / "explorer", out / "scripted"], report)
    return report / "figures" / "fig14-tries-before-success.png"


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    png = asyncio.run(main(target))
    shutil.copyfile(png, Path(__file__).resolve().parent / "fig14-tries.png")
    print(f"runs and report in {target}; wrote docs/fig14-tries.png")
