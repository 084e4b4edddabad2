"""Loading games: the original EscapeBench layout and our own single-file format.

Original layout: a folder of ``gameX-Y.yaml``, ``gameX-Y-easy.yaml``, ``gameX-Y-hard.yaml``
(a YAML list of scenes) with the reference chain in ``reference/key_log_X-Y.txt``.

Our format: one YAML mapping (``escapebench: 1``) with metadata, the scenes in the same schema
and the reference embedded; any text may be a mapping ``{easy, normal, hard}``, and such a file
yields the three settings ``<id>-easy``, ``<id>`` and ``<id>-hard``.

Every problem is reported as a :class:`GameFileError` naming the file, the line and what is
wrong. YAML is always read with a safe loader (:mod:`escapebench.games.yaml_reader`).
"""

from __future__ import annotations

import hashlib
import json
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml

from escapebench.engine.model import (
    DIFFICULTIES,
    WAIT_KINDS,
    Difficulty,
    GameDefinition,
    Item,
    ItemState,
    ReferenceStep,
    Scene,
    SceneLink,
    Tool,
    ToolState,
    Transition,
    Trigger,
    Wait,
)
from escapebench.games.yaml_reader import (
    _TOO_DEEP,
    MAX_GAME_FILE_BYTES,
    RefusedYAML,
    _cache_file,
    _cache_store,
    load_yaml_text,
)

try:  # libyaml's C loader is many times faster; fall back to pure Python where absent
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]

FORMAT_KEY = "escapebench"
FORMAT_VERSION = 1
ORIGINAL_NAME = re.compile(r"^game(\d+)-(\d+)(?:-(easy|hard))?$")
BUILTIN_DIR = Path(__file__).parent / "builtin"

Path_ = tuple[str | int, ...]  # a place inside the YAML document, e.g. (0, "items", 2)


class GameFileError(ValueError):
    """A game file that cannot be used, with where and why."""

    def __init__(self, source: str, message: str, line: int | None = None,
                 col: int | None = None, *, not_a_file: bool = False):
        self.source = source
        self.not_a_file = not_a_file  # the source is a spec of its own (gen:), not a file
        self.line = line
        self.col = col
        self.problem = message
        where = source if line is None else f"{source}:{line}" + (f":{col}" if col else "")
        super().__init__(f"{where}: {message}")


class _Invalid(Exception):
    """Raised inside the builder with the document path; turned into a GameFileError."""

    def __init__(self, path: Path_, message: str):
        super().__init__(message)
        self.path = path
        self.message = message


def _describe(path: Path_) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "top level"


def _line_of(text: str, path: Path_) -> tuple[int | None, int | None]:
    """Line and column (1-based) of the node at ``path``, found by composing the YAML again.

    Only done when reporting an error, so loading stays on the fast C path.
    """
    try:
        node = yaml.compose(text, Loader=_SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return None, None
    best = deepest_node(node, path) if node is not None else None
    if best is None:
        return None, None
    return best.start_mark.line + 1, best.start_mark.column + 1


def deepest_node(node: yaml.Node, path: Path_) -> yaml.Node:
    """The node at ``path`` below ``node``, or the deepest one on the way that exists."""
    for key in path:
        nxt = None
        if isinstance(node, yaml.SequenceNode) and isinstance(key, int):
            if 0 <= key < len(node.value):
                nxt = node.value[key]
        elif isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value == key:
                    nxt = v
                    break
        if nxt is None:
            break
        node = nxt
    return node


# ------------------------------------------------------------------ reading a file
# (the YAML text itself is read by escapebench.games.yaml_reader: safely, fast and cached)
def _read_bytes(path: Path) -> bytes:
    """A game file's bytes, at most :data:`MAX_GAME_FILE_BYTES` of them (never more is read:
    the file may be a device or a pipe); :class:`GameFileError` names it otherwise."""
    kind = file_kind(path)
    if kind:  # never opened: a FIFO blocks until a writer comes, /dev/zero never ends
        raise GameFileError(str(path), f"not a regular file: {kind}")
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_GAME_FILE_BYTES + 1)
    except OSError as exc:
        raise GameFileError(str(path), f"cannot read file: {exc.strerror or exc}") from exc
    if len(raw) > MAX_GAME_FILE_BYTES:
        raise GameFileError(
            str(path),
            f"file is larger than {MAX_GAME_FILE_BYTES // 1024} KiB, the most a game file may "
            "be (the largest shipped game is about 60 KiB)",
        )
    return raw


def _read_text(path: Path) -> str:
    """A UTF-8 text file; :class:`GameFileError` names it when it cannot be read."""
    return _decode(path, _read_bytes(path))


