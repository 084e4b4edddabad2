"""The package layout as docs/architecture.md draws it, kept so by walking the imports.

Every ``import`` in ``src/`` counts: at module level, inside functions and under
``TYPE_CHECKING`` alike, since each is a dependency a reader has to follow. So does a module
loaded by name: in a module that calls ``import_module`` (or ``__import__``), every string that
names one of our modules is an import of it (a verb's module in the CLI's table, a lazily
loaded class in a package's ``__getattr__``).
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

# What each part of the package may import (besides itself and the leaf modules every part
# may use: ``escapebench`` for the version, ``escapebench.exit_codes`` and
# ``escapebench.terminal``). Lower layers first;
# docs/architecture.md draws the same table.
BELOW_PLAY = {"engine", "llm", "protocols", "games", "agents", "bench", "generate", "catalog"}
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "llm": set(),
    "protocols": {"engine", "llm"},
    "games": {"engine", "protocols"},
    "agents": {"engine", "llm", "protocols"},
    "generate": {"engine", "games"},
    "catalog": {"engine", "protocols", "games", "generate"},
    "bench": {"engine", "llm", "protocols", "games", "agents", "catalog"},
    "play": BELOW_PLAY,
    "report": {"engine", "protocols", "games", "bench", "generate", "catalog"},
    "web": BELOW_PLAY | {"play", "report"},
    "integrations": BELOW_PLAY,
    "gym": {"integrations"},
    "cli": BELOW_PLAY | {"play", "report", "web", "integrations"},
    "escapebench_verifiers": {"integrations"},
}
LEAVES = {"escapebench", "exit_codes", "terminal", "gc_pause", "json_limits", "serving"}
PACKAGES = ("engine", "llm", "protocols", "games", "agents", "bench", "play", "report", "web",
            "integrations", "generate", "catalog")


@dataclass(frozen=True)
class Import:
    """One imported module (and name, for ``from m import name``) at a line of a module."""

    importer: str
    module: str
    name: str | None
    line: int


def module_names(src: Path) -> dict[str, Path]:
    """Dotted name -> file, for every module under ``src``."""
    names = {}
    for path in sorted(src.rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def imports_of(name: str, path: Path, known: dict[str, Path]) -> list[Import]:
    """The first-party imports of one module, each resolved to the module it loads."""
    found = []
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    if loads_by_name(tree):
        found += [Import(name, node.value, None, node.lineno) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and node.value in known]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(name, a.name, None, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in known:  # `from package import module`
                    found.append(Import(name, submodule, None, node.lineno))
                else:
                    found.append(Import(name, base, alias.name, node.lineno))
    first_party = ("escapebench", "escapebench_verifiers")
    return [i for i in found if i.module.split(".")[0] in first_party]


def loads_by_name(tree: ast.AST) -> bool:
    """Whether a module calls ``import_module``/``importlib.import_module`` or ``__import__``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(
                f, ast.Attribute) else ""
            if called in ("import_module", "__import__"):
                return True
    return False


def part_of(module: str) -> str:
    """The part of the layout a module belongs to: ``escapebench.bench.hints`` -> ``bench``."""
    parts = module.split(".")
    if parts[0] != "escapebench":
        return parts[0]
    return parts[1] if len(parts) > 1 else "escapebench"


def is_private(dotted: str) -> bool:
    return any(p.startswith("_") and not p.startswith("__") for p in dotted.split("."))


