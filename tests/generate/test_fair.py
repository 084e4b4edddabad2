"""Fair crafts and tools (generator version 5): no tool that reads as having what an obstacle
needs is refused there while only a crafted tool works (a lump of wax "tacky" refused at a
stuck zip that only a waxed string opened; a paper straw refused at a dusty lock that only a
straw pushed into a cane cleared; docs/generator.md, "Version 4: two tier-2 games played by a
new user"), and the reward of a crafted tool names the crafted thing."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from escapebench.generate import generate_games, prove
from escapebench.generate.build import build_design
from escapebench.generate.knobs import knobs_for
from escapebench.generate.make import _sub_rng

DATA = Path(__file__).resolve().parents[2] / "src" / "escapebench" / "generate" / "data"


def table() -> Any:
    return yaml.safe_load((DATA / "affordances.yaml").read_text(encoding="utf-8"))


def cue_in(text: str | None, words: list[str]) -> bool:
    low = (text or "").lower()
    return any(re.search(r"\b" + re.escape(w) + r"(?:s|es|d|ed|ing|y|ly)?\b", low)
               for w in words)


@lru_cache(maxsize=1)
def designs() -> list[Any]:
    """160 candidate games of tiers 2-5, the first sub-seed of each (what the proof sees)."""
    return [build_design(knobs_for(tier, {}), _sub_rng(23, tier, i, 0), f"f{tier}-{i}")
            for tier in range(2, 6) for i in range(40)]


def things(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(kind, e[kind]) for sc in doc["scenes"] for kind in ("item", "tool")
            for e in sc.get(kind + "s", [])]


def needs_of(item: str, t: Any) -> set[str]:
    """The properties an obstacle named ``item`` (perhaps told apart: "second choked lock")
    can need, by the table's obstacle item names."""
    return {ob["needs"] for ob in t["obstacles"] for base in ob["item"]
            if item == base or item.endswith(" " + base)}


