"""Generating proven games: candidates built by :mod:`~escapebench.generate.build`, checked
and proven, the failed ones replaced by the next sub-seed."""

from __future__ import annotations

import contextlib
import hashlib
import io
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import yaml

from escapebench.engine.model import GameDefinition
from escapebench.games.loading import load_own_text
from escapebench.games.validation import check_definition
from escapebench.gc_pause import collections_paused
from escapebench.generate.build import Design, build_design
from escapebench.generate.data import affordances
from escapebench.generate.data import words as word_data
from escapebench.generate.knobs import MAX_SEED, Knobs, count_problem, knobs_for
from escapebench.generate.proof import (
    abstract_reaches_end,
    code_problems,
    craft_problems,
    cue_agreement_problems,
    cue_problems,
    decoy_problems,
    fair_problems,
    fit_problems,
    half_problems,
    hard_cue_problems,
    key_problems,
    label_problems,
    naming_problems,
    plain_cue_problems,
    source_problems,
    text_problems,
    verb_problems,
)

GENERATOR_VERSION = "10"
RANDOM_STREAM = "10"
"""The name the sub-seeds hash (:func:`_sub_rng`): the version that last changed the builder or
its words. Version 10 (no craft's half a guess) changed the builder at every tier, so it draws
afresh; version 9 had drawn version 8's."""
SAME_GAMES_AS: dict[str, frozenset[int]] = {}
"""Older versions whose games this version still makes, with the tiers it makes them for
(a spec's knob overrides aside, which apply to the same presets). Version 9 made version 8's
games at tiers 1-3; version 10 makes neither's."""
SPEC_PREFIX = "gen:"  # the catalog's source of generated games (escapebench.catalog)
MAX_TRIES = 50

__all__ = ["GENERATOR_VERSION", "SPEC_PREFIX", "GenSpec", "Generated", "generate_games",
           "craft_guesses", "makes_games_of", "parse_gen_spec", "prove"]


@dataclass(frozen=True)
class GenSpec:
    """``gen:tier=T,count=N,seed=S[,knob=v...]``."""

    tier: int = 2
    count: int = 1
    seed: int = 0
    overrides: tuple[tuple[str, str], ...] = ()

    def text(self) -> str:
        extra = "".join(f",{k}={v}" for k, v in self.overrides)
        return f"{SPEC_PREFIX}tier={self.tier},count={self.count},seed={self.seed}{extra}"


def parse_gen_spec(spec: str) -> GenSpec:
    """Read a ``gen:`` spec (with or without its prefix); raises ValueError naming the bad
    part."""
    body = spec.removeprefix(SPEC_PREFIX)
    vals: dict[str, int] = {}
    over: list[tuple[str, str]] = []
    for part in filter(None, (p.strip() for p in body.split(","))):
        key, sep, value = part.partition("=")
        if not sep:
            raise ValueError(f"{spec}: {part!r} should be name=value")
        if key in ("tier", "count", "seed"):
            if len(value.strip()) > 30:  # (int() of a long text is slow, or refused)
                raise ValueError(f"{spec}: {key} is too long ({len(value)} characters)")
            try:
                vals[key] = int(value)
            except ValueError:
                raise ValueError(f"{spec}: {key} must be a whole number, not {value!r}") from None
        else:
            over.append((key, value))
    out = GenSpec(vals.get("tier", 2), vals.get("count", 1), vals.get("seed", 0), tuple(over))
    # Every bound checked now, before any game is made: one line each.
    try:
        knobs_for(out.tier, dict(out.overrides))
    except ValueError as exc:
        raise ValueError(f"{spec}: {exc}") from None
    problem = count_problem(out.count)
    if problem is not None:
        raise ValueError(f"{spec}: {problem}")
    if not 0 <= out.seed <= MAX_SEED:
        raise ValueError(f"{spec}: seed must be from 0 to {MAX_SEED}")
    return out


@dataclass
class Generated:
    """One proven game: its YAML text, its three settings and its design."""

    game_id: str
    text: str
    settings: list[GameDefinition]
    design: Design
    rejects: int = 0
    sha256: str = ""
    reasons: list[str] = field(default_factory=list)


def makes_games_of(version: str, tier: int) -> bool:
    """Whether this generator makes, from a spec of ``tier``, the games generator ``version``
    made from it (its own version, or an older one at a tier :data:`SAME_GAMES_AS` lists)."""
    return version == GENERATOR_VERSION or tier in SAME_GAMES_AS.get(version, frozenset())


