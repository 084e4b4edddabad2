"""The report's game pages: each game a report's runs played, with its dependency graph.

A result folder's ``run.json`` records every game it played (``bench.plan.game_record``): the
file and its sha256, or, for a game of a ``gen:`` spec, the spec and the generator version.
From that record the game is found again -- the file read (or a built-in file with the same
hash, when the package has moved), or the spec generated anew -- and drawn by
:mod:`escapebench.generate.graph`, the same drawing as ``escapebench generate --graph``: scenes,
locks, tools and creative steps marked. A game whose file is gone or changed since the run gets
a page that says so instead of a picture of another game.

Pictures are named by the game's hash, so ``escapebench serve``, which rebuilds the report
after every step of a live run, draws each game once.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from escapebench import __version__
from escapebench.engine.model import GameDefinition
from escapebench.report.runs import RunFolder, safe_slug

__all__ = ["GAMES_DIR", "GamePage", "game_pages", "marked_parts"]

GAMES_DIR = "games"
# Bumped when the drawing or the page's lists change, so kept pictures are drawn again.
PAGE_VERSION = "3"


@dataclass
class GamePage:
    """One game of a report: where its page and picture are, and what the picture marks."""

    game: str
    settings: list[str]
    source: str  # what the run recorded: "file ..." or "gen:... (generator N)"
    slug: str
    picture: str | None = None  # path of the PNG, relative to the report folder
    problem: str | None = None  # why there is no picture
    scenes: list[str] = field(default_factory=list)
    locks: list[str] = field(default_factory=list)  # "item (needs tool)" / "item (needs a code)"
    tools: list[str] = field(default_factory=list)
    creative: list[str] = field(default_factory=list)  # creative steps, as sentences
    generated: bool = False  # a game of a gen: spec (its design knows its creative steps)

    @property
    def page(self) -> str:
        """Path of the game's page, relative to the report folder."""
        return f"{GAMES_DIR}/{self.slug}.html"


def marked_parts(d: GameDefinition) -> dict[str, list[str]]:
    """What a game's graph marks, as text: its scenes, its locks (items a tool or a code
    opens, with what opens them) and its tools."""
    from escapebench.generate.graph import dependency_edges

    needs: dict[str, list[str]] = {}
    for a, b, kind in dependency_edges(d):
        if kind in ("apply", "input") and b.startswith("item:"):
            what = a.split(":", 1)[1]
            needs.setdefault(b.split(":", 1)[1], []).append(
                what if kind == "apply" else f"the code {what}")
    return {
        "scenes": [s.name for s in d.scenes],
        "locks": [f"{name} (needs {', '.join(sorted(set(w)))})"
                  for name, w in sorted(needs.items())],
        "tools": [t.name for t in d.tools],
    }


class _Finder:
    """Finds the game a ``run.json`` record names; generates each ``gen:`` spec once."""

    def __init__(self) -> None:
        self.generated: dict[str, Any] = {}

    def definition(self, rec: dict[str, Any], run_path: Path) -> tuple[GameDefinition, Any]:
        """The recorded setting and, for a generated game, its design; raises ValueError
        saying why the game cannot be found as it was played. A relative file name (as the
        run's command line gave it) is looked for here, then next to the result folder."""
        gen = rec.get("generated")
        if isinstance(gen, dict):
            return self._generated(rec, gen)
        return self._from_file(rec, run_path), None

    def _generated(self, rec: dict[str, Any], gen: dict[str, Any]) -> tuple[GameDefinition, Any]:
        from escapebench.generate.make import (
            GENERATOR_VERSION,
            generate_spec,
            makes_games_of,
            parse_gen_spec,
        )

        spec = str(gen.get("spec", ""))
        try:
            tier = parse_gen_spec(spec).tier
        except ValueError:
            tier = -1  # the spec's own problem is said below, when it is generated
        if not makes_games_of(str(gen.get("generator_version")), tier):
            raise ValueError(
                f"made by generator version {gen.get('generator_version')}; this escapebench "
                f"has version {GENERATOR_VERSION}, which makes other games from {spec}")
        if spec not in self.generated:
            try:
                self.generated[spec] = generate_spec(parse_gen_spec(spec))
            except (ValueError, RuntimeError) as exc:
                self.generated[spec] = exc
        games = self.generated[spec]
        if isinstance(games, Exception):
            raise ValueError(f"{spec} cannot be generated: {games}")
        for g in games:
            if f"{g.game_id}.yaml" == rec.get("file"):
                if rec.get("sha256") and g.sha256 != rec["sha256"]:
                    raise ValueError(f"{spec} now makes another {rec['file']} (sha256 differs)")
                for d in g.settings:
                    if d.setting == rec.get("setting"):
                        return d, g.design
        raise ValueError(f"{spec} makes no {rec.get('file')}")

    @staticmethod
    def _from_file(rec: dict[str, Any], run_path: Path) -> GameDefinition:
        from escapebench.games.loading import (
            GameFileError,
            builtin_files,
            file_sha256,
            load_file,
        )

        want = str(rec.get("sha256") or "")
        named = Path(str(rec.get("file") or ""))
        if rec.get("file") and not named.is_absolute() and not named.is_file():
            for base in (run_path.parent, run_path):
                if (base / named).is_file():
                    named = base / named
                    break
        candidates = []
        if rec.get("file") and named.is_file() and (not want or file_sha256(named) == want):
            candidates.append(named)
        elif want:  # a built-in file with the same bytes (the package moved or was reinstalled)
            candidates += [f for f in builtin_files() if file_sha256(f) == want]
        for path in candidates:
            try:
                for d in load_file(path):
                    if d.setting == rec.get("setting"):
                        return d
            except (GameFileError, OSError):
                continue
        if rec.get("file") and named.is_file():
            raise ValueError(f"{named} has changed since the run (sha256 differs)")
        raise ValueError(f"the game file {rec.get('file') or '(none recorded)'} is not here")


