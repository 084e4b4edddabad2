"""A small game in the original layout (a bare YAML list of scenes, ``gameX-Y.yaml`` with its
reference in ``reference/key_log_X-Y.txt``) that relies on each of the original engine's
reading rules, written for the tests (our own text, not a copy of the original data):

- a boolean written ``False.`` (read as false) and a trailing comma and odd spacing around the
  commas of a trigger and of a ``wait_for``;
- a trigger that sets the vase to a state past its last one in the same transition that hides
  it (the original sets it as it is; nothing fails while the vase is hidden);
- a scene, the attic, that no scene links to: only the hint teleport reaches the reference
  step made there (as in the original's game2-3-easy, which lacks one scene link).

``game7-1-hard.yaml`` also writes a boolean ``True.`` (read as false) where the key should be
revealed, so that setting cannot be won as the original engine reads it.
"""

from __future__ import annotations

from pathlib import Path

COTTAGE_YAML = """\
- name: porch
  desc: A small porch in front of a cottage.
  scene_relations:
    front door: hall
  items:
  - position: on the ground
    item:
      name: doormat
      states:
      - desc: A worn doormat with a bump under it.
        transitions:
        - wait_for: [click]
          trigger:
          - change_visible, tool, brass key, True
          - change_interact, False.
          reward: You lift the mat and find a key under it.
  - position: in the wall
    item:
      name: cottage door
      states:
      - desc: A locked door.
        neg_reward: The door stays shut.
        transitions:
        - wait_for: ["apply ,  brass key"]
          trigger:
          - "change_state , 1,"
          - change_visible, scene, hall, True
          reward: The door swings open.
      - desc: An open door.
  tools:
  - position: under the mat
    tool:
      name: brass key
      visible: false
      states:
      - desc: A small brass key.
        apply_to: [cottage door]
- name: hall
  desc: A narrow hall.
  visible: false
  scene_relations:
    back to the porch: porch
  items:
  - position: on a shelf
    item:
      name: vase
      states:
      - desc: A wobbly vase.
        transitions:
        - wait_for: [click]
          trigger:
          - change_state, 1
          - change_visible, False
          reward: The vase topples and rolls out of sight.
  - position: on the wall
    item:
      name: painting
      states:
      - desc: A painting of four birds on a branch, numbered 2, 7, 1 and 8.
- name: attic
  desc: A dusty attic.
  items:
  - position: under the window
    item:
      name: chest
      states:
      - desc: A chest with a four-digit lock.
        neg_reward: The lock does not move.
        transitions:
        - wait_for: ["input, 2718"]
          trigger: []
          reward: The chest opens and the way out is inside. GAME END
"""

COTTAGE_REFERENCE = """\
{
    "position": "porch",
    "action_answer": "click(doormat)"
}
{
    "position": "porch",
    "action_answer": "click(brass key)"
}
{
    "position": "porch",
    "action_answer": "apply(brass key, cottage door)"
}
{
    "position": "porch -> hall",
    "action_answer": "click(vase)"
}
{
    "position": "porch -> hall -> attic",
    "action_answer": "input(2718, chest)"
}
"""

# The hard version: the key is revealed by a boolean most likely meant as true.
MEANT_TRUE_OLD = "change_visible, tool, brass key, True\n"
MEANT_TRUE_NEW = "change_visible, tool, brass key, True.\n"


def write_cottage(folder: Path, *, hard: bool = True, extra: str = "") -> Path:
    """Write ``game7-1.yaml`` (and ``game7-1-hard.yaml``) with their reference into
    ``folder``; ``extra`` is appended to the scenes. Returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game7-1.yaml").write_text(COTTAGE_YAML + extra, encoding="utf-8")
    if hard:
        text = COTTAGE_YAML.replace(MEANT_TRUE_OLD, MEANT_TRUE_NEW)
        assert text != COTTAGE_YAML
        (folder / "game7-1-hard.yaml").write_text(text + extra, encoding="utf-8")
    (folder / "reference").mkdir(exist_ok=True)
    (folder / "reference" / "key_log_7-1.txt").write_text(COTTAGE_REFERENCE, encoding="utf-8")
    return folder


def line_of(text: str, fragment: str) -> int:
    """1-based line of the first line holding ``fragment``."""
    for n, line in enumerate(text.splitlines(), 1):
        if fragment in line:
            return n
    raise AssertionError(f"{fragment!r} not in the text")