def _line_col(data: bytes | str, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset`` in ``data`` (columns count characters)."""
    before = data[:offset]
    newline = b"\n" if isinstance(before, bytes) else "\n"
    line = before.count(newline) + 1  # type: ignore[arg-type]
    start = before.rfind(newline) + 1  # type: ignore[arg-type]
    rest = before[start:]
    col = len(rest.decode("utf-8", errors="replace")) if isinstance(rest, bytes) else len(rest)
    return line, col + 1


def _decode(path: Path, raw: bytes) -> str:
    """``raw`` as UTF-8; a byte that is not names its line and column in one line."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(raw, exc.start)
        byte = raw[exc.start : exc.start + 1].hex()
        raise GameFileError(
            str(path), f"not UTF-8 text: byte 0x{byte} ({exc.reason}); save the file as UTF-8",
            line, col,
        ) from None


def read_yaml(path: Path) -> tuple[Any, str]:
    """Parse a YAML file safely; syntax errors become a :class:`GameFileError` with the line.

    Refused as well, each with its line: anchors and aliases, nesting deeper than
    :data:`MAX_YAML_DEPTH`, files larger than :data:`MAX_GAME_FILE_BYTES`.
    """
    raw = _read_bytes(path)
    text = _decode(path, raw)
    cached = _cache_file(raw)
    if cached is not None:
        try:
            return json.loads(cached.read_text(encoding="utf-8")), text
        except (OSError, ValueError, RecursionError):
            pass  # not cached yet (or a damaged entry): parse the YAML
    try:
        data = load_yaml_text(text)
    except RefusedYAML as exc:
        line = exc.mark.line + 1 if exc.mark else None
        col = exc.mark.column + 1 if exc.mark else None
        raise GameFileError(str(path), exc.message, line, col) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        col = mark.column + 1 if mark else None
        problem = f"invalid YAML: {exc.problem or exc}"
        if "nesting depth" in str(exc.problem):
            # libyaml 0.2.6+ (PyYAML 6.0.4+) has a nesting limit of its own, which its scanner
            # can reach before our event count does: the same refusal, in our words.
            problem = _TOO_DEEP
        raise GameFileError(str(path), problem, line, col) from exc
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, ...)
        line, col = _line_col(text, exc.position)
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        what = "a NUL byte" if code == 0 else f"character U+{code:04X}"
        problem = f"invalid YAML: {what}: control characters are not allowed in YAML"
        raise GameFileError(str(path), problem, line, col) from None
    except yaml.YAMLError as exc:
        raise GameFileError(str(path), f"invalid YAML: {exc}") from exc
    except RecursionError:  # pragma: no cover - the depth limit comes first
        raise GameFileError(str(path), "invalid YAML: nested too deeply") from None
    if cached is not None:
        _cache_store(cached, data)
    return data, text


# ------------------------------------------------------------------ builder
# The checks take the place in the document as a parent path plus the keys below it, and join
# them only to report an error: building every path up front was a third of a load.
def _as_bool(value: Any, path: Path_, *keys: str | int) -> bool:
    if value is True or value is False:
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise _Invalid((*path, *keys), f"expected true or false, got {value!r}")


def _creative(value: Any, path: Path_, flag: Any) -> bool | tuple[str, ...]:
    """A transition's ``creative`` mark: true or false, or a list of the tools it waits for
    whose use is creative."""
    if isinstance(value, list):
        return tuple(_as_name(x, path, "creative", k) for k, x in enumerate(value))
    return bool(flag(value, path, "creative"))


def _as_name(value: Any, path: Path_, *keys: str | int) -> str:
    if type(value) is str:  # the usual case, checked first
        text = value.strip()
    elif isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise _Invalid((*path, *keys), f"expected a name, got {value!r}")
    else:
        text = str(value).strip()
    if not text:
        raise _Invalid((*path, *keys), "name is empty")
    return text


def _as_list(value: Any, path: Path_, *keys: str | int) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Invalid((*path, *keys), f"expected a list, got {type(value).__name__}")
    return value


def _as_map(value: Any, path: Path_, *keys: str | int) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Invalid((*path, *keys), f"expected a mapping, got {type(value).__name__}")
    return value


class _TextPicker:
    """Chooses the text of one difficulty where a text is a ``{easy, normal, hard}`` mapping."""

    def __init__(self, difficulty: Difficulty | None):
        self.difficulty = difficulty

    def __call__(
        self, value: Any, path: Path_, *keys: str | int, required: bool
    ) -> str | None:
        if type(value) is str:  # the usual case
            return value
        if isinstance(value, dict):
            bad = [k for k in value if k not in DIFFICULTIES]
            if bad:
                raise _Invalid(
                    (*path, *keys), f"unknown difficulty {bad[0]!r} (use easy, normal, hard)"
                )
            key = self.difficulty or "normal"
            value = value[key] if key in value else value.get("normal")
        if value is None:
            if required:
                raise _Invalid((*path, *keys), "text is missing")
            return None
        if isinstance(value, (list, dict, bool)):
            raise _Invalid((*path, *keys), f"expected text, got {type(value).__name__}")
        return str(value)