def _sub_rng(seed: int, tier: int, index: int, attempt: int) -> random.Random:
    digest = hashlib.sha256(
        f"escapebench-gen/{RANDOM_STREAM}/{tier}/{seed}/{index}/{attempt}".encode()
    ).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def render(doc: dict[str, Any]) -> str:
    """The YAML text of a game document (stable: keys in insertion order).

    The text is exactly ``yaml.dump(doc, sort_keys=False, allow_unicode=True, width=100)``
    with the safe dumper; the nodes are built by :func:`_node` (plain dicts, lists, strings,
    whole numbers, booleans and None, no object met twice), about twice as fast as the
    representer's generic dispatch. Anything else takes the representer's own way.
    """
    return render_nodes(doc)[0]


def render_nodes(doc: dict[str, Any]) -> tuple[str, yaml.Node | None]:
    """:func:`render`'s text and the nodes it was written from (None where the representer
    wrote it): the checks walk them instead of composing the text again."""
    try:
        root = _node(doc, set())
    except _Fallback:
        return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                         width=100), None
    out = io.StringIO()
    dumper = _Dumper(out, default_flow_style=False, allow_unicode=True, width=100,
                     sort_keys=False)
    try:
        dumper.open()
        dumper.serialize(root)
        dumper.close()
    finally:
        dumper.dispose()
    return out.getvalue(), root


class _Fallback(Exception):
    """A value :func:`_node` leaves to the representer (a float, an object met twice...)."""


_STR, _INT, _BOOL, _NULL = (f"tag:yaml.org,2002:{t}" for t in ("str", "int", "bool", "null"))
_SEQ, _MAP = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"


def _node(x: Any, seen: set[int]) -> yaml.Node:
    """The node the safe representer makes of ``x`` (block style, as ``default_flow_style=
    False`` asks); raises :class:`_Fallback` where the representer would do more (an alias
    for a dict or list met twice, a type other than the plain ones)."""
    t = type(x)
    if t is str:
        return yaml.ScalarNode(_STR, x)
    if t is dict or t is list:
        if id(x) in seen:  # the representer would write an anchor and an alias
            raise _Fallback
        seen.add(id(x))
        scalar = yaml.ScalarNode  # (a string, the most common value, made here at once)
        if t is dict:
            return yaml.MappingNode(_MAP, [
                (scalar(_STR, k) if type(k) is str else _node(k, seen),
                 scalar(_STR, v) if type(v) is str else _node(v, seen))
                for k, v in x.items()], flow_style=False)
        return yaml.SequenceNode(_SEQ, [scalar(_STR, v) if type(v) is str else _node(v, seen)
                                        for v in x], flow_style=False)
    if t is bool:
        return yaml.ScalarNode(_BOOL, "true" if x else "false")
    if t is int:
        return yaml.ScalarNode(_INT, str(x))
    if x is None:
        return yaml.ScalarNode(_NULL, "null")
    raise _Fallback


_BASE_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's when present


class _Dumper(_BASE_DUMPER):  # type: ignore[misc,valid-type]
    """The safe dumper with the tag resolution of scalars remembered: the emitter asks twice
    per scalar, and a game repeats its names and texts many times. The answer depends only
    on the scalar's text and the two implicit flags (no path resolvers are registered)."""

    _resolved: dict[str, str] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:  # noqa: D102
        if kind is not yaml.ScalarNode:
            return super().resolve(kind, value, implicit)
        if not implicit[0]:  # the resolver reads a scalar not implicit as plain as a string
            return self.DEFAULT_SCALAR_TAG
        tag = self._resolved.get(value)
        if tag is None:
            if len(self._resolved) > 200_000:
                self._resolved.clear()
            tag = self._resolved[value] = super().resolve(kind, value, implicit)
        return tag


class _Enough(Exception):
    """Raised by :class:`_Problems` when the first problem is all that is asked."""


class _Problems(list[str]):
    """The problems a proof finds; with ``first``, adding the first ends the proof
    (:class:`_Enough`): the generator keeps only the first to say why it rejected a
    candidate, so the rest of a rejected candidate's proof is not worked out."""

    def __init__(self, first: bool) -> None:
        super().__init__()
        self.first = first

    def __iadd__(self, found: Any) -> _Problems:  # type: ignore[override,misc]
        self.extend(found)
        if self.first and self:
            raise _Enough
        return self

    def append(self, found: str) -> None:  # noqa: D102
        super().append(found)
        if self.first:
            raise _Enough


