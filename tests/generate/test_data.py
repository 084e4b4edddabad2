"""The generator's data files: schema, counts, and the promises they make to the generator.

The checks are written as functions over the loaded data so that tests below can feed them a
broken copy and see them fail.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

DATA = Path(__file__).resolve().parents[2] / "src" / "escapebench" / "generate" / "data"
THEME_FILES = sorted((DATA / "themes").glob("*.yaml"))
NAME = re.compile(r"^[a-z]+( [a-z]+)*$")
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
LEVELS = ("easy", "normal", "hard")
REQUIRED_THEMES = {"observatory", "greenhouse", "night train", "lighthouse", "bakery", "clinic"}


def load(path: Path) -> Any:
    """One data file, read with the safe loader only."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def placeholders(text: str) -> set[str]:
    """The ``{names}`` a text uses."""
    return set(PLACEHOLDER.findall(text))


def mentions(text: str, name: str) -> bool:
    """Whether ``name`` appears in ``text`` as whole words."""
    return re.search(rf"\b{re.escape(name)}\b", text.lower()) is not None


def check_texts(where: str, texts: Any, allowed: set[str], problems: list[str]) -> None:
    """Every text is a non-empty string using only the allowed placeholders."""
    for text in texts if isinstance(texts, list) else [texts]:
        if not isinstance(text, str) or not text.strip():
            problems.append(f"{where}: empty or not a string: {text!r}")
        elif not placeholders(text) <= allowed:
            extra = sorted(placeholders(text) - allowed)
            problems.append(f"{where}: placeholders {extra} in {text!r}")


def check_names(where: str, names: list[str], problems: list[str]) -> None:
    """Names are lower case letters and spaces, unique within their list."""
    seen = set()
    for name in names:
        if not isinstance(name, str) or not NAME.match(name):
            problems.append(f"{where}: bad name {name!r}")
        if name in seen:
            problems.append(f"{where}: duplicate name {name!r}")
        seen.add(name)


def check_levels(where: str, desc: Any, allowed: set[str], problems: list[str]) -> None:
    """A desc map has exactly easy, normal and hard."""
    if not isinstance(desc, dict) or set(desc) != set(LEVELS):
        problems.append(f"{where}: desc must have exactly {LEVELS}, got {desc!r}")
        return
    for level in LEVELS:
        check_texts(f"{where}.{level}", desc[level], allowed, problems)