_TRIGGER_KINDS = ("change_visible", "change_interact", "change_state", "become_tool")

# The original engine's reading rules, which decide what a file in its format means (its own
# twelve games rely on them): a trigger or wait_for text is cut at every comma, each part is
# stripped and empty parts are dropped; a boolean is true exactly when its text is "true" in
# any letter case, every other text is false; a state number is an integer, set as it is (a
# state past the item's last one is checked where the item would be shown, see the engine).
# Each place where a file relies on them is noted (see GameDefinition.readings).
Notes = tuple[str, ...]
# Ends the note of a boolean that most likely meant true ('True.', 'yes', '1'), read as false.
MEANT_TRUE = "; it was most likely meant as true"


def _comma_parts(raw: str) -> tuple[list[str], list[str], Notes]:
    """The non-empty pieces of ``raw`` cut at commas, the same stripped, and a note if empty
    pieces (a trailing comma, ``,,``) were dropped."""
    cut = raw.split(",")
    pieces = [p for p in cut if p.strip()]
    parts = [p.strip() for p in pieces]
    notes: Notes = ()
    if len(pieces) != len(cut) and parts:
        notes = (f"{raw!r} is read as {', '.join(parts)!r} (empty parts between commas are "
                 "dropped)",)
    return pieces, parts, notes


def parse_wait(raw: Any, path: Path_) -> tuple[Wait, Notes]:
    """``click`` | ``apply, <tool>`` | ``input, <text>``, and notes on how it was read."""
    if not isinstance(raw, str):
        raise _Invalid(path, f"expected 'click', 'apply, <tool>' or 'input, <text>', got {raw!r}")
    _, parts, notes = _comma_parts(raw)
    kind = parts[0].lower() if parts else ""
    args = parts[1:]
    if kind not in WAIT_KINDS or (kind != "click" and not args):
        raise _Invalid(
            path, f"unknown wait {raw!r}: use 'click', 'apply, <tool>' or 'input, <text>'"
        )
    if parts[0] != kind:
        notes += (f"{parts[0]!r} is read as {kind!r} (the original engine knows only lower "
                  f"case {kind!r} and never fires this wait)",)
    if kind == "click":
        if args:
            notes += (f"{raw!r} is read as 'click' (the text after the comma is not used)",)
        return Wait("click"), notes
    if len(args) > 1:
        notes += (f"{raw!r} is read as '{kind}, {args[0]}' (the text after the second comma "
                  "is not used)",)
    return Wait(kind, args[0]), notes  # type: ignore[arg-type]


def parse_trigger(raw: Any, path: Path_) -> tuple[Trigger, Notes]:
    """One trigger line, and notes on how it was read. Names may contain commas (the value is
    always the last part)."""
    if not isinstance(raw, str):
        raise _Invalid(path, f"expected a trigger like 'change_state, 1', got {raw!r}")
    pieces, parts, notes = _comma_parts(raw)
    kind = parts[0].lower() if parts else ""
    if kind not in _TRIGGER_KINDS:
        raise _Invalid(
            path, f"unknown trigger {parts[0] if parts else raw!r} "
            f"(known: {', '.join(_TRIGGER_KINDS)})"
        )
    if kind == "become_tool":
        name = ",".join(pieces[1:]).strip()
        if not name:
            raise _Invalid(path, "become_tool needs a tool name: 'become_tool, <tool>'")
        return Trigger("become_tool", "tool", name, name), notes
    if len(parts) == 2:
        target_kind, target, value_text = "self", "", parts[1]
    elif len(parts) >= 4 and parts[1].lower() in ("scene", "item", "tool"):
        target_kind = parts[1].lower()
        target = ",".join(pieces[2:-1]).strip()
        value_text = parts[-1]
    else:
        raise _Invalid(
            path, f"cannot read trigger {raw!r}: expected '{kind}, <value>' or "
            f"'{kind}, scene|item|tool, <name>, <value>'"
        )
    if kind == "change_state":
        if target_kind == "scene":
            raise _Invalid(path, "scenes have no states: use change_visible for a scene")
        try:
            if len(value_text) > 9:  # (int() refuses 4,301 digits; no game has a billion states)
                raise ValueError(value_text)
            number = int(value_text)
        except ValueError:
            raise _Invalid(
                path, f"change_state needs a state number, got {value_text!r}"
            ) from None
        if number < 0:
            raise _Invalid(path, f"change_state needs a state number from 0, got {number}")
        if not value_text.isascii() or not value_text.isdigit():
            notes += (f"{value_text!r} is read as state {number} (in {raw!r})",)
        value: bool | int = number
    else:
        if kind == "change_interact" and target_kind in ("scene", "tool"):
            raise _Invalid(path, f"change_interact applies to items, not to a {target_kind}")
        value = value_text.lower() == "true"
        if value_text.lower() not in ("true", "false"):
            # (marked where a writer most likely meant true: the reading changes the game)
            meant_true = value_text.lower().startswith(("t", "y", "1", "on"))
            notes += (f"{value_text!r} is read as false (in {raw!r}: only 'true', in any letter "
                      f"case, is true){MEANT_TRUE if meant_true else ''}",)
    return Trigger(kind, target_kind, target, value), notes  # type: ignore[arg-type]


