"""Seeded generators of hostile inputs: mutated game files and hostile model answers.

Used by the tests (a small sample each run) and by ``benchmarks/hostile.py`` (1,000 game files
and 10,000 answers, counting tracebacks, hangs and memory). Every input is a function of the
seed and its number only, so a failing case is reproduced by its number.

Game files are mutations of real ones (the built-in games in our format, and the original
layout's games with their reference logs when ``ESCAPEBENCH_SHARED`` has them): YAML aliases
(recursive, "billion laughs", merge keys), deep nesting, explicit tags, broken bytes and
encodings, cut and shuffled lines, repeated keys, absurd numbers (Unicode digits, 4,301
digits), oversized texts and files, many items, and damaged reference logs.

Answers are what a model might emit: calls nested thousands deep, argument lists of thousands
of commas, Unicode digits and huge numbers in task operations, empty arguments, NUL bytes,
lone surrogates, bidirectional marks, markers repeated, and up to a megabyte of text.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from escapebench.games.loading import BUILTIN_DIR
from escapebench.games.yaml_reader import MAX_GAME_FILE_BYTES


@dataclass(frozen=True)
class GameCase:
    """One mutated game file: where it was written and how it was made."""

    number: int
    kind: str
    path: Path


def base_game_files(shared: Path | None) -> list[Path]:
    """The files mutations start from: built-in games, and the original layout's if present."""
    files = sorted(BUILTIN_DIR.glob("*.yaml"))
    if shared is not None and (shared / "upstream" / "data").is_dir():
        files += sorted((shared / "upstream" / "data").glob("game*.yaml"))
    return files


# ------------------------------------------------------------------ game file mutations
def _lines(text: str) -> list[str]:
    return text.split("\n")


def _at_random_line(rng: random.Random, text: str, insert: str) -> str:
    lines = _lines(text)
    k = rng.randrange(len(lines) + 1)
    indent = ""
    if k < len(lines):
        indent = lines[k][: len(lines[k]) - len(lines[k].lstrip(" "))]
    return "\n".join([*lines[:k], *(indent + x for x in insert.split("\n")), *lines[k:]])


def _recursive_alias(rng: random.Random, text: str) -> str:
    line = rng.choice(["extra: &r [*r]", "extra: &r {a: *r}", "x: &r [1, [*r, *r]]"])
    return text + ("" if text.endswith("\n") else "\n") + line + "\n"