@dataclass
class Layout:
    modules: dict[str, Path]
    edges: dict[str, list[Import]]

    @classmethod
    def read(cls, src: Path) -> Layout:
        modules = module_names(src)
        return cls(modules, {m: imports_of(m, p, modules) for m, p in modules.items()})

    def cycles(self) -> list[list[str]]:
        """Groups of modules that import each other, directly or through others (Tarjan)."""
        graph = {m: sorted({i.module for i in imps if i.module in self.modules})
                 for m, imps in self.edges.items()}
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        groups: list[list[str]] = []

        def visit(v: str) -> None:
            index[v] = low[v] = len(index)
            stack.append(v)
            on_stack.add(v)
            for w in graph[v]:
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1 or v in graph[v]:
                    groups.append(sorted(group))

        for v in graph:
            if v not in index:
                visit(v)
        return groups

    def problems(self, allowed: dict[str, set[str]]) -> list[str]:
        """Every import that breaks the layout, as ``file:line: what``."""
        out = []
        for imps in self.edges.values():
            for i in imps:
                src, dst = part_of(i.importer), part_of(i.module)
                where = f"{i.importer}:{i.line}"
                if src == dst:
                    continue
                target = i.module + (f".{i.name}" if i.name else "")
                if is_private(target):
                    out.append(f"{where}: imports the private {target} of another part")
                if dst not in LEAVES and dst not in allowed.get(src, set()):
                    out.append(f"{where}: {src} may not import {dst} ({target})")
        for group in self.cycles():
            out.append("import cycle: " + " -> ".join(group))
        return out


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_package_follows_its_layers_without_cycles_or_private_reach_ins() -> None:
    if not (SRC / "escapebench").is_dir():
        pytest.skip("no src/ next to the tests (installed package)")
    problems = Layout.read(SRC).problems(ALLOWED)
    assert problems == [], "\n".join(problems)


def test_every_part_of_the_layout_is_in_the_table() -> None:
    parts = {part_of(m) for m in module_names(SRC)}
    assert parts - LEAVES <= set(ALLOWED), sorted(parts - LEAVES - set(ALLOWED))


def test_the_tests_mirror_the_parts_of_the_package() -> None:
    # tests/<part>/ tests src/escapebench/<part>/; tests/support/ is what several parts share.
    tests = Path(__file__).resolve().parent
    folders = {p.name for p in tests.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders - {"support"} <= set(PACKAGES), sorted(folders - {"support"} - set(PACKAGES))


def test_the_walk_catches_a_cycle_a_private_name_and_a_layer_broken(tmp_path: Path) -> None:
    # The checker itself on a small tree with one of each problem, so a walk that silently
    # stopped seeing imports would fail here rather than pass above.
    src = _write(tmp_path, {
        "escapebench/__init__.py": "",
        "escapebench/engine/__init__.py": "",
        "escapebench/engine/env.py": "from escapebench.engine import observation\n",
        "escapebench/engine/observation.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from escapebench.engine.env import Game\n"
        ),
        "escapebench/bench/__init__.py": "",
        "escapebench/bench/hints.py": "from escapebench.engine.env import _IN_SCENE\n",
        "escapebench/agents/__init__.py": "",
        "escapebench/agents/human.py": "def f():\n    from ..bench import hints\n",
    })
    problems = Layout.read(src).problems(ALLOWED)
    assert problems == [
        "escapebench.agents.human:2: agents may not import bench (escapebench.bench.hints)",
        "escapebench.bench.hints:1: imports the private escapebench.engine.env._IN_SCENE of "
        "another part",
        "import cycle: escapebench.engine.env -> escapebench.engine.observation",
    ]


def _public_packages() -> Iterable[str]:
    return [f"escapebench.{p}" for p in PACKAGES if (SRC / "escapebench" / p).is_dir()]