def affordance_problems(data: Any) -> list[str]:
    """Everything wrong with affordances.yaml (empty when it is sound)."""
    problems: list[str] = []
    if data.get("version") != 1:
        problems.append("version must be 1")
    props = data.get("properties", {})
    if len(props) < 25:
        problems.append(f"properties: {len(props)} < 25")
    check_names("properties", list(props), problems)
    objects = data.get("objects", [])
    if len(objects) < 160:
        problems.append(f"objects: {len(objects)} < 160")
    check_names("objects", [o.get("name") for o in objects], problems)
    by_name = {o.get("name"): o for o in objects}
    for o in objects:
        where = f"object {o.get('name')!r}"
        if len(o["name"].split()) > 3:
            problems.append(f"{where}: more than 3 words")
        plist = o.get("properties", [])
        if not 2 <= len(plist) <= 6 or len(set(plist)) != len(plist):
            problems.append(f"{where}: needs 2-6 distinct properties, has {plist}")
        problems += [f"{where}: undeclared property {p!r}" for p in plist if p not in props]
        if "metal" in plist and "conductive" not in plist:  # a steel fork bridges contacts
            problems.append(f"{where}: metal that does not conduct")
        check_texts(f"{where}.suggests", o.get("suggests"), set(), problems)
        check_levels(where, o.get("desc"), set(), problems)
        desc = o.get("desc") or {}
        if desc.get("easy") is not None and desc.get("easy") == desc.get("hard"):
            problems.append(f"{where}: easy and hard read the same")
    obstacles = data.get("obstacles", [])
    if len(obstacles) < 45:
        problems.append(f"obstacles: {len(obstacles)} < 45")
    check_names("obstacles", [ob.get("kind") for ob in obstacles], problems)
    for ob in obstacles:
        where = f"obstacle {ob.get('kind')!r}"
        need = ob.get("needs")
        if need not in props:
            problems.append(f"{where}: needs undeclared property {need!r}")
        items = ob.get("item", [])
        if not items:
            problems.append(f"{where}: no item names")
        check_names(f"{where}.item", items, problems)
        check_levels(where, ob.get("desc"), {"item"}, problems)
        check_texts(f"{where}.fail", ob.get("fail"), {"item", "tool"}, problems)
        check_texts(f"{where}.solved", ob.get("solved"), {"item", "tool"}, problems)
        solvers = [o for o in objects if need in o["properties"]]
        obvious = [o for o in solvers if o["properties"][0] == need]
        creative = [o for o in solvers if o["properties"][0] != need]
        if len(solvers) < 3 or not obvious or not creative:
            problems.append(f"{where}: {len(solvers)} objects are {need} "
                            f"({len(obvious)} by name, {len(creative)} creative); "
                            "need >= 3, >= 1 each")
        for level in ("normal", "hard"):
            for item in items:
                desc = ob.get("desc")
                text = desc[level].replace("{item}", item) if isinstance(desc, dict) else ""
                problems += [f"{where}.{level} names its solution {o['name']!r}"
                             for o in solvers if mentions(text, o["name"])]
    preps = data.get("preparations", [])
    if len(preps) < 8:
        problems.append(f"preparations: {len(preps)} < 8")
    check_names("preparations", [p.get("verb") for p in preps], problems)
    for p in preps:
        where = f"preparation {p.get('verb')!r}"
        if p.get("gives") not in props:
            problems.append(f"{where}: gives undeclared property {p.get('gives')!r}")
        check_names(f"{where}.source", p.get("source", []), problems)
        if not p.get("source"):
            problems.append(f"{where}: no source")
        for key in ("before", "after"):
            check_texts(f"{where}.{key}", p.get(key), {"tool"}, problems)
        check_texts(f"{where}.done", p.get("done"), {"tool", "source"}, problems)
    crafts = data.get("crafts", [])
    if len(crafts) < 20:
        problems.append(f"crafts: {len(crafts)} < 20")
    check_names("crafts", [c.get("result") for c in crafts], problems)
    for c in crafts:
        where = f"craft {c.get('result')!r}"
        parts = c.get("parts", [])
        if len(parts) != 2 or len(set(parts)) != 2:
            problems.append(f"{where}: needs two different parts, has {parts}")
        problems += [f"{where}: part {p!r} is not an object" for p in parts if p not in by_name]
        if c.get("result") in by_name:
            problems.append(f"{where}: result clashes with an object name")
        cprops = c.get("properties", [])
        if not cprops:
            problems.append(f"{where}: no properties")
        problems += [f"{where}: undeclared property {p!r}" for p in cprops if p not in props]
        check_levels(where, c.get("desc"), set(), problems)
        check_texts(f"{where}.done", c.get("done"), set(), problems)
    return problems


