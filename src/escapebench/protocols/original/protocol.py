"""The ``original`` protocol: what the original EscapeBench harness sends a model, byte for byte.

Every text comes from the user's checkout (:mod:`escapebench.protocols.original.source`); this
module holds only the rules that assemble them, written from reading the original code:

* the observation: the scene (name, description, what is seen), the possible actions (the
  interactable items and tools, the exits to visible scenes), the bag;
* the feedback of a step: the original engine's reward text for the same action from the same
  state, including its failure texts (an item that wants a tool or an input but got another,
  its error texts for a wrong argument count or a name that is not on screen);
* answers: the last lower-case call of the five verbs with no nested parentheses (none: the
  original's "no action" text, played as it is); names matched as the original engine matches
  them: an item or tool by its name, an exit by its label, any letter case; the text of an
  input as written, compared case-sensitively;
* the BaseAgent prompt: the chain-of-thought system prompt, the history of the last steps
  (left out during help), the step header and position line, the hint, the closing sentence;
* the position: the original's scene stack (a scene entered is pushed; going back to one on the
  stack cuts it there), replaced by the reference position during help.

The engine plays the action (its state follows the original engine's, step for step: the
conformance traces check it); the texts are rendered here from the state before the step. An
input the original would refuse (its comparison is case-sensitive, the engine's is not) is not
played at all, so the state stays the original's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from escapebench.engine.actions import Call
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import TOOL_IN_SCENE, BrokenGameError, GameDefinition
from escapebench.engine.outcome import Outcome
from escapebench.protocols.base import (
    HintView,
    HistoryStep,
    Play,
    PromptProtocol,
    Reading,
    Session,
    not_played,
)
from escapebench.protocols.escapebench.parsing import parse_action_answer
from escapebench.protocols.original.source import (
    USAGE_HINT,
    Message,
    OriginalSource,
    OriginalSourceError,
    find_source,
)

ORIGINAL_VERSION = "original-1"
"""Version of the rules in this module (the texts are versioned by the sha256 of the files)."""

PATH_SEPARATOR = " -> "
"""Between the scenes of a position ("first scene -> ... -> current scene")."""

_ITEM = "env/item.py"
_SCENE = "env/scene.py"
_BAG = "env/bag.py"
_GRAPH = "env/graph.py"
_AGENT = "agent_base.py"


class OriginalTexts:
    """The messages of the original harness, found in its source by function and holes."""

    def __init__(self, source: OriginalSource) -> None:
        s = source
        m = s.message
        self.source = source
        # prompts
        self.system_prompt = str(s.constant("instruction.py", "BASE_SYS_PROMPT"))
        self.system_prompt_cot = str(s.constant("instruction.py", "BASE_SYS_PROMPT_COT"))
        self.helper_prompt = str(s.constant("instruction.py", "HELPER_PROMPT"))
        self.helper_block = m(_AGENT, "BaseAgent.form_helper_prompt", 0, 1)
        self.history_step = m(_AGENT, "BaseAgent.add_history", 0, 1)
        self.history_position = m(_AGENT, "BaseAgent.add_history", 1, 1)
        self.history_action = m(_AGENT, "BaseAgent.add_history", 2, 1)
        self.history_response = m(_AGENT, "BaseAgent.add_history", 3, 1)
        self.scene_block = m(_AGENT, "BaseAgent.take_action", 0, 1)
        self.frame = m(_AGENT, "BaseAgent.take_action", 1, 3)
        # answers
        verbs = s.function_constant("utils.py", "find_last_function_call", "function_names")
        pattern = m("utils.py", "find_last_function_call", 0, 1).pieces()
        self.call_pattern = re.compile(
            pattern[0] + "|".join(re.escape(str(v)) for v in verbs) + pattern[1]
        )
        self.no_action = m("utils.py", "find_last_function_call", 1, 0).literal
        # observation
        self.describe = m(_GRAPH, "Graph.describe", 0, 3)
        self.scene_head = m(_SCENE, "Scene.describe", 0, 2)
        self.seen_head = m(_SCENE, "Scene.describe", 2, 0).literal
        self.item_line = m(_SCENE, "Scene.describe", 3, 3)
        self.tool_line = m(_SCENE, "Scene.describe", 4, 3)
        self.actions_head = m(_SCENE, "Scene.actions", 0, 0).literal
        self.item_action = m(_SCENE, "Scene.actions", 2, 1)
        self.tool_action = m(_SCENE, "Scene.actions", 5, 1)
        self.links_head = m(_SCENE, "Scene.actions", 7, 0).literal
        self.link_line = m(_SCENE, "Scene.actions", 9, 2)
        self.bag_empty = m(_BAG, "Bag.describe", 0, 0).literal
        self.bag_head = m(_BAG, "Bag.describe", 1, 0).literal
        self.bag_name = m(_BAG, "Bag.describe", 3, 1)
        self.bag_desc = m(_BAG, "Bag.describe", 4, 1)
        self.bag_end = m(_BAG, "Bag.describe", 5, 0).literal
        # feedback: errors
        self.arity = {
            verb: msg.literal
            for msg in s.messages(_GRAPH, "Graph.parse_response")
            if not msg.holes
            for verb in ("click", "move", "apply", "input", "craft")
            if msg.literal.lower().startswith(verb)
        }
        if len(self.arity) != 5:
            raise OriginalSourceError(
                f"{source.src / _GRAPH}: Graph.parse_response does not name the five verbs' "
                f"argument counts (not the original release?); {USAGE_HINT}"
            )
        self.invalid_name = m(_GRAPH, "Graph.parse_response", 5, 1)
        self.reaction_error = m(_GRAPH, "Graph.react", 1, 1)
        self.apply_not_item = m(_SCENE, "Scene.apply", 0, 0).literal
        self.input_not_item = m(_SCENE, "Scene.input", 0, 0).literal
        # feedback: outcomes
        self.collected = m(_SCENE, "Scene.click", 0, 1)
        self.moved = m(_SCENE, "Scene.move", 0, 1)
        self.clicked_reward = m(_ITEM, "Item.click", 1, 2)
        self.clicked = m(_ITEM, "Item.click", 2, 1)
        self.click_failed_neg = m(_ITEM, "Item.click", 3, 2)
        self.click_failed = m(_ITEM, "Item.click", 4, 1)
        self.input_wrong = m(_ITEM, "Item.input", 1, 1)
        self.input_reward = m(_ITEM, "Item.input", 2, 3)
        self.input_done = m(_ITEM, "Item.input", 3, 2)
        self.input_failed_neg = m(_ITEM, "Item.input", 4, 1)
        self.input_failed = m(_ITEM, "Item.input", 5, 0).literal
        self.apply_wrong = m(_ITEM, "Item.apply", 1, 1)
        self.applied = m(_ITEM, "Item.apply", 2, 2)
        self.applied_reward = m(_ITEM, "Item.apply", 3, 1)
        self.applied_end = m(_ITEM, "Item.apply", 4, 0).literal
        self.applied_partial = m(_ITEM, "Item.apply", 5, 2)
        self.apply_failed_neg = m(_ITEM, "Item.apply", 6, 1)
        self.apply_failed = m(_ITEM, "Item.apply", 7, 0).literal
        self.crafted = (
            m(_BAG, "Bag.craft", 0, 2),
            m(_BAG, "Bag.craft", 3, 2),
        )
        self.craft_new = (
            m(_BAG, "Bag.craft", 1, 1),
            m(_BAG, "Bag.craft", 4, 1),
        )
        self.craft_missing = (
            m(_BAG, "Bag.craft", 2, 1),
            m(_BAG, "Bag.craft", 5, 1),
        )
        self.craft_failed = m(_BAG, "Bag.craft", 6, 0).literal




# ------------------------------------------------------------------ the game, read as the original
def call_args(call: Call) -> list[str]:
    """A call's arguments as the original splits them: cut at commas, stripped, empty ones
    dropped."""
    return [a.strip() for a in call.arg_text.split(",") if a.strip() != ""]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _parts(text: str) -> tuple[str, list[str]]:
    """A wait string as the original reads it: the kind before the first comma, the other
    comma-separated parts stripped, empty ones dropped."""
    pieces = _text(text).split(",")
    return pieces[0].strip(), [a.strip() for a in pieces[1:] if a.strip() != ""]


@dataclass(frozen=True)
class _RawTransition:
    waits: tuple[str, ...]
    reward: str | None  # None: no reward key
    has_reward: bool


@dataclass(frozen=True)
class _RawState:
    desc: str
    neg_reward: str | None
    transitions: tuple[_RawTransition, ...]


@dataclass(frozen=True)
class _WrittenThing:
    key: str  # the name as written (the original's dict key, shown in the action list)
    name: str  # stripped (the original's .name, shown in texts)
    position: str
    states: tuple[Any, ...]  # _RawState for items, (desc, apply_to, wait_for) for tools


@dataclass(frozen=True)
class _WrittenScene:
    key: str
    name: str
    desc: str
    relations: tuple[tuple[str, str], ...]  # (label, target) as written


class WrittenGame:
    """The texts of one setting as the original engine reads them (names unstripped where it
    keeps them so), indexed like the :class:`GameDefinition` of the same file."""

    def __init__(self, defn: GameDefinition) -> None:
        path = Path(defn.source)
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise BrokenGameError(
                f"{path}: cannot be read for the original protocol: {exc}"
            ) from None
        self.scenes: list[_WrittenScene] = []
        self.items: list[_WrittenThing] = [None] * len(defn.items)  # type: ignore[list-item]
        self.tools: list[_WrittenThing] = [None] * len(defn.tools)  # type: ignore[list-item]
        for _si, (raw, scene) in enumerate(zip(data, defn.scenes, strict=True)):
            rel = raw.get("scene_relations") or {}
            self.scenes.append(_WrittenScene(
                _text(raw["name"]), _text(raw["name"]).strip(), _text(raw.get("desc", "")).strip(),
                tuple((_text(k), _text(v)) for k, v in rel.items()),
            ))
            for i, wrap in zip(scene.items, raw.get("items") or [], strict=True):
                body = wrap["item"]
                states = tuple(
                    _RawState(
                        _text(st.get("desc", "")),
                        None if st.get("neg_reward") is None else _text(st["neg_reward"]),
                        tuple(
                            _RawTransition(
                                tuple(_text(w) for w in (tr.get("wait_for") or [])),
                                None if tr.get("reward") is None else _text(tr["reward"]),
                                "reward" in tr,
                            )
                            for tr in (st.get("transitions") or [])
                        ),
                    )
                    for st in body["states"]
                )
                self.items[i] = _WrittenThing(
                    _text(body["name"]), _text(body["name"]).strip(), _text(wrap["position"]),
                    states,
                )
            for t, wrap in zip(scene.tools, raw.get("tools") or [], strict=True):
                body = wrap["tool"]
                self.tools[t] = _WrittenThing(
                    _text(body["name"]), _text(body["name"]).strip(), _text(wrap["position"]),
                    tuple(_text(st.get("desc", "")).strip() for st in body["states"]),
                )
        self.scene_by_key = {s.key: k for k, s in reversed(list(enumerate(self.scenes)))}
        self.reference = _raw_reference(defn)


def _raw_reference(defn: GameDefinition) -> list[tuple[str, str]]:
    """(position, action_answer) of the reference chain as written in its key log."""
    out: list[tuple[str, str]] = []
    path = Path(defn.source)
    # the key log is named by the game's number, shared by its easy, normal and hard files
    number = defn.game.removeprefix("game")
    log = path.parent / "reference" / f"key_log_{number}.txt"
    if log.is_file():
        text = log.read_text(encoding="utf-8")
        decoder = json.JSONDecoder()
        i = 0
        while True:
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text):
                break
            obj, i = decoder.raw_decode(text, i)
            out.append((str(obj.get("position", "")), str(obj.get("action_answer", ""))))
    if len(out) != len(defn.reference):  # the definition's chain is what the hints follow
        out = [(" -> ".join(r.path), r.action) for r in defn.reference]
    return out


# ------------------------------------------------------------------ the protocol
class OriginalProtocol(PromptProtocol):
    """The original harness's texts and answer rules, read from a checkout.

    Args:
        source: the checkout's ``src`` folder, parsed.
        cot: use the chain-of-thought system prompt (the paper's runs: ``--use_cot``).
    """

    name = "original"
    version = ORIGINAL_VERSION

    def __init__(self, source: OriginalSource, *, cot: bool = True) -> None:
        self.source = source
        self.texts = OriginalTexts(source)
        self.cot = cot

    @classmethod
    def from_checkout(
        cls, games: Sequence[str] = (), given: str | Path | None = None
    ) -> OriginalProtocol:
        """The protocol of the checkout ``given`` or the one the games come from.

        Raises :class:`OriginalSourceError` (one line saying what to pass) when there is none.
        """
        src = find_source(games, given)
        if src is None:
            raise OriginalSourceError(
                "the original protocol reads its texts from the original EscapeBench checkout, "
                f"and the games do not come from one (CHECKOUT/data); {USAGE_HINT}"
            )
        return cls(OriginalSource(src))

    def record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "cot": self.cot,
            "source": str(self.source.src),
            "files": dict(sorted(self.source.files.items())),
        }

    def session(self, defn: GameDefinition) -> OriginalSession:
        return OriginalSession(self, defn)

    # ---------------------------------------------------------------- answers
    def read_answer(self, answer: str) -> Reading:
        """The last call of the original's verbs in ``answer``, stripped (its text is what is
        played and logged); its "no action" text when there is none. (The reasoning is read
        as the escapebench protocol reads it, for the step log.)"""
        return self.read(answer, parse_action_answer(answer).thought)

    def read(self, answer: str, thought: str = "") -> Reading:
        """:meth:`read_answer` without the reasoning (an action string)."""
        found = self.texts.call_pattern.findall(answer)
        if not found:
            return Reading(None, self.texts.no_action, thought)
        text = found[-1].strip()
        verb, opened, rest = text.partition("(")
        call = Call(verb.strip(), rest.split("(")[0].split(")")[0]) if opened else None  # type: ignore[arg-type]
        return Reading(call, text, thought)

    def extract_action(self, answer: str) -> str:
        return self.read(answer).text

    def shown_action(self, played: str, result: StepResult) -> str:
        # The step's action is the call as read (or the "no action" text): shown as it is.
        return result.action

    # ---------------------------------------------------------------- prompts
    def action_system_prompt(self) -> str:
        return self.texts.system_prompt_cot if self.cot else self.texts.system_prompt

    def hint_text(self, hint: HintView) -> str:
        target = hint.position.split("->")[-1].strip()
        filled = (
            self.texts.helper_prompt.replace("<cur_pos>", target)
            .replace("<tar_pos>", target)
            .replace("<tar_action>", hint.action)
        )
        return self.texts.helper_block.fill(filled)

    def history_text(self, history: Sequence[HistoryStep]) -> str:
        t = self.texts
        return "".join(
            t.history_step.fill(str(h.step))
            + t.history_position.fill(h.position)
            + t.history_action.fill(h.action)
            + t.history_response.fill(h.response)
            for h in history
        )

    def action_user_prompt(
        self,
        *,
        step: int,
        position: str,
        observation: str,
        history: Sequence[HistoryStep],
        hint: HintView | None,
        extra_blocks: Sequence[str] = (),
    ) -> str:
        t = self.texts
        body = t.scene_block.fill(observation) + "".join(extra_blocks)
        if hint is not None:
            body += self.hint_text(hint)
        prompt = t.frame.fill(str(step), position, body)
        if hint is None and history:
            prompt = self.history_text(history) + prompt
        return prompt


class OriginalSession(Session):
    """One episode under the original protocol: the scene stack, the bag's index memory, the
    texts of this setting as the original reads them."""

    def __init__(self, protocol: OriginalProtocol, defn: GameDefinition) -> None:
        self.protocol = protocol
        self.texts = protocol.texts
        self.defn = defn
        self.written = WrittenGame(defn)
        self.stack: list[str] = []
        # The original's bag keeps the tool name of every index it ever listed: a tool that
        # has left the bag can still be named by its old index (and then fails).
        self.bag_names: list[str] = []

    # ---------------------------------------------------------------- position
    def begin_step(self, game: EscapeGame, hint: HintView | None) -> str:
        self._remember_bag(game)
        if hint is not None:
            self.stack = hint.position.split(" -> ")
            return hint.position
        scene = self.written.scenes[game.scene].key
        if scene in self.stack:
            del self.stack[self.stack.index(scene) + 1 :]
        else:
            self.stack.append(scene)
        return " -> ".join(self.stack)

    def reference_hint(self, index: int, steps_in_help: int) -> HintView:
        position, action = self.written.reference[index]
        return HintView(position=position, action=action, steps_in_help=steps_in_help)

    def snapshot(self) -> dict[str, Any]:
        return {"stack": list(self.stack), "bag_names": list(self.bag_names)}

    def restore(self, data: dict[str, Any]) -> None:
        self.stack = [str(x) for x in data.get("stack", [])]
        self.bag_names = [str(x) for x in data.get("bag_names", [])]

    def _remember_bag(self, game: EscapeGame) -> None:
        for k, t in enumerate(game.bag):
            name = self.written.tools[t].name
            if k < len(self.bag_names):
                self.bag_names[k] = name
            else:
                self.bag_names.append(name)

    def names_on_screen(self, game: EscapeGame) -> dict[str, tuple[str, int]]:
        """What a name on the current screen stands for, as the original finds it: the
        interactable items and the tools lying here, by their names as written, in lower
        case (``("item", index)`` or ``("tool", index)``; the last of equal names wins)."""
        raw = self.written
        names: dict[str, tuple[str, int]] = {}
        for i in game.clickable_items():
            names[raw.items[i].key.lower()] = ("item", i)
        for k in game.visible_scene_tools():
            names[raw.tools[k].key.lower()] = ("tool", k)
        return names

    # ---------------------------------------------------------------- observation
    def observation(self, game: EscapeGame) -> str:
        t, raw = self.texts, self.written
        self._remember_bag(game)
        sc = game.scene
        scene = raw.scenes[sc]
        spec = self.defn.scenes[sc]
        items = [i for i in spec.items if game.item_present[i]]
        tools = [k for k in spec.tools if game.tool_where[k] == TOOL_IN_SCENE]
        seen = t.scene_head.fill(scene.name, scene.desc)
        if items or tools:
            seen += t.seen_head
            for i in items:
                if game.item_visible[i]:
                    it = raw.items[i]
                    seen += t.item_line.fill(it.position, it.name, self._item_desc(game, i))
            for k in tools:
                if game.tool_visible[k]:
                    tl = raw.tools[k]
                    seen += t.tool_line.fill(tl.position, tl.name, self._tool_desc(game, k))
        acts = ""
        for i in items:
            if game.item_visible[i] and game.item_interact[i]:
                acts += t.item_action.fill(raw.items[i].key)
        for k in tools:
            if game.tool_visible[k]:
                acts += t.tool_action.fill(raw.tools[k].key)
        if acts:
            acts = t.actions_head + acts
        acts += t.links_head
        for label, target in scene.relations:
            idx = raw.scene_by_key.get(target)
            if idx is not None and game.scene_visible[idx]:
                acts += t.link_line.fill(label, target)
        if game.bag:
            bag = t.bag_head + "".join(
                t.bag_name.fill(raw.tools[k].name) + t.bag_desc.fill(self._tool_desc(game, k))
                + t.bag_end
                for k in game.bag
            )
        else:
            bag = t.bag_empty
        return t.describe.fill(seen.strip(), acts.strip(), bag.strip()).strip()

    def _item_desc(self, game: EscapeGame, i: int) -> str:
        return self._item_state(game, i).desc

    def _item_state(self, game: EscapeGame, i: int) -> _RawState:
        states = self.written.items[i].states
        s = game.item_state[i]
        if not 0 <= s < len(states):
            raise BrokenGameError(
                f"{self.defn.setting}: item {self.written.items[i].name!r} is in state {s}, which "
                f"it does not have (states 0-{len(states) - 1}); the original engine fails here"
            )
        return states[s]

    def _tool_desc(self, game: EscapeGame, k: int, state: int | None = None) -> str:
        states = self.written.tools[k].states
        s = game.tool_state[k] if state is None else state
        if not 0 <= s < len(states):
            raise BrokenGameError(
                f"{self.defn.setting}: tool {self.written.tools[k].name!r} is in state {s}, which "
                f"it does not have (states 0-{len(states) - 1}); the original engine fails here"
            )
        return states[s]

    # ---------------------------------------------------------------- a step
    def prepare(self, game: EscapeGame, answer: Reading | str) -> Play:
        """What the original harness plays for ``answer`` (a call read by
        :meth:`OriginalProtocol.read_answer`, or a model's answer or the hint's action as
        text, read here): its names matched on screen, the original's feedback rendered from
        the state before the step."""
        reading = answer if isinstance(answer, Reading) else self.protocol.read(answer)
        self._remember_bag(game)
        try:
            return replace(self._react(game, reading), call=reading.call)
        except _Failure as exc:
            feedback = self.texts.reaction_error.fill(exc.text).strip()
            return not_played(reading.text, exc.outcome, feedback)

    def _react(self, game: EscapeGame, reading: Reading) -> Play:
        t, raw = self.texts, self.written
        text, call = reading.text, reading.call
        if call is None:
            raise _Failure(str(IndexError("list index out of range")),
                           Outcome("malformed", "", (), text))
        verb = call.verb
        args = call_args(call)
        want = {"click": 1, "move": 1, "apply": 2, "input": 2, "craft": 2}.get(verb)
        if want is not None and len(args) != want:
            raise _Failure(t.arity[verb], Outcome("wrong_arity", verb))
        if want is None:
            raise _Failure(self._unknown_verb(verb), Outcome("malformed", "", (), text))
        sc = game.scene
        things = self.names_on_screen(game)
        exits: dict[str, tuple[str, str]] = {}
        for label, target in raw.scenes[sc].relations:
            idx = raw.scene_by_key.get(target)
            if idx is not None and game.scene_visible[idx]:
                exits[label.lower()] = (label, target)
        bag_index = {name.lower(): n for n, name in enumerate(self.bag_names)}
        resolved: list[Any] = []
        for n, arg in enumerate(args):
            key = arg.lower()
            if verb == "move":
                found: Any = exits.get(key)
            elif (verb == "apply" and n == 0) or verb == "craft":
                found = bag_index.get(key)
            elif verb == "input" and n == 0:
                found = arg
            else:
                found = things.get(key)
            if found is None:
                unknown = (
                    "unknown_scene" if verb == "move"
                    else "unknown_tool" if (verb == "apply" and n == 0) or verb == "craft"
                    else "unknown_item"
                )
                raise _Failure(t.invalid_name.fill(key), Outcome(unknown, verb, (), arg))
            resolved.append(found)
        if verb == "move":
            label, target = resolved[0]
            return Play(f"move({label})", text, t.moved.fill(target).strip())
        if verb == "click":
            kind, idx = resolved[0]
            if kind == "tool":
                feedback = t.collected.fill(raw.tools[idx].key)
                return Play(f"click({self.defn.tools[idx].name})", text, feedback.strip())
            feedback = self._click_text(game, idx)
            return Play(f"click({self.defn.items[idx].name})", text, feedback)
        if verb == "craft":
            first, second = (self._bag_tool(game, n) for n in resolved)
            return self._craft(game, first, second, text)
        kind, idx = resolved[1]
        if verb == "apply":
            tool = self._bag_tool(game, resolved[0])
            if kind != "item":
                raise _Failure(t.apply_not_item, Outcome("unknown_item", verb, (), args[1]))
            feedback, executed = self._apply_text(game, idx, tool)
            action = f"apply({self.defn.tools[tool].name}, {self.defn.items[idx].name})"
            if not executed:
                refused = self._refused(game, "apply", idx, (self.defn.tools[tool].name,))
                return not_played(text, refused, feedback, error=False)
            return Play(action, text, feedback)
        if kind != "item":
            raise _Failure(t.input_not_item, Outcome("unknown_item", verb, (), args[1]))
        content = str(resolved[0])
        feedback, executed = self._input_text(game, idx, content)
        if not executed:  # refused as the original refuses it (its comparison keeps case)
            refused = self._refused(game, "input", idx, ())
            return not_played(text, refused, feedback, error=False)
        return Play(f"input({content}, {self.defn.items[idx].name})", text, feedback)

    def _refused(self, game: EscapeGame, verb: str, i: int, tools: tuple[str, ...]) -> Outcome:
        """The outcome of an apply or input the original refuses without stepping (the
        engine's :meth:`~EscapeGame.refusal`; ``tools``: the applied tool's name, if any)."""
        tool = -1 if not tools else next(k for k in game.bag if self.defn.tools[k].name == tools[0])
        return game.refusal(verb, i, tool)

    def _unknown_verb(self, verb: str) -> str:
        msg: Message = self.texts.source.message(_GRAPH, "Graph.react", ("action",))
        return msg.fill(verb)

    def _bag_tool(self, game: EscapeGame, index: int) -> int:
        """The tool at an index of the original's bag listing (KeyError text if it has left)."""
        name = self.bag_names[index]
        for k in game.bag:
            if self.written.tools[k].name == name:
                return k
        raise _Failure(str(KeyError(name)), Outcome("unknown_tool", "", (), name))

    # ---------------------------------------------------------------- the engine's texts
    def _remaining_waits(self, game: EscapeGame, i: int, ti: int) -> list[str]:
        """A transition's waits as the original keeps them: a tool applied is taken off."""
        waits = self._item_state(game, i).transitions[ti].waits
        done = game.waits_met(i, ti)
        return [w for wi, w in enumerate(waits) if not (_parts(w)[0] == "apply" and wi in done)]

    def _apply_to(self, game: EscapeGame, k: int) -> list[str]:
        """A tool's apply_to list as the original keeps it: a target used is taken off."""
        return game.targets_left(k)

    def _wait_for(self, game: EscapeGame, k: int) -> list[str]:
        """A tool's wait_for list as the original keeps it: a tool crafted in is taken off."""
        return game.crafts_awaited(k)

    def _click_text(self, game: EscapeGame, i: int) -> str:
        t = self.texts
        name = self.written.items[i].name
        state = self._item_state(game, i)
        out = ""
        for tr in state.transitions:
            if any(_parts(w)[0] == "click" for w in tr.waits):
                if tr.has_reward:
                    out += t.clicked_reward.fill(name, _capital(tr.reward))
                else:
                    out += t.clicked.fill(name)
        if not out:
            out = (
                t.click_failed_neg.fill(name, _capital(state.neg_reward))
                if state.neg_reward is not None
                else t.click_failed.fill(name)
            )
        return out.strip()

    def _input_text(self, game: EscapeGame, i: int, content: str) -> tuple[str, bool]:
        t = self.texts
        name = self.written.items[i].name
        state = self._item_state(game, i)
        out = ""
        executed = False
        for ti, tr in enumerate(state.transitions):
            for w in self._remaining_waits(game, i, ti):
                kind, args = _parts(w)
                if kind == "input":
                    if args and args[0] == content:
                        executed = True
                        out += (
                            t.input_reward.fill(content, name, _capital(tr.reward))
                            if tr.has_reward
                            else t.input_done.fill(content, name)
                        )
                    else:
                        out += t.input_wrong.fill(name)
                    break
        if not executed:
            out += (
                t.input_failed_neg.fill(_capital(state.neg_reward))
                if state.neg_reward is not None
                else t.input_failed
            )
        return out.strip(), executed

    def _apply_text(self, game: EscapeGame, i: int, k: int) -> tuple[str, bool]:
        t = self.texts
        name = self.written.items[i].name
        tool = self.written.tools[k].name
        state = self._item_state(game, i)
        apply_to = self._apply_to(game, k)
        out = ""
        executed_any = False
        for ti, tr in enumerate(state.transitions):
            waits = self._remaining_waits(game, i, ti)
            executed, has_wait = -1, False
            for wi, w in enumerate(waits):
                kind, args = _parts(w)
                if kind == "apply":
                    has_wait = True
                    if args and args[0] == tool and name in apply_to:
                        executed = wi
                        break
            if has_wait and executed < 0:
                out += t.apply_wrong.fill(name)
            if executed >= 0:
                executed_any = True
                out += t.applied.fill(tool, name)
                apply_to.remove(name)
                waits.pop(executed)
                if not waits:
                    out += (
                        t.applied_reward.fill(_capital(tr.reward)) if tr.has_reward
                        else t.applied_end
                    )
                else:
                    out += t.applied_partial.fill(tool, name)
        if not executed_any:
            out += (
                t.apply_failed_neg.fill(_capital(state.neg_reward))
                if state.neg_reward is not None
                else t.apply_failed
            )
        return out.strip(), executed_any

    def _craft(self, game: EscapeGame, k1: int, k2: int, shown: str) -> Play:
        t = self.texts
        names = self.written.tools
        d = self.defn
        # (the tool crafted into, the one used) in the original's order of checks
        for n, (dst, src) in enumerate(((k1, k2), (k2, k1))):
            if names[src].name in self._wait_for(game, dst) and names[dst].name in self._apply_to(
                game, src
            ):
                out = t.crafted[n].fill(self._tool_desc(game, src), self._tool_desc(game, dst))
                if len(self._wait_for(game, dst)) == 1:
                    out += t.craft_new[n].fill(
                        self._tool_desc(game, dst, game.tool_state[dst] + 1)
                    )
                else:
                    out += t.craft_missing[n].fill(self._tool_desc(game, dst))
                return Play(f"craft({d.tools[src].name}, {d.tools[dst].name})", shown,
                            out.strip())
        mismatch = Outcome("craft_mismatch", "craft", (d.tools[k1].name, d.tools[k2].name))
        return not_played(shown, mismatch, t.craft_failed, error=False)


class _Failure(Exception):
    """An exception of the original engine during a reaction: its text is the feedback."""

    def __init__(self, text: str, outcome: Outcome) -> None:
        super().__init__(text)
        self.text = text
        self.outcome = outcome


def _capital(text: str | None) -> str:
    """The original shows reward texts stripped and capitalized (the rest in lower case)."""
    return (text or "").strip().capitalize()