def prove(text: str, design: Design, source: str, doc: dict[str, Any] | None = None,
          nodes: yaml.Node | None = None, *, first: bool = False
          ) -> tuple[list[GameDefinition], list[str]]:
    """Check and prove one candidate; returns its settings and the problems found (none: the
    game passes ``escapebench check`` with no error or warning, its reference reaches GAME END,
    each required step is needed, the distractors are inert, and no text of the normal and
    hard versions names a solution outright, and in the normal version every creative tool's
    description hints the property it is used for). ``doc`` and ``nodes``, when given, are
    the document and the YAML nodes ``text`` was written from (:func:`render_nodes`).
    ``first``: stop at the first problem (the same one the whole proof would list first)."""
    settings = load_own_text(text, source, doc)
    problems = _Problems(first)
    with contextlib.suppress(_Enough):
        _prove(text, design, nodes, settings, problems)
    return settings, list(problems)


def _prove(text: str, design: Design, nodes: yaml.Node | None,
           settings: list[GameDefinition], problems: list[str]) -> None:
    data = _proof_data()
    asks_in = _obstacle_texts(design, settings)
    # every property step, creative or plain: (tool, obstacle, property) (version 8, rule 17)
    solver = {item: tool for tool, item, kind in design.edges if kind in ("apply", "creative")}
    prop_steps = [(solver[item], item, prop) for item, prop, *_ in design.needs
                  if item in solver]
    seen: dict[str, Any] = {}  # what each code lock's marks are, for all three versions
    related = {(tool, item) for tool, item, _kind in design.edges} | {
        (a, b) for a, b in design.related}
    for d in settings:
        # the three versions share all logic: the solver runs once, on the normal version
        report = check_definition(d, text, run_solver=d.difficulty == "normal", nodes=nodes)
        problems += [f"{d.setting}: {i.check}: {i.message}" for i in report.issues]
        if d.difficulty == "normal" and report.solver != "reached":
            problems.append(f"{d.setting}: solver {report.solver}")
        if d.difficulty != "easy":  # below easy, no text names its solution outright
            problems += [f"{d.setting}: naming: {m}" for m in naming_problems(d)]
        words = {p: c["words"] for p, c in affordances()["cues"].items()}
        if d.difficulty == "normal":  # a creative tool hints its property (easy states it)
            problems += [f"{d.setting}: cue: {m}" for m in cue_problems(d, design.cues, words)]
        if d.difficulty != "easy":  # fair: no tool reading as what an obstacle needs is
            # refused there (easy states several properties plainly, as the paper's does)
            problems += [f"{d.setting}: fair: {m}"
                         for m in fair_problems(d, design.needs, words, design.keys,
                                                       design.parts)]
        # version 6: one answer per code, cues that agree with the answer, crafts that make
        # sense, labels that tell the truth, words that do not mislead, no decoy links
        problems += [f"{d.setting}: code: {m}" for m in code_problems(d, design.codes, seen)]
        problems += [f"{d.setting}: agree: {m}" for m in cue_agreement_problems(
            d, design.needs, design.props, data["asks"], words, data["opposite"],
            data["first"], asks_in)]
        problems += [f"{d.setting}: craft: {m}" for m in craft_problems(
            d, design.crafts, data["because"], design.needs)]
        if d.difficulty == "normal":  # version 10: no craft's half is a guess (one version)
            problems += [f"{d.setting}: half: {m}" for m in half_problems(
                d, design.crafts, data["because"], design.needs,
                {**data["objects"], **design.tool_props}, data["asks"], asks_in, design.keys)]
        if d.difficulty == "normal":  # version 8: unique fit (what things are: one version)
            problems += [f"{d.setting}: fit: {m}" for m in fit_problems(
                d, design.needs, {**data["objects"], **design.tool_props}, design.props,
                [b for _a, b, _r, _i in design.crafts], data["asks"], asks_in, design.keys)]
        problems += [f"{d.setting}: label: {m}" for m in label_problems(d)]
        problems += [f"{d.setting}: keys: {m}" for m in key_problems(
            d, design.keys, data["signs"])]
        problems += [f"{d.setting}: verb: {m}" for m in verb_problems(
            d, design.props, data["verbs"])]
        problems += [f"{d.setting}: words: {m}" for m in text_problems(
            d, data["promises"], data["misfits"].get(design.theme, ()))]
        if d.difficulty != "easy":
            problems += [f"{d.setting}: decoy: {m}" for m in decoy_problems(
                d, data["links"], related, design.clues)]
        if d.difficulty != "easy":  # version 8, rule 17: every property step keeps a link
            problems += [f"{d.setting}: plain cue: {m}" for m in plain_cue_problems(
                d, prop_steps, data["hard_words"], data["asks"])]
            problems += [f"{d.setting}: plain cue: {m}" for m in source_problems(
                d, design.sources)]
        if d.difficulty == "hard":  # version 8: hard is terse, never cue-less
            problems += [f"{d.setting}: hard cue: {m}" for m in hard_cue_problems(
                d, design.needs, design.cues, design.crafts, design.shows,
                data["hard_words"], data["asks"], data["because"], data["has"])]
    normal = next(d for d in settings if d.difficulty == "normal")
    if not abstract_reaches_end(normal):
        problems.append("abstract search does not reach GAME END")
    for step in design.key_steps:
        if abstract_reaches_end(normal, [step]):
            problems.append(f"shortcut: GAME END is reachable without {step}")
    # distractors are inert: no transitions, no targets, named by nothing but the trigger
    # that shows one among the tools of a batch (which changes no other state)
    named = {w.arg for it in normal.items for st in it.states for tr in st.transitions
             for w in tr.waits} | {t.target for it in normal.items for st in it.states
                                   for tr in st.transitions for t in tr.triggers
                                   if not (t.kind == "change_visible" and t.value is True
                                           and t.target_kind == "tool")} | {
        x for tl in normal.tools for st in tl.states for x in (*st.apply_to, *st.wait_for)}
    for name, kind in design.node_kind.items():
        if kind != "distractor":
            continue
        if name in normal.item_index:
            it = normal.items[normal.item_index[name]]
            if any(st.transitions for st in it.states):
                problems.append(f"distractor {name} has a transition")
        if name in normal.tool_index:
            tl = normal.tools[normal.tool_index[name]]
            if any(st.apply_to or st.wait_for for st in tl.states):
                problems.append(f"distractor {name} can be used")
        if name in named:
            problems.append(f"distractor {name} is named by a step")


