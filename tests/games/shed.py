"""A small but complete game written for the tests, and helpers to write mutated copies.

It uses every action (move by the reference walk, click, apply, input, craft), a hidden scene,
a hidden item, a hidden tool handed out by ``become_tool`` and a tool with two states.
"""

from __future__ import annotations

from pathlib import Path

SHED_YAML = """\
escapebench: 1
id: shed
title: The Garden Shed
difficulty: normal
scenes:
  - name: shed
    desc: A small wooden shed with a curtain on one side.
    scene_relations:
      Behind the curtain: workbench
    items:
      - position: on the back wall
        item:
          name: padlocked door
          states:
            - desc: A door held by a two-digit padlock.
              neg_reward: The padlock holds.
              transitions:
                - wait_for: ["input, 42"]
                  trigger: ["change_state, 1"]
                  reward: The padlock opens.
            - desc: The door is unlocked.
              transitions:
                - wait_for: [click]
                  reward: You step out into the garden. GAME END
      - position: on one side
        item:
          name: curtain
          states:
            - desc: A dusty curtain.
              transitions:
                - wait_for: [click]
                  trigger:
                    - change_visible, scene, workbench, True
                    - change_interact, False
                  reward: Behind the curtain is a workbench.
      - position: in the corner
        item:
          name: flower pot
          states:
            - desc: A clay pot full of hard soil.
              neg_reward: The soil is too hard for bare hands.
              transitions:
                - wait_for: ["apply, trowel"]
                  trigger:
                    - change_visible, item, note, True
                    - change_interact, False
                  reward: Something was buried in the pot.
      - position: in the soil
        item:
          name: note
          visible: false
          states:
            - desc: A note that reads "six times seven".
    tools:
      - position: on the floor
        tool:
          name: trowel
          states:
            - desc: A trowel blade without a handle.
              wait_for: [handle]
            - desc: A trowel, ready to dig.
              apply_to: [flower pot]
  - name: workbench
    desc: A cluttered workbench.
    visible: false
    scene_relations:
      Back to the shed: shed
    items:
      - position: on the bench
        item:
          name: toolbox
          states:
            - desc: A rusty toolbox.
              transitions:
                - wait_for: [click]
                  trigger: ["become_tool, handle"]
                  reward: The toolbox falls apart; only a wooden handle is left.
    tools:
      - position: in the toolbox
        tool:
          name: handle
          visible: false
          states:
            - desc: A wooden handle.
              apply_to: [trowel]
reference:
  - position: shed
    action: click(curtain)
  - position: shed
    action: click(trowel)
  - position: shed -> workbench
    action: click(toolbox)
  - position: shed -> workbench
    action: craft(handle, trowel)
  - position: shed
    action: apply(trowel, flower pot)
  - position: shed
    action: input(42, padlocked door)
  - position: shed
    action: click(padlocked door)
"""

# What `escapebench check` must count for it.
SHED_COUNTS = {
    "scenes": 2,
    "hidden_scenes": 1,
    "items": 5,
    "tools": 2,
    "key_steps": 6,
    "total_tools": 2,
    "reference_length": 7,
    "oracle_steps": 9,  # 7 actions + a walk to the workbench and one back
    "crafts": 1,
    "inputs": 1,
    "applies": 1,
    "clicks": 4,
}


def line_of(text: str, snippet: str) -> int:
    """1-based line of the only occurrence of ``snippet`` in ``text``."""
    assert text.count(snippet) == 1, f"{snippet!r} must occur once"
    return text[: text.index(snippet)].count("\n") + 1


def write_shed(folder: Path, old: str = "", new: str = "", name: str = "shed.yaml") -> Path:
    """Write the game (with ``old`` replaced by ``new`` once) and return its path."""
    text = SHED_YAML
    if old:
        assert text.count(old) == 1, f"mutation target {old!r} must occur once"
        text = text.replace(old, new)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path
