"""Building one game: a puzzle-dependency graph built backward from the exit, laid out over
scenes and close-ups, and rendered into our YAML game format (three versions, one reference).

Each scene's way on (the next scene's door, or the exit in the last scene) waits for one key
per chain of that scene (a transition that waits for several things). A chain is built backward
from its key: the key lies hidden in a container or behind an obstacle; that obstacle needs a
tool for a property (creative or plain), a key, or a code; the tool in turn lies hidden behind
the unit before, or may have to be crafted, prepared or first pulled loose (an item that
becomes a tool). A chain starts at a tool lying in the open (in this or an earlier scene) or at
a code lock whose digits are written in several scenes.

The words come last and from a random stream of their own (seeded from the logic's): variants
of the fixed sentences and one detail sentence per item and tool (``data/words.yaml`` and the
theme's ``details``), so choosing them never changes the puzzle.
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from escapebench.generate.data import affordances, themes, words
from escapebench.generate.knobs import Knobs
from escapebench.generate.proof import (
    BLOCKING,
    asked_properties,
    cue_pattern,
    part_alone_gives,
    plural_name,
)

__all__ = ["MATERIALS", "Design", "build_design", "has_cue"]

ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth"]
MARKS = ["I", "II", "III", "IV", "V", "VI"]
COLORS = ["brass", "iron", "copper", "silver", "tin", "bronze", "steel", "bone", "glass",
          "black", "red", "blue", "green", "white", "gold", "rusty", "tiny", "long", "flat",
          "bent", "square", "round", "heavy", "thin"]
# Version 8: iron and steel only (a magnet lifts any key a game hides; a player met "the copper
# key" pulled up by a magnet), and no word that reads as a tool's property (a "thin key" sent a
# reader to a stuck zip, a "long key" would read as reach, a "heavy key" as a weight).
KEY_WORDS = ["iron", "steel", "black", "red", "blue", "green", "white", "rusty", "tiny", "bent",
             "square", "round", "worn", "bright", "old", "notched", "twisted"]
# the key words that are a material or a colour: a key's name holds at most one
_TINTS = frozenset({"brass", "iron", "copper", "silver", "tin", "bronze", "steel", "bone",
                    "black", "red", "blue", "green", "white", "gold", "rusty", "bright"})
# what a thing is made of: a name carries at most one, and its texts name no other for it
MATERIALS = frozenset({"brass", "iron", "copper", "silver", "tin", "bronze", "steel", "bone",
                       "glass", "gold", "wooden"})
# words that tell two things of one kind apart, when a name is taken: neither a material
# nor a colour, so they contradict no description
# (nor a size: the theme's templates say "A small {name}")
# (version 6: by where or what they are, never counted: a "second floor marks" reads as an
# upper storey, and a "second" may be met before any first)
TWIN_WORDS = ["north", "south", "east", "west", "inner", "outer", "side", "corner", "upper",
              "lower", "left", "right", "middle", "spare"]


_CALLED_WORD = re.compile(r"\b(?:names?|words?|letters?)\b")
_LINK: list[re.Pattern[str] | None] = []
_LINKS_OF: dict[str, frozenset[str]] = {}  # text -> the link words it holds
_ASKED: dict[str, frozenset[str]] = {}  # obstacle kind -> what its texts ask for
_ASK_RX: dict[str, re.Pattern[str]] = {}
_A_VOWEL = re.compile(r"\b([Aa]) (?=[aeioAEIO]|u[^sn]|U[^sn]|8|18\b|11\b|hour|honest|heir)")
# details that say a thing was carried about: not for a door, a pipe or a locker
_CARRIED = re.compile(r"missed it|dropped|throw it away|jumble sale|put away|signed out|"
                      r"lost-property|set down")
# details for a made thing: not for a sausage, a sponge or a rose (``soft`` in the table)
_MADE = re.compile(r"polished|chip|dent\b|mended|patched|repainted|paint|scuffed|lopsided|"
                   r"dulled|wobbles|corner|maker|scratches|knocked|edges")
_AN_CONSONANT = re.compile(r"\b([Aa])n (?=[bcdfgjklmnpqrstvwxyz])")


# a template's adjective before a word telling a thing apart ("A small second wall safe")
# rooms told apart by words no door or thing uses (no "north staff door" onto a mineral room
# while a "north mineral room" lies elsewhere)
SCENE_TWINS = ["little", "great", "back", "front", "lower", "upper", "inner", "outer", "old",
               "new", "quiet", "narrow"]
TWIN_WORDS = [w for w in TWIN_WORDS if w not in SCENE_TWINS]
_TWIN_AFTER_ADJ = re.compile(
    r"\b([Aa]n?|[Tt]he) (tall|heavy|small|round|red|painted|leather|green|covered) ("
    + "|".join(ORDINALS) + r") ")


def _twin_first(text: str) -> str:
    """A template's adjective put after the word telling a thing apart: "A small second wall
    safe" -> "A second small wall safe" (templates say "A small {name}")."""
    return _TWIN_AFTER_ADJ.sub(r"\1 \3 \2 ", text)


_PROPERTY_SETS: list[Any] = []  # [the objects of the table, each with its properties as a set]


def _with_property_sets(objects: list[dict[str, Any]]
                        ) -> list[tuple[dict[str, Any], frozenset[str]]]:
    """Each object with its properties as a set, made once for the table's list of objects."""
    if not _PROPERTY_SETS or _PROPERTY_SETS[0] is not objects:
        _PROPERTY_SETS[:] = [objects, [(o, frozenset(o["properties"])) for o in objects]]
    return _PROPERTY_SETS[1]


@functools.lru_cache(maxsize=1 << 14)
def _article(text: str) -> str:
    """``a`` before a vowel (or an 8) made ``an``, and ``an`` before a consonant made ``a``
    (names fill templates written with ``A {name}`` or ``An {name}``: "an second door")."""
    text = _AN_CONSONANT.sub(lambda m: m.group(1) + " ", _twin_first(text))
    return _A_VOWEL.sub(lambda m: m.group(1) + "n ", text)


def _plural(name: str) -> bool:
    """Whether a thing's name is a plural or a pair (``tongs``, ``frozen peas``)."""
    return plural_name(name)


def gerund(verb: str) -> str:
    """``soaking`` for ``soak``, ``charging`` for ``charge``."""
    return (verb[:-1] if verb.endswith("e") and not verb.endswith("ee") else verb) + "ing"


def _a(name: str) -> str:
    """``A name`` (the article is fixed later), or ``Name`` for a plural (``Tongs``)."""
    return name[:1].upper() + name[1:] if _plural(name) else f"A {name}"


def _it(name: str) -> str:
    return "them" if _plural(name) else "it"


_THEY_VERBS = {"is": "are", "does": "do", "has": "have", "was": "were", "weighs": "weigh",
               "bends": "bend", "gives": "give", "leaves": "leave", "slides": "slide",
               "stays": "stay", "sounds": "sound", "reaches": "reach", "throws": "throw",
               "makes": "make", "blocks": "block", "pulls": "pull", "lets": "let",
               "holds": "hold", "keeps": "keep", "soaks": "soak", "clings": "cling",
               "stretches": "stretch", "scrapes": "scrape", "carries": "carry",
               "ends": "end", "slips": "slip", "weigh": "weigh", "can": "can",
               "conducts": "conduct", "glows": "glow", "magnifies": "magnify"}


def _agree(text: str, name: str) -> str:
    """``text`` with "it" after a plural ``name`` in its clause made "them" ("the key clicks
    onto them"), "its" made "their"."""
    if not _plural(name):
        return text
    def clause(m: re.Match[str]) -> str:
        c = m.group(0)
        at = c.lower().find(name.lower())
        if at < 0:
            return c
        rest = re.sub(r"\bits\b", "their", re.sub(r"\bit\b", "them", c[at:]))
        return c[:at] + rest
    return re.sub(r"[^.!?;:]+", clause, text)


def _they(sentence: str) -> str:
    """A sentence about one thing ("It bends easily.") said of a plural ("They bend
    easily."), for a pair's hint (tongs, chopsticks)."""
    def verb(m: re.Match[str]) -> str:
        v = m.group(2)
        return f"{m.group(1)} {_THEY_VERBS.get(v, v)}"
    out = re.sub(r"\b(It|it) (\w+)", lambda m: verb(m).replace("It", "They", 1)
                 .replace("it", "they", 1), sentence)
    out = re.sub(r"\bIts\b", "Their", out)
    out = re.sub(r"\bits\b", "their", out)
    return re.sub(r"\bit\b", "them", out)


def has_cue(text: str, cue_words: list[str]) -> bool:
    """Whether ``text`` holds one of ``cue_words`` (each a whole word or the start of one)."""
    key = tuple(cue_words)
    rx = _HAS_CUE.get(key)
    if rx is None:
        if len(_HAS_CUE) > 4096:
            _HAS_CUE.clear()
        rx = _HAS_CUE[key] = re.compile(
            r"\b(?:" + "|".join(re.escape(w) for w in cue_words) + r")" + _SUFFIX
        ) if cue_words else re.compile(r"(?!)")
    return rx.search(text.lower()) is not None


_HAS_CUE: dict[tuple[str, ...], re.Pattern[str]] = {}


_SUFFIX = r"(?:s|es|d|ed|ing|y|ly)?\b"  # a cue word counts with its plural or verb endings


# a theme's detail saying where a thing lies ("A wooden plant label is tucked beside it.")
_PLACE = re.compile(r"\b(?:beside|under|across) it\b|\btucked\b|\blies\b")
_CUED: dict[str, frozenset[str]] = {}  # text -> the properties whose cue words it holds
_PATTERNS: list[tuple[str, re.Pattern[str]]] = []


def _cue_patterns(cues: dict[str, Any]) -> list[tuple[str, re.Pattern[str]]]:
    """One compiled pattern per property of its cue words (as :func:`has_cue` reads them)."""
    if not _PATTERNS:
        _PATTERNS.extend((p, re.compile(r"\b(?:" + "|".join(re.escape(w) for w in c["words"])
                                        + r")" + _SUFFIX)) for p, c in cues.items())
    return _PATTERNS


# near-misses: properties close to a need but not it (a tool with one, and without the need,
# tempts a player who goes by the name rather than the property)
NEAR: dict[str, tuple[str, ...]] = {
    "magnetic": ("metal", "heavy"), "metal": ("magnetic", "conductive"),
    "conductive": ("metal", "powered"), "sharp": ("pointed", "abrasive"),
    "pointed": ("sharp", "thin"), "long": ("flexible", "rigid"), "thin": ("flat", "flexible"),
    "flat": ("thin", "rigid"), "rigid": ("heavy", "flat"), "flexible": ("elastic", "long"),
    "elastic": ("flexible", "sticky"), "heavy": ("rigid", "magnetic"),
    "hollow": ("waterproof", "absorbent"), "hooked": ("pointed", "flexible"),
    "insulating": ("waterproof", "absorbent"), "powered": ("luminous", "conductive"),
    "sticky": ("elastic", "slippery"), "slippery": ("wet", "sticky"),
    "abrasive": ("sharp", "rigid"), "absorbent": ("wet", "hollow"),
    "waterproof": ("insulating", "hollow"), "wet": ("cold", "absorbent"),
    "hot": ("luminous", "powered"), "cold": ("wet", "heavy"),
    "luminous": ("hot", "reflective"), "reflective": ("transparent", "luminous"),
    "transparent": ("reflective", "magnifying"), "magnifying": ("transparent", "reflective"),
    "fragrant": ("sticky", "wet"), "loud": ("heavy", "elastic"),
}


def _t(easy: str, normal: str, hard: str | None) -> dict[str, Any]:
    return {"easy": easy, "normal": normal, "hard": hard}


@dataclass
class Design:
    """A built game: the YAML document and its dependency graph."""

    doc: dict[str, Any]
    key_steps: list[str] = field(default_factory=list)    # step ids the design calls required
    creative: list[str] = field(default_factory=list)     # creative steps, as sentences
    edges: list[tuple[str, str, str]] = field(default_factory=list)  # (from, to, kind)
    node_kind: dict[str, str] = field(default_factory=dict)
    cues: list[tuple[str, str, str]] = field(default_factory=list)  # creative (tool, item, prop)
    # (obstacle, property, solved by a crafted tool, what else it says it needs or "")
    needs: list[tuple[str, str, bool, str]] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)  # the key tools (a key is tried as a key)
    parts: set[str] = field(default_factory=set)  # craft parts and crafted tools, and distractors
    # version 6: each code lock (lock, answer, sign its marks share), each mark's lock
    codes: list[tuple[str, str, str]] = field(default_factory=list)
    clues: dict[str, str] = field(default_factory=dict)
    props: dict[str, list[str]] = field(default_factory=dict)  # solving tool -> properties
    # (part, tool, result, obstacle) of each craft
    crafts: list[tuple[str, str, str, str]] = field(default_factory=list)
    related: set[tuple[str, str]] = field(default_factory=set)  # names that belong together
    # version 7: each key lock (a door, a padlocked box) and the sign it and its keys show
    locks: dict[str, str] = field(default_factory=dict)
    # version 8: every tool's properties (keys aside) as the table gives them, in the state
    # it starts in (a crafted tool's product: ``props``), for the unique-fit rule
    tool_props: dict[str, list[str]] = field(default_factory=dict)
    theme: str = ""
    # version 8: each property obstacle's words by which its hard text shows what is wrong
    # (the table's ``shows``: "belt", "contacts", "key"), for proof rule 15
    shows: dict[str, list[str]] = field(default_factory=dict)
    # version 8: each preparation source with its verb ("basin", "soak"), for rule 17: a
    # source says what it is for in every version
    sources: list[tuple[str, str]] = field(default_factory=list)


