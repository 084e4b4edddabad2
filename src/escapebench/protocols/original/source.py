"""Reading the texts of the original EscapeBench harness from a user's checkout, at run time.

The original release has no license, so escapebench ships none of its sentences. A user who
wants the ``original`` protocol has the checkout (it is where the 36 game files come from);
this module finds it and reads its Python files *as data*, with :mod:`ast`: nothing in the
checkout is imported or executed.

Two kinds of text are read:

* module-level constants (the prompts of ``src/instruction.py``, the verb list of
  ``src/utils.py``), evaluated by :func:`constant_value`, a small evaluator of literal
  expressions (strings, numbers, lists, dicts, ``+``, slices, and the ``str`` methods
  ``join/split/strip/replace/lower/upper``) that refuses anything else;
* *messages* inside functions (the feedback of ``src/env/*.py``, the prompt frame of
  ``src/agent_base.py``): every string expression a statement assigns, adds, returns, asserts
  or raises, flattened into literal pieces and holes (:class:`Message`). A message is found by
  the name of its function and its place among that function's messages, and its number of
  holes is checked (:meth:`OriginalSource.message`), so a changed checkout fails with a clear
  error instead of showing a model the wrong text.

Finding the checkout: the folder given with ``--original-source`` (the checkout or its
``src``), else, when the games come from ``CHECKOUT/data``, ``CHECKOUT/src``
(:func:`find_source`). The sha256 of every file read is kept (:attr:`OriginalSource.files`) and
recorded in run.json.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The files of the original harness that hold what a model reads (relative to CHECKOUT/src).
SOURCE_FILES = (
    "instruction.py",
    "agent_base.py",
    "agent_creative.py",
    "utils.py",
    "env/graph.py",
    "env/scene.py",
    "env/item.py",
    "env/bag.py",
)
# The files that must be there for the base protocol (agent_creative.py is read on demand).
REQUIRED_FILES = tuple(f for f in SOURCE_FILES if f != "agent_creative.py")

USAGE_HINT = (
    "pass --original-source DIR (the original EscapeBench checkout, or its src folder), "
    "or --protocol escapebench"
)


class OriginalSourceError(ValueError):
    """The original checkout is missing, unreadable, or not the release we read texts from."""


@dataclass(frozen=True)
class Hole:
    """A place in a message filled at run time; ``expr`` is its source text in the original."""

    expr: str


@dataclass(frozen=True)
class Message:
    """A string expression of the original code: literal pieces and holes, in order."""

    where: str  # "env/item.py:Item.click:146", for errors
    parts: tuple[str | Hole, ...]

    @property
    def holes(self) -> tuple[str, ...]:
        return tuple(p.expr for p in self.parts if isinstance(p, Hole))

    @property
    def literal(self) -> str:
        """The message without holes (for messages that have none)."""
        if self.holes:
            raise OriginalSourceError(f"{self.where}: message has holes {self.holes}")
        return "".join(self.parts)  # type: ignore[arg-type]

    def fill(self, *values: str) -> str:
        """The message with its holes filled by ``values``, in order."""
        holes = self.holes
        if len(values) != len(holes):
            raise ValueError(f"{self.where}: {len(holes)} holes {holes}, {len(values)} values")
        it = iter(values)
        return "".join(p if isinstance(p, str) else str(next(it)) for p in self.parts)

    def pieces(self) -> list[str]:
        """The literal runs between the holes (``len(holes) + 1`` strings)."""
        out = [""]
        for p in self.parts:
            if isinstance(p, Hole):
                out.append("")
            else:
                out[-1] += p
        return out


# ------------------------------------------------------------------ finding the checkout
def _as_src(folder: Path) -> Path | None:
    """``folder`` as the original ``src`` folder: itself or its ``src`` child."""
    for cand in (folder, folder / "src"):
        if (cand / "instruction.py").is_file() and (cand / "env").is_dir():
            return cand
    return None


def find_source(games: Iterable[str | Path] = (), given: str | Path | None = None) -> Path | None:
    """The original ``src`` folder: ``given`` (the checkout or its src), else the ``src``
    next to the ``data`` folder the games come from. None when there is none.

    Raises :class:`OriginalSourceError` when ``given`` is not a checkout.
    """
    if given is not None:
        src = _as_src(Path(given))
        if src is None:
            raise OriginalSourceError(
                f"{given}: not the original EscapeBench checkout (no src/instruction.py and "
                f"src/env/); {USAGE_HINT}"
            )
        return src
    for g in games:
        p = Path(g)
        if not p.exists():
            continue
        folder = p if p.is_dir() else p.parent
        for cand in (folder, *folder.parents[:2]):
            if cand.name == "data" and (cand.parent / "src").is_dir():
                src = _as_src(cand.parent / "src")
                if src is not None:
                    return src
    return None


def is_original_checkout(games: Iterable[str | Path]) -> bool:
    """Whether the games come from an original checkout's data folder (decides the default
    protocol)."""
    return find_source(games) is not None


# ------------------------------------------------------------------ reading
@dataclass
class _Module:
    path: str
    tree: ast.Module
    messages: dict[str, list[Message]] = field(default_factory=dict)  # per function


class OriginalSource:
    """The original harness's Python files, parsed (never executed).

    Args:
        src: the checkout's ``src`` folder (see :func:`find_source`).
    """

    def __init__(self, src: Path) -> None:
        self.src = Path(src)
        self.files: dict[str, str] = {}
        """sha256 of every file read, by path relative to ``src`` (recorded in run.json)."""
        self._modules: dict[str, _Module] = {}
        self._constants: dict[str, dict[str, Any]] = {}
        for rel in REQUIRED_FILES:
            self._module(rel)

    def _module(self, rel: str) -> _Module:
        mod = self._modules.get(rel)
        if mod is not None:
            return mod
        path = self.src / rel
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise OriginalSourceError(
                f"{path}: cannot read the original harness ({exc.strerror or exc}); {USAGE_HINT}"
            ) from None
        try:
            tree = ast.parse(raw.decode("utf-8"), filename=str(path))
        except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
            raise OriginalSourceError(
                f"{path}: not readable Python ({exc}); {USAGE_HINT}"
            ) from None
        self.files[rel] = hashlib.sha256(raw).hexdigest()
        mod = self._modules[rel] = _Module(rel, tree)
        _collect_messages(mod)
        return mod

    # ---------------------------------------------------------------- constants
    def constants(self, rel: str) -> dict[str, Any]:
        """The module-level names of ``rel`` whose values are literal expressions."""
        found = self._constants.get(rel)
        if found is None:
            found = {}
            for node in self._module(rel).tree.body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                    if isinstance(target, ast.Name):
                        with contextlib.suppress(_NotLiteral):
                            found[target.id] = constant_value(node.value, found)
            self._constants[rel] = found
        return found

    def constant(self, rel: str, name: str) -> Any:
        """One module-level constant of ``rel`` (e.g. ``instruction.py``, ``BASE_SYS_PROMPT``)."""
        values = self.constants(rel)
        if name not in values:
            raise OriginalSourceError(
                f"{self.src / rel}: no literal {name} (not the original release?); {USAGE_HINT}"
            )
        return values[name]

    def function_constant(self, rel: str, function: str, name: str) -> Any:
        """A literal assigned to ``name`` inside ``function`` (e.g. a verb list)."""
        fn = self.function(rel, function)
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == name
            ):
                try:
                    return constant_value(node.value, {})
                except _NotLiteral:
                    break
        raise OriginalSourceError(
            f"{self.src / rel}: {function} has no literal {name} (not the original release?); "
            f"{USAGE_HINT}"
        )

    # ---------------------------------------------------------------- messages
    def messages(self, rel: str, function: str) -> list[Message]:
        """Every message of ``function`` (``Class.method`` or a function name), in order."""
        mod = self._module(rel)
        if function not in mod.messages:
            raise OriginalSourceError(
                f"{self.src / rel}: no function {function} (not the original release?); "
                f"{USAGE_HINT}"
            )
        return mod.messages[function]

    def message(self, rel: str, function: str, at: int, holes: int) -> Message:
        """The message at place ``at`` (0-based, in source order) among ``function``'s messages,
        which must have ``holes`` places filled at run time.

        A message is known by where it stands, never by the code around it: a checkout whose
        function has fewer messages, or a message with another number of holes there, is not
        the release this protocol was written for and is refused with the place named.
        """
        found = self.messages(rel, function)
        if at >= len(found) or len(found[at].holes) != holes:
            have = "no" if at >= len(found) else f"{len(found[at].holes)} hole(s) in the"
            raise OriginalSourceError(
                f"{self.src / rel}: {function} has {have} message {at + 1} "
                f"(expected one with {holes} hole(s); not the original release?); {USAGE_HINT}"
            )
        return found[at]

    def function(self, rel: str, function: str) -> ast.AST:
        """The syntax tree of ``function`` (a qualified name) in the checkout's file ``rel``."""
        mod = self._module(rel)
        for qual, node in _functions(mod.tree):
            if qual == function:
                return node
        raise OriginalSourceError(f"{self.src / rel}: no function {function}; {USAGE_HINT}")


