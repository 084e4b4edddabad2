"""Typed, immutable game definitions.

A :class:`GameDefinition` is built once by a loader (``escapebench.games.loading``) and then
shared, read-only, by any number of :class:`~escapebench.engine.env.EscapeGame` instances.
Everything is indexed by small integers so that the play state can be a handful of flat lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

WaitKind = Literal["click", "apply", "input"]
WAIT_KINDS: tuple[WaitKind, ...] = ("click", "apply", "input")
TriggerKind = Literal["change_visible", "change_interact", "change_state", "become_tool"]
TargetKind = Literal["self", "scene", "item", "tool"]
Difficulty = Literal["easy", "normal", "hard"]

DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "normal", "hard")
GAME_END_MARK = "GAME END"

# Where a tool is, in the play state (``EscapeGame.tool_where``).
TOOL_IN_SCENE, TOOL_IN_BAG, TOOL_GONE = 0, 1, 2


class BrokenGameError(ValueError):
    """A game definition asked the engine for something it does not have (a trigger naming a
    missing scene). Raised when that trigger fires; ``escapebench check`` reports the same
    problems, with lines, before any play."""


class PastStateError(BrokenGameError):
    """A step would show (or let the player act on) an item or tool in a state past its last
    one. A trigger may set such a state, as the original engine allows, while the thing is
    hidden; the step that would show it ends with this error as its feedback instead, and is
    undone (see ``EscapeGame._offer``)."""


@dataclass(frozen=True, slots=True)
class Wait:
    """One thing a transition waits for: a click, a tool applied, or a string input."""

    kind: WaitKind
    arg: str = ""  # tool name for "apply", the expected text for "input"

    def __str__(self) -> str:
        return "click" if self.kind == "click" else f"{self.kind}, {self.arg}"


@dataclass(frozen=True, slots=True)
class Trigger:
    """An effect fired by a transition.

    ``target_kind == "self"`` means the item that owns the transition; ``value`` is a bool for
    visibility and interactability, an int for a state, and the tool name for ``become_tool``.
    """

    kind: TriggerKind
    target_kind: TargetKind
    target: str
    value: bool | int | str


@dataclass(frozen=True, slots=True)
class Transition:
    """Fires its triggers once every wait has happened in the owning item's current state."""

    waits: tuple[Wait, ...]
    triggers: tuple[Trigger, ...]
    reward: str | None = None
    # The author's mark of a creative step (a tool used for what its name does not suggest):
    # True for every tool the transition waits for, or the names of those that are.
    creative: bool | tuple[str, ...] = False

    @property
    def ends_game(self) -> bool:
        return self.reward is not None and GAME_END_MARK in self.reward


@dataclass(frozen=True, slots=True)
class ItemState:
    desc: str
    neg_reward: str | None = None
    transitions: tuple[Transition, ...] = ()


@dataclass(frozen=True, slots=True)
class Item:
    name: str
    scene: int  # index of the scene that holds it
    position: str
    visible: bool
    interactable: bool
    states: tuple[ItemState, ...]


@dataclass(frozen=True, slots=True)
class ToolState:
    desc: str
    apply_to: tuple[str, ...] = ()
    wait_for: tuple[str, ...] = ()
    creative: bool = False  # the author's mark: crafting into this state is a creative step
    # The name the tool goes by in this state (a crafted product: a cane with a straw pushed
    # in is the "blowpipe"); "" = the tool's own name. Our format only; never the first state.
    name: str = ""
    # What a refused craft with the tool in this state adds to "These two tools do not go
    # together." ("The fridge magnet will go with one thing here, but not with this."); ""
    # for nothing. Our format only.
    neg_reward: str = ""


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    scene: int
    position: str
    visible: bool
    states: tuple[ToolState, ...]

    def name_in(self, state: int) -> str:
        """The name the tool goes by in ``state``: that state's own name (a crafted
        product's), else the tool's. The tool's own name is what waits, ``apply_to``, triggers
        and logs use; a player may call it by either."""
        own = self.states[state].name if 0 <= state < len(self.states) else ""
        return own or self.name


@dataclass(frozen=True, slots=True)
class SceneLink:
    """A way out of a scene: the label the player sees and the scene it leads to."""

    label: str
    target: str


@dataclass(frozen=True, slots=True)
class Scene:
    name: str
    desc: str
    visible: bool
    links: tuple[SceneLink, ...]
    items: tuple[int, ...]  # item indices, in file order
    tools: tuple[int, ...]  # tool indices, in file order


@dataclass(frozen=True, slots=True)
class ReferenceStep:
    """One action of the reference chain and where it is taken."""

    path: tuple[str, ...]  # scene names from the first scene; the last is where to act
    action: str

    @property
    def scene(self) -> str:
        return self.path[-1]


@dataclass(frozen=True, slots=True)
class GeneratedFrom:
    """Where a game made in memory by the generator comes from: the ``gen:`` spec (normalized),
    the generator's version, the sha256 of the game's YAML text and the file name it is
    written as by ``escapebench generate`` (what ``run.json`` records of it)."""

    spec: str
    generator_version: str
    sha256: str
    file: str


@dataclass(frozen=True)
class GameDefinition:
    """One playable setting (a game in one difficulty), immutable after loading."""

    setting: str  # e.g. "game2-1-hard" or "lab-easy"
    game: str  # the game shared by the three versions, e.g. "game2-1" or "lab"
    difficulty: Difficulty
    title: str
    scenes: tuple[Scene, ...]
    items: tuple[Item, ...]
    tools: tuple[Tool, ...]
    reference: tuple[ReferenceStep, ...] = ()
    source: str = ""  # where it was loaded from, for messages
    notes: str = ""
    # Where the file relies on the original engine's lenient reading rules: (place in the YAML
    # document, what was read there), e.g. ((3, "items", 0, ...), "'False.' is read as false").
    # ``escapebench check`` reports each as a warning with its line.
    readings: tuple[tuple[tuple[str | int, ...], str], ...] = field(default=(), compare=False)
    scene_index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    tool_index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    item_index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    # A game of a gen: spec, made in memory: where it comes from (None for a game file).
    generated: GeneratedFrom | None = field(default=None, compare=False)
    # Caches of data derived from the definition (the engine's tables, observation texts),
    # built on first use and kept with the definition they belong to. Looking one up here is
    # cheap; hashing a whole definition (as a functools cache would) is not.
    caches: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Name lookups. For items the first one in file order wins when a name repeats (the
        # checker reports duplicates); triggers name items without a scene.
        self.scene_index.update({s.name: i for i, s in reversed(list(enumerate(self.scenes)))})
        self.tool_index.update({t.name: i for i, t in reversed(list(enumerate(self.tools)))})
        self.item_index.update({t.name: i for i, t in reversed(list(enumerate(self.items)))})

    @property
    def start_scene(self) -> str:
        return self.scenes[0].name

    @property
    def total_key_steps(self) -> int:
        """Every wait of every item transition plus every craft a tool waits for."""
        n = sum(len(tr.waits) for it in self.items for st in it.states for tr in st.transitions)
        return n + sum(len(st.wait_for) for t in self.tools for st in t.states)

    @property
    def total_tools(self) -> int:
        return len(self.tools)