_Parsed = TypeVar("_Parsed")


def _parsed(
    raw: Any,
    memo: dict[str, tuple[_Parsed, Notes]],
    parse: Callable[[Any, Path_], tuple[_Parsed, Notes]],
    path: Path_,
    readings: list[tuple[Path_, str]],
) -> _Parsed:
    """``parse(raw, path)``, read once per text: waits and triggers repeat ("click",
    "change_state, 1"...) and are immutable. Its notes are added to ``readings`` at ``path``."""
    if type(raw) is not str:
        return parse(raw, path)[0]  # (raises the error that names the place)
    found = memo.get(raw)
    if found is None:
        found = memo[raw] = parse(raw, path)
    for note in found[1]:
        readings.append((path, note))
    return found[0]


def _original_flag(
    value: Any, readings: list[tuple[Path_, str]], path: Path_, key: str
) -> bool:
    """A ``visible`` / ``interactable`` value of the original format, read as the original
    engine uses it: as Python truth (``'False'`` as text is true); noted unless a boolean."""
    if value is True or value is False:
        return value
    if isinstance(value, (list, dict)):
        raise _Invalid((*path, key), f"expected true or false, got {type(value).__name__}")
    flag = bool(value)
    readings.append(((*path, key), f"{key}: {value!r} is read as {str(flag).lower()} (the "
                     "original engine takes any value but false, 0 or empty as true)"))
    return flag


