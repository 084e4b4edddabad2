"""Tables and live blocks on the terminal, drawn with `rich <https://rich.readthedocs.io>`_.

Every table the command line prints goes through :func:`render_table` (or
:func:`print_table`): on a terminal it fits the terminal's width (long cells, such as an
interval or what a row covers, wrap inside their cell); written to a file or a pipe it is
laid out at full width, one line per row, in plain ASCII without colour, so that it can be
read by ``grep`` and diffed. Tables written as files (``summary.md``, ``--markdown``) do not
come here.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Collection, Sequence
from typing import IO, Any

from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

__all__ = [
    "FULL_WIDTH",
    "console_for",
    "is_terminal",
    "print_table",
    "render_table",
    "terminal_width",
]

FULL_WIDTH = 100_000
"""The width a table is laid out at when it is not written to a terminal: no row wraps."""

# header, a rule of dashes under it, the rows; columns one space apart (plus the cells' own
# padding): the plain form the commands printed before rich
_PLAIN_BOX = box.Box(
    "    \n"
    "    \n"
    " -  \n"
    "    \n"
    "    \n"
    " -  \n"
    "    \n"
    "    \n",
    ascii=True,
)


def counted(n: int, noun: str) -> str:
    """``"1 hint"``, ``"3 hints"``: a count with its noun, plural unless the count is one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def is_terminal(stream: IO[str] | None) -> bool:
    """Whether ``stream`` is an interactive terminal."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed file
        return False


def terminal_width(stream: IO[str] | None) -> int | None:
    """The width of the terminal ``stream`` writes to (None when it is not a terminal)."""
    if not is_terminal(stream):
        return None
    return console_for(stream).width  # type: ignore[arg-type]


def console_for(stream: IO[str], *, width: int | None = None) -> Console:
    """A rich console writing to ``stream``: styled and as wide as the terminal when it is
    one, else plain (no escape codes) and ``width`` (default :data:`FULL_WIDTH`) wide."""
    if is_terminal(stream):
        return Console(file=stream, width=width, highlight=False)
    return Console(
        file=stream, width=width or FULL_WIDTH, color_system=None, force_terminal=False,
        force_interactive=False, highlight=False, emoji=False, markup=False,
        legacy_windows=False,
    )


def _table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    right: Collection[int],
    styled: bool,
    unbroken: Collection[int] = (),
    fitted: bool = False,
) -> Table:
    table = Table(
        box=box.SIMPLE_HEAD if styled else _PLAIN_BOX, show_edge=False, pad_edge=False,
        padding=(0, 1, 0, 0), header_style="bold" if styled else "", highlight=False,
    )
    for i, header in enumerate(headers):
        # fitted to a terminal: a header wider than its cells wraps rather than widen them
        # (the width counts the cell's padding)
        cells = max((len(str(row[i])) for row in rows), default=0)
        longest_word = max(
            (len(w) for text in [header, *(str(row[i]) for row in rows)] for w in text.split()),
            default=0,
        )
        max_width = max(cells, longest_word) + 1 if fitted and i not in unbroken else None
        table.add_column(header, justify="right" if i in right else "left", overflow="fold",
                         no_wrap=i in unbroken, max_width=max_width)
    for row in rows:
        table.add_row(*(str(c) for c in row))
    return table


_SHORT = 12  # values up to this long go on one line per row in the block form


def _blocks(
    headers: Sequence[str], rows: Sequence[Sequence[str]], label_columns: int, styled: bool
) -> Group:
    """One block per row, for a terminal too narrow for the table: the row's first
    ``label_columns`` cells as its title, then one line per other column (header, value);
    a long value wraps inside its cell. When every value is short (counts), a row's pairs
    share a line instead."""
    parts: list[Any] = []
    for n, row in enumerate(rows):
        title = " / ".join(str(c) for c in row[:label_columns] if str(c))
        parts.append(Text.assemble((title, "bold" if styled else "")))
        pairs = list(zip(headers[label_columns:], map(str, row[label_columns:]), strict=True))
        if all(len(value) <= _SHORT for _, value in pairs):  # counts: a few lines, not one each
            parts[-1].append(": " + ", ".join(f"{h} {v}" for h, v in pairs), style="")
            continue
        grid = Table.grid(padding=(0, 2, 0, 2))
        grid.add_column(style="dim" if styled else "", no_wrap=True)
        grid.add_column(overflow="fold")
        for header, cell in zip(headers[label_columns:], row[label_columns:], strict=True):
            grid.add_row(header, str(cell))
        parts.append(grid)
        if n < len(rows) - 1:
            parts.append(Text(""))
    if parts and all(isinstance(p, Text) for p in parts):  # compact rows: no blank lines
        parts = [p for p in parts if p.plain]
    return Group(*parts)


def _fitted(
    console: Console,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    right: Collection[int],
    shared: Collection[int],
    label_columns: int,
    styled: bool,
) -> list[Any]:
    """What to print for a terminal of ``console.width``: the table, with what every row of a
    ``shared`` column says (its comma-separated parts common to all rows) said once under
    it, and the column dropped when nothing else is left; one block per row when even the
    table's narrowest form would break a word. Label columns never wrap; a header wider than
    its cells wraps rather than widen its column."""
    rows = [list(map(str, row)) for row in rows]
    notes = []
    dropped = set()
    for i in shared:
        parts = [row[i].split(", ") for row in rows]
        common = [p for p in parts[0] if all(p in other for other in parts)] if rows else []
        if not common:
            continue
        notes.append(Text(f"{headers[i]} (every row): {', '.join(common)}"))
        for row, mine in zip(rows, parts, strict=True):
            row[i] = ", ".join(p for p in mine if p not in common)
        if not any(row[i] for row in rows):
            dropped.add(i)
    keep = [i for i in range(len(headers)) if i not in dropped]
    kept_headers = [headers[i] for i in keep]
    kept_rows = [[row[i] for i in keep] for row in rows]
    unbroken = {keep.index(i) for i in keep if i < label_columns}
    table = _table(kept_headers, kept_rows, {keep.index(i) for i in right if i in keep}, styled,
                   unbroken, fitted=True)
    widths = _word_widths(kept_headers, kept_rows, unbroken, console.width)
    if widths == [] or table.__rich_measure__(console, console.options).minimum > console.width:
        return [_blocks(headers, rows, label_columns, styled), *notes]
    for column, column_width in zip(table.columns, widths or (), strict=False):
        column.width = column_width
    return [table, *notes]


_GAP = 2  # between two columns: the box's divider and the cell's padding


def _word_widths(
    headers: Sequence[str], rows: Sequence[Sequence[str]], unbroken: Collection[int],
    width: int,
) -> list[int] | None:
    """Column widths for a table that must wrap to fit ``width``, chosen so that no word of a
    header or cell is broken (rich's own shrinking cuts words, as "(percentag" over "e)"):
    every column at least its longest word, the space left shared in proportion to what each
    column still wants. None when the table fits without wrapping; [] when even the longest
    words do not fit (the table becomes one block per row)."""
    natural, least = [], []
    for i, header in enumerate(headers):
        cells = [str(row[i]) for row in rows]
        longest_word = max((len(w) for text in [header, *cells] for w in text.split()), default=0)
        widest_cell = max(map(len, cells), default=0)
        if i in unbroken:
            natural.append(max(widest_cell, len(header)))
            least.append(natural[-1])
        else:
            natural.append(max(widest_cell, longest_word))
            least.append(longest_word)
    room = width - _GAP * (len(headers) - 1)
    if sum(natural) <= room:
        return None
    if sum(least) > room:
        return []
    spare, wants = room - sum(least), [n - m for n, m in zip(natural, least, strict=True)]
    shares = [spare * want / sum(wants) for want in wants]
    widths = [m + int(share) for m, share in zip(least, shares, strict=True)]
    by_remainder = sorted(range(len(widths)), key=lambda k: (int(shares[k]) - shares[k], k))
    for k in by_remainder[: room - sum(widths)]:
        widths[k] += 1
    return widths


def render_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    right: Collection[int] = (),
    width: int | None = None,
    shared: Collection[int] = (),
    label_columns: int = 1,
    styled: bool = False,
) -> str:
    """``rows`` under ``headers`` as text; the columns numbered in ``right`` are
    right-aligned. Without ``width``: the full table, one line per row (for files and pipes).
    With ``width`` (a terminal's): every line fits in it; long cells wrap inside their cell,
    what every row of a ``shared`` column says is said once under the table, and when
    the columns cannot fit without breaking words each row is printed as a block (its first
    ``label_columns`` cells as title, then header: value lines). No line has trailing
    spaces; ``styled`` adds bold headers and box lines (escape codes)."""
    buf = io.StringIO()
    console = Console(
        file=buf, width=width or FULL_WIDTH, color_system="truecolor" if styled else None,
        force_terminal=styled, highlight=False, emoji=False, markup=False,
        legacy_windows=False,
    )
    if width is None:
        console.print(_table(headers, rows, right, styled), soft_wrap=False)
    else:
        for part in _fitted(console, headers, rows, right, shared, label_columns, styled):
            console.print(part, soft_wrap=False)
    return "\n".join(line.rstrip() for line in buf.getvalue().splitlines())


def print_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    right: Collection[int] = (),
    shared: Collection[int] = (),
    label_columns: int = 1,
    file: IO[str] | None = None,
) -> None:
    """Print the table to ``file`` (default: stdout): fitted to the terminal and styled on
    a terminal (see :func:`render_table`), full width and plain elsewhere."""
    stream = sys.stdout if file is None else file
    if is_terminal(stream):
        console = console_for(stream)
        for part in _fitted(console, headers, rows, right, shared, label_columns, True):
            console.print(part, soft_wrap=False)
    else:
        stream.write(render_table(headers, rows, right=right) + "\n")