@pytest.mark.parametrize("package", _public_packages())
def test_each_package_names_its_public_api(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__doc__ and len(module.__doc__.strip().splitlines()) > 1, (
        f"{package}: its docstring should say what the package is and where to start")
    names = getattr(module, "__all__", None)
    assert names, f"{package}/__init__.py lists no public names in __all__"
    missing = [n for n in names if not hasattr(module, n)]
    assert missing == [], f"{package}.__all__ names what it does not hold: {missing}"
    assert not [n for n in names if n.startswith("_")]


def test_the_walk_follows_modules_loaded_by_name(tmp_path: Path) -> None:
    # A circle closed by importlib (as games once loaded the generator that imports games)
    # is a circle; so is one through a table of names that a package's __getattr__ loads.
    src = _write(tmp_path, {
        "escapebench/__init__.py": "",
        "escapebench/games/__init__.py": "",
        "escapebench/games/loading.py": (
            "import importlib\n"
            "def generated(spec):\n"
            "    return importlib.import_module('escapebench.generate.make').make(spec)\n"
        ),
        "escapebench/generate/__init__.py": "",
        "escapebench/generate/make.py": "from escapebench.games.loading import generated\n",
        "escapebench/engine/__init__.py": (
            "from importlib import import_module\n"
            "_LAZY = {'Game': 'escapebench.engine.env'}\n"
            "def __getattr__(name):\n"
            "    return getattr(import_module(_LAZY[name]), name)\n"
        ),
        "escapebench/engine/env.py": "import escapebench.engine\n",
    })
    problems = Layout.read(src).problems(ALLOWED)
    assert problems == [
        "escapebench.games.loading:3: games may not import generate (escapebench.generate.make)",
        "import cycle: escapebench.engine -> escapebench.engine.env",
        "import cycle: escapebench.games.loading -> escapebench.generate.make",
    ]
    # the same tree without the importlib call: the string is only a string, no circle
    (src / "escapebench/games/loading.py").write_text(
        "def generated(spec):\n    return 'escapebench.generate.make'\n")
    assert Layout.read(src).problems(ALLOWED) == [
        "import cycle: escapebench.engine -> escapebench.engine.env"]


# ---------------------------------------------------------------------- one step, one path
ENGINE_STEP_ALLOWED = {
    ("bench/loop.py", "_play"):
        "the turn loop: EscapeEnv.step plays every player's turn here",
    ("protocols/base.py", "play"):
        "Session.play, a protocol's play outside a turn loop (the replay verb's trace check "
        "below the harness, tests); no player's turn",
    ("bench/hints.py", "reference_effects"):
        "replays the reference chain on a fresh game of its own, once per setting, to learn "
        "what each reference action does; a simulation, not a turn",
    ("games/reference.py", "replay_reference"):
        "the static check's replay of the reference chain (check, generate's proof)",
    ("games/solver.py", "_collect_all"): "the solver's search of the game's states",
    ("games/solver.py", "solve"): "the solver's search of the game's states",
    ("generate/structure.py", "chain_shape"):
        "the generator measures a candidate game by replaying its chain",
}
"""Where ``src/`` may call an engine's ``step`` (file, function) and why: everywhere else a
step is a player's turn, and only the turn loop plays one."""


def engine_step_calls(package: Path) -> list[tuple[str, str, int]]:
    """Every ``<...>game.step(...)`` call under ``package`` (file relative to it, enclosing
    function, line): a call of ``step`` on a name or attribute called ``game`` or ``_game``,
    the engine's name everywhere in the package."""
    found = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr == "step"):
                    continue
                owner = node.func.value
                name = (owner.id if isinstance(owner, ast.Name)
                        else owner.attr if isinstance(owner, ast.Attribute) else "")
                if name in ("game", "_game"):
                    found.append((rel, func.name, node.lineno))
    # a call in a nested function is found under each enclosing one: keep the innermost
    innermost: dict[tuple[str, int], tuple[str, str, int]] = {}
    for rel, name, line in found:
        innermost[(rel, line)] = (rel, name, line)
    return sorted(innermost.values(), key=lambda c: (c[0], c[2]))


def test_one_place_in_src_steps_the_engine_for_a_turn() -> None:
    calls = engine_step_calls(SRC / "escapebench")
    outside = [f"{rel}:{line} ({name})" for rel, name, line in calls
               if (rel, name) not in ENGINE_STEP_ALLOWED]
    assert outside == [], (
        "only the turn loop (bench/loop.py EscapeEnv._play) steps the engine for a turn; a "
        "protocol says what to play (Session.prepare) and renders the result (Session.render): "
        + ", ".join(outside))
    assert [c for c in calls if c[0] == "bench/loop.py"] != []


def test_the_step_check_finds_a_planted_caller(tmp_path: Path) -> None:
    _write(tmp_path, {
        "bench/loop.py": "def _play(self, a):\n    return self.game.step(a)\n",
        "protocols/mine.py": (
            "class S:\n    def play(self, game, a):\n        def inner():\n"
            "            return game.step(a)\n        return inner()\n"
        ),
        "bench/other.py": "def f(env):\n    return env.step(1)\n",
    })
    assert engine_step_calls(tmp_path) == [
        ("bench/loop.py", "_play", 2), ("protocols/mine.py", "inner", 4)]