def build_definition(
    scenes_raw: Any,
    *,
    source: str,
    setting: str,
    game: str,
    difficulty: Difficulty,
    title: str = "",
    notes: str = "",
    reference: Sequence[ReferenceStep] = (),
    text_variant: Difficulty | None = None,
    base_path: Path_ = (),
    original: bool = False,
) -> GameDefinition:
    """Turn the YAML list of scenes into a :class:`GameDefinition` (raises ``_Invalid``).

    ``original``: the file is in the original layout, whose ``visible``/``interactable`` values
    are read as the original engine uses them (Python truth) rather than as strict booleans.
    """
    pick = _TextPicker(text_variant)
    # Waits and triggers repeat ("click", "change_state, 1"...) and are immutable: each text is
    # read once per definition.
    waits: dict[str, tuple[Wait, Notes]] = {}
    triggers: dict[str, tuple[Trigger, Notes]] = {}
    readings: list[tuple[Path_, str]] = []

    def flag(value: Any, path: Path_, key: str) -> bool:
        if original:
            return _original_flag(value, readings, path, key)
        return _as_bool(value, path, key)

    scenes: list[Scene] = []
    items: list[Item] = []
    tools: list[Tool] = []
    raw_list = _as_list(scenes_raw, base_path)
    if not raw_list:
        raise _Invalid(base_path, "a game needs at least one scene")
    for si, sraw in enumerate(raw_list):
        sp = (*base_path, si)
        s = _as_map(sraw, sp)
        name = _as_name(s.get("name"), sp, "name")
        desc = pick(s.get("desc", ""), sp, "desc", required=False) or ""
        visible = flag(s.get("visible", True), sp, "visible")
        links = []
        rel = s.get("scene_relations") or {}
        for label, target in _as_map(rel, sp, "scene_relations").items():
            links.append(
                SceneLink(
                    _as_name(label, sp, "scene_relations"),
                    _as_name(target, sp, "scene_relations", label),
                )
            )
        item_ids = []
        for ii, iraw in enumerate(_as_list(s.get("items"), sp, "items")):
            ip = (*sp, "items", ii)
            entry = _as_map(iraw, ip)
            body = _as_map(entry.get("item"), ip, "item")
            bp = (*ip, "item")
            states = []
            for sti, straw in enumerate(_as_list(body.get("states"), bp, "states")):
                stp = (*bp, "states", sti)
                st = _as_map(straw, stp)
                trans = []
                for ti, traw in enumerate(_as_list(st.get("transitions"), stp, "transitions")):
                    tp = (*stp, "transitions", ti)
                    tr = _as_map(traw, tp)
                    wait_list = [
                        _parsed(w, waits, parse_wait, (*tp, "wait_for", wi), readings)
                        for wi, w in enumerate(_as_list(tr.get("wait_for"), tp, "wait_for"))
                    ]
                    if not wait_list:
                        raise _Invalid((*tp, "wait_for"), "a transition must wait for something")
                    trigger_list = [
                        _parsed(g, triggers, parse_trigger, (*tp, "trigger", gi), readings)
                        for gi, g in enumerate(_as_list(tr.get("trigger"), tp, "trigger"))
                    ]
                    reward = pick(tr.get("reward"), tp, "reward", required=False)
                    creative = _creative(tr.get("creative", False), tp, flag)
                    trans.append(
                        Transition(tuple(wait_list), tuple(trigger_list), reward, creative)
                    )
                states.append(
                    ItemState(
                        pick(st.get("desc", ""), stp, "desc", required=False) or "",
                        pick(st.get("neg_reward"), stp, "neg_reward", required=False),
                        tuple(trans),
                    )
                )
            if not states:
                raise _Invalid((*bp, "states"), "an item needs at least one state")
            item_ids.append(len(items))
            items.append(
                Item(
                    _as_name(body.get("name"), bp, "name"),
                    si,
                    str(entry.get("position") or "").strip(),
                    flag(body.get("visible", True), bp, "visible"),
                    flag(body.get("interactable", True), bp, "interactable"),
                    tuple(states),
                )
            )
        tool_ids = []
        for ti, traw in enumerate(_as_list(s.get("tools"), sp, "tools")):
            tp = (*sp, "tools", ti)
            entry = _as_map(traw, tp)
            body = _as_map(entry.get("tool"), tp, "tool")
            bp = (*tp, "tool")
            tstates = []
            for sti, straw in enumerate(_as_list(body.get("states"), bp, "states")):
                stp = (*bp, "states", sti)
                st = _as_map(straw, stp)
                tstates.append(
                    ToolState(
                        pick(st.get("desc", ""), stp, "desc", required=False) or "",
                        tuple(
                            _as_name(x, stp, "apply_to", k)
                            for k, x in enumerate(_as_list(st.get("apply_to"), stp, "apply_to"))
                        ),
                        tuple(
                            _as_name(x, stp, "wait_for", k)
                            for k, x in enumerate(_as_list(st.get("wait_for"), stp, "wait_for"))
                        ),
                        flag(st.get("creative", False), stp, "creative"),
                        # our format: the name the tool goes by in this state
                        "" if original or st.get("name") is None
                        else _as_name(st.get("name"), stp, "name"),
                        # our format: what a refused craft with it adds
                        "" if original
                        else pick(st.get("neg_reward"), stp, "neg_reward", required=False) or "",
                    )
                )
            if not tstates:
                raise _Invalid((*bp, "states"), "a tool needs at least one state")
            tool_ids.append(len(tools))
            tools.append(
                Tool(
                    _as_name(body.get("name"), bp, "name"),
                    si,
                    str(entry.get("position") or "").strip(),
                    flag(body.get("visible", True), bp, "visible"),
                    tuple(tstates),
                )
            )
        scenes.append(Scene(name, desc, visible, tuple(links), tuple(item_ids), tuple(tool_ids)))
    return GameDefinition(
        setting=setting,
        game=game,
        difficulty=difficulty,
        title=title or game,
        scenes=tuple(scenes),
        items=tuple(items),
        tools=tuple(tools),
        reference=tuple(reference),
        source=source,
        notes=notes,
        readings=tuple(readings),
    )


# ------------------------------------------------------------------ reference chains
def parse_reference_log(text: str, source: str) -> list[ReferenceStep]:
    """Read a ``key_log`` file: a stream of JSON objects with ``position`` and
    ``action_answer`` (pretty-printed, not one per line)."""
    decoder = json.JSONDecoder()
    out: list[ReferenceStep] = []
    i, n = 0, len(text)
    line, counted_to = 1, 0
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        try:
            obj, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            line = text.count("\n", 0, exc.pos) + 1
            raise GameFileError(source, f"invalid JSON in reference log: {exc.msg}", line) from exc
        except RecursionError:
            line = text.count("\n", 0, i) + 1
            raise GameFileError(
                source, "invalid JSON in reference log: nested too deeply", line
            ) from None
        # lines counted from where the previous object ended, not from the start every time
        line += text.count("\n", counted_to, i)
        counted_to = i
        out.append(_reference_step(obj, source, line, "action_answer"))
    return out