def _functions(tree: ast.Module) -> Iterable[tuple[str, ast.AST]]:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef):
                    yield f"{node.name}.{sub.name}", sub


def _collect_messages(mod: _Module) -> None:
    for qual, fn in _functions(mod.tree):
        out: list[Message] = []
        for stmt in ast.walk(fn):
            values: list[ast.expr] = []
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Return)) and stmt.value:
                values.append(stmt.value)
            elif isinstance(stmt, ast.Assert) and stmt.msg is not None:
                values.append(stmt.msg)
            elif isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call):
                values.extend(stmt.exc.args[:1])
            for value in values:
                for expr in _branches(value):
                    parts = _flatten(expr)
                    if parts is not None and any(isinstance(p, str) and p for p in parts):
                        out.append(Message(f"{mod.path}:{qual}:{expr.lineno}", tuple(parts)))
        out.sort(key=lambda m: int(m.where.rsplit(":", 1)[1]))  # ast.walk is breadth first
        mod.messages[qual] = out


def _branches(expr: ast.expr) -> list[ast.expr]:
    if isinstance(expr, ast.IfExp):
        return [*_branches(expr.body), *_branches(expr.orelse)]
    if isinstance(expr, ast.Tuple):
        return [e for el in expr.elts for e in _branches(el)]
    return [expr]