def _billion_laughs(rng: random.Random, text: str) -> str:
    levels, width = rng.randint(8, 25), rng.randint(5, 10)
    out = ["lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        out.append(f"lol{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    head = "\n".join(out) + "\n"
    return head + text if text.lstrip().startswith("escapebench") else text + "\n" + head


def _anchor_reuse(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    keyed = [i for i, ln in enumerate(lines) if ln.strip().startswith(("desc:", "name:"))]
    if len(keyed) < 2:
        return _recursive_alias(rng, text)
    a, b = sorted(rng.sample(keyed, 2))
    key_a = lines[a].split(":", 1)[0]
    lines[a] = f"{key_a}: &shared {lines[a].split(':', 1)[1].strip() or 'x'}"
    key_b = lines[b].split(":", 1)[0]
    lines[b] = f"{key_b}: *shared"
    return "\n".join(lines)


def _merge_key(rng: random.Random, text: str) -> str:
    return _at_random_line(rng, text, "base: &b {visible: true}\nmerged:\n  <<: *b")


def _deep_flow(rng: random.Random, text: str) -> str:
    n = rng.choice([65, 200, 5_000, 100_000, 300_000])
    closed = rng.random() < 0.7
    return _at_random_line(rng, text, "deep: " + "[" * n + ("]" * n if closed else ""))


def _deep_block(rng: random.Random, text: str) -> str:
    n = rng.choice([70, 300, 2_000])
    block = "\n".join("  " * i + f"k{i}:" for i in range(n)) + " x"
    return text + "\n" + block + "\n"


def _delete_lines(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    for _ in range(rng.randint(1, 5)):
        if lines:
            del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def _duplicate_lines(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    for _ in range(rng.randint(1, 5)):
        k = rng.randrange(len(lines))
        lines.insert(k, lines[k])
    return "\n".join(lines)


def _swap_lines(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    for _ in range(rng.randint(1, 4)):
        a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines)


_NOISE = list(":-[]{}&*!|>%@`'\"#,?\t\\\x00\u2028\ufeff²①") + ["\n", "  ", ": ", "- "]


def _byte_noise(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 12)):
        chars.insert(rng.randrange(len(chars) + 1), rng.choice(_NOISE))
    return "".join(chars)


def _truncate(rng: random.Random, text: str) -> str:
    return text[: rng.randrange(len(text) + 1)]


_NUMBERS = ["²", "①", "٣", "-1", "1e9", "9" * 4301, "0" * 5000 + "1", "1_000", "0x10", "", "NaN"]


def _numbers(rng: random.Random, text: str) -> str:
    out = text
    for _ in range(rng.randint(1, 4)):
        value = rng.choice(_NUMBERS)
        out = out.replace("change_state, 1", f"change_state, {value}", 1)
        out = out.replace("change_state,1", f"change_state,{value}", 1)
    if out == text:
        out = _at_random_line(rng, text, f"- change_state, {rng.choice(_NUMBERS)}")
    return out


def _long_text(rng: random.Random, text: str) -> str:
    size = rng.choice([10_000, 200_000, 900_000])
    filler = rng.choice(["a", "(", ",", "click(", "é", " "]) * (size // 6 + 1)
    return text.replace("desc:", f"desc: '{filler[:size]}'\n  old_desc:", 1)


_TAGS = ["!!python/object/apply:os.system ['true']", "!!binary aGVsbG8=", "!!set {a, b}",
         "!custom x", "!!omap [a: 1]", "!!float 1", "!!timestamp 2001-12-14"]


def _tags(rng: random.Random, text: str) -> str:
    return _at_random_line(rng, text, f"tagged: {rng.choice(_TAGS)}")


def _non_utf8(rng: random.Random, text: str) -> bytes:
    raw = bytearray(text.encode("utf-8"))
    for _ in range(rng.randint(1, 3)):
        raw.insert(rng.randrange(len(raw) + 1), rng.choice([0xFF, 0xC3, 0x80, 0xFE]))
    return bytes(raw)


def _bom_and_crlf(rng: random.Random, text: str) -> bytes:
    body = text.replace("\n", "\r\n") if rng.random() < 0.5 else text
    bom = rng.choice([b"\xef\xbb\xbf", b"\xff\xfe", b""])
    return bom + body.encode("utf-8")


def _repeated_key(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    keyed = [i for i, ln in enumerate(lines) if ":" in ln and not ln.strip().startswith("-")]
    if not keyed:
        return text + "\na: 1\na: 2\n"
    k = rng.choice(keyed)
    lines.insert(k + 1, lines[k])
    return "\n".join(lines)


_BAD_ACTIONS = ["click(" * 3000, "apply(" + "," * 20_000 + ")", "", "(((", "input(²)",
                "move(\x00)", "craft(a,b,c,d)"]


def _reference_garbage(rng: random.Random, text: str) -> str:
    bad = rng.choice(_BAD_ACTIONS).replace('"', "'")
    out = text.replace('action: "', f'action: "{bad}', 1)
    return out if out != text else _byte_noise(rng, text)


_TRIGGERS = ["become_tool", "change_state", "change_visible, scene", "change_state, item, , 1",
             "change_visible, tool, , true", ",,,,", "click", "apply", "input, ", "é, ²"]


def _trigger_garbage(rng: random.Random, text: str) -> str:
    out = text
    for _ in range(rng.randint(1, 3)):
        out = out.replace("- change_state, 1", f"- {rng.choice(_TRIGGERS)}", 1)
        out = out.replace("- click", f"- {rng.choice(_TRIGGERS)}", 1)
    return out if out != text else _at_random_line(rng, text, f"- {rng.choice(_TRIGGERS)}")


def _type_swap(rng: random.Random, text: str) -> str:
    key = rng.choice(["states:", "items:", "tools:", "transitions:", "scenes:", "wait_for:",
                      "trigger:", "scene_relations:", "apply_to:"])
    value = rng.choice([" 5", " text", " {}", " []", " ~", " true", " {a: [1, {b: 2}]}"])
    return text.replace(key, key + value + "\n  _was:", 1)


def _oversize(rng: random.Random, text: str) -> str:
    pad = MAX_GAME_FILE_BYTES + rng.randint(1, 4096) - len(text.encode("utf-8"))
    return text + "\n#" + "x" * max(pad, 1) + "\n"


def _many_items(rng: random.Random, text: str) -> str:
    """Lots of copies of the first item entry (stays under the size limit)."""
    lines = _lines(text)
    starts = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("- position:")]
    if len(starts) < 2:
        return _duplicate_lines(rng, text)
    a, b = starts[0], starts[1]
    block = lines[a:b]
    size = sum(len(x) + 1 for x in block) or 1
    copies = min(rng.choice([50, 500, 5_000]), (MAX_GAME_FILE_BYTES - len(text)) // size - 1)
    return "\n".join([*lines[:a], *(block * max(copies, 1)), *lines[a:]])


def _documents(rng: random.Random, text: str) -> str:
    return rng.choice(["", "~\n", "---\n", "--- \n...\n"]) + (
        "" if rng.random() < 0.5 else "---\n" + text
    )


def _json_key_log(rng: random.Random, log: str) -> str:
    n = rng.choice([5_000, 100_000])
    return rng.choice(["[" * n + "]" * n, '{"a":' * n, log[: len(log) // 2], log + "\n{" * 3,
                       log.replace('"action_answer"', '"action_answer": [', 1)])


MUTATIONS: dict[str, Callable[[random.Random, str], str | bytes]] = {
    "recursive alias": _recursive_alias,
    "billion laughs": _billion_laughs,
    "anchor reuse": _anchor_reuse,
    "merge key": _merge_key,
    "deep flow nesting": _deep_flow,
    "deep block nesting": _deep_block,
    "lines deleted": _delete_lines,
    "lines duplicated": _duplicate_lines,
    "lines swapped": _swap_lines,
    "character noise": _byte_noise,
    "truncated": _truncate,
    "absurd numbers": _numbers,
    "long text": _long_text,
    "explicit tags": _tags,
    "not UTF-8": _non_utf8,
    "BOM and CRLF": _bom_and_crlf,
    "repeated key": _repeated_key,
    "reference garbage": _reference_garbage,
    "trigger garbage": _trigger_garbage,
    "type swap": _type_swap,
    "oversize": _oversize,
    "many items": _many_items,
    "documents": _documents,
}
_RARE = {"oversize": 0.2, "many items": 0.5, "long text": 0.5}


def mutated_game_files(count: int, seed: int, out: Path, shared: Path | None) -> list[GameCase]:
    """Write ``count`` mutated game files under ``out`` (one folder each, with the original
    layout's reference log where the base file has one, sometimes damaged)."""
    bases = base_game_files(shared)
    kinds = list(MUTATIONS)
    weights = [_RARE.get(k, 1.0) for k in kinds]
    cases = []
    for number in range(count):
        rng = random.Random(f"{seed}-game-{number}")
        base = rng.choice(bases)
        text = base.read_text(encoding="utf-8")
        applied = rng.choices(kinds, weights, k=1 if rng.random() < 0.8 else 2)
        data: str | bytes = text
        for kind in applied:
            data = MUTATIONS[kind](rng, data if isinstance(data, str) else data.decode(
                "utf-8", errors="replace"))
        folder = out / f"{number:05d}"
        folder.mkdir(parents=True)
        target = folder / base.name
        target.write_bytes(data.encode("utf-8", errors="surrogatepass")
                           if isinstance(data, str) else data)
        log_name = _key_log_name(base)
        if log_name is not None and (base.parent / "reference" / log_name).is_file():
            (folder / "reference").mkdir()
            log = (base.parent / "reference" / log_name).read_text(encoding="utf-8")
            if rng.random() < 0.15:
                log = _json_key_log(rng, log)
                applied = [*applied, "damaged key log"]
            (folder / "reference" / log_name).write_text(log, encoding="utf-8")
        cases.append(GameCase(number, " + ".join(applied), target))
    return cases


def _key_log_name(path: Path) -> str | None:
    import re

    m = re.match(r"game(\d+)-(\d+)", path.stem)
    return f"key_log_{m.group(1)}-{m.group(2)}.txt" if m else None


def copy_case(case: GameCase, to: Path) -> Path:
    """A copy of a case's folder (to reproduce it elsewhere)."""
    shutil.copytree(case.path.parent, to)
    return to / case.path.name


# ------------------------------------------------------------------ hostile answers
_VERBS = ["click", "move", "apply", "input", "craft", "delete", "new", "update", "none"]
_MARKERS = ["Action:", "Actions:", "- Action:", "**Action:**", "Operation:", "Thought:", ""]
_DIGITS = ["²", "①", "٣", "７", "Ⅻ", "9" * 4301, "0" * 5000 + "1", "-1", "1.5", "", " ", "1e999"]
_ODD = ["\x00", "\ud800", "\udfff", "\u202e", "\u200b", "\ufeff", "\r", "\u2028", "e\u0301",
        "😀", "\t", "\\", '"', "'", "`", "*", "_", "<", ">", "[", "]"]
NAMES = ["door", "desk drawer", "battery", "flashlight", "cupboard", "box", "key", "knife",
         "To the study", "shelf"]


def _nested_calls(rng: random.Random) -> str:
    verb = rng.choice(_VERBS)
    n = rng.choice([100, 5_000, 11_000, 60_000])
    closing = rng.choice(["", ")" * n, ")" * (n // 2)])
    return f"- Action: {(verb + '(') * n}{closing}"


def _comma_lists(rng: random.Random) -> str:
    verb = rng.choice(["apply", "input", "craft", "new", "click"])
    n = rng.choice([1_000, 20_000, 60_000])
    piece = rng.choice([",", ", ", "a,", f"{rng.choice(NAMES)}, ", ",\n"])
    return f"- Actions: {verb}({piece * n}{rng.choice(NAMES)})"


def _numbers_in_operations(rng: random.Random) -> str:
    op = rng.choice(["delete", "delete", "update", "new"])
    return f"- Thought: done.\n- Action: {op}({rng.choice(_DIGITS)})"


def _empty_arguments(rng: random.Random) -> str:
    calls = [f"{rng.choice(_VERBS)}({rng.choice(['', ',', ' , ', '()', ')('])})"
             for _ in range(rng.randint(1, 6))]
    return f"- {rng.choice(_MARKERS)} " + " ".join(calls)


def _odd_characters(rng: random.Random) -> str:
    name = "".join(rng.choice([*_ODD, *NAMES]) for _ in range(rng.randint(1, 8)))
    return f"- Action: {rng.choice(_VERBS)}({name}, {rng.choice(NAMES)})"


def _marker_storm(rng: random.Random) -> str:
    n = rng.choice([100, 5_000, 20_000])
    return " ".join(rng.choice(_MARKERS) for _ in range(n)) + f" click({rng.choice(NAMES)})"


def _huge(rng: random.Random) -> str:
    size = rng.choice([70_000, 300_000, 1_000_000])
    unit = rng.choice(["A", "(", "click(", ",", "Action: ", "\n", "é"])
    tail = rng.choice(["", f" click({rng.choice(NAMES)})", " delete(²)"])
    return (unit * (size // len(unit) + 1))[:size] + tail


def _random_soup(rng: random.Random) -> str:
    parts = [*_VERBS, *_MARKERS, *_ODD, *NAMES, "(", ")", ",", " ", "\n", "{", "}", "```json"]
    return "".join(rng.choice(parts) for _ in range(rng.randint(0, 400)))


def _json_answer(rng: random.Random) -> str:
    inner = rng.choice(["[" * 3000, '{"action": "click(door)"}', '{"operation": "delete(²)"}'])
    return f"```json\n{inner}\n```"


ANSWERS: dict[str, Callable[[random.Random], str]] = {
    "nested calls": _nested_calls,
    "comma lists": _comma_lists,
    "numbers in operations": _numbers_in_operations,
    "empty arguments": _empty_arguments,
    "odd characters": _odd_characters,
    "marker storm": _marker_storm,
    "huge": _huge,
    "random soup": _random_soup,
    "json": _json_answer,
}
_ANSWER_WEIGHTS = {"huge": 0.15, "nested calls": 0.5, "comma lists": 0.5, "marker storm": 0.3}


def hostile_answer(number: int, seed: int) -> tuple[str, str]:
    """The ``number``-th hostile answer of ``seed``: (kind, text)."""
    rng = random.Random(f"{seed}-answer-{number}")
    kinds = list(ANSWERS)
    kind = rng.choices(kinds, [_ANSWER_WEIGHTS.get(k, 1.0) for k in kinds])[0]
    return kind, ANSWERS[kind](rng)


def folder_of_special_files(parent: Path, name: str = "games", link: str = "zero.yml") -> Path:
    """A folder ``parent/name`` that holds no game file, only entries named like one: a FIFO
    ``pipe.yaml`` (reading it would block) and ``link``, a link to ``/dev/zero`` (endless)."""
    folder = parent / name
    folder.mkdir()
    os.mkfifo(folder / "pipe.yaml")
    (folder / link).symlink_to("/dev/zero")
    return folder