def _reference_step(obj: Any, source: str, line: int | None, action_key: str) -> ReferenceStep:
    if not isinstance(obj, dict) or not isinstance(obj.get(action_key), str):
        raise GameFileError(
            source, f"reference step needs 'position' and '{action_key}' text, got {obj!r}", line
        )
    path = tuple(p.strip() for p in str(obj.get("position") or "").split("->") if p.strip())
    if not path:
        raise GameFileError(source, "reference step has an empty 'position'", line)
    return ReferenceStep(path, obj[action_key].strip())


# ------------------------------------------------------------------ files
def _raise_at(exc: _Invalid, source: str, text: str) -> GameFileError:
    line, col = _line_of(text, exc.path)
    return GameFileError(source, f"{exc.message} (at {_describe(exc.path)})", line, col)


def load_original(path: Path, reference_dir: Path | None = None) -> GameDefinition:
    """Load one setting of the original layout, e.g. ``data/game2-1-hard.yaml``."""
    stem = path.name.rsplit(".", 1)[0]
    m = ORIGINAL_NAME.match(stem)
    game = f"game{m.group(1)}-{m.group(2)}" if m else stem
    difficulty: Difficulty = (m.group(3) if m and m.group(3) else "normal")  # type: ignore[assignment]
    data, text = read_yaml(path)
    reference: list[ReferenceStep] = []
    if m:
        folder = reference_dir or path.parent / "reference"
        log = folder / f"key_log_{m.group(1)}-{m.group(2)}.txt"
        if log.exists():
            reference = parse_reference_log(_read_text(log), str(log))
    try:
        return build_definition(
            data, source=str(path), setting=stem, game=game, difficulty=difficulty,
            reference=reference, original=True,
        )
    except _Invalid as exc:
        raise _raise_at(exc, str(path), text) from None


def load_own(path: Path) -> list[GameDefinition]:
    """Load a file in our format: three settings, or one if it names its ``difficulty``."""
    data, text = read_yaml(path)
    return _own_from_data(data, text, str(path))


def _own_from_data(data: Any, text: str, source: str) -> list[GameDefinition]:
    try:
        doc = _as_map(data, ())
        version = doc.get(FORMAT_KEY)
        if type(version) is not int or version != FORMAT_VERSION:  # (True == 1 in Python)
            raise _Invalid((FORMAT_KEY,), f"expected '{FORMAT_KEY}: {FORMAT_VERSION}'")
        game = _as_name(doc.get("id"), ("id",))
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", game):
            raise _Invalid(("id",), f"id {game!r} must be letters, digits, '-', '_' or '.'")
        title = str(doc.get("title") or game)
        notes = str(doc.get("notes") or "")
        reference = []
        for k, raw in enumerate(_as_list(doc.get("reference"), ("reference",))):
            if not isinstance(raw, dict) or not isinstance(raw.get("action"), str):
                raise _Invalid(("reference", k), "needs 'position' and 'action' text")
            reference.append(_reference_step(raw, source, None, "action"))
        fixed = doc.get("difficulty")
        if fixed is not None and fixed not in DIFFICULTIES:
            raise _Invalid(("difficulty",), f"difficulty must be one of {', '.join(DIFFICULTIES)}")
        versions: tuple[Difficulty, ...] = (fixed,) if fixed else DIFFICULTIES
        out = []
        for diff in versions:
            setting = game if (fixed or diff == "normal") else f"{game}-{diff}"
            out.append(
                build_definition(
                    doc.get("scenes"), source=source, setting=setting, game=game,
                    difficulty=diff, title=title, notes=notes, reference=reference,
                    text_variant=diff, base_path=("scenes",),
                )
            )
        return out
    except _Invalid as exc:
        raise _raise_at(exc, source, text) from None


def load_own_text(text: str, source: str, data: Any = None) -> list[GameDefinition]:
    """Load a game in our format from its YAML text (e.g. a generated game, never written to
    disk); ``source`` names it in messages. ``data``, when given, is that text already read
    (the generator passes the document it dumped, to skip reading it again)."""
    if data is None:
        data = yaml.safe_load(text)
    return _own_from_data(data, text, source)


def load_file(path: str | Path) -> list[GameDefinition]:
    """Load every setting a file holds, whichever the format."""
    p = Path(path)
    if p.suffix.lower() not in (".yaml", ".yml"):
        raise GameFileError(str(p), "game files are YAML (.yaml or .yml)")
    # utf-8-sig: a byte order mark (as Windows editors write) must not hide the format key
    head = _read_bytes(p).decode("utf-8-sig", errors="replace").lstrip()[:4096]
    if re.search(rf"^{FORMAT_KEY}\s*:", head, re.MULTILINE):
        return load_own(p)
    return [load_original(p)]


