"""The generator's words fit what they describe: creative tools hint their property, only
objects that afford a preparation get it, scene and reward texts fit their place, names read
right, and no two exits to different scenes share a label (faults a person-like play of a
tier-2 game found; docs/generator.md, "Played by a person-like new user")."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from escapebench.generate import generate_games, prove
from escapebench.generate.build import _they
from tests.support.generated import first_design

DATA = Path(__file__).resolve().parents[2] / "src" / "escapebench" / "generate" / "data"
# what a thing is made of (the test's own list): a name holds at most one
MATERIALS = {"brass", "iron", "copper", "silver", "tin", "bronze", "steel", "bone", "glass",
             "gold", "wooden"}
# what each preparation needs of the object it is applied to, by the test's own judgement
AFFORDS = {"fill": {"hollow", "waterproof"}, "soak": {"absorbent"}, "sharpen": {"sharp"},
           "heat": {"metal"}, "magnetise": {"metal"}, "chill": {"cold"}, "charge": {"powered"},
           "light": {"luminous"}, "oil": {"slippery"}, "smear": {"sticky"}}


def table() -> Any:
    return yaml.safe_load((DATA / "affordances.yaml").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def designs() -> list[Any]:
    """200 candidate games, 40 of each tier (the first sub-seed of each: what the proof gets
    to see, so every written game is among such candidates)."""
    return [d for tier in range(1, 6) for i in range(40)
            if (d := first_design(tier, 11, i, f"w{tier}-{i}")) is not None]


def things(doc: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every (scene, item or tool) of a game document."""
    return [(sc, e.get("item") or e.get("tool")) for sc in doc["scenes"]
            for e in [*sc.get("items", []), *sc.get("tools", [])]]


def cue_in(text: str, words: list[str]) -> bool:
    low = text.lower()
    return any(re.search(r"\b" + re.escape(w) + r"(?:s|es|d|ed|ing|y|ly)?\b", low)
               for w in words)


# -- 1. a creative tool hints its property in the normal version -------------------------------

def test_every_creative_pair_has_a_cue_in_the_data() -> None:
    """Every object/property pair an obstacle can use creatively has a cue for the normal
    version: in the object's own text, its own hint, or the property's hint; every hint is
    for a property its object has, holds a cue word and names no object or obstacle."""
    t = table()
    needed = {ob["needs"] for ob in t["obstacles"]}
    names = [o["name"] for o in t["objects"]] + [i for ob in t["obstacles"] for i in ob["item"]]
    hints = t["hints"]
    for o in t["objects"]:
        for prop in o["properties"][1:]:
            if prop not in needed:
                continue
            cue = t["cues"][prop]
            hint = hints.get(o["name"], {}).get(prop, cue["hint"])
            assert cue_in(o["desc"]["normal"], cue["words"]) or cue_in(hint, cue["words"]), \
                (o["name"], prop)
    for o, by_prop in hints.items():
        obj = next(x for x in t["objects"] if x["name"] == o)
        # (version 8, rule 17: a hint may be for the first property too, said where a plain
        # solution's name and text do not read as it: a stethoscope's hollow tube)
        assert set(by_prop) <= set(obj["properties"]), o
    for text in [c["hint"] for c in t["cues"].values()] + [h for d in hints.values()
                                                             for h in d.values()]:
        assert not [n for n in names if re.search(rf"\b{re.escape(n)}\b", text.lower())], text


def test_a_normal_creative_tool_without_a_cue_is_rejected() -> None:
    """The sextant that read only "A sextant." in normal: the proof now refuses it."""
    t = table()
    # a creative tool whose bare name holds no cue (a "rubber boot" still says rubber)
    g = next(g for seed in range(20) for g in generate_games(2, 1, seed) if g.design.cues
             and not cue_in(f"A {g.design.cues[0][0]}.", t["cues"][g.design.cues[0][2]]["words"]))
    tool, item, prop = g.design.cues[0]
    doc = yaml.safe_load(g.text)
    for _, thing in things(doc):
        if thing["name"] == tool:
            # the states that can be applied to the obstacle (a pat of butter "at room
            # warmth" before it is chilled need not cue cold)
            for st in thing["states"]:
                if item in st.get("apply_to", []):
                    assert cue_in(st["desc"]["normal"], t["cues"][prop]["words"])
                    st["desc"]["normal"] = f"A {tool}."
    problems = prove(yaml.safe_dump(doc, sort_keys=False), g.design, "bare.yaml")[1]
    assert any("cue" in p and repr(tool) in p for p in problems), problems


def test_easy_states_and_normal_hints_the_creative_property() -> None:
    t = table()
    seen = 0
    for d in designs()[:80]:
        tools = {th["name"]: th for _, th in things(d.doc)}
        for tool, item, prop in d.cues:
            for st in tools[tool]["states"]:
                if item in st.get("apply_to", []):
                    seen += 1
                    assert cue_in(st["desc"]["normal"], t["cues"][prop]["words"]), st["desc"]
                    gloss = t["properties"][prop]
                    assert (cue_in(st["desc"]["easy"], t["cues"][prop]["words"])
                            or gloss in st["desc"]["easy"]
                            or _they(f"It {gloss}.") in st["desc"]["easy"]), st["desc"]
    assert seen > 20


# -- 2. preparations fit the object ------------------------------------------------------------