def crafts_in(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(part, crafted tool, obstacle) of every craft of a game."""
    tools = [th for kind, th in things(doc) if kind == "tool"]
    out = []
    for th in tools:
        base = th["states"][0]
        if base.get("wait_for") and len(th["states"]) > 1:
            for item in th["states"][1].get("apply_to", []):
                out.append((base["wait_for"][0], th["name"], item))
    return out


def test_no_craft_part_reads_as_what_its_obstacle_needs_unless_told_why() -> None:
    """The parts of a craft, and the crafted tool before the craft, neither have (by the
    table) nor read as having, in any version, the property the crafted tool's obstacle
    needs; or else the obstacle says what else it asks for, a property of the crafted thing
    that part lacks ("It sits deep, beyond the reach of anything short." at a drain a magnet
    on a string reaches), and its refusal points at it. Otherwise the player is refused with
    the right thing in hand and can only guess pairs."""
    t = table()
    objs = {o["name"]: o for o in t["objects"]}
    results = {tuple(c["parts"]): c for c in t["crafts"]}
    seen = told = 0
    for d in designs():
        tools = {th["name"]: th for kind, th in things(d.doc) if kind == "tool"}
        items = {th["name"]: th for kind, th in things(d.doc) if kind == "item"}
        for part, crafted, item in crafts_in(d.doc):
            seen += 1
            craft = results[(part, crafted)]
            obstacle = items[item]["states"][0]
            for prop in needs_of(item, t) & set(craft["properties"]):
                words = t["cues"][prop]["words"]
                for name in (part, crafted):
                    texts = list(objs[name]["desc"].values()) if name in objs else []
                    texts += [v for v in tools[name]["states"][0]["desc"].values() if v]
                    has = prop in objs.get(name, {}).get("properties", []) or [
                        x for x in texts if cue_in(x, words)]
                    if not has:
                        continue
                    why = [q for q, w in t["why"].items() if w["desc"] in obstacle["desc"]["normal"]
                           and w["fail"] in obstacle["neg_reward"]["normal"]
                           and q in craft["properties"]
                           and q not in objs.get(name, {}).get("properties", [])]
                    assert why, (name, prop, item, obstacle)
                    told += 1
    assert seen >= 40 and told >= 10, (seen, told)


def test_no_distractor_tool_reads_as_what_an_obstacle_needs() -> None:
    """A tool lying about for nothing neither has nor reads as having (normal) a property an
    obstacle of its game needs."""
    t = table()
    objs = {o["name"]: o for o in t["objects"]}
    seen = 0
    for d in designs():
        needed = {need[1] for need in d.needs}  # (obstacle, property, ...)
        assert needed <= {p for item, *_ in d.needs for p in needs_of(item, t)}
        for name, kind in d.node_kind.items():
            if kind != "distractor" or name not in objs:
                continue
            seen += 1
            assert not set(objs[name]["properties"]) & needed, (name, needed)
            tool = next(th for k, th in things(d.doc) if k == "tool" and th["name"] == name)
            for prop in needed:
                assert not cue_in(tool["states"][0]["desc"]["normal"],
                                  t["cues"][prop]["words"]), (name, prop)
    assert seen >= 40


def test_a_craft_part_that_reads_as_the_need_is_rejected() -> None:
    """The proof refuses a game whose craft part reads as having what the crafted tool's
    obstacle needs (the beeswax, "tacky", "makes stiff parts slide", at a stuck zip)."""
    t = table()
    g = next(g for seed in range(60) for g in generate_games(2, 1, seed)
             if any(crafted and not why for _, _, crafted, why in g.design.needs))
    doc = yaml.safe_load(g.text)
    item, prop = next((i, p) for i, p, crafted, why in g.design.needs if crafted and not why)
    part = next(a for a, _, it in crafts_in(doc) if it == item)
    word = t["cues"][prop]["words"][0]
    for kind, th in things(doc):
        if kind == "tool" and th["name"] == part:
            th["states"][0]["desc"]["normal"] += f" It looks {word}."
    problems = prove(yaml.safe_dump(doc, sort_keys=False), g.design, "unfair.yaml")[1]
    assert any("fair" in p and repr(part) in p for p in problems), problems
    assert not prove(g.text, g.design, "fair.yaml")[1]


def test_a_crafted_tools_reward_names_the_crafted_thing() -> None:
    """"You blow the dust out ... through the straw pushed into a cane", not "... through
    the bamboo cane": the success text names what was made, by the craft's result."""
    t = table()
    results = {tuple(c["parts"]): c["result"] for c in t["crafts"]}
    seen = 0
    for d in designs():
        items = {th["name"]: th for kind, th in things(d.doc) if kind == "item"}
        for part, crafted, item in crafts_in(d.doc):
            result = results[(part, crafted)]
            reward = items[item]["states"][0]["transitions"][0]["reward"]
            seen += 1
            assert result in reward, (result, reward)
    assert seen >= 40


def words() -> Any:
    return yaml.safe_load((DATA / "words.yaml").read_text(encoding="utf-8"))


def test_no_tool_says_where_it_lies() -> None:
    """A tool's text is what the bag shows: no "A scrap of paper is tucked under it." on a
    candle in the bag, no "sits exactly square, as if placed with care." on sandpaper just
    worked loose; such details go to items only (and do go to some)."""
    place = [d.lower() for d in words()["place_details"]] + [
        "tucked beside it", "tucked under it", "lies across it", "folded beside it"]
    on_items = 0
    for d in designs():
        for kind, th in things(d.doc):
            for st in th["states"]:
                text = (st["desc"]["normal"] if isinstance(st["desc"], dict)
                        else st["desc"]).lower()
                hit = [p for p in place if p in text]
                if kind == "tool":
                    assert not hit, (th["name"], text)
                on_items += bool(hit)
    assert on_items > 20


def test_clues_keys_and_obstacles_promise_nothing_false() -> None:
    """A digit is not called a letter; a crust or a warm tile that yields a key does not
    promise numbers or a stamp; a box's lock is not "tied and fixed"; a key has no detail
    sentence of its own (no "gold key ... painted the same red as the tower") and its
    sentence does not repeat or fight its name (no "notched key with a notch filed into its
    bow", no "old key, its teeth freshly cut")."""
    keys = 0
    for d in designs():
        for kind, th in things(d.doc):
            for st in th["states"]:
                desc = st["desc"] if isinstance(st["desc"], dict) else {"normal": st["desc"]}
                for text in (v for v in desc.values() if v):
                    assert not re.search(r"\ba letter\b", text), text
                    assert "its numbers" not in text and "stamped under" not in text, text
                    assert "tied and fixed" not in text, text
            if kind == "tool" and th["name"] in d.keys:
                keys += 1
                normal = th["states"][0]["desc"]["normal"]
                assert normal.count(".") == 1, normal  # one sentence: no detail added
                words_ = th["name"].split()[:-1]
                rest = normal.lower().replace(th["name"], "")
                assert not [w for w in words_ if w[:5] in rest], normal
    assert keys > 100


def test_finished_states_read_plainly() -> None:
    """A dealt-with obstacle does not read "The blank letter, settled at last.", "The block
    of ice: that part is over." or "The locked pouch, finished with."."""
    odd = ("settled at last", "that part is over", "finished with")
    seen = 0
    for d in designs():
        for kind, th in things(d.doc):
            if kind == "item" and th["name"] in {need[0] for need in d.needs}:
                seen += 1
                text = th["states"][-1]["desc"]
                text = text["normal"] if isinstance(text, dict) else text
                assert not [o for o in odd if o in text], text
    assert seen > 100


def test_picking_up_a_plural_says_them() -> None:
    """"You took the tweezers and put it in your bag." read wrong; a pair or a plural is
    "them", one thing (a compass, a cactus) still "it"."""
    from escapebench.engine import Outcome
    from escapebench.protocols.escapebench.feedback import feedback_text

    said = {n: feedback_text(Outcome("collected", "click", (n,)))
            for n in ("tweezers", "frozen peas", "compass", "cactus", "iron key")}
    assert said["tweezers"] == "You took the tweezers and put them in your bag."
    assert "put them" in said["frozen peas"]
    assert all("put it in" in said[n] for n in ("compass", "cactus", "iron key"))