@dataclass(frozen=True)
class GameSource:
    """A game file found on disk, with the content hash recorded next to results."""

    path: Path
    sha256: str


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in 1 MB pieces (a run folder's step logs can be
    large): what run.json records of a game file and what ``verify`` and the report compare."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def builtin_files() -> list[Path]:
    """The game files shipped with the package, tutorial first."""
    files = sorted(BUILTIN_DIR.glob("*.yaml"))
    return sorted(files, key=lambda p: (p.stem != "tutorial", p.stem))


GAME_FILE = re.compile(r"\.ya?ml$", re.IGNORECASE)
GENERATED_LIST = "generated.json"
"""The list ``escapebench generate`` writes last into its folder: the games it made."""


def _as_generated(spec: str, folder: Path, files: list[Path]) -> list[Path]:
    """``files`` (the game files of ``folder``), checked against the folder's
    :data:`GENERATED_LIST` when it has one: a generated folder is played as its list says, and
    a folder whose files and list differ (games added or lost since) is refused."""
    listing = folder / GENERATED_LIST
    if not listing.is_file():
        return files
    try:
        data = json.loads(listing.read_text(encoding="utf-8"))
        listed = [str(g["file"]) for g in data["games"]]
    except (OSError, ValueError, KeyError, TypeError):
        raise GameFileError(spec, f"its {GENERATED_LIST} cannot be read") from None
    names = {f.name for f in files}
    extra, missing = sorted(names - set(listed)), sorted(set(listed) - names)
    if extra or missing:
        parts = [f"not listed: {', '.join(extra[:3])}{' ...' if len(extra) > 3 else ''}"
                 if extra else "", f"missing: {', '.join(missing[:3])}"
                 f"{' ...' if len(missing) > 3 else ''}" if missing else ""]
        raise GameFileError(spec, (
            f"{GENERATED_LIST} lists {len(listed)} games but the folder holds {len(names)} "
            f"game files ({'; '.join(p for p in parts if p)}); generate the folder again, or "
            "name the files to play"))
    return files


def game_files(spec: str) -> list[Path]:
    """The game files a path names: the file itself, or the YAML files of a folder (the paths
    ``check`` and ``games`` take; a game spec, which may also be a glob or a built-in game's
    name, is resolved by :func:`load_games`).

    Raises :class:`GameFileError` for a path that does not exist or holds no game files.
    """
    p = Path(spec)
    if p.is_dir():
        files = sorted(x for x in p.iterdir() if x.is_file() and GAME_FILE.search(x.name))
        if not files:
            raise _no_game_files(spec, p)
        return _as_generated(spec, p, files)
    if p.is_file():
        return [p]
    kind = file_kind(p)
    if kind:
        raise GameFileError(spec, f"not a regular file: {kind}")
    raise GameFileError(spec, "no such file or folder")


def _no_game_files(spec: str, folder: Path) -> GameFileError:
    """The error for a folder without game files, naming the entries skipped because they
    are not regular files (the same words for ``check``, ``run`` and ``play``)."""
    skipped = special_entries(folder)
    what = "; skipped " + ", ".join(
        f"{x.name} ({kind})" for x, kind in skipped
    ) if skipped else ""
    return GameFileError(spec, f"folder holds no game files (*.yaml, *.yml){what}")