def _obstacle_texts(design: Design, settings: list[GameDefinition]) -> dict[str, list[str]]:
    """The obstacles' own texts before they are solved, in every version (what they ask
    for)."""
    asks_in: dict[str, list[str]] = {}
    for d in settings:
        for item, *_ in design.needs:
            if item in d.item_index:
                st = d.items[d.item_index[item]].states[0]
                asks_in.setdefault(item, []).extend(x for x in (st.desc, st.neg_reward) if x)
    return asks_in


def craft_guesses(game: Generated) -> list[str]:
    """The proof's half rule (:func:`~escapebench.generate.proof.half_problems`) on the normal
    version of a generated game: each craft of its reference at which another held tool has
    all a part alone gives. Empty for any game this version made; the benchmark counts it
    for older ones."""
    data = _proof_data()
    normal = next(d for d in game.settings if d.difficulty == "normal")
    design = game.design
    return half_problems(normal, design.crafts, data["because"], design.needs,
                         {**data["objects"], **design.tool_props}, data["asks"],
                         _obstacle_texts(design, game.settings), design.keys)


_DATA: dict[str, Any] = {}


def _proof_data() -> dict[str, Any]:
    """What the version-6 rules read of the data files, gathered once."""
    if not _DATA:
        aff, w = affordances(), word_data()
        cues = aff["cues"]
        _DATA["asks"] = {p: [*c["words"], *c.get("asks", [])] for p, c in cues.items()}
        _DATA["opposite"] = dict(aff.get("opposites", {}))
        _DATA["first"] = {o["name"]: o["properties"][0] for o in aff["objects"]}
        _DATA["objects"] = {o["name"]: list(o["properties"]) for o in aff["objects"]}
        _DATA["because"] = {tuple(c["parts"]): c.get("because", {}) for c in aff["crafts"]}
        misfits: dict[str, list[str]] = {}
        for o in aff["objects"]:
            for theme in o.get("not_in", []):
                misfits.setdefault(theme, []).append(o["name"])
        _DATA["misfits"] = misfits
        _DATA["verbs"] = [(v["words"], v["takes"]) for v in aff.get("verb_takes", [])]
        _DATA["promises"] = list(w.get("promises", []))
        _DATA["links"] = list(w.get("link_words", []))
        _DATA["signs"] = list(w.get("signs", []))
        _DATA["hard_words"] = {p: [x for x in c["words"] if x not in c.get("weak", [])]
                               for p, c in cues.items()}
        _DATA["has"] = {o["name"]: list(o["properties"]) for o in aff["objects"]}
    return _DATA


