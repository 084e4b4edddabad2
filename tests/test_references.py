"""Every ``escapebench.<module>`` named in the docs, docstrings, benchmarks and tests exists.

Moving a module leaves its old dotted path behind in prose, where no import fails; this finds
them. Names are resolved statically (files, and top-level names read with :mod:`ast`), so the
optional extras need not be installed and nothing is imported.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
# A dotted name of the package; not a file name (``escapebench.yaml``) or a sentence's full stop.
DOTTED = re.compile(r"(?<![\w./-])(escapebench(?:\.[A-Za-z_]\w*)+)(?![\w-])")
# Files that name missing modules on purpose: the import walk's and this test's own examples.
EXAMPLES = {"tests/test_architecture.py", "tests/test_references.py"}


@functools.cache
def module_file(dotted: str) -> Path | None:
    """The file of module ``dotted`` under src/, or None."""
    base = SRC.joinpath(*dotted.split("."))
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _defined(node: ast.stmt) -> list[str]:
    """The names a top-level statement binds."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, ast.If | ast.Try):  # `if TYPE_CHECKING:`, `try: import ...`
        return [n for sub in node.body + node.orelse for n in _defined(sub)]
    return []


@functools.cache
def top_level(path: Path) -> dict[str, ast.stmt]:
    """Name -> the statement that binds it, for a module's top level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {name: node for node in tree.body for name in _defined(node)}


@functools.cache
def string_constants(path: Path) -> frozenset[str]:
    """Every string literal of a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(n.value for n in ast.walk(tree)
                     if isinstance(n, ast.Constant) and isinstance(n.value, str))


def class_members(node: ast.ClassDef) -> set[str]:
    """Methods, class attributes and ``self.x`` attributes of a class."""
    members = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            members.add(sub.name)
        elif isinstance(sub, ast.AnnAssign | ast.Assign):
            targets = [sub.target] if isinstance(sub, ast.AnnAssign) else sub.targets
            members |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) \
                and sub.value.id == "self":
            members.add(sub.attr)
    return members


def resolves(name: str) -> bool:
    """Whether ``a.b.c`` is a module of ours, a name in one, or a member of a class in one."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        path = module_file(".".join(parts[:i]))
        if path is not None:
            break
    else:
        return False
    rest = parts[i:]
    if not rest:
        return True
    names = top_level(path)
    if rest[0] in ("__file__", "__name__", "__path__", "__doc__"):
        return True  # what every module has
    if rest[0] not in names:
        # a lazy export or a deprecated name a module-level __getattr__ serves: named as a
        # string in the module (its table of lazy names, its ``name == "Old"`` test)
        return "__getattr__" in names and rest[0] in string_constants(path)
    node = names[rest[0]]
    if len(rest) > 1 and isinstance(node, ast.ClassDef):
        return rest[1] in class_members(node)
    return True


def stale_references(files: list[Path], root: Path = ROOT) -> list[str]:
    """``file:line: name`` for each dotted name under one of our parts that does not resolve.

    A name whose first part is no module of ours (a logger called ``escapebench.serve``, an
    entry-point group) is not a reference to code and is left alone.
    """
    found = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        for m in DOTTED.finditer(text):
            name = m.group(1)
            if module_file(".".join(name.split(".")[:2])) is None:
                continue
            if not resolves(name):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{path.relative_to(root).as_posix()}:{line}: {name}")
    return found


PARTS = ("engine", "llm", "protocols", "games", "agents", "bench", "play", "report", "web",
         "integrations")
# A file of ours named in the docs: `bench/hints.py`, `tests/play/test_play.py`, `cli.py`...
FILE_PATH = re.compile(
    r"`((?:src/escapebench/|tests/|benchmarks/)?(?:(?:" + "|".join(PARTS) +
    r"|tests|benchmarks)/)[\w/]*\w\.py)`"
)


def missing_files(docs: list[Path], root: Path = ROOT) -> list[str]:
    """``doc:line: path`` for each file path of ours a document names that does not exist."""
    found = []
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        for m in FILE_PATH.finditer(text):
            path = m.group(1)
            if not any((base / path).is_file() for base in (root, root / "src" / "escapebench")):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{doc.relative_to(root).as_posix()}:{line}: {path}")
    return found


def test_every_file_the_docs_name_exists() -> None:
    docs = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    missing = missing_files(docs)
    assert missing == [], "files the docs name that do not exist:\n" + "\n".join(missing)


def test_every_dotted_name_in_docs_docstrings_and_tests_exists() -> None:
    files = [
        *SRC.rglob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py"),
        *(ROOT / "docs").glob("*.md"), ROOT / "README.md",
    ]
    mine = [f for f in sorted(files) if f.relative_to(ROOT).as_posix() not in EXAMPLES]
    stale = stale_references(mine)
    assert stale == [], "names of modules or objects that do not exist:\n" + "\n".join(stale)


def test_a_moved_module_left_in_prose_is_found(tmp_path: Path) -> None:
    doc = tmp_path / "moved.md"
    doc.write_text(
        "Start at `escapebench.bench.hints.HintPolicy` and `escapebench.engine.env`;\n"
        "the old `escapebench.games.checking` and `escapebench.bench.hints.NoSuchPolicy`\n"
        "are gone. The logger `escapebench.serve` is no module.\n"
    )
    assert stale_references([doc], root=tmp_path) == [
        "moved.md:2: escapebench.games.checking",
        "moved.md:2: escapebench.bench.hints.NoSuchPolicy",
    ]


def test_a_moved_file_left_in_the_docs_is_found(tmp_path: Path) -> None:
    (tmp_path / "src" / "escapebench" / "bench").mkdir(parents=True)
    (tmp_path / "src" / "escapebench" / "bench" / "hints.py").write_text("")
    doc = tmp_path / "moved.md"
    doc.write_text("See `bench/hints.py`, not `bench/runner.py`; `report/index.html` is output.\n")
    assert missing_files([doc], root=tmp_path) == ["moved.md:1: bench/runner.py"]