def theme_problems(theme: Any) -> list[str]:
    """Everything wrong with one theme file (empty when it is sound)."""
    problems: list[str] = []
    name = theme.get("name")
    check_names("theme name", [name], problems)
    for key in ("title", "intro", "exit"):
        check_texts(key, theme.get(key), {"door"} if key == "exit" else set(), problems)
    if "GAME END" not in str(theme.get("exit", "")):
        problems.append("exit does not contain GAME END")
    minimum = {"scenes": 12, "closeups": 8, "containers": 8, "locks": 3, "doors": 2,
               "clue_carriers": 8, "code_words": 15, "filler_items": 10, "reward_templates": 8,
               "details": 12}
    for key, least in minimum.items():
        if len(theme.get(key) or []) < least:
            problems.append(f"{key}: {len(theme.get(key) or [])} < {least}")
    for key in ("scenes", "closeups"):
        entries = theme.get(key, [])
        check_names(key, [e.get("name") for e in entries], problems)
        for e in entries:
            variants = e.get("desc", [])
            least = 2 if key == "scenes" else 1
            if not isinstance(variants, list) or len(variants) < least:
                problems.append(f"{key} {e.get('name')!r}: needs >= {least} desc variants")
            check_texts(f"{key} {e.get('name')!r}", variants, set(), problems)
    containers = theme.get("containers", [])
    check_names("containers", [c.get("name") for c in containers], problems)
    for c in containers:
        where = f"container {c.get('name')!r}"
        check_texts(f"{where}.locked", c.get("locked"), {"name", "lock"}, problems)
        check_texts(f"container {c.get('name')!r}.opened", c.get("opened"), {"name"}, problems)
    locks = theme.get("locks", [])
    check_names("locks", [lk.get("name") for lk in locks], problems)
    kinds = {lk.get("kind") for lk in locks}
    if not kinds <= {"key", "code", "latch"} or not {"key", "code"} <= kinds:
        problems.append(f"locks: kinds {sorted(map(str, kinds))}; "
                        "need key and code, and only key/code/latch")
    doors = theme.get("doors", [])
    check_names("doors", [d.get("name") for d in doors], problems)
    for d in doors:
        check_texts(f"door {d.get('name')!r}.locked", d.get("locked"), {"name"}, problems)
        check_texts(f"door {d.get('name')!r}.opened", d.get("opened"), {"name"}, problems)
    check_texts("clue_carriers", theme.get("clue_carriers", []), {"place"}, problems)
    for carrier in theme.get("clue_carriers", []):
        if "{place}" not in carrier:
            problems.append(f"clue carrier without {{place}}: {carrier!r}")
    words = theme.get("code_words", [])
    if len(set(words)) != len(words):
        problems.append("code_words: duplicates")
    problems += [f"code word {w!r} is not lower case letters" for w in words
                 if not (isinstance(w, str) and re.fullmatch(r"[a-z]+", w))]
    fillers = theme.get("filler_items", [])
    check_names("filler_items", [f.get("name") for f in fillers], problems)
    for f in fillers:
        check_texts(f"filler {f.get('name')!r}.desc", f.get("desc", []) or [""], set(), problems)
        check_texts(f"filler {f.get('name')!r}.fail", f.get("fail"), set(), problems)
    check_texts("reward_templates", theme.get("reward_templates", []), {"tool", "item"}, problems)
    check_texts("details", theme.get("details", []), set(), problems)
    # version 6: room details vary the scene descriptions (no property, object or digit)
    if len(theme.get("room_details") or []) < 10:
        problems.append(f"room_details: {len(theme.get('room_details') or [])} < 10")
    check_texts("room_details", theme.get("room_details", []), set(), problems)
    return problems


WORD_FILLS = {"key_desc": {"key"}, "solved_desc": {"item"}, "exit_open": set(),
              "source_desc": {"src"}, "source_used": {"src"}, "loose_desc": {"tool"}}


def puzzle_words(table: Any) -> set[str]:
    """Every word a puzzle relies on: properties, objects, crafts, sources, obstacle items."""
    return (set(table["properties"]) | {o["name"] for o in table["objects"]}
            | {c["result"] for c in table["crafts"]}
            | {s for p in table["preparations"] for s in p["source"]}
            | {i for ob in table["obstacles"] for i in ob["item"]})


def words_problems(words: Any, themes: list[Any], table: Any) -> list[str]:
    """Everything wrong with words.yaml and the themes' details (empty when sound): the
    details and variants may name no property, object or obstacle of the table, nor hold a
    digit, so they can neither hint at a solution nor write out a code."""
    problems: list[str] = []
    if words.get("version") != 1:
        problems.append("words: version must be 1")
    # where-it-lies details (given to items only) count with the others
    details = [*words.get("details", []), *words.get("place_details", [])]
    if len(details) < 40:
        problems.append(f"details: {len(details)} < 40")
    check_texts("details", details, set(), problems)
    for key, fills in WORD_FILLS.items():
        if len(words.get(key, [])) < 4:
            problems.append(f"{key}: {len(words.get(key, []))} < 4 variants")
        check_texts(key, words.get(key, []), fills, problems)
    texts = [t for k in ("details", "place_details", *WORD_FILLS) for t in words.get(k, [])]
    texts += [t for th in themes for t in th.get("details", [])]
    texts += [t for th in themes for t in th.get("room_details", [])]
    if len(set(texts)) != len(texts):
        problems.append("words: a sentence is given twice")
    banned = puzzle_words(table)
    for text in texts:
        bare = PLACEHOLDER.sub("", text)
        problems += [f"{text!r} names {w!r}" for w in sorted(banned) if mentions(bare, w)]
        if re.search(r"\d", bare):
            problems.append(f"{text!r} holds a digit")
    return problems