def test_preparations_apply_only_to_objects_that_afford_them() -> None:
    """Over the whole table: each preparation lists the objects it fits, and each of them has
    the property it gives and what the preparation needs (a container is filled, a blade
    sharpened); the snowball is never filled, the matchbox never heated."""
    t = table()
    objs = {o["name"]: o for o in t["objects"]}
    for p in t["preparations"]:
        assert "fits" in p, p["verb"]
        for name in p["fits"]:
            props = set(objs[name]["properties"])
            assert p["gives"] in props and AFFORDS[p["verb"]] <= props, (p["verb"], name)
    fits = {p["verb"]: p["fits"] for p in t["preparations"]}
    assert "snowball" not in fits["fill"] + fits["soak"]
    assert "matchbox" not in fits["heat"]


def test_generated_games_prepare_only_objects_that_afford_it() -> None:
    t = table()
    fits_of = {src: set(p["fits"]) for p in t["preparations"] for src in p["source"]}
    prepared = 0
    for d in designs():
        for _, thing in things(d.doc):
            for st in thing["states"]:
                for tr in st.get("transitions", []):
                    for trig in tr["trigger"]:
                        m = re.match(r"change_state, tool, (.+), 1$", trig)
                        if m:
                            base = next(s for s in fits_of if thing["name"].endswith(s))
                            assert m.group(1) in fits_of[base], (m.group(1), thing["name"])
                            prepared += 1
    assert prepared > 0


# -- 3. words fit the place --------------------------------------------------------------------

def test_obstacles_and_sources_stand_in_rooms_and_rewards_say_what_appears() -> None:
    for d in designs():
        tools = {th["name"] for _, th in things(d.doc)}
        for sc, thing in things(d.doc):
            base = thing["name"]
            source = any("change_state, tool," in trig for st in thing["states"]
                         for tr in st.get("transitions", []) for trig in tr["trigger"])
            if d.node_kind.get(base) == "obstacle" or source:
                assert not sc["name"].endswith("close-up"), (sc["name"], base)
            for st in thing["states"]:
                for tr in st.get("transitions", []):
                    reward = tr["reward"]  # one text, or one per version
                    for text in reward.values() if isinstance(reward, dict) else [reward]:
                        for trig in tr["trigger"]:
                            m = re.match(r"change_visible, tool, (.+), true$", trig)
                            if m and m.group(1) in tools:
                                assert m.group(1) in text, (text, m.group(1))
                        assert "writing shows" not in text.lower()


def test_an_opening_sentence_names_no_scene_of_its_theme() -> None:
    """The intro opens whichever scene comes first: it names none of the theme's scenes."""
    for path in sorted((DATA / "themes").glob("*.yaml")):
        th = yaml.safe_load(path.read_text(encoding="utf-8"))
        names = [s["name"] for s in [*th["scenes"], *th["closeups"]]]
        heads = {n.split()[-1] for n in names} - set(th["name"].split()) - {"room", "door"}
        intro = th["intro"].lower()
        said = set(re.findall(r"[a-z]+", intro))
        assert not said & heads, (path.name, said & heads)  # "a dark compartment"
        assert not [n for n in names if n in intro], path.name  # "the waiting room"


# -- 4. names and descriptions read right ------------------------------------------------------

def test_names_repeat_no_word_and_texts_keep_the_names_material() -> None:
    """Over 200 games across tiers: no name repeats a word ("iron iron key") or holds two
    materials ("brass iron key"); no text contradicts the name's material ("Brass compass,
    plain steel."); no text doubles a word ("A small small safe") or misses its article
    ("An second door", "a 8")."""
    for d in designs():
        for _, thing in things(d.doc):
            words = thing["name"].split()
            assert len(set(words)) == len(words), thing["name"]
            mats = set(words) & MATERIALS
            assert len(mats) <= 1, thing["name"]
            assert thing["name"] != "key", d.doc["id"]  # a key is always told apart
            for st in thing["states"]:
                for text in filter(None, st["desc"].values()):
                    low = text.lower()
                    assert not re.search(r"\b(\w+) \1\b", low), text
                    assert not re.search(r"\ban [bcdfgjklmnpqrstvwxyz]|\ba [aeio8]", low), text
                    assert not re.search(r"\b(a|the) (small|tall|round|heavy) (second|third)\b",
                                         low), text  # "A small second wall safe"
                    for other in MATERIALS - mats if mats else ():
                        assert not re.search(rf"\b(plain|made of|all) {other}\b", low), text
                        assert not re.search(rf"\b{other} {words[-1]}\b", low), text


# -- 5. exit labels ----------------------------------------------------------------------------

def test_exits_to_different_scenes_have_different_labels() -> None:
    for d in designs():
        to: dict[str, str] = {}
        for sc in d.doc["scenes"]:
            for label, target in sc.get("scene_relations", {}).items():
                assert to.setdefault(label, target) == target, (d.doc["id"], label)


def test_no_made_thing_detail_on_food_cloth_or_plants() -> None:
    """Version 7: "A greasy smoked sausage that smells wonderful. Somebody has polished it
    recently." is gone: a thing the table marks ``soft`` gets no detail meant for a made
    thing (polished, chipped, mended, repainted...), in any version."""
    import re

    made = re.compile(r"polished|chip|dent\b|mended|patched|repainted|paint|scuffed|lopsided|"
                      r"dulled|wobbles|corner|maker|scratches|knocked|edges")
    soft = {o["name"] for o in table()["objects"] if o.get("soft")}
    seen = 0
    for d in designs()[:120]:
        for _, th in things(d.doc):
            if th["name"] in soft and "states" in th and "interactable" not in th:
                for st in th["states"]:
                    desc = st["desc"] if isinstance(st["desc"], dict) else {"n": st["desc"]}
                    for text in filter(None, desc.values()):
                        seen += 1
                        assert not made.search(text.lower()), (th["name"], text)
    assert seen > 100