def _flatten(expr: ast.expr) -> list[str | Hole] | None:
    """A string expression as pieces and holes; None when it holds no string literal."""
    if isinstance(expr, ast.Constant):
        return [expr.value] if isinstance(expr.value, str) else None
    if isinstance(expr, ast.JoinedStr):
        parts: list[str | Hole] = []
        for v in expr.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                parts.append(Hole(ast.unparse(v.value)))
        return parts
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = _flatten(expr.left), _flatten(expr.right)
        if left is None and right is None:
            return None
        return [*(left if left is not None else [Hole(ast.unparse(expr.left))]),
                *(right if right is not None else [Hole(ast.unparse(expr.right))])]
    return None


# ------------------------------------------------------------------ literal evaluation
class _NotLiteral(Exception):
    pass


_STR_METHODS = frozenset(
    {"join", "split", "strip", "rstrip", "lstrip", "replace", "lower", "upper"}
)


def constant_value(node: ast.AST, names: dict[str, Any]) -> Any:
    """Evaluate a literal expression of the original code without executing anything.

    Strings, numbers, lists, tuples, dicts, names already evaluated (``names``), ``+``,
    subscripts and slices, and a few ``str`` methods; anything else raises ``_NotLiteral``.
    """
    ev = lambda n: constant_value(n, names)  # noqa: E731
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise _NotLiteral(node.id)
    if isinstance(node, (ast.List, ast.Tuple)):
        values = [ev(e) for e in node.elts]
        return values if isinstance(node, ast.List) else tuple(values)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise _NotLiteral("**")
        return {ev(k): ev(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = ev(node.left), ev(node.right)
        if type(left) is not type(right) or not isinstance(left, (str, list, tuple, int)):
            raise _NotLiteral("+")
        return left + right
    if isinstance(node, ast.Subscript):
        base = ev(node.value)
        sl = node.slice
        if isinstance(sl, ast.Slice):
            parts = [None if x is None else ev(x) for x in (sl.lower, sl.upper, sl.step)]
            if not all(p is None or isinstance(p, int) for p in parts):
                raise _NotLiteral("slice")
            return base[slice(*parts)]
        key = ev(sl)
        try:
            return base[key]
        except (KeyError, IndexError, TypeError):
            raise _NotLiteral("subscript") from None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = ev(node.operand)
        if isinstance(value, (int, float)):
            return -value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _STR_METHODS
        and not node.keywords
    ):
        obj = ev(node.func.value)
        if isinstance(obj, str):
            args = [ev(a) for a in node.args]
            if all(isinstance(a, (str, int, list, tuple)) for a in args):
                return getattr(obj, node.func.attr)(*args)
    raise _NotLiteral(type(node).__name__)
