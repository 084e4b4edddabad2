"""Where the games of ``--games`` come from: every game spec is read here.

A spec is one of:

* a source of game files (:mod:`escapebench.games.loading`): ``builtin`` (every built-in
  game), a built-in game or setting by name (``lab``, ``lab-hard``), a game file, a folder
  (of our files, or an original checkout's ``data`` folder), or a glob;
* a prefixed source from :data:`SOURCES`: ``gen:tier=T,count=N,seed=S[,knob=v...]`` makes
  games in memory with :mod:`escapebench.generate`.

A prefix is looked for in one place, :func:`source_of`. A value may list several specs with
commas, as Inspect's ``-T games=lab,ship`` does (:func:`split_specs`); a prefixed spec keeps
its own ``name=value`` parts, and a value that is an existing path is one spec, commas and all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from escapebench.engine.model import GameDefinition, GeneratedFrom
from escapebench.games import loading, playable
from escapebench.games.loading import GameFileError
from escapebench.games.validation import SettingReport, check_definition, check_paths, failed_report


@dataclass(frozen=True)
class Source:
    """A kind of spec named by its prefix, and how it makes its settings (raising
    :class:`GameFileError` with ``not_a_file`` for a spec it cannot make)."""

    prefix: str
    settings: Callable[[str], list[GameDefinition]]
    form: str  # how its specs are written, for messages and help


SOURCES: dict[str, Source] = {}


def register(source: Source) -> None:
    """Add a prefixed source (its specs are ``prefix`` then ``name=value`` parts)."""
    SOURCES[source.prefix] = source


def source_of(spec: str) -> Source | None:
    """The prefixed source ``spec`` names, or None for a spec of game files."""
    for prefix, source in SOURCES.items():
        if spec.startswith(prefix):
            return source
    return None


_PARAM = re.compile(r"\s*[A-Za-z_]+\s*=[^=]*")  # one name=value part of a prefixed spec


def split_specs(values: Iterable[str]) -> list[str]:
    """The specs in ``values``, comma lists split: ``["lab,tutorial"]`` is ``lab`` and
    ``tutorial``; ``gen:tier=1,count=2,lab`` is ``gen:tier=1,count=2`` and ``lab`` (also when
    the parts come already split, as Inspect splits a ``-T`` value); an existing path stays
    whole. A value with nothing between its commas is kept as it is, to be refused by name."""
    out: list[str] = []
    for value in map(str, values):
        parts = value.split(",") if "," in value and not Path(value).exists() else [value]
        if not any(p.strip() for p in parts):
            parts = [value]  # nothing but commas: refused by name where it is resolved
        for part in parts:
            if out and source_of(out[-1]) and _PARAM.fullmatch(part):
                out[-1] += "," + part.strip()
            elif len(parts) == 1:
                out.append(value)  # one spec, as given
            elif part.strip():
                out.append(part.strip())
    return out


def resolve(spec: str, failed: list[GameFileError]) -> list[GameDefinition]:
    """The settings of one ``--games`` value (a comma list is each of its specs); what cannot
    be loaded or made is added to ``failed``."""
    out: list[GameDefinition] = []
    for one in split_specs([spec]):
        source = source_of(one)
        if source is None:
            out += loading.resolve_file_spec(one, failed)
            continue
        try:
            out += source.settings(one)
        except GameFileError as exc:
            failed.append(exc)
    return out


def load_games(specs: Iterable[str] | None = None, difficulties: Iterable[str] | None = None
               ) -> list[GameDefinition]:
    """The settings ``specs`` name (default: every built-in game), in order, each once;
    ``difficulties`` filters them. Raises :class:`GameFileError` for the first spec that
    names nothing or does not load."""
    return loading.load_games(_specs(specs), difficulties, resolve=resolve)


def load_games_reporting(
    specs: Iterable[str] | None = None, difficulties: Iterable[str] | None = None
) -> tuple[list[GameDefinition], list[GameFileError]]:
    """Like :func:`load_games`, with what cannot be loaded returned next to the settings."""
    return loading.load_games_reporting(_specs(specs), difficulties, resolve=resolve)


def pick_setting(spec: str, difficulty: str | None) -> GameDefinition:
    """The one setting ``spec`` names (see :func:`escapebench.games.loading.pick_setting`)."""
    return loading.pick_setting(spec, difficulty, resolve=resolve)


def load_playable(specs: Sequence[str], difficulties: Sequence[str] | None = None
                  ) -> list[GameDefinition]:
    """The settings ``specs`` name, all playable (see
    :func:`escapebench.games.playable.load_playable`)."""
    return playable.load_playable(split_specs(specs), difficulties, resolve=resolve)


def check_specs(specs: Sequence[str], *, run_solver: bool = True) -> list[SettingReport]:
    """``escapebench check`` on specs: every setting of every file (or made game) they name; a
    spec that names nothing is a failed report, not an exception."""
    out: list[SettingReport] = []
    for spec in split_specs(specs):
        source = source_of(spec)
        if source is None:
            out += check_paths([spec], run_solver=run_solver)
            continue
        try:
            made = source.settings(spec)
        except GameFileError as exc:
            out.append(failed_report(Path(spec), exc))
            continue
        out.extend(check_definition(d, run_solver=run_solver) for d in made)
    return out


def _specs(specs: Iterable[str] | None) -> list[str] | None:
    return None if specs is None else split_specs(specs)


def generated_games(spec: str) -> list[GameDefinition]:
    """The settings of a ``gen:tier=T,count=N,seed=S[,knob=v]`` spec, generated in memory,
    each with its :class:`~escapebench.engine.model.GeneratedFrom` (``generated``: the spec,
    the generator version, the sha256 of the game's YAML and its file name). Raises
    :class:`GameFileError` for a bad spec. (The
    generator is imported here, when a spec needs it: a run of files does without it.)"""
    from escapebench.generate import make

    try:
        parsed = make.parse_gen_spec(spec)
        games = make.generate_spec(parsed)
    except (ValueError, RuntimeError) as exc:
        problem = str(exc)
        if problem.startswith(f"{spec}: "):  # said once, by the error's own place
            problem = problem[len(spec) + 2:]
        raise GameFileError(spec, problem, not_a_file=True) from None
    return [replace(d, generated=GeneratedFrom(parsed.text(), make.GENERATOR_VERSION, g.sha256,
                                               f"{g.game_id}.yaml"))
            for g in games for d in g.settings]


register(Source("gen:", generated_games, "gen:tier=T,count=N,seed=S[,knob=v...]"))