@pytest.fixture(scope="module")
def affordances() -> Any:
    return load(DATA / "affordances.yaml")


def test_affordance_table_is_sound(affordances: Any) -> None:
    assert affordance_problems(affordances) == []


def test_every_theme_is_sound() -> None:
    assert len(THEME_FILES) >= 8
    names = set()
    for path in THEME_FILES:
        theme = load(path)
        assert theme_problems(theme) == [], path.name
        names.add(theme["name"])
    assert names >= REQUIRED_THEMES
    assert len(names) == len(THEME_FILES)


def test_themes_have_varied_words() -> None:
    """Scene descriptions across all themes are nearly all distinct sentences."""
    texts = [d for path in THEME_FILES for s in load(path)["scenes"] for d in s["desc"]]
    assert len(set(texts)) >= 0.95 * len(texts)


def test_a_broken_table_is_caught(affordances: Any) -> None:
    broken = copy.deepcopy(affordances)
    broken["objects"][0]["properties"].append("sparkly")  # undeclared
    broken["objects"][1]["desc"]["hard"] = broken["objects"][1]["desc"]["easy"]
    broken["crafts"][0]["parts"][0] = "unicorn horn"  # not an object
    slotted = next(ob for ob in broken["obstacles"] if ob["needs"] == "flat")
    slotted["desc"]["normal"] = "A {item} you could open with a coin."  # names a flat object
    slotted["desc"]["hard"] = "A {item} with a {secret} placeholder."
    problems = "\n".join(affordance_problems(broken))
    assert "undeclared property 'sparkly'" in problems
    assert "object 'kitchen knife': easy and hard read the same" in problems
    assert "part 'unicorn horn' is not an object" in problems
    assert "names its solution 'coin'" in problems
    assert "placeholders ['secret']" in problems


def test_an_obstacle_without_a_creative_solver_is_caught(affordances: Any) -> None:
    broken = copy.deepcopy(affordances)
    magnetic = {"magnet", "fridge magnet", "brass compass"}  # the ones whose name says so
    broken["objects"] = [o for o in broken["objects"]
                         if "magnetic" not in o["properties"] or o["name"] in magnetic]
    problems = "\n".join(affordance_problems(broken))
    assert "0 creative" in problems
    assert "key in drain" in problems


def test_a_broken_theme_is_caught() -> None:
    theme = load(THEME_FILES[0])
    theme["exit"] = "The {door} opens. You leave."
    theme["code_words"].append("Star Dust")
    theme["scenes"][0]["desc"] = ["Only one {weather} variant."]
    del theme["filler_items"][3:]
    problems = "\n".join(theme_problems(theme))
    assert "exit does not contain GAME END" in problems
    assert "code word 'Star Dust'" in problems
    assert "needs >= 2 desc variants" in problems
    assert "placeholders ['weather']" in problems
    assert "filler_items: 3 < 10" in problems


def test_the_words_name_no_solution(affordances: Any) -> None:
    words = load(DATA / "words.yaml")
    themes = [load(p) for p in THEME_FILES]
    assert words_problems(words, themes, affordances) == []
    broken = copy.deepcopy(words)
    broken["details"].append("A magnet is stuck to it.")
    broken["details"].append("It is hot to the touch.")
    broken["key_desc"].append("A {key} for the {door} number 7.")
    problems = "\n".join(words_problems(broken, themes, affordances))
    assert "names 'magnet'" in problems and "names 'hot'" in problems
    assert "holds a digit" in problems and "placeholders ['door']" in problems