class _Builder:
    def __init__(self, knobs: Knobs, rng: random.Random, game_id: str):
        self.k = knobs
        self.rng = rng
        self.aff = affordances()
        self.objects = {o["name"]: o for o in self.aff["objects"]}
        self.theme = rng.choice(themes())
        self.signs_used: set[str] = set()
        self.scene_descs: set[str] = set()  # the archetype descriptions used so far
        self.hard_seen: set[str] = set()  # the hard texts of the objects taken so far
        self.scene_words = {w for kind in ("scenes", "closeups") for x in self.theme[kind]
                            for w in x["name"].split()}
        # a key named like a lock it does not open is a decoy ("rusty key", "rusty padlock")
        self.lock_words = {w for kind in ("locks", "containers", "doors")
                           for x in self.theme.get(kind, [])
                           for w in re.findall(r"[a-z]+", f"{x['name']} {x.get('locked', '')}")
                           } | {
            w for ob in self.aff["obstacles"] for x in ob["item"] for w in x.split()}
        self.carriers_used: set[str] = set()
        self.game_id = game_id
        self.names: set[str] = set()
        self.used_objects: set[str] = set()
        self.scenes: list[dict[str, Any]] = []       # rendered scene maps (walk scenes + close-ups)
        self.parent: dict[str, str] = {}             # close-up -> its scene; scene -> previous
        # the puzzle units in play order, what they need (placed once all are made), the
        # tools lying in the open per walk scene (taken on entering it), and the doors
        self.units: list[dict[str, Any]] = []
        self.pending: list[dict[str, Any]] = []
        self.open_tools: list[dict[str, Any]] = []
        self.open_pickups: dict[int, list[tuple[str, str]]] = {}
        self.doors: list[dict[str, Any]] = []
        self.rooms: list[list[dict[str, Any]]] = []
        self.room_details: list[str] = []
        self.door_keys: list[int] = []
        self.design = Design(doc={}, theme=self.theme["name"])
        self.crafts_left = knobs.crafts
        self.creative_count = 0
        self.property_count = 0
        self.sources_used: set[str] = set()
        self.closeups: set[str] = set()
        self.alive: set[str] = set()  # obstacles that are people or animals
        self.key_speakers: set[str] = set()  # obstacles whose texts speak of a key
        self.cue_of: dict[str, set[str]] = {}  # creative tool -> the properties it must cue
        # fairness: the texts of every non-key tool so far, and the properties obstacles need;
        # no tool but an obstacle's solution may read as having what the obstacle needs
        self.tool_texts: list[str] = []
        self.needed: set[str] = set()
        # version 8: what the game's preparations take of the tool they prepare (a soak
        # takes something absorbent): no useless tool's hard sentence claims it
        self.prep_takes: set[str] = set()
        # version 8, unique fit: what each obstacle so far asks for (its need, what its texts
        # ask, the why it states); no other tool of the game may have all of it
        self.asked_at: list[frozenset[str]] = []
        # version 10: per craft (its parts), each half with what it alone gives the product
        # of what the obstacle asks (a broom gives a blade on a pole its reach): no other
        # tool held at the craft may have all of it, or which tool pairs is a guess
        self.half_asks: dict[frozenset[str], list[tuple[str, frozenset[str]]]] = {}
        # words are drawn from their own stream, seeded from the logic's: the words never
        # change the puzzle, and the puzzle is laid out before they are chosen
        self.words = words()
        self.wrng = random.Random(int.from_bytes(
            hashlib.sha256(repr(rng.getstate()).encode()).digest()[:8], "big"))
        self.places = set(self.words.get("place_details", [])) | {
            d for d in self.theme.get("details", []) if _PLACE.search(d)}
        self.details = self.detail_pool()

    # -- names -------------------------------------------------------------------------------
    def unique(self, base: str, twin_words: list[str] | None = None) -> str:
        """``base``, or ``base`` told apart by a word it does not hold yet (``north``,
        ``spare``...: never a material or a colour) when the name is taken."""
        name = base
        held = set(base.split())
        twins = [w for w in (twin_words or TWIN_WORDS) if w not in held
                 and w not in self.scene_words]
        n = 0
        while name in self.names:
            name = f"{twins[n]} {base}" if n < len(twins) else f"{base} {n}"
            n += 1
        self.names.add(name)
        return name

    def new_key(self) -> str:
        """A key named by a word no other key of the game has (``iron key``, ``bent key``)."""
        free = [w for w in KEY_WORDS if f"{w} key" not in self.names
                and w not in self.lock_words]
        if not free:  # a large game: a shape and a tint ("bent brass key"), never two tints
            free = [f"{a} {b}" for a in KEY_WORDS if a not in _TINTS for b in KEY_WORDS
                    if b in _TINTS and f"{a} {b} key" not in self.names
                    and a not in self.lock_words and b not in self.lock_words]
        name = self.unique(f"{self.pick(free)} key" if free else "spare key")
        self.design.keys.add(name)
        return name

    def new_sign(self) -> str:
        """A sign no other lock of the game shows (a crown, a fox), drawn from the words'
        stream; "" when the game has used them all (the proof then rejects the candidate)."""
        signs = [x for x in self.words["signs"] if x not in self.signs_used]
        sign = signs[self.wrng.randrange(len(signs))] if signs else ""
        self.signs_used.add(sign)
        return sign

    def key_texts(self, key: str, sign: str, padlock: bool) -> dict[str, str]:
        """A key's descriptions, each showing the sign of the lock it opens (version 7:
        which key opens which lock is read, not tried), in every version."""
        fits = "small enough for a padlock" if padlock else "It looks like it fits a door lock"
        easy = (f"A {key}, {fits}" if padlock else f"A {key}. {fits}") + (
            f"; a small {sign} is stamped on it, like the one on its lock." if sign else ".")
        normal = self.key_desc(key, plain=not sign)
        if sign:  # still one sentence
            normal = f"{normal[:-1]}; it is stamped with a small {sign}."
        return _t(easy, normal, f"A {key}, stamped with a {sign}." if sign else f"A {key}.")

    def pick(self, options: list[Any]) -> Any:
        return options[self.rng.randrange(len(options))]

    def word(self, kind: str, **fill: str) -> str:
        """A variant of one of the generator's fixed sentences (``words.yaml``), filled in."""
        options = self.words[kind]
        text = options[self.wrng.randrange(len(options))]
        for key, value in fill.items():
            text = text.replace("{" + key + "}", value)
        return text

    def loose_desc(self, tool: str) -> str:
        """A variant of a wedged tool's sentence; for a plural none that says "it"."""
        options = [o for o in self.words["loose_desc"]
                   if not (_plural(tool) and re.search(r"\bit\b", o))]
        return options[self.wrng.randrange(len(options))].replace("{tool}", tool)

    def key_desc(self, key: str, plain: bool = True) -> str:
        """A variant of a key's sentence whose words do not fight the key's name (no "notched
        key with a notch filed into its bow", no "old key, its teeth freshly cut"), nor a
        stamp (``plain`` False: no "small and plain")."""
        words = key.split()[:-1]
        aged = {"old", "worn", "rusty"} & set(words)
        options = [o for o in self.words["key_desc"]
                   if not any(w[:5] in o.lower() for w in words)
                   and (plain or "plain" not in o)
                   and not (aged and re.search(r"freshly|hardly used", o))]
        options = options or ["A {key}."]
        return options[self.wrng.randrange(len(options))].replace("{key}", key)

    def detail(self) -> str:
        """The next detail sentence of this game (each used once before any repeats)."""
        if not self.details:
            self.details = self.detail_pool()
        return self.details.pop()

    def detail_pool(self) -> list[str]:
        """All detail sentences, shuffled: the words', the theme's and where-it-lies ones."""
        pool = (list(self.words["details"]) + list(self.theme.get("details", []))
                + list(self.words.get("place_details", [])))
        self.wrng.shuffle(pool)
        return pool

    def links_in(self, texts: list[Any]) -> set[str]:
        """The link words (a stain, a material, a colour) ``texts`` hold."""
        if not _LINK:
            _LINK.append(cue_pattern(self.words.get("link_words", [])))
        rx = _LINK[0]
        if rx is None:
            return set()
        out: set[str] = set()
        for t in texts:
            if not t:
                continue
            found = _LINKS_OF.get(t)
            if found is None:
                if len(_LINKS_OF) > 100_000:
                    _LINKS_OF.clear()
                found = _LINKS_OF[t] = frozenset(
                    m.group(0).rstrip("s") for m in rx.finditer(t.lower()))
            out |= found
        return out

    def item_links(self) -> set[str]:
        """The link words the items of the game so far hold (names and descriptions)."""
        texts: list[Any] = []
        for sc in self.scenes:
            for e in sc["items"]:
                texts.append(e["item"]["name"])
                for st in e["item"]["states"]:
                    d = st["desc"]
                    texts += d.values() if isinstance(d, dict) else [d]
        return self.links_in(texts)

    def cued_props(self, texts: list[str], props: set[str] | None = None) -> set[str]:
        """The properties (of ``props``, or all) whose cue words ``texts`` hold."""
        out: set[str] = set()
        for t in texts:
            found = _CUED.get(t)
            if found is None:
                found = _CUED[t] = frozenset(
                    p for p, rx in _cue_patterns(self.aff["cues"]) if rx.search(t.lower()))
            out |= found
        return out if props is None else out & props

    # -- layout ------------------------------------------------------------------------------
    def add_scene(self, base: str, desc: str, visible: bool) -> dict[str, Any]:
        sc = {"name": self.unique(base, SCENE_TWINS), "desc": desc, "visible": visible,
              "scene_relations": {}, "items": [], "tools": []}
        self.scenes.append(sc)
        return sc

    def scene_of(self, name: str) -> dict[str, Any]:
        """The walk scene of ``name`` (itself, or the room a close-up belongs to)."""
        if name in self.closeups:
            name = self.parent[name]
        return next(sc for sc in self.scenes if sc["name"] == name)

    def path_to(self, name: str) -> str:
        chain = [name]
        while chain[-1] in self.parent:
            chain.append(self.parent[chain[-1]])
        return " -> ".join(reversed(chain))

    def place_item(self, where: dict[str, Any], item: dict[str, Any], position: str) -> None:
        where["items"].append({"position": position, "item": item})

    def place_tool(self, where: dict[str, Any], tool: dict[str, Any], position: str) -> None:
        where["tools"].append({"position": position, "tool": tool})

    # -- building ----------------------------------------------------------------------------
    def size(self, base: int, low: int = 1) -> int:
        """``base`` drawn anew for this game within the ``vary`` share around it (variety
        within a tier: no two games of a tier need the same size)."""
        spread = round(base * self.k.vary)
        return max(low, base + self.rng.randint(-spread, spread)) if spread else max(low, base)

    def build(self) -> Design:
        k = self.k
        th = self.theme
        archetypes = list(th["scenes"])
        self.rng.shuffle(archetypes)
        walk: list[dict[str, Any]] = []
        closeup_pool: list[dict[str, Any]] = []  # each close-up kind once before any repeats
        rooms: list[list[dict[str, Any]]] = []   # per walk scene: the scene and its close-ups
        n_walk = self.size(k.scenes)
        # close-ups per scene: this game's own density, drawn once (some games have none)
        density = self.rng.randint(0, 4 * k.closeups) if k.vary else k.closeups
        for s in range(n_walk):
            arch = archetypes[s % len(archetypes)]
            sc = self.add_scene(arch["name"], self.scene_desc(arch), visible=(s == 0))
            if s == 0:
                sc["desc"] = f"{th['intro']} {sc['desc']}"
            else:
                self.parent[sc["name"]] = walk[-1]["name"]
            walk.append(sc)
            group = [sc]
            for _ in range(density):
                if not closeup_pool:
                    closeup_pool = list(th["closeups"])
                    self.rng.shuffle(closeup_pool)
                c = closeup_pool.pop()
                cu = self.add_scene(f"{c['name']} close-up", self.scene_desc(c, 0.5),
                                    visible=True)
                self.closeups.add(cu["name"])
                # the label names the close-up as told apart ("To the small piano"), so no
                # two exits to different scenes share a label
                sc["scene_relations"][f"To the {cu['name'].removesuffix(' close-up')}"] = \
                    cu["name"]
                cu["scene_relations"][f"Back to the {sc['name']}"] = sc["name"]
                self.parent[cu["name"]] = sc["name"]
                group.append(cu)
            rooms.append(group)
        self.rooms = rooms
        units = self.unit_plan(n_walk)
        # the units, scene by scene, then each scene's door; what each needs is placed after
        for s in range(n_walk):
            for kind in units[s]:
                self.make_unit(s, kind)
            door_t = self.pick(self.doors_for(s, walk))
            door = self.unique(door_t["name"])
            keys = [self.new_key() for _ in range(self.door_keys[s])]
            self.way_on(s, walk, keys, door_t, door)
        self.order_units()
        self.place_needs()
        self.distractors(rooms)
        self.lay_out()
        self.top_up()
        if (guess := self.guessed_half()) is not None:
            raise ValueError(f"a craft's half is a guess: {guess}")
        ref = self.reference()
        first = next((i for i, (_, a) in enumerate(ref) if a.startswith("input(")), None)
        if first is not None and first < len(ref) / 10:
            raise ValueError("a code lock in the first tenth of the reference")
        return self.finish()

    def unit_plan(self, n_walk: int) -> list[list[str]]:
        """The kinds of this game's puzzle units, per walk scene, in play order: ``input``
        (a code lock), ``click`` (a box that only has to be opened), ``lock`` (a small key)
        and ``property`` (an obstacle asking for a tool). No code comes in the first sixth of
        the units (a game does not open on its code lock)."""
        k = self.k
        total = max(n_walk, self.size(k.steps))
        # Codes and boxes leave at least a third of the units (and 2) to locks and obstacles,
        # in their knobs' proportion, and one of those is an obstacle asking for a tool: a
        # small game once took all its units as codes and boxes and had no creative step.
        inputs, clicks = k.inputs, k.clicks
        room = max(0, total - max(2, total // 3))
        if inputs + clicks > room:
            inputs = round(inputs * room / (inputs + clicks))
            clicks = room - inputs
        kinds = ["input"] * inputs + ["click"] * clicks
        rest = total - len(kinds)
        if rest > 0:
            kinds += ["property"] + [self.rng.choice(["property", "property", "property", "lock"])
                                     for _ in range(rest - 1)]
        kinds = kinds[:total]
        self.rng.shuffle(kinds)
        early = max(1, -(-total // 6))
        for i in range(min(early, total)):  # move an early code further on
            if kinds[i] == "input":
                j = next((j for j in range(early, total) if kinds[j] != "input"), None)
                if j is not None:
                    kinds[i], kinds[j] = kinds[j], kinds[i]
        # at least one unit per walk scene, the rest spread at random
        counts = [1] * n_walk
        for _ in range(total - n_walk):
            counts[self.rng.randrange(n_walk)] += 1
        scene_of = [s for s, c in enumerate(counts) for _ in range(c)]
        # keys per door: ``breadth``, or with ``vary`` 1 to ``breadth`` (not every door is a
        # two-key door in a hand-made game)
        self.door_keys = [self.rng.randint(1, max(1, k.breadth)) if k.vary
                          else max(1, k.breadth) for _ in range(n_walk)]
        # every unit must show something needed later: from each unit on, the tools and keys
        # asked for after it must be at least as many as the units. A code or a box asks for
        # nothing, so one that breaks this trades places with an earlier lock or obstacle.
        asks = {"property": 1, "lock": 1, "input": 0, "click": 0}
        for _ in range(total):
            avail = 0
            bad = None
            for slots, i in enumerate(range(total - 1, -1, -1), start=1):
                if i == total - 1 or scene_of[i] != scene_of[i + 1]:
                    avail += self.door_keys[scene_of[i]]  # the keys into its door
                if slots > avail:
                    bad = i
                    break
                avail += asks[kinds[i]]
            if bad is None:
                break
            j = next((j for j in range(bad, -1, -1) if asks[kinds[j]]), None)
            if j is None:
                break
            later = [i for i in range(j + 1, total) if not asks[kinds[i]]
                     and (kinds[i] == "click" or j >= early)]
            free = next((i for i in later if kinds[i] == "click"), None) or next(
                iter(later), None)
            if free is None:
                break
            kinds[j], kinds[free] = kinds[free], kinds[j]
        out, i = [], 0
        for c in counts:
            out.append(kinds[i:i + c])
            i += c
        return out

    def make_unit(self, s: int, kind: str) -> None:
        """One puzzle unit of walk scene ``s``: its item placed, its solving step recorded,
        and what it needs (a tool, a key; none for a code or a box) queued for placing."""
        rooms = self.rooms
        where = self.pick(rooms[s])
        solve: list[tuple[str, str]] = []
        need: dict[str, Any] | None
        seen = None  # the walk scene an obstacle stands in: its tool comes before it opens
        if kind == "property" and not self.property_fits():  # version 8: none fits fairly
            kind = "lock"
        if kind == "property":  # an obstacle is room-sized: it stands in the room itself,
            # sometimes an earlier one, where it waits in sight
            seen = self.rng.randint(max(0, s - 2), s) if self.rng.random() < 0.6 else s
            where = rooms[seen][0]
            item, need = self.property_unit(where, solve, {"key": True})
        elif kind == "input":
            item, need = self.input_unit(s, rooms, where, solve)
        elif kind == "lock":
            item, need = self.lock_unit(where, solve)
        else:
            item, need = self.click_unit(where, solve), None
        pos = len(self.units)
        unit = {"pos": pos, "scene": s, "item": item, "where": where, "solve": solve,
                "pre": [], "found": [], "pickups": [],
                "key_only": item["name"] in self.key_speakers}
        self.units.append(unit)
        if need is not None:
            self.queue_need(need, pos, s, where, unit["pre"], seen)

    def order_units(self) -> None:
        """Within each walk scene, the units whose obstacle asks for a creative choice come
        first in the reference chain (then the others in their order): the first step left
        after a batch of tools is a choice among the tools held, not a key or a code a
        searcher finds by trying every tool on every item anyway."""
        def rank(u: dict[str, Any]) -> int:
            tr = u["item"]["states"][0].get("transitions") or [{}]
            return 0 if tr[0].get("creative") else 1

        order = sorted(self.units, key=lambda u: (u["scene"], rank(u), u["pos"]))
        moved = {u["pos"]: n for n, u in enumerate(order)}
        for n, u in enumerate(order):
            u["pos"] = n
        for need in self.pending:
            p = need["pos"]
            if isinstance(p, int) and p in moved:
                need["pos"] = moved[p]
        self.units = order

    def click_unit(self, where: dict[str, Any], steps: list[tuple[str, str]]) -> dict[str, Any]:
        """A box, drawer or case that is shut but not locked: one click opens it."""
        th = self.theme
        cont = self.unique(self.pick(th["containers"])["name"])
        ct = next(c for c in th["containers"] if cont.endswith(c["name"]))
        item = {"name": cont, "states": [
            {"desc": _t(f"A {cont}, shut but not locked.", f"A {cont}, shut.", f"A {cont}."),
             "transitions": [{"wait_for": ["click"], "trigger": ["change_state, 1"],
                              "reward": f"You open the {cont}."}]},
            {"desc": ct["opened"].replace("{name}", cont)}]}
        self.place_item(where, item, self.pick(
            ["Against the wall", "On a table", "Under the bench", "In a niche"]))
        steps.append((where["name"], f"click({cont})"))
        self.design.key_steps.append(f"click({cont})")
        self.design.node_kind[cont] = "box"
        return item

    def queue_need(self, need: dict[str, Any], pos: float, s: int, where: dict[str, Any],
                   pre: list[tuple[str, str]], seen: int | None = None) -> None:
        """Queue the tools ``need`` asks for (the tool, or a crafted tool's two parts) to be
        placed before position ``pos``; record the steps made just before the use (the craft,
        the preparation at its source, which stands in the room of the use)."""
        tool = need["tool"]
        target = need.get("apply_to", [])
        states = need.get("states") or [{"desc": need["desc"], "apply_to": target}]
        tmap: dict[str, Any] = {"name": tool, "states": states}
        if need.get("prepare"):
            src_name, prep = need["prepare"]
            src = self.unique(src_name)
            host = self.scene_of(where["name"])  # a source stands in the room, not a close-up
            cap = _a(tool)  # "A penknife, its edge dull."; "Scissors, ..."
            if (self.objects.get(tool, {}).get("desc", {}).get("hard") or "").startswith("Some "):
                cap = f"Some {tool}"  # a mass noun: "Some moss, soaking wet.", not "A moss"
            tmap["states"] = [
                {"desc": _agree(prep["before"].replace("{tool}", cap), tool),
                 "apply_to": [src]},
                {"desc": _agree(prep["after"].replace("{tool}", cap), tool), "apply_to": target}]
            self.place_item(host, {"name": src, "states": [
                # version 7: normal too says what the source is for (a hand crank "set low
                # down" told nothing of charging)
                # version 8: hard too ("A basin." left a hard player guessing the soak)
                {"desc": _t(f"A {src}; you could {prep['verb']} something here.",
                            f"{self.word('source_desc', src=src)} You could {prep['verb']} "
                            "something here.", f"A {src}, for {gerund(prep['verb'])}."),
                 "transitions": [{"wait_for": [f"apply, {tool}"],
                                  "trigger": [f"change_state, tool, {tool}, 1", "change_state, 1"],
                                  "reward": _agree(prep["done"].replace("{tool}", tool)
                                                   .replace("{source}", src), tool)}]},
                {"desc": self.word("source_used", src=src)}]}, "By the wall")
            pre.append((host["name"], f"apply({tool}, {src})"))
            self.design.key_steps.append(f"apply({tool}, {src})")
            self.design.edges.append((src, tool, "prepares"))
            self.design.sources.append((src, prep["verb"]))
            self.prep_takes |= set(prep.get("takes", []))
        self.design.node_kind.setdefault(tool, "tool")
        key = bool(need.get("key"))
        self.pending.append({"tmap": tmap, "pos": pos, "scene": s, "key": key,
                             "seen": seen, "where": where})
        for part in need.get("parts", []):
            self.pending.append({"tmap": part, "pos": pos, "scene": s, "key": False,
                                 "seen": seen, "where": where})
            pre.insert(0, (where["name"], f"craft({part['name']}, {tool})"))
            self.design.key_steps.append(f"craft({part['name']}, {tool})")
            self.design.edges.append((part["name"], tool, "craft"))
            self.design.node_kind.setdefault(part["name"], "tool")

    def place_needs(self) -> None:
        """Put every queued tool where a player finds it before its use: ``held`` tools drawn
        from the whole game lie in the open of the first scene (a batch to start with); an
        obstacle's tool in the open of an earlier room or shown by a unit drawn evenly among
        those solved before the obstacle's room (version 8); a key by a unit of its lock's
        walk scene where one may show it; others by a unit whose reward shows nothing yet, at
        least ``held // 2`` units before the use, so every unit shows something needed. An
        obstacle whose texts speak of a key shows exactly one key."""
        lag = max(1, self.k.held // 2)
        empty = [u for u in self.units]  # units whose reward shows nothing yet, oldest first
        self.craft_order()
        queued = sorted(self.pending, key=lambda x: x["pos"])
        # version 8: the first batch holds ``held`` tools drawn from the whole game, not the
        # first ones needed: the early creative steps find enough tools without a heap of
        # useless ones laid before them (which then lay at the old end of the bag for every
        # later step), and a tool of the first room may serve at any time
        tools = [n for n in queued if not n["key"]]
        first = {id(n) for n in self.rng.sample(tools, min(len(tools), self.k.held))}
        # version 10: no tool with all a half of a craft it is not part of gives starts held
        first -= {id(n) for n in tools if self.fits_half(
            self.design.tool_props.get(n["tmap"]["name"], []), besides=n["tmap"]["name"])}
        for need in queued:
            after = need.get("after")  # version 10: shown only once an earlier craft is made
            if id(need) in first and after is None:
                need["ahead"] = True
                self.stow(need, None)
                continue
            if need["seen"] and self.rng.random() < 0.4 and after is None:  # in the open of
                self.stow(need, None, self.rng.randrange(need["seen"]))  # an earlier room
                continue
            if after is not None and (made := [u for u in self.units if u["pos"] == after
                                               and not u["key_only"]]):
                # version 10: the earlier craft's own obstacle shows it once solved, so no
                # player, in whatever order, holds it while that craft waits (another unit
                # after it in the reference may be solved before it; where that obstacle
                # shows only a key, the tool goes as any other and the proof may reject)
                made[0]["batch"] = True
                if made[0] in empty:
                    empty.remove(made[0])
                self.stow(need, made[0])
                continue
            if need["seen"] is not None:  # an obstacle's tool: from any unit at random
                anywhere = [u for u in self.units if u["pos"] <= need["pos"] - lag
                            and self.may_show(u, need)]
                if anywhere:
                    # version 8: one drawn evenly, so a tool comes at any time before its
                    # use as a useless one does (:meth:`like_a_tool`): the order things
                    # came in tells nothing of which fits (units show several at once)
                    host = self.pick(anywhere)
                    host["batch"] = True
                    if host in empty:
                        empty.remove(host)
                    self.stow(need, host)
                    continue
            fits = [u for u in empty if self.may_show(u, need)]
            if need["key"]:
                # a key is found in the room of its lock or door: a key carried in from
                # earlier rooms is spent there before the room's obstacles are tried, which
                # a blind searcher's count of what it held would credit as a choice
                local = [u for u in fits if u["scene"] == need["scene"]] or [
                    u for u in self.units if u["scene"] == need["scene"]
                    and self.may_show(u, need) and u["found"] and not u["key_only"]]
                if local:
                    fit = self.pick(local)
                    if fit in empty:
                        empty.remove(fit)
                    self.stow(need, fit)
                    continue
            # a tool is shown at least ``lag`` units before its use, at one of those units
            # chosen at random: the tool that came last is no likelier to fit than any other
            far = [u for u in fits if u["pos"] <= need["pos"] - lag]
            fit = self.pick(far) if far else (fits[0] if fits else None)
            if fit is not None:
                empty.remove(fit)
                self.stow(need, fit)
                continue
            batch = [u for u in self.units if u["pos"] <= need["pos"] - lag
                     and self.may_show(u, need) and u["found"] and not u["key_only"]]
            if batch and self.rng.random() < 0.7:
                self.stow(need, self.pick(batch))
            else:
                seen = need["scene"] + 1 if need["seen"] is None else max(1, need["seen"])
                self.stow(need, None, self.rng.randrange(seen))
        # a unit still showing nothing would not be needed: it takes a tool used after it
        # from a batch of two or more, or one lying in the open (the first batch last); or
        # else it shows one more key for the door of its scene
        for u in empty:
            later = [n for n in self.pending if self.may_show(u, n) and n.get("after") is None]
            moved = next((n for n in later if n.get("host") is not None
                          and len(n["host"]["found"]) > 1), None) or next(
                (n for n in later if n in self.open_tools and n["movable"]), None) or next(
                (n for n in later if n in self.open_tools), None)
            if moved is None:
                self.extra_key(u)
                continue
            if moved in self.open_tools:
                self.open_tools.remove(moved)
            else:
                moved["host"]["found"].remove(moved)
            u["found"].append(moved)
            moved["host"] = u

    def craft_order(self) -> None:
        """Version 10: where a part of one craft has all a half of another gives (a string,
        long, where a blade on a pole waits for the broom's reach), both parts of the later
        craft are marked to be shown only after the earlier craft's obstacle (``after``: that
        unit's position): neither is in the bag while the earlier craft waits, and the
        pairings are no guess."""
        by_name = {n["tmap"]["name"]: n for n in self.pending}
        crafts = sorted((by_name[b]["pos"], a, b) for a, b, _r, _i in self.design.crafts
                        if b in by_name)
        def clash(parts: tuple[str, str], other: tuple[str, str]) -> bool:
            # a part of ``parts`` has all a half of ``other`` gives
            halves = self.half_asks.get(frozenset(other), [])
            return any(alone <= set(self.design.tool_props.get(x, []))
                       for x in parts for _, alone in halves)

        for i, (p1, a1, b1) in enumerate(crafts):
            for p2, a2, b2 in crafts[i + 1:]:
                if p2 > p1 and (clash((a2, b2), (a1, b1)) or clash((a1, b1), (a2, b2))):
                    for x in (a2, b2):  # both parts: the later craft's first part held with
                        if x in by_name:  # the earlier craft's half reads as a pair too
                            by_name[x]["after"] = max(by_name[x].get("after", -1), p1)

    @staticmethod
    def may_show(unit: dict[str, Any], need: dict[str, Any]) -> bool:
        """Whether ``unit`` may show the tool of ``need``: it is solved before the use, in a
        walk scene before the one where the obstacle stands (the tool is held before the
        obstacle is seen), and an obstacle whose texts speak of a key shows only a key."""
        return (unit["pos"] < need["pos"] and (need["key"] or not unit["key_only"])
                and (need.get("seen") is None or unit["scene"] < need["seen"]))

    def lay_out(self) -> None:
        """Place every tool where :meth:`place_needs` and :meth:`distractors` put it."""
        for u in self.units:
            self.fill(u)
        self.rng.shuffle(self.open_tools)  # what lies in the open, in no telling order
        for t in self.open_tools:
            self.lay_open(t)

    def stow(self, need: dict[str, Any], unit: dict[str, Any] | None, s: int = 0) -> None:
        """Record where a queued tool goes: shown by ``unit``, or in the open of scene ``s``
        (placed by :meth:`fill` and :meth:`lay_open` once everything has its place)."""
        need["host"] = unit
        if unit is not None:
            unit["found"].append(need)
            return
        need["open_scene"] = s
        need["movable"] = not need.get("ahead")
        self.open_tools.append(need)

    def fill(self, unit: dict[str, Any]) -> None:
        """Hide what ``unit`` shows in its place and name it in its reward."""
        item, where = unit["item"], unit["where"]
        tr = item["states"][0]["transitions"][0]
        names = []
        self.rng.shuffle(unit["found"])  # a batch in no telling order
        for need in unit["found"]:
            tmap = need["tmap"]
            tool = tmap["name"]
            tmap["visible"] = False
            tr["trigger"].append(f"change_visible, tool, {tool}, true")
            self.place_tool(where, tmap, f"In the {item['name']}")
            unit["pickups"].append((where["name"], f"click({tool})"))
            if not need.get("distractor"):
                self.design.edges.append((item["name"], tool, "reveals"))
            names.append(tool)
        if not names:
            return
        if unit["key_only"]:  # its reward already speaks of "the key"
            more = f" It is the {names[0]}."
        else:
            listed = names[0] if len(names) == 1 else \
                ", ".join(f"the {n}" for n in names[:-1])[4:] + f" and the {names[-1]}"
            more = f" You find the {listed}."
        reward = tr["reward"]
        tr["reward"] = {v: x + more for v, x in reward.items()} if isinstance(reward, dict) \
            else reward + more

    def lay_open(self, need: dict[str, Any]) -> None:
        """A tool in the open of its scene, taken on entering it."""
        tmap = need["tmap"]
        tool = tmap["name"]
        s = need["open_scene"]
        where = self.pick(self.rooms[s])
        steps = self.open_pickups.setdefault(s, [])
        self.place_tool(where, tmap, self.pick(["On the floor", "On a shelf", "In a corner",
                                                "Half hidden", "On a hook"]))
        steps.append((where["name"], f"click({tool})"))

    def doors_for(self, s: int, walk: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The theme's doors whose names name no room of the game but the one they open (no
        "yard door" onto the flour loft); all of them if none is left."""
        target = walk[s + 1]["name"] if s + 1 < len(walk) else ""
        taken = {w for sc in self.scenes if sc["name"] != target
                 for w in sc["name"].removesuffix(" close-up").split()}
        generic = {"door", "gate", "hatch", "room", "shutter", "trapdoor"}
        fit = [d for d in self.theme["doors"] if not (set(d["name"].split()) - generic) & taken]
        if fit:
            return fit
        # every door of the theme names a room here: one named by where it leads
        name = f"{target} door" if target else "way out"
        return [{**d, "name": name} for d in self.theme["doors"][:1]]

    def way_on(self, s: int, walk: list[dict[str, Any]], keys: list[str],
               door_t: dict[str, Any], door: str) -> None:
        th = self.theme
        sc = walk[s]
        last = s == len(walk) - 1
        trig: list[str] = ["change_state, 1"]
        if last:
            reward = th["exit"].replace("{door}", door)
        else:
            nxt = walk[s + 1]
            trig.append(f"change_visible, scene, {nxt['name']}, true")
            reward = f"The {door} opens onto the {nxt['name']}."
            sc["scene_relations"][f"Through the {door}"] = nxt["name"]
            nxt["scene_relations"][f"Back to the {sc['name']}"] = sc["name"]
        sign = self.new_sign()
        item = {"name": door, "states": [
            {"desc": None,
             "neg_reward": _t("That does not fit any of its locks.", "It stays shut.", None),
             "transitions": [{"wait_for": [f"apply, {key}" for key in keys], "trigger": trig,
                              "reward": reward}]},
            {"desc": door_t["opened"].replace("{name}", door)},
        ]}
        self.door_desc(item, door_t, sign)
        self.design.locks[door] = sign
        if last:
            item["states"][1]["desc"] = self.word("exit_open")
            trig.append("change_interact, false")
        self.place_item(sc, item, "In the wall")
        pos = len(self.units) - 0.5  # after this scene's units
        steps = []
        for key in keys:
            steps.append((sc["name"], f"apply({key}, {door})"))
            self.design.key_steps.append(f"apply({key}, {door})")
            self.design.edges.append((key, door, "key"))
            self.queue_need({"tool": key, "desc": self.key_texts(key, sign, False),
                             "apply_to": [door], "key": True}, pos, s, sc, [])
        self.doors.append({"scene": s, "steps": steps, "item": item, "door_t": door_t,
                           "where": sc, "sign": sign})
        self.design.node_kind[door] = "door"
        if not last:
            self.design.edges.append((door, walk[s + 1]["name"], "opens"))
            self.design.node_kind[walk[s + 1]["name"]] = "scene"

    def door_desc(self, item: dict[str, Any], door_t: dict[str, Any], sign: str) -> None:
        """A door's first description, saying how many keys it takes and (version 7) showing
        the sign its keys are stamped with."""
        n = len(item["states"][0]["transitions"][0]["wait_for"])
        locked = door_t["locked"].replace("{name}", item["name"])
        keys = "its key is" if n == 1 else "each of its keys is"
        item["states"][0]["desc"] = _t(
            (f"{locked} It has {n} locks; each needs its own key." if n > 1 else
             f"{locked} It has one lock.")
            + (f" A small {sign} is painted beside {'it' if n == 1 else 'them'}; {keys} "
               "stamped with the same."
               if sign else ""),
            f"{locked} {n} keyhole{'s' if n > 1 else ''}."
            + (f" A small {sign} is painted beside {'it' if n == 1 else 'them'}." if sign
               else ""),
            # version 8: hard says how many keys a door takes too (a hard play met two
            # six-key doors "Marked with a mermaid." and counted keys by the refusals)
            (f"{locked} {n} keyholes, marked with a {sign}." if n > 1 else
             f"{locked} Marked with a {sign}.") if sign else
            (f"{locked} {n} keyholes." if n > 1 else locked))

    def extra_key(self, unit: dict[str, Any]) -> None:
        """One more key for the door of ``unit``'s scene, shown by ``unit``."""
        door = self.doors[unit["scene"]]
        item, sc = door["item"], door["where"]
        key = self.new_key()
        item["states"][0]["transitions"][0]["wait_for"].append(f"apply, {key}")
        self.door_desc(item, door["door_t"], door["sign"])
        door["steps"].append((sc["name"], f"apply({key}, {item['name']})"))
        self.design.key_steps.append(f"apply({key}, {item['name']})")
        self.design.edges.append((key, item["name"], "key"))
        self.design.node_kind.setdefault(key, "tool")
        need = {"tmap": {"name": key, "states": [{
            "desc": self.key_texts(key, door["sign"], False), "apply_to": [item["name"]]}]},
            "pos": unit["pos"] + 0.25, "scene": unit["scene"], "key": True, "seen": None,
            "where": sc, "host": unit}
        self.pending.append(need)
        unit["found"].append(need)

    def reference(self) -> list[tuple[str, str]]:
        """The reference chain: per walk scene, the tools lying in its open first, then each
        unit (its craft and preparation, its solving step, then taking what it shows), then
        the keys into the door."""
        ref: list[tuple[str, str]] = []
        by_scene: dict[int, list[dict[str, Any]]] = {}
        for u in self.units:
            by_scene.setdefault(u["scene"], []).append(u)
        for door in self.doors:
            s = door["scene"]
            ref += self.open_pickups.get(s, [])
            for u in by_scene.get(s, []):
                ref += u["pre"] + u["solve"] + u["pickups"]
            ref += door["steps"]
        return ref

    def scene_desc(self, arch: dict[str, Any], share: float = 1.0) -> str:
        """A scene's description: one of its archetype's, and (for a share of them) one or
        two of the theme's room details (how the place looks or sounds), each used once in a
        game before any repeats, so no game can be told by its rooms' words."""
        desc = self.pick(arch["desc"])
        # version 7: a second place of the same kind ("little rain gauge close-up") takes
        # another of its descriptions, or says it is like the first (no word-for-word repeat)
        if desc in self.scene_descs:
            desc = next((d for d in arch["desc"] if d not in self.scene_descs),
                        f"{desc} It looks much like the other one.")
        self.scene_descs.add(desc)
        n = (2 if self.wrng.random() < 0.5 else 1) if self.wrng.random() < share else 0
        for _ in range(n):
            if not self.room_details:
                self.room_details = list(self.theme.get("room_details") or [])
                self.wrng.shuffle(self.room_details)
            detail = self.room_details.pop() if self.room_details else ""
            if detail and detail not in desc:  # a refilled pool may hand back the same one
                desc = f"{desc} {detail}"
        return desc

    def _walk_bag(self) -> tuple[dict[str, set[str]], dict[str, str], dict[str, int]]:
        """What the reference walk needs to follow the bag: each tool's last targets, the
        items that become a tool, and the walk scene of every scene."""
        final: dict[str, set[str]] = {}
        for sc in self.scenes:
            for entry in sc["tools"]:
                t = entry["tool"]
                final[t["name"]] = set(t["states"][-1].get("apply_to", []))
        loose = {it["item"]["name"]: tr.removeprefix("become_tool, ")
                 for sc in self.scenes for it in sc["items"]
                 for st in it["item"]["states"] for x in st.get("transitions", [])
                 for tr in x["trigger"] if tr.startswith("become_tool, ")}
        room = {sc["name"]: s for s, group in enumerate(self.rooms) for sc in group}
        return final, loose, room

    def _reference_bag(self) -> Iterator[tuple[str, str, bool, dict[str, int], dict[str, int]]]:
        """The reference walk with the bag a player following it holds: per step its scene,
        its action, whether it picks a tool up, the bag just before it (each tool with the
        walk scene it came in, oldest first; a tool leaves once its last use is made) and
        the walk scene each tool ever taken came in."""
        final, loose, room = self._walk_bag()
        bag: dict[str, int] = {}
        came: dict[str, int] = {}
        for scene, action in self.reference():
            here = room.get(scene, 0)
            verb, _, rest = action.partition("(")
            args = [a.strip() for a in rest.rstrip(")").split(",")]
            picked = verb == "click" and (args[0] in final or args[0] in loose)
            yield scene, action, picked, bag, came
            if picked:
                got = args[0] if args[0] in final else loose[args[0]]
                bag[got] = came[got] = here
            elif verb in ("apply", "craft") and len(args) == 2:
                t, x = args
                left = final.get(t, set())
                if x in left:
                    left.discard(x)
                    if not left:
                        bag.pop(t, None)

    def held_at_creative(self) -> list[tuple[int, int]]:
        """The tools (keys aside) a player following the reference holds at each creative
        step, just before it, with the walk scene the step is made in."""
        room = self._walk_bag()[2]
        creative = {f"apply({t}, {i})" for t, i, _ in self.design.cues}
        return [(sum(t not in self.design.keys for t in bag), room.get(scene, 0))
                for scene, action, _picked, bag, _came in self._reference_bag()
                if action in creative]

    def sight_orders(self) -> list[tuple[list[str], str, int, dict[str, int]]]:
        """Per creative step: the tools (keys aside) held when its obstacle's room is
        entered on the reference walk (after taking what lies in the open there), in the order
        they came, oldest first (a crafted tool counts from when its later part came, and
        its other part is left out: a player crafts as soon as it holds both); its solving
        tool; the walk scene of the obstacle; and the walk scene each tool came in."""
        room = self._walk_bag()[2]
        part_of = {b: a for a, b, _, _ in self.design.crafts}
        steps = {f"apply({t}, {i})": (t, i) for t, i, _ in self.design.cues}
        item_room = {it["item"]["name"]: room.get(sc["name"], 0)
                     for sc in self.scenes for it in sc["items"]}
        seen: dict[int, tuple[list[str], dict[str, int]]] = {}
        out: list[tuple[list[str], str, int, dict[str, int]]] = []
        walk = -1
        for scene, action, picked, bag, came in self._reference_bag():
            here = room.get(scene, 0)
            if here > walk and not picked and here not in seen:
                # the room is entered and its open tools taken: what is held in sight of it
                order = [t for t in bag if t not in self.design.keys]
                seen[here] = (order, dict(came))
                walk = here
            if action in steps:
                tool, item = steps[action]
                r = item_room.get(item, here)
                order, when = seen.get(r, seen.get(here, ([], {})))
                order, when = list(order), dict(when)
                part = part_of.get(tool)
                if part is not None and part in when and tool in when:
                    order = [t for t in order if t not in (part, tool)] + [tool]
                    when[tool] = max(when[part], when[tool])
                    order.sort(key=lambda t: when.get(t, 0))
                out.append((order, tool, r, when))
        return out

    def top_up(self) -> None:
        """Where a creative step would find fewer than ``held`` tools in the bag, lay that
        many more useless tools in the open of rooms up to that step's, each in one drawn at
        random (every creative step is a choice among at least ``held`` candidates, and the
        useless tools are no older on the whole than the useful ones: laid all in the first
        room, they would fill the old end of the bag, and trying the newest tools first
        would skip them)."""
        for _ in range(4 * self.k.held + 4):
            short = [(h, s) for h, s in self.held_at_creative() if h < self.k.held]
            if not short:
                return
            first = min(s for _, s in short)
            if not self.distractor_tools(max(self.k.held - h for h, _ in short), first + 1,
                                         low=first):
                break
        raise ValueError("too few tools held at a creative step")

    def even_out(self) -> None:
        """Where a creative step's solving tool came later than most of the tools held with
        it, lay useless tools in the open of the rooms between its coming and the step, so
        that as many came after it as before: trying the newest tools first (or the oldest)
        then costs what a blind pick does."""
        for _ in range(4 * self.k.held + 4):
            for order, tool, s, came in self.sight_orders():
                if tool not in order:
                    continue
                i = order.index(tool)
                older, newer = i, len(order) - 1 - i
                low = came.get(tool, s) + 1
                if older > newer and low <= s:
                    if not self.distractor_tools(older - newer, s + 1, low=low):
                        return
                    break
            else:
                return

    def lock_unit(self, where: dict[str, Any], steps: list[tuple[str, str]]
                  ) -> tuple[dict[str, Any], dict[str, Any]]:
        th = self.theme
        cont = self.unique(self.pick(th["containers"])["name"])
        ct = next(c for c in th["containers"] if cont.endswith(c["name"]))
        lock = next((lk for lk in th["locks"] if lk["kind"] == "key"), th["locks"][0])
        key = self.new_key()
        sign = self.new_sign()
        locked = ct["locked"].replace("{name}", cont).replace("{lock}", lock["name"])
        painted = f" A small {sign} is painted on it." if sign else ""
        item = {"name": cont, "states": [
            {"desc": _t(f"{locked}{painted} A small key would open it: the one stamped with "
                        f"the same {sign}." if sign else f"{locked} A small key would open it.",
                        f"{locked}{painted}",
                        f"A {cont}, marked with a {sign}." if sign else f"A {cont}."),
             "neg_reward": _t("That does not open the lock.", "It stays locked.", None),
             "transitions": [{"wait_for": [f"apply, {key}"], "trigger": [
                 "change_state, 1"] + [], "reward": f"The key turns, and the {cont} opens."}]},
            {"desc": ct["opened"].replace("{name}", cont)}]}
        self.place_item(where, item, self.pick(
            ["Against the wall", "On a table", "Under the bench", "In a niche"]))
        steps.append((where["name"], f"apply({key}, {cont})"))
        self.design.key_steps.append(f"apply({key}, {cont})")
        self.design.edges.append((key, cont, "key"))
        self.design.node_kind[cont] = "lock"
        self.design.locks[cont] = sign
        return item, {"tool": key, "desc": self.key_texts(key, sign, True),
                      "apply_to": [cont], "key": True}

    def property_unit(self, where: dict[str, Any], steps: list[tuple[str, str]],
                      hidden: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        # an obstacle whose texts speak of a key hides only a plain key
        obstacles = [ob for ob in self.aff["obstacles"]
                     if ob.get("hides") != "key" or hidden.get("key")]
        # fair: no tool of the game so far reads as having what the obstacle needs (a lump of
        # wax refused at a stuck zip); such a game is rejected by the proof
        cued = self.cued_props(self.tool_texts) | self.needed
        # no link word (oil, wax) shared with a tool so far: a pool of oil and an oil lamp
        # that does not clear it are a decoy
        tool_links = self.links_in(self.tool_texts)
        unfit = set(self.theme.get("unfit", []))  # no cellar stair in a train
        obstacles = [ob for ob in obstacles if ob["kind"] not in unfit
                     and set(ob["item"]) - unfit] or obstacles
        # version 8: nor has it (a paper clip conducts: a circuit board that only the
        # scissors close refuses a sound answer)
        fair = self.fair_obstacles(obstacles, cued) or obstacles
        if self.crafts_left > 0:  # version 7: crafts as common as the knob allows (the
            # original's games make about 6% of their key steps crafts)
            fair = [ob for ob in fair if self.craft_options(ob["needs"], ob)] or fair
        obs_t = self.pick([ob for ob in fair if not self.links_in(
            [*ob["desc"].values(), ob["fail"]]) & tool_links] or fair)
        prop = obs_t["needs"]
        names = [x for x in obs_t["item"] if x not in unfit] or obs_t["item"]
        names = [x for x in names if not self.links_in(
            [x, *obs_t["desc"].values()]) & tool_links] or names
        item = self.unique(self.pick(names))
        need = self.solver_for(prop, item, obs_t)
        self.needed.add(prop)
        self.design.shows[item] = list(obs_t.get("shows", []))
        self.design.needs.append((item, prop, "parts" in need, need.get("why") or ""))
        self.asked_at.append(frozenset(self.asked_of(obs_t, prop) | (
            {need["why"]} if need.get("why") else set())))
        tool = need["tool"]
        desc = {d: obs_t["desc"][d].replace("{item}", item) for d in ("easy", "normal", "hard")}
        fail = obs_t["fail"].replace("{item}", item)
        if need.get("why"):  # a part alone has the property: the obstacle says what else
            w = self.aff["why"][need["why"]]
            # version 7: normal says the need too, so the why ("will also have to be thin
            # enough to get in") does not point at tools that have only it
            # (and so does hard: a player of the hard version read "also thin enough to get
            # in" on a stuck zip as a lock to pick, and could only guess the wax)
            said = desc
            for version in ("normal", "hard"):
                if prop in asked_properties(desc[version], self.ask_rx()):
                    continue
                # the need clause easy states ("a waxy or greasy rub would free it")
                clause = desc["easy"].rsplit(";", 1)[-1].strip().rstrip(".")
                gloss = f"It needs something that {self.aff['properties'][prop]}"
                # (version 8: a clause may ask more, if the solution has it all: "only a
                # needle-fine tip" asks thin too, which a pin on a ruler is; version 7
                # rejected every such candidate)
                have = set(self.design.props.get(need["tool"], [])) | {prop}
                for x in (clause if ";" in desc["easy"] else "", gloss):
                    # (version 8: a sentence of it the text says already is not said twice:
                    # hard "A small key lies under the grating; it is not iron, so a magnet
                    # will not lift it." takes only "Something tacky ... would pick it up.")
                    x = ". ".join(s for s in x.split(". ")
                                  if s.strip(" .").lower() not in desc[version].lower())
                    got = asked_properties(x, self.ask_rx()) if x else set()
                    if prop in got and got <= have:
                        said = {**said, version: f"{desc[version]} {x[:1].upper()}{x[1:]}."}
                        break
            desc = {d: f"{v} {w['desc']}" for d, v in said.items()}
            fail = f"{fail} {w['fail']}"
        imap = {"name": item, "states": [
            {"desc": desc,
             "neg_reward": _t(fail, fail, None),
             "transitions": [{"wait_for": [f"apply, {tool}"], "trigger": ["change_state, 1"],
                              "reward": _agree(obs_t["solved"].replace(
                                  "{tool}", need.get("result", tool)).replace("{item}", item),
                                  need.get("result", tool))}]},
            {"desc": self.solved_desc(item, desc) if not obs_t.get("after") else
             obs_t["after"].replace("{item}", item)}]}
        if need.get("creative"):  # marked in the file, for the tool-choice score
            imap["states"][0]["transitions"][0]["creative"] = True
        self.place_item(where, imap, self.pick(
            ["In the wall", "On the floor", "Up high", "Behind a curtain", "In the middle"]))
        steps.append((where["name"], f"apply({tool}, {item})"))
        self.design.key_steps.append(f"apply({tool}, {item})")
        self.design.edges.append((tool, item, "creative" if need.get("creative") else "apply"))
        self.design.node_kind[item] = "obstacle"
        if obs_t.get("hides") == "key":  # its reward already speaks of "the key"
            self.key_speakers.add(item)
        if obs_t.get("alive"):
            self.alive.add(item)
        if need.get("creative"):
            self.design.creative.append(
                f"{tool} (name suggests {need['suggests']}) applied to {item} for being {prop}")
        return imap, need

    def ask_rx(self) -> dict[str, re.Pattern[str]]:
        """Each property's pattern of the words a need clause asks for it by."""
        if not _ASK_RX:
            _ASK_RX.update({p: rx for p, c in self.aff["cues"].items()
                            if (rx := cue_pattern([*c["words"], *c.get("asks", [])]))})
        return _ASK_RX

    def asked_of(self, obs: dict[str, Any] | None, prop: str) -> set[str]:
        """What an obstacle kind's texts (any version, and its refusal) ask for: its need and
        what its need clauses name ("anything flat and hard could turn it": flat, rigid), and
        what its use sentence's verb takes (``takes``: wrapped round, so flexible)."""
        if obs is None:
            return {prop}
        key = obs["kind"]
        if key not in _ASKED:
            texts = [*obs["desc"].values(), obs["fail"]]
            _ASKED[key] = frozenset({obs["needs"], *obs.get("takes", [])}.union(
                *(asked_properties(t, self.ask_rx()) for t in texts if t)))
        return set(_ASKED[key]) | {prop}

    def fair_obstacles(self, obstacles: list[dict[str, Any]], cued: set[str]
                       ) -> list[dict[str, Any]]:
        """The obstacle kinds of ``obstacles`` whose need no tool so far reads as (``cued``)
        or has (version 8: a paper clip conducts, so a circuit board only the scissors close
        would refuse a sound answer), and that some unused thing could solve without fitting
        an earlier obstacle."""
        had = set().union(*(set(v) for v in self.design.tool_props.values()))
        return [ob for ob in obstacles if ob["needs"] not in cued | had
                and self.free_solver(ob)]

    def property_fits(self) -> bool:
        """Whether a property obstacle could still be placed within the unique-fit rule (in a
        large game the tools so far may have every need left; such a unit becomes a key lock,
        where version 7 placed an obstacle the proof then rejected)."""
        unfit = set(self.theme.get("unfit", []))
        obstacles = [ob for ob in self.aff["obstacles"] if ob["kind"] not in unfit
                     and set(ob["item"]) - unfit]
        return bool(self.fair_obstacles(obstacles, self.cued_props(self.tool_texts)
                                        | self.needed))

    def free_solver(self, obs: dict[str, Any]) -> bool:
        """Whether an object not yet in the game has all an obstacle kind asks and nothing
        an earlier obstacle asks (a solution the unique-fit rule allows), or the obstacle
        is one a craft could solve."""
        asked = self.asked_of(obs, obs["needs"])
        return any(asked <= props and o["name"] not in self.names
                   and not self.fits_other(o["properties"])
                   for o, props in _with_property_sets(self.aff["objects"])
                   ) or (self.crafts_left > 0 and bool(self.craft_options(obs["needs"], obs)))

    def halves_of(self, c: dict[str, Any], asked: set[str]) -> list[tuple[str, frozenset[str]]]:
        """Each part of craft ``c`` with what it alone gives the product of ``asked`` (the
        table's ``because``, less what the other part has itself): what a reader looks for in
        the tool to pair with the other part."""
        gives = c.get("because", {})
        a, b = c["parts"]
        out = []
        for x, y in ((a, b), (b, a)):
            own = self.objects[y]["properties"] if y in self.objects else []
            alone = frozenset(part_alone_gives(gives, x, asked, own))
            if alone:
                out.append((x, alone))
        return out

    def fits_half(self, props: Any, besides: str = "") -> bool:
        """Whether a tool with ``props`` has all that a craft's half alone gives (version 10:
        held at the craft, it would pair as well as the half, and the game takes one); of a
        craft tool ``besides`` is no part of, when it is given."""
        have = set(props)
        return any(alone <= have for parts, halves in self.half_asks.items()
                   if besides not in parts for _, alone in halves)

    def guessed_half(self) -> str | None:
        """The first point of the reference walk at which a craft still to make has a part in
        the bag and another tool held (keys, parts and crafted things aside) has all a half
        of it alone gives (see :meth:`halves_of`), said as a reason; None when there is none.
        From the first part's coming, not only at the craft: with a knife and a bamboo cane
        held, a bundle of papers that must be cut a long way off reads as knife and cane, though
        the cane is a sponge's and the knife waits for a broom still to come."""
        crafted: set[str] = set()
        named = {frozenset((a, b)): (a, b) for a, b, _r, _i in self.design.crafts}
        for _scene, action, _picked, bag, _came in self._reference_bag():
            for parts, halves in self.half_asks.items():
                if parts & crafted or not parts & set(bag):
                    continue
                for x, alone in halves:
                    for t in bag:
                        if t in parts or t in crafted or t in self.design.keys:
                            continue
                        props = self.design.tool_props.get(t) or self.objects.get(t, {}).get(
                            "properties", [])
                        if alone <= set(props):
                            a, b = named[parts]
                            return f"craft({a}, {b}): the {t} is as " \
                                   f"{'/'.join(sorted(alone))} as the {x}"
            verb, _, rest = action.partition("(")
            if verb == "craft":
                crafted |= {x.strip() for x in rest.rstrip(")").split(",")}
        return None

    def fits_other(self, props: Any) -> bool:
        """Whether a tool with ``props`` has everything an obstacle so far asks for (it would
        be a sound answer there, refused: the unique-fit rule, version 8)."""
        have = set(props)
        return any(asked <= have for asked in self.asked_at)

    def reads_against(self, texts: list[str], asked: set[str]) -> bool:
        """Whether ``texts`` read as the opposite of a property in ``asked`` (a string that
        coils, where something must push)."""
        opp = self.aff.get("opposites", {})
        return bool(self.cued_props(texts, {opp[q] for q in asked if q in opp}))

    def solved_desc(self, item: str, first: dict[str, str]) -> dict[str, str]:
        """A dealt-with obstacle's text: "no longer stands in your way" only in a version
        whose first text said it blocked a way (a heap across the hatch)."""
        plain, way = self.word("solved_desc", item=item), self.word("solved_way", item=item)
        return {v: way if BLOCKING.search((first[v] or "").lower()) else plain
                for v in ("easy", "normal", "hard")}

    def craft_options(self, prop: str, obs: dict[str, Any] | None
                      ) -> list[tuple[dict[str, Any], str]]:
        """The crafts of the table that could fairly solve an obstacle ``obs`` needing
        ``prop`` here, each with the ``why`` its obstacle must state ("" for none)."""
        aff = self.aff
        asked = self.asked_of(obs, prop)
        kind = obs["kind"] if obs else ""
        objs = self.objects
        avoid = set(self.needed)  # what other obstacles need: no new tool may read as it
        if prop in self.cued_props(self.tool_texts, {prop}):  # a tool so far reads as it
            return []

        def texts(desc: Any) -> list[str]:  # what a player below easy reads
            return [desc] if isinstance(desc, str) else [desc["normal"], desc["hard"] or ""]

        def part_texts(name: str) -> list[str]:  # a craft's part: every version
            return [v for v in objs[name]["desc"].values() if v] if name in objs else [name]

        # a craft is fair only when neither part alone has, or reads as having, the property
        # the obstacle needs (a straw is hollow: it must not be refused at a dusty keyhole)
        def why(c: dict[str, Any]) -> str | None:
            """"" when no part of ``c`` has or reads as having ``prop``; else a second property
            of the crafted tool the obstacle can ask for (``why`` of the table) that each such
            part lacks, so the obstacle says why it alone will not do; None: not fair."""
            having = [x for x in c["parts"] if prop in objs.get(x, {}).get("properties", [])
                      or self.cued_props(part_texts(x), {prop})]
            gives = c.get("because", {})
            # version 6: what the obstacle asks must come from both parts (a card adds
            # nothing to a rubber band at a drive wheel)
            if not having and set(c["parts"]) <= set(gives.get(prop, [])):
                return ""
            for q, w in aff.get("why", {}).items():
                if kind not in w.get("obstacles", []) or not set(c["parts"]) <= set(
                        gives.get(prop, [])) | set(gives.get(q, [])):
                    continue
                if q != prop and q in c["properties"] and not any(
                        q in objs.get(x, {}).get("properties", [])
                        or self.cued_props(texts(objs[x]["desc"]) if x in objs else [x], {q})
                        for x in having):
                    return q
            return None

        out = []
        for c in aff.get("crafts", []):
            if not asked <= set(c["properties"]) or set(c["parts"]) & (
                    self.used_objects | self.names):
                continue
            q = why(c)
            if q is None or q in avoid:
                continue
            if any(self.fits_other(objs[x]["properties"]) for x in c["parts"] if x in objs) or (
                    self.fits_other(c["properties"])):
                continue  # version 8: a part, or the product, would fit an earlier obstacle
            if self.cued_props([t for x in c["parts"] for t in (
                    texts(objs[x]["desc"]) if x in objs else [x])], avoid) or self.cued_props(
                    [c["result"], *texts(c["desc"])], avoid):
                continue
            out.append((c, q))
        # version 10: crafts none of whose halves a tool so far matches come first
        had = list(self.design.tool_props.values())
        apart = [(c, q) for c, q in out if not any(
            alone <= set(h) for _, alone in self.halves_of(c, asked | ({q} if q else set()))
            for h in had) and not any(self.fits_half(objs[x]["properties"])
                                      for x in c["parts"] if x in objs)]
        return apart or out

    def solver_for(self, prop: str, item: str, obs: dict[str, Any] | None = None
                   ) -> dict[str, Any]:
        aff = self.aff
        asked = self.asked_of(obs, prop)
        self.property_count += 1
        want_creative = self.creative_count < round(self.k.creative * self.property_count + 0.49)
        objs = self.objects
        avoid = set(self.needed)  # what other obstacles need: no new tool may read as it

        def texts(desc: Any) -> list[str]:  # what a player below easy reads
            return [desc] if isinstance(desc, str) else [desc["normal"], desc["hard"] or ""]

        def part_texts(name: str) -> list[str]:  # a craft's part: every version
            return [v for v in objs[name]["desc"].values() if v] if name in objs else [name]

        options = self.craft_options(prop, obs)
        crafts = [c for c, _ in options]
        whys = {c["result"]: q for c, q in options}
        if crafts and self.crafts_left > 0:
            self.crafts_left -= 1
            c = self.pick(crafts)
            a, b = c["parts"]
            self.used_objects |= {a, b}
            self.hard_seen |= {objs[x]["desc"]["hard"] for x in (a, b) if x in objs}
            self.names |= {a, b}
            self.design.parts |= {a, b}
            self.tool_texts += [*part_texts(a), *part_texts(b)]
            q = whys[c["result"]]
            # version 8: in hard each part reads as what it gives the product
            hard = self.hard_parts(c, asked | ({q} if q else set()))
            self.tool_texts += [hard[x]["hard"] for x in (a, b) if x in hard]
            # version 8: a refused craft with either part says the part is right and the
            # partner wrong (craft(fridge magnet, string) at a drain the magnetic chopsticks
            # empty said only "These two tools do not go together."; the format lets a
            # crafted state wait for one set of parts, so the game cannot take both)
            gives = c.get("because", {})

            def refusal(x: str, other: str) -> dict[str, Any]:
                plain = f"The {x} will go with one thing here, but not with this."
                has = [self.aff["properties"][p] for p in sorted(asked | ({q} if q else set()))
                       if other in gives.get(p, []) and x not in gives.get(p, [])]
                easy = f"{plain[:-1]}: something that {' and '.join(has)}." if has else plain
                return _t(easy, plain, None)
            part = {"name": a, "states": [{"desc": hard.get(a, a), "apply_to": [b],
                                           "neg_reward": refusal(a, b)}]}
            made = self.product_desc(c, asked | ({q} if q else set()))
            if not q:  # no why: the obstacle's hard text does not ask, so the product reads
                made["hard"] = self.hard_cued(c["result"], made["hard"], prop)
            self.tool_texts += texts(made)
            # version 7: the crafted state goes by the product's name in the bag
            states = [{"desc": hard.get(b, b), "wait_for": [a], "neg_reward": refusal(b, a)},
                      {"name": c["result"], "desc": made, "apply_to": [item]}]
            self.design.props[b] = list(c["properties"])
            for x in (a, b):
                self.design.tool_props[x] = list(objs[x]["properties"]) if x in objs else []
            self.design.crafts.append((a, b, c["result"], item))
            self.half_asks[frozenset((a, b))] = self.halves_of(c, asked | ({q} if q else set()))
            # version 7: using what a craft made is a creative step (the product is a new
            # thing no name suggested for the obstacle): marked, and its normal text cues
            self.design.cues.append((b, item, prop))
            self.cue_of[b] = set(asked)
            self.design.related |= {(a, b), (a, item)}
            return {"tool": b, "states": states, "parts": [part], "result": c["result"],
                    "creative": True, "suggests": f"{a} and {b} apart",
                    "why": q}
        misfit = {o["name"] for o in aff["objects"] if self.theme["name"] in o.get("not_in", [])}
        cands = [o for o in aff["objects"] if asked <= set(o["properties"])
                 and o["name"] not in self.used_objects and o["name"] not in self.names
                 and o["name"] not in misfit]
        # version 8: no solution has all an earlier obstacle asks (the proof rejects it)
        cands = [o for o in cands if not self.fits_other(o["properties"])] or cands
        # version 10: none with all a craft's half gives (held at the craft, it is a guess)
        cands = [o for o in cands if not self.fits_half(o["properties"])] or cands
        taken = self.item_links()
        cands = [o for o in cands if not self.links_in([o["name"], *o["desc"].values()])
                 & taken] or cands
        # every tool can be told apart in every version (no two "A bottle.")
        cands = [o for o in cands if o["desc"]["hard"] not in self.hard_seen] or cands
        # no solution reads as the opposite of what the obstacle asks (any version)
        cands = [o for o in cands if not self.reads_against(
            [v for v in o["desc"].values() if v], asked)]
        cands = [o for o in cands if not self.cued_props(texts(
            self.linked(o, prop, obs, item) if o["properties"][0] == prop
            else self.cued(o, prop)), avoid)] or cands
        creative = [o for o in cands if o["properties"][0] != prop]
        plain = [o for o in cands if o["properties"][0] == prop]
        pool = creative if (want_creative and creative) else (plain or creative)
        if not pool:
            key = self.unique(f"{self.pick(COLORS)} pry bar")
            self.tool_texts += [f"A {key}; it is {prop}.", f"A {key}."]
            self.design.props[key] = sorted(asked)
            self.design.tool_props[key] = sorted(asked)
            hints = "".join(" " + self.aff["cues"][q]["hint"] for q in sorted(asked))
            return {"tool": key, "desc": _t(f"A {key}; it is {prop}.", f"A {key}.{hints}",
                                            self.hard_cued(key, "A bar.", prop)),
                    "apply_to": [item]}
        o = self.pick(pool)
        self.hard_seen.add(o["desc"]["hard"])
        self.design.props[o["name"]] = list(o["properties"])
        self.design.tool_props[o["name"]] = list(o["properties"])
        self.used_objects.add(o["name"])
        self.names.add(o["name"])
        is_creative = o["properties"][0] != prop
        if is_creative:
            self.creative_count += 1
        desc = o["desc"]
        if is_creative:
            desc = self.cued(o, prop, hard=True)
            self.design.cues.append((o["name"], item, prop))
            self.cue_of[o["name"]] = {prop}
        else:  # version 8, rule 17: a plain step keeps a readable link in normal and hard
            desc = self.linked(o, prop, obs, item)
        for q in sorted(asked - {prop, o["properties"][0]}):  # the other needs asked: hinted
            desc = self.cued({**o, "desc": desc}, q)
            self.cue_of.setdefault(o["name"], set()).add(q)
        self.tool_texts += texts(desc)
        need: dict[str, Any] = {"tool": o["name"], "desc": desc, "apply_to": [item],
                                "creative": is_creative, "suggests": o.get("suggests", "")}
        # only an object that affords a preparation gets it (a bottle is filled, a knife
        # sharpened); any other has the property already
        prep = next((p for p in aff.get("preparations", []) if p["gives"] == prop
                     and o["name"] in p.get("fits", [])), None)
        if prep is not None:
            srcs = [x for x in prep["source"] if x not in self.names]
            if srcs:
                need["prepare"] = (self.pick(srcs), prep)
        elif self.rng.random() < 0.25:
            need["loose"] = True
        return need

    def product_desc(self, c: dict[str, Any], asked: set[str]) -> dict[str, Any]:
        """A crafted thing's descriptions ("A straw pushed into a cane.": the bag names it,
        "blowpipe", by its state's name), in normal hinting what the obstacle asks and in
        easy stating it (version 7: using it is a creative step)."""
        desc = {v: c["desc"][v] for v in ("easy", "normal", "hard")}
        plural = _plural(c["parts"][1])
        for q in sorted(asked):
            cue = self.aff["cues"][q]
            if not has_cue(desc["normal"], self.strong_words(q)):
                desc["normal"] += " " + (_they(cue["hint"]) if plural else cue["hint"])
            if not has_cue(desc["easy"], cue["words"]):
                gloss = f"It {self.aff['properties'][q]}."
                desc["easy"] += " " + (_they(gloss) if plural else gloss)
        return desc

    def strong_words(self, prop: str) -> list[str]:
        """The cue words of ``prop`` that read as it on their own (not ``weak``: "glass" is
        no mirror, a key "ring" is no bell)."""
        cue = self.aff["cues"][prop]
        return [w for w in cue["words"] if w not in cue.get("weak", [])]

    def linked(self, o: dict[str, Any], prop: str, obs: dict[str, Any] | None,
               item: str) -> dict[str, Any]:
        """``o``'s descriptions as the plain solution of obstacle ``item`` (kind ``obs``)
        for ``prop`` (version 8, rule 17): where the obstacle's text of a version below easy
        does not ask for ``prop`` and the object's name and text there do not read as it,
        normal gets the object's (or the property's) hint and hard the property's short
        ``hard`` sentence ("A stethoscope." at "A clogged keyhole, packed with grey dust."
        was a guess: "A stethoscope. Tapped, it sounds hollow.")."""
        desc = dict(o["desc"])
        strong = self.strong_words(prop)
        for v in ("normal", "hard"):
            own = obs["desc"][v].replace("{item}", " ") if obs else ""
            text = desc[v] or ""
            if prop in asked_properties(own, self.ask_rx()) or has_cue(
                    f"{o['name']} {text}", strong):
                continue
            if v == "hard":
                desc["hard"] = self.hard_cued(o["name"], text, prop)
            else:
                cue = self.aff["cues"][prop]
                hint = self.aff.get("hints", {}).get(o["name"], {}).get(prop, cue["hint"])
                desc["normal"] = f"{text} {_they(hint) if _plural(o['name']) else hint}"
        return desc

    def cued(self, o: dict[str, Any], prop: str, hard: bool = False) -> dict[str, Any]:
        """``o``'s descriptions with its property ``prop`` hinted in normal (the object's own
        hint or the property's, where the text holds no cue word yet) and stated in easy (the
        property's gloss); hard is left bare, unless ``hard`` (version 8, a creative step's
        one readable link): then where its hard name and text do not read as ``prop``, hard
        gets the property's short ``hard`` sentence ("A little glass bottle. It is shiny.")."""
        cue = self.aff["cues"][prop]
        desc = dict(o["desc"])
        plural = _plural(o["name"])
        if hard:
            desc["hard"] = self.hard_cued(o["name"], desc["hard"] or "", prop)
        # (version 8, rule 17: a weak word alone, a key "ring" for loud, is no cue)
        if not has_cue(desc["normal"], self.strong_words(prop)):
            hint = self.aff.get("hints", {}).get(o["name"], {}).get(prop, cue["hint"])
            desc["normal"] = f"{desc['normal']} {_they(hint) if plural else hint}"
        if not has_cue(desc["easy"], cue["words"]):
            gloss = f"It {self.aff['properties'][prop]}."
            desc["easy"] = f"{desc['easy']} {_they(gloss) if plural else gloss}"
        return desc

    def reads_hard(self, name: str, text: str, prop: str) -> bool:
        """Whether a thing's hard name and text read as ``prop``: a cue word of it that is
        not ``weak`` ("glass" is no mirror in a bare hard text)."""
        cue = self.aff["cues"][prop]
        words = [w for w in cue["words"] if w not in cue.get("weak", [])]
        return has_cue(f"{name} {text}", words)

    def hard_cued(self, name: str, text: str, prop: str) -> str:
        """``text`` (a hard description of ``name``) with the property's short ``hard``
        sentence added where the name and text do not read as ``prop`` already."""
        if self.reads_hard(name, text, prop):
            return text
        sentence = self.aff["cues"][prop]["hard"]
        sentence = _they(sentence) if _plural(name) else sentence
        return f"{text} {sentence}".strip()

    def hard_parts(self, c: dict[str, Any], asked: set[str]) -> dict[str, dict[str, Any]]:
        """Each part of craft ``c`` with its descriptions, its hard text reading as one
        property it gives the product of those the obstacle asks (``asked``), that the part
        itself has (version 8: "Two chopsticks." gave no reader the length the product
        needs): a property its normal text already cues first, never one another obstacle
        needs (that tool would then read as it there)."""
        out: dict[str, dict[str, Any]] = {}
        gives = c.get("because", {})
        for x in c["parts"]:
            o = self.objects.get(x)
            if o is None:
                continue
            desc = dict(o["desc"])
            mine = [q for q in sorted(asked) if x in gives.get(q, [])
                    and q in o["properties"]]
            # normal too reads as what the part gives (a walking stick "with a crooked
            # handle" said nothing of length where hard said "It is long.")
            if mine and not self.cued_props([f"{x} {desc['normal']}"], set(mine)):
                pick = [q for q in mine if q not in self.needed]
                if pick:
                    desc = {**self.cued({**o, "desc": desc}, pick[0]), "hard": desc["hard"]}
            if mine and not any(self.reads_hard(x, desc["hard"] or "", q) for q in mine):
                said = self.cued_props([desc["normal"]], set(mine))
                pick = [q for q in mine if q in said and q not in self.needed] or [
                    q for q in mine if q not in self.needed]
                if pick:
                    desc["hard"] = self.hard_cued(x, desc["hard"] or "", pick[0])
            out[x] = desc
        return out

    def input_unit(self, s: int, rooms: list[list[dict[str, Any]]], where: dict[str, Any],
                   steps: list[tuple[str, str]]) -> tuple[dict[str, Any], None]:
        th = self.theme
        cont = self.unique(self.pick(th["containers"])["name"])
        ct = next(c for c in th["containers"] if cont.endswith(c["name"]))
        lock = next((lk for lk in th["locks"] if lk["kind"] == "code"), th["locks"][0])
        n = 3 if s < 3 else 4  # digits of the code
        digits = [str(self.rng.randrange(10)) for _ in range(n)]
        code = "".join(digits)
        # version 6: the lock shows a sign and every mark of its code the same one, so each
        # mark is tied to its lock in words (two locks' "II" marks are no coin flip)
        sign = self.new_sign()
        painted = f" A small {sign} is painted on it." if sign else ""
        by = f", beside a small painted {sign}" if sign else ""
        by_hard = f", marked with a {sign}" if sign else ""
        locked = ct["locked"].replace("{name}", cont).replace("{lock}", lock["name"])
        where_digits = ("the whole code is written on a note nearby" if self.k.indirection == 0 else
                        f"its digits are written around the place, marked I to {MARKS[n - 1]}"
                        + (f", each beside a {sign} like this one" if sign else ""))
        item = {"name": cont, "states": [
            {"desc": _t(f"{locked}{painted} It takes a {n}-digit code; {where_digits}.",
                        f"{locked}{painted} {n} digits.",
                        f"A {cont}{by_hard}. {n} digits."),
             "neg_reward": _t("Wrong code. Look for the note." if self.k.indirection == 0 else
                              "Wrong code. Look for the marked digits.", "It stays locked.",
                              None),
             "transitions": [{"wait_for": [f"input, {code}"], "trigger": ["change_state, 1"],
                              "reward": None}]},
            {"desc": ct["opened"].replace("{name}", cont)}]}
        # the reward names the lock only in a version whose text showed it (hard: "A map
        # case, marked with a swan. 3 digits." opens as the map case)
        item["states"][0]["transitions"][0]["reward"] = {
            v: f"The {lock['name']} clicks open." if lock["name"] in (text or "")
            else f"The {cont} clicks open." for v, text in item["states"][0]["desc"].items()}
        self.place_item(where, item, "On a stand")
        steps.append((where["name"], f"input({code}, {cont})"))
        self.design.key_steps.append(f"input({code}, {cont})")
        self.design.node_kind[cont] = "code"
        self.design.codes.append((cont, code, sign))
        if self.k.indirection == 0:  # the whole code on one note, as the tutorial has it
            spot = self.pick(rooms[s])
            clue = self.unique("code note")
            # below easy the note lists the digits by their marks, out of order: it never
            # states the code outright
            order = list(range(n))
            while order == sorted(order):
                self.wrng.shuffle(order)
            marked = [f"{MARKS[i]} = {digits[i]}" for i in order]
            self.place_item(spot, {"name": clue, "interactable": False, "states": [{"desc": _t(
                f"A note{by}: the code of the {cont} is {code}.",
                f"A note{by}. It reads '{', '.join(marked)}'.",
                f"A note{by_hard}: {'; '.join(m.replace(' = ', '-') for m in marked)}.")}]},
                "Here")
            self.design.edges.append((clue, cont, "clue"))
            self.design.node_kind[clue] = "clue"
            self.design.clues[clue] = cont
            return item, None
        # one clue per digit, spread over this scene and earlier ones; all of one lock's
        # marks are written the same way (one carrier), and no two locks share a carrier
        carriers = [c for c in th["clue_carriers"] if c not in self.carriers_used
                    and not self.links_in([c]) & self.lock_words] or list(th["clue_carriers"])
        carrier = carriers[self.wrng.randrange(len(carriers))]
        self.carriers_used.add(carrier)
        clues: list[str] = []
        for i, d in enumerate(digits):
            room = rooms[self.rng.randrange(s + 1)]
            spot = self.pick(room)
            place, clue = self.mark_place(spot)
            text = carrier.replace("{place}", place)
            lvl = self.k.indirection
            dots = ["one dot", "two dots", "three dots", "four dots", "five dots", "six dots"][i]
            easy = f"There is {text}{by}: the {ORDINALS[i]} digit of the {cont} code is {d}."
            normal = (f"There is {text}{by}: '{MARKS[i]} = {d}'." if lvl < 2
                      else f"There is {text}{by}: a {d} beside {dots}.")
            hard = (f"{text[:1].upper()}{text[1:]}{by_hard}: {MARKS[i]}-{d}." if lvl < 2
                    else f"{text[:1].upper()}{text[1:]}{by_hard}: {d} beside {dots}.")
            self.place_item(spot, {"name": clue, "interactable": False,
                                   "states": [{"desc": _t(easy, normal, hard)}]}, "Here")
            self.design.edges.append((clue, cont, "clue"))
            self.design.node_kind[clue] = "clue"
            self.design.clues[clue] = cont
            clues.append(clue)
        self.design.related |= {(a, b) for a in clues for b in clues if a < b}
        return item, None

    def mark_place(self, spot: dict[str, Any]) -> tuple[str, str]:
        """Where a code mark is written, and the mark's name by it ("mark on the beam"): a
        place no other mark of the game has, or the name told apart by a word ("north mark on
        the beam"; a room's name in it read "mark on the map of the peaks beam")."""
        places = list(self.words["mark_places"])
        free = [p for p in places if f"mark on the {p}" not in self.names] or places
        place = free[self.wrng.randrange(len(free))]
        return place, self.unique(f"mark on the {place}")

    def distractors(self, rooms: list[list[dict[str, Any]]]) -> None:
        """Useless things: filler items with their own failure texts anywhere, and tools
        that fit nothing, near-misses first, lying in the open of the early scenes."""
        th = self.theme
        fillers = list(th["filler_items"])
        self.rng.shuffle(fillers)
        n_tools = self.k.distractors // 2
        for _ in range(self.k.distractors - n_tools):
            if not fillers:
                break
            f = fillers.pop()
            where = self.pick(self.pick(rooms))
            name = self.unique(f["name"])
            self.place_item(where, {"name": name, "states": [
                {"desc": self.pick(f["desc"]),
                 "neg_reward": {"easy": f["fail"] + " It is only there for show.",
                                "normal": f["fail"], "hard": None}}]}, "Nearby")
            self.design.node_kind[name] = "distractor"
        self.distractor_tools(n_tools, scenes=max(1, (len(rooms) + 1) // 2), batch=True)

    def distractor_tools(self, n: int, scenes: int, batch: bool = False, low: int = 0) -> int:
        """``n`` tools that fit nothing, in the open of the first ``scenes`` walk scenes (any
        room, and some in a batch a unit shows, when ``batch``), taken on entering. Each
        neither has nor reads as having what an obstacle needs; near-misses come first: a
        tool with a property close to a need but not it (a brass rod where a magnet is
        wanted), so the choice needs the property, not a hunch. Returns how many it laid."""
        if not hasattr(self, "_spare"):
            misfit = {o["name"] for o in self.aff["objects"]
                      if self.theme["name"] in o.get("not_in", [])}
            objs = [o for o in self.aff["objects"] if o["name"] not in self.names
                    and o["name"] not in misfit
                    and not (set(o["properties"]) & self.needed)
                    and not self.cued_props([o["desc"]["normal"], o["desc"]["hard"] or ""],
                                            self.needed)]
            taken = self.item_links()
            objs = [o for o in objs
                    if not self.links_in([o["name"], *o["desc"].values()]) & taken]
            self.rng.shuffle(objs)
            near = {q for p in self.needed for q in NEAR.get(p, ())}
            objs.sort(key=lambda o: not (set(o["properties"]) & near))
            # version 10: one with all a craft's half gives (a long tool where a blade on a
            # pole waits for the broom's reach) only when no other will do; held while the
            # craft waits, the proof rejects the game (left out of the pool, the rest drew a
            # blind searcher's tool choice up: +0.17 against +0.04 on 20 games of 3 seeds)
            objs.sort(key=lambda o: self.fits_half(o["properties"]))
            self._spare = objs
        laid = 0
        for _ in range(n):
            if not self._spare:
                break
            o = self._spare.pop(0)
            if o["name"] in self.names or o["desc"]["hard"] in self.hard_seen or (
                    set(o["properties"]) & self.needed):
                continue
            laid += 1
            self.design.tool_props[o["name"]] = list(o["properties"])
            self.hard_seen.add(o["desc"]["hard"])
            self.names.add(o["name"])
            self.design.parts.add(o["name"])
            self.design.node_kind[o["name"]] = "distractor"
            tmap = {"name": o["name"], "states": [{"desc": self.hard_distractor(o)}]}
            if batch:  # at a time drawn evenly over the game (:meth:`like_a_tool`)
                host, s = self.like_a_tool()
                if host is not None:
                    host["found"].append({"tmap": tmap, "distractor": True})
                    continue
            else:
                s = self.rng.randrange(low, scenes)
            where = self.pick(self.rooms[s])
            self.place_tool(where, tmap, "Lying about")
            self.open_pickups.setdefault(s, []).insert(0, (where["name"], f"click({o['name']})"))
        return laid


    def like_a_tool(self) -> tuple[dict[str, Any] | None, int]:
        """Where a useless tool goes (version 8): at a time drawn evenly over the whole game,
        as a useful tool comes at one drawn evenly before its use: shown by any unit, or in
        the open of any walk scene (laid early, useless tools filled the old end of the bag,
        and a searcher trying the newest tools first skipped them). A unit that shows it, or
        None and the walk scene in whose open it lies."""
        hosts = [u for u in self.units if not u["key_only"]]
        if hosts and self.rng.random() < 0.6:
            return self.pick(hosts), 0
        return None, self.rng.randrange(len(self.rooms))

    def hard_distractor(self, o: dict[str, Any]) -> dict[str, Any]:
        """A useless tool's descriptions, its hard text reading as one property it has
        (version 8): a near miss's first ("A brass rod. It is heavy." where a magnet is
        wanted), never what an obstacle of the game needs or asks. Creative tools and craft
        parts get such a sentence in hard, so a useless tool gets one too: the sentence alone
        does not tell which tools are of use."""
        desc = dict(o["desc"])
        hard = desc["hard"] or ""
        asked = set(self.needed) | {w for _i, _p, _c, w in self.design.needs if w}
        asked |= self.prep_takes  # a charcoal stick "It is absorbent." beside a basin's soak
        mine = [q for q in o["properties"] if q not in asked and q in self.aff["cues"]]
        if not mine or any(self.reads_hard(o["name"], hard, q) for q in o["properties"]
                           if q in self.aff["cues"]):
            return desc
        near = {q for p in self.needed for q in NEAR.get(p, ())}
        q = next((q for q in mine if q in near), mine[0])
        desc["hard"] = self.hard_cued(o["name"], hard, q)
        return desc

    def dress(self) -> None:
        """Give every item and tool but the clues one detail sentence of how it looks (the
        same on all its states), in the easy and normal versions; hard stays bare.

        Version 6: a detail holds no link word (a stain, a material, a colour) that any other
        text of the game holds, so no detail links two things that have nothing to do with
        each other (wax on a circuit board and a waxy candle)."""
        def links(text: str) -> set[str]:
            return self.links_in([text])

        used: set[str] = set(self.signs_used)
        for sc in self.scenes:
            for entry in [*sc["items"], *sc["tools"]]:
                thing = entry.get("item") or entry.get("tool")
                used |= links(thing["name"])
                for st in thing["states"]:
                    desc = st["desc"]
                    for v in (desc.values() if isinstance(desc, dict) else [desc]):
                        if v:
                            used |= links(v)
        for sc in self.scenes:
            for entry in [*sc["items"], *sc["tools"]]:
                thing = entry.get("item") or entry.get("tool")
                if self.design.node_kind.get(thing["name"]) == "clue":
                    continue
                # the details speak of a thing ("it has seen better days"): none for a
                # person or an animal, nor for a pair ("tongs")
                # nor for a key: its own sentence says how it looks ("A gold key ... painted
                # the same red as the tower" beside a red key)
                bare = (thing["name"] in self.alive
                        or _plural(thing["name"].removesuffix(" stuck fast"))
                        or thing["name"] in self.design.keys)
                extra = "" if bare else " " + self.detail()
                cue = set(self.cue_of.get(thing["name"], ()))
                code = self.design.node_kind.get(thing["name"]) == "code"  # digits: no "name"
                tool = "tool" in entry
                # version 7: a thing that stays where it is (a door, a pipe, a locker) was
                # never dropped, signed out or thrown away
                fixed = not tool and self.design.node_kind.get(thing["name"]) != "distractor"
                soft = self.objects.get(thing["name"], {}).get("soft", False)
                if tool:  # no tool reads, by its detail, as what an obstacle needs
                    opp = self.aff.get("opposites", {})
                    cue |= {q for p in self.needed for q in (p, opp.get(p)) if q}

                def fits(d: str, cue: set[str] = cue, tool: bool = tool, used: set[str] = used,
                         code: bool = code, fixed: bool = fixed, soft: bool = soft) -> bool:
                    # a tool's text is what the bag shows: nothing of where it lies
                    return not (cue and self.cued_props([d], cue)) \
                        and not (tool and d in self.places) and not (links(d) & used) \
                        and not (code and _CALLED_WORD.search(d.lower())) \
                        and not (fixed and _CARRIED.search(d)) \
                        and not (soft and _MADE.search(d))

                if extra and not fits(extra.strip()):
                    # a creative tool's cue must be its own, not the detail's: the next
                    # detail that fits, or none
                    self.details.insert(0, extra.strip())
                    fit = next((i for i in range(len(self.details) - 1, -1, -1)
                                if fits(self.details[i])), None)
                    extra = "" if fit is None else " " + self.details.pop(fit)
                used |= links(extra)
                for st in thing["states"]:
                    desc = st["desc"]
                    if isinstance(desc, str):
                        desc = {"easy": desc, "normal": desc, "hard": desc}
                    st["desc"] = {"easy": f"{desc['easy']}{extra}",
                                  "normal": f"{desc['normal']}{extra}", "hard": desc["hard"]}

    def fill_empty(self) -> None:
        """A close-up is named after what is there: one left empty gets a thing of the
        theme to look at (a filler, inert), never a bare "Nothing in particular."."""
        said = {e["item"]["states"][0]["desc"] for sc in self.scenes for e in sc["items"]
                if isinstance(e["item"]["states"][0]["desc"], str)}
        for sc in self.scenes:
            if sc["name"] in self.closeups and not sc["items"] and not sc["tools"]:
                options = [(f, d) for f in self.theme["filler_items"] for d in f["desc"]
                           if d not in said] or [
                    (f, d) for f in self.theme["filler_items"] for d in f["desc"]
                    if not _plural(f["name"])]  # told apart by their details
                if not options:
                    continue
                fresh = [(f, d) for f, d in options if f["name"] not in self.names] or options
                f, text = fresh[self.wrng.randrange(len(fresh))]
                name = self.unique(f["name"])
                if text in said and name != f["name"]:  # a twin: told apart in every version
                    text = f"{text.rstrip('.')}, the {name.removesuffix(' ' + f['name'])} one."
                said.add(text)
                self.place_item(sc, {"name": name, "states": [
                    {"desc": text,
                     "neg_reward": {"easy": f["fail"] + " It is only there for show.",
                                    "normal": f["fail"], "hard": None}}]}, "Nearby")
                self.design.node_kind[name] = "distractor"

    def finish(self) -> Design:
        for sc in self.scenes:  # the tools and things of a place in no telling order
            self.rng.shuffle(sc["tools"])
            self.rng.shuffle(sc["items"])
        self.fill_empty()
        self.dress()
        plurals = [(re.compile(r"\b[Aa]n? (" + re.escape(n) + r")\b"), n[:1].upper() + n[1:], n)
                   for sc in self.scenes for e in [*sc["items"], *sc["tools"]]
                   if _plural(n := (e.get("item") or e.get("tool"))["name"])]
        for sc in self.scenes:  # "A iron key" -> "An iron key", in every text of a thing
            for entry in [*sc["items"], *sc["tools"]]:
                for st in (entry.get("item") or entry.get("tool"))["states"]:
                    st["desc"] = {k: _article(v) if isinstance(v, str) else v
                                  for k, v in st["desc"].items()}
                    for rx, cap, n in plurals:  # "A tweezers, wedged in place." -> "Tweezers"
                        if not any(isinstance(v, str) and n in v for v in st["desc"].values()):
                            continue  # (the name is not there: nothing to change)
                        st["desc"] = {k: rx.sub(lambda m, c=cap: c if m.start() == 0 else
                                                m.group(1), v) if isinstance(v, str) else v
                                      for k, v in st["desc"].items()}
        for sc in self.scenes:
            if not sc["items"]:
                sc.pop("items")
            if not sc["tools"]:
                sc.pop("tools")
            if sc["visible"]:
                sc.pop("visible")
        ref = [{"position": self.path_to(scene), "action": action}
               for scene, action in self.reference()]
        self.design.doc = {
            "escapebench": 1,
            "id": self.game_id,
            "title": self.theme["title"],
            "notes": "Generated by escapebench.generate; see docs/generator.md.",
            "scenes": self.scenes,
            "reference": ref,
        }
        return self.design


def build_design(knobs: Knobs, rng: random.Random, game_id: str) -> Design:
    """Build one candidate game (not yet proven) from ``knobs`` and ``rng``."""
    return _Builder(knobs, rng, game_id).build()