def _source(rec: dict[str, Any]) -> str:
    gen = rec.get("generated")
    if isinstance(gen, dict):
        return f"{gen.get('spec')} (generator version {gen.get('generator_version')})"
    return f"file {rec.get('file') or '(not recorded)'}"


def _groups(runs: Sequence[RunFolder]) -> list[tuple[dict[str, Any], list[str], Path]]:
    """One (record to draw, settings) per game: the normal version's record when recorded.

    Records of one game name whose drawn file differs (a file edited between two runs) are
    separate games."""
    by_game: dict[str, list[dict[str, Any]]] = {}
    folder: dict[int, Path] = {}
    for run in runs:
        for rec in run.run_info.get("games") or []:
            if isinstance(rec, dict) and rec.get("setting"):
                by_game.setdefault(str(rec.get("game") or rec["setting"]), []).append(rec)
                folder.setdefault(id(rec), run.path)
    out = []
    for game in sorted(by_game):
        recs = by_game[game]
        normals = [r for r in recs if r.get("difficulty") == "normal"] or recs
        variants: dict[str, dict[str, Any]] = {}
        for r in normals:
            variants.setdefault(str(r.get("sha256") or ""), r)
        settings = sorted({str(r["setting"]) for r in recs})
        for rec in variants.values():
            out.append((rec, settings, folder[id(rec)]))
    return out


def game_pages(runs: Sequence[RunFolder], out_dir: Path,
               cache_dir: Path | None = None) -> list[GamePage]:
    """Draw (or keep from an earlier build) the graph of every game ``runs`` recorded, into
    ``out_dir/games/``; returns the pages to write. Pictures are kept in ``cache_dir`` when it
    is given (``escapebench serve`` keeps one for its builds, ``escapebench report`` one in its
    folder), else in the report folder itself; files of games no longer shown are removed from
    both."""
    folder = out_dir / GAMES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    keep = folder if cache_dir is None else cache_dir / GAMES_DIR
    keep.mkdir(parents=True, exist_ok=True)
    finder = _Finder()
    pages: list[GamePage] = []
    used: set[str] = set()
    slugs: set[str] = set()
    for rec, settings, run_path in _groups(runs):
        game = str(rec.get("game") or rec["setting"])
        slug = safe_slug(game)
        if slug in slugs:  # the same game name with another file
            slug = safe_slug(f"{game}-{str(rec.get('sha256') or 'x')[:8]}")
        slugs.add(slug)
        page = GamePage(game, settings, _source(rec), slug,
                        generated=isinstance(rec.get("generated"), dict))
        key = hashlib.sha256(json.dumps(
            [PAGE_VERSION, __version__, rec.get("setting"), rec.get("sha256"),
             rec.get("generated")], sort_keys=True, default=str).encode()).hexdigest()[:16]
        png, meta = keep / f"{slug}-{key}.png", keep / f"{slug}-{key}.json"
        used |= {png.name, meta.name, f"{slug}.html"}
        kept = _kept(meta, png) if rec.get("sha256") else None
        if kept is not None:
            for k in ("scenes", "locks", "tools", "creative"):
                setattr(page, k, kept[k])
        else:
            _draw(page, rec, finder, png, meta, run_path)
        if png.is_file() and page.problem is None:
            if keep != folder:
                shutil.copy2(png, folder / png.name)  # its time says when it was drawn
            page.picture = f"{GAMES_DIR}/{png.name}"
        pages.append(page)
    for d in {folder, keep}:
        for f in d.iterdir():
            if f.is_file() and f.name not in used:
                f.unlink()
    return pages


def _kept(meta: Path, png: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
        return data if png.is_file() and isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def _draw(page: GamePage, rec: dict[str, Any], finder: _Finder, png: Path, meta: Path,
          run_path: Path) -> None:
    from escapebench.generate.graph import draw_definition, draw_design

    try:
        d, design = finder.definition(rec, run_path)
    except ValueError as exc:
        page.problem = str(exc)
        return
    parts = marked_parts(d)
    page.scenes, page.locks, page.tools = parts["scenes"], parts["locks"], parts["tools"]
    if design is not None:
        page.creative = list(design.creative)
        draw_design(design, png, d)
    else:
        # the steps the game file marks creative (`creative: true`, docs/game-format.md)
        from escapebench.bench.tool_choice import creative_keys

        marked = creative_keys(d)
        page.creative = [f"{a} applied to {b}" if verb == "apply" else f"craft({a}, {b})"
                         for verb, a, b in sorted(marked)]
        draw_definition(d, png, frozenset(
            w.arg for it in d.items for st in it.states for tr in st.transitions
            if tr.creative for w in tr.waits
            if w.kind == "apply" and (tr.creative is True or w.arg in tr.creative)))
    data = {k: v for k, v in asdict(page).items() if k in ("scenes", "locks", "tools",
                                                              "creative")}
    meta.write_text(json.dumps(data), encoding="utf-8")