def file_kind(path: Path) -> str:
    """What ``path`` is when it exists but is neither a regular file nor a folder ("a FIFO
    (named pipe)", "a character device"...), "a broken link", or "" (never opened: reading a
    FIFO would block and a device may never end)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return "a broken link" if path.is_symlink() else ""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return ""
    for test, name in (
        (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return f"a link to {name} ({path.resolve()})" if path.is_symlink() else name
    return "not a regular file"


def special_entries(folder: Path) -> list[tuple[Path, str]]:
    """The entries of ``folder`` named like game files that are not regular files (a FIFO,
    a link to a device, a broken link), with what each is: skipped, and said so."""
    out: list[tuple[Path, str]] = []
    for x in sorted(folder.iterdir()):
        if GAME_FILE.search(x.name) and not x.is_dir():
            kind = file_kind(x)
            if kind:
                out.append((x, kind))
    return out


def _game_files(spec: str) -> list[Path]:
    p = Path(spec)
    if p.is_dir():
        files = sorted(
            x for x in p.iterdir() if x.suffix.lower() in (".yaml", ".yml") and x.is_file()
        )
        if not files:  # an existing folder: not a built-in game's name, whatever it is called
            raise _no_game_files(spec, p)
        return _as_generated(spec, p, files)
    if p.is_file():
        return [p]
    if any(c in spec for c in "*?["):
        base = Path(spec).anchor or "."
        pattern = spec[len(base):] if Path(spec).is_absolute() else spec
        return sorted(x for x in Path(base).glob(pattern) if x.is_file())
    return []


Resolver = Callable[[str, list[GameFileError]], list[GameDefinition]]


def load_games(
    specs: Iterable[str] | None = None, difficulties: Iterable[str] | None = None,
    *, resolve: Resolver | None = None,
) -> list[GameDefinition]:
    """Resolve game specs to settings.

    A spec is a built-in game or setting name (``lab``, ``lab-hard``), ``builtin`` for all
    built-in games, a file, a folder in the original layout, or a glob. ``difficulties``
    filters the result. Raises :class:`GameFileError` for a spec that names nothing.
    ``resolve`` reads one spec (default :func:`resolve_file_spec`; every source, ``gen:``
    included, and comma lists: :func:`escapebench.catalog.load_games`).
    """
    out, failed = load_games_reporting(specs, difficulties, resolve=resolve)
    if failed:
        raise failed[0]
    return out


def load_games_reporting(
    specs: Iterable[str] | None = None, difficulties: Iterable[str] | None = None,
    *, resolve: Resolver | None = None,
) -> tuple[list[GameDefinition], list[GameFileError]]:
    """Like :func:`load_games`, but a file (or spec) that cannot be loaded is returned as its
    error next to the settings of the others, so that a folder's problems are listed at once."""
    specs = list(specs or ["builtin"])
    wanted = set(difficulties or DIFFICULTIES)
    out: list[GameDefinition] = []
    failed: list[GameFileError] = []
    seen: set[tuple[str, str]] = set()
    for spec in specs:
        found = (resolve or resolve_file_spec)(spec, failed)
        for d in found:
            # one file named twice (shed.yaml, ./shed.yaml, its absolute path) is one game
            key = (str(Path(d.source).resolve()) if d.source else "", d.setting)
            if d.difficulty in wanted and key not in seen:
                seen.add(key)
                out.append(d)
    return out, failed


def _load_each(files: Iterable[Path], failed: list[GameFileError]) -> list[GameDefinition]:
    out: list[GameDefinition] = []
    for f in files:
        try:
            out += load_file(f)
        except GameFileError as exc:
            failed.append(exc)
        except OSError as exc:  # vanished or unreadable between listing and loading
            failed.append(GameFileError(str(f), f"cannot read file: {exc.strerror or exc}"))
    return out


def resolve_file_spec(spec: str, failed: list[GameFileError]) -> list[GameDefinition]:
    """The settings of one spec of game files: ``builtin``, a file, a folder (ours or the
    original layout), a glob, or a built-in game or setting by name; what cannot be loaded is
    added to ``failed``. (Specs of other sources, ``gen:``, are resolved by
    :mod:`escapebench.catalog`.)"""
    if spec == "builtin":
        return _load_each(builtin_files(), failed)
    try:
        files = _game_files(spec)
    except GameFileError as exc:
        failed.append(exc)
        return []
    if files:
        return _load_each(files, failed)
    # a built-in game or setting by name
    for f in builtin_files():
        if spec == f.stem or spec.startswith(f.stem + "-"):
            settings = load_file(f)
            if spec == f.stem and len(settings) > 1:
                return settings
            match = [d for d in settings if d.setting == spec]
            if match:
                return match
    kind = file_kind(Path(spec))
    if kind:
        failed.append(GameFileError(spec, f"not a regular file: {kind}"))
        return []
    failed.append(unknown_game(spec))
    return []


def unknown_game(spec: str) -> GameFileError:
    """The error for a name that is no game file, folder or built-in game: the same line
    (with the built-in games' names) from every verb that takes games."""
    names = ", ".join(f.stem for f in builtin_files())
    return GameFileError(
        spec, f"no game file, folder or built-in game by this name (built-in games: {names})"
    )


def pick_setting(spec: str, difficulty: str | None, *, resolve: Resolver | None = None
                 ) -> GameDefinition:
    """The one setting ``spec`` names: the game's normal version unless ``difficulty`` is
    given. Raises :class:`GameFileError` when it names none, or several games."""
    found, failed = load_games_reporting([spec], resolve=resolve)
    if failed:  # every file that does not load, at once
        if len(failed) == 1:
            raise failed[0]
        listed = "\n  ".join(str(e) for e in failed)
        raise GameFileError(spec, f"{len(failed)} game files cannot be loaded:\n  {listed}")
    if difficulty is not None:
        found = [d for d in found if d.difficulty == difficulty]
        if not found:
            raise GameFileError(spec, f"has no {difficulty} version")
    if len(found) > 1:
        normal = [d for d in found if d.difficulty == "normal"]
        games = {d.game for d in found}
        if len(games) > 1 or len(normal) != 1:
            names = ", ".join(sorted(d.setting for d in found))
            raise GameFileError(spec, f"names several settings ({names}); pick one")
        found = normal
    return found[0]