def generate_one(tier: int, seed: int, index: int, knobs: Knobs) -> Generated:
    """The ``index``-th game of ``(tier, seed)``: the first sub-seed whose candidate is
    proven. Raises RuntimeError after :data:`MAX_TRIES` failed candidates."""
    game_id = f"gen-t{tier}-s{seed}-{index:03d}"
    with collections_paused():
        return _generate_one(tier, seed, index, knobs, game_id)


def _generate_one(tier: int, seed: int, index: int, knobs: Knobs, game_id: str) -> Generated:
    reasons: list[str] = []
    for attempt in range(MAX_TRIES):
        try:
            design = build_design(knobs, _sub_rng(seed, tier, index, attempt), game_id)
            text, nodes = render_nodes(design.doc)
            settings, problems = prove(text, design, f"{game_id}.yaml", design.doc, nodes,
                                       first=True)
        except (ValueError, KeyError, IndexError, StopIteration) as exc:  # a candidate the
            # data cannot fill
            problems = [f"build failed: {type(exc).__name__}: {exc}"]
        if not problems:
            return Generated(game_id, text, settings, design, rejects=attempt,
                             sha256=hashlib.sha256(text.encode()).hexdigest(), reasons=reasons)
        reasons.append(problems[0])
    raise RuntimeError(f"{game_id}: no candidate passed in {MAX_TRIES} tries: {reasons[-1]}")


def generate_games(tier: int, count: int, seed: int,
                   overrides: dict[str, str] | None = None, *,
                   progress: Callable[[int, int], None] | None = None) -> list[Generated]:
    """``count`` proven games of ``tier`` from ``seed`` (deterministic); ``progress(done,
    count)`` is called after each game. Ctrl-C stops it at once (see :func:`interruptible`)."""
    knobs = knobs_for(tier, overrides)
    out: list[Generated] = []
    with interruptible():
        for i in range(count):
            out.append(generate_one(tier, seed, i, knobs))
            if progress is not None:
                progress(i + 1, count)
    return out


def generate_spec(spec: GenSpec, *, stream: IO[str] | None = None) -> list[Generated]:
    """The games a ``gen:`` spec names; a generation that takes more than a few seconds says
    how far it is on ``stream`` (default: stderr) every few seconds."""
    return generate_games(spec.tier, spec.count, spec.seed, dict(spec.overrides),
                          progress=Progress(spec.text(), stream))


class Progress:
    """``escapebench: generating SPEC: N of M games, about T left (Ctrl-C stops)``, first after
    :attr:`AFTER_S` seconds, then every :attr:`EVERY_S` seconds; nothing for a quick spec."""

    AFTER_S = 2.0
    EVERY_S = 5.0

    def __init__(self, label: str, stream: IO[str] | None = None) -> None:
        self.label = label
        self.stream = stream
        self.started = time.monotonic()
        self.next = self.started + self.AFTER_S

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now < self.next or done >= total:
            return
        self.next = now + self.EVERY_S
        left = (now - self.started) / done * (total - done)
        when = (f"{left / 3600:.1f} h" if left >= 3600 else f"{left / 60:.0f} min"
                if left >= 60 else f"{left:.0f} s")
        print(f"escapebench: generating {self.label}: {done} of {total} games, about {when} "
              "left (Ctrl-C stops)", file=self.stream or sys.stderr, flush=True)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt at once while the block runs, also inside an asyncio
    loop (``escapebench run`` resolves its games there; the loop's own handler only cancels
    its task when the loop next gets control, which generation does not give it). A process
    that ignores SIGINT (started in the background) keeps ignoring it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous in (signal.SIG_IGN, None, signal.default_int_handler):
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
