"""Drawing a game's puzzle-dependency graph as a PNG (matplotlib, no graphviz).

Nodes are the game's tools (circles), items (squares; locks darker: items a tool or a code
opens) and scenes (diamonds), each item and tool with the scene it lies in written small under
it; an arrow means "is needed for" (a tool applied to an item, a part crafted in) or "reveals"
(an item that shows a tool, a scene, or becomes a tool). Creative steps are drawn in red.
Works on any loaded game: generated, built-in or original.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from escapebench.engine.model import GameDefinition
from escapebench.generate.build import Design

__all__ = ["dependency_edges", "draw_definition", "draw_design"]


def dependency_edges(d: GameDefinition) -> list[tuple[str, str, str]]:
    """``(from, to, kind)`` edges of a game: apply, craft, input, reveals, opens, becomes."""
    edges: list[tuple[str, str, str]] = []
    for it in d.items:
        for st in it.states:
            for tr in st.transitions:
                for w in tr.waits:
                    if w.kind == "apply":
                        edges.append((f"tool:{w.arg}", f"item:{it.name}", "apply"))
                    elif w.kind == "input":
                        edges.append((f"code:{w.arg}", f"item:{it.name}", "input"))
                for trig in tr.triggers:
                    if trig.kind == "become_tool":
                        edges.append((f"item:{it.name}", f"tool:{trig.value}", "becomes"))
                    elif trig.kind == "change_visible" and trig.value is True:
                        if trig.target_kind == "tool":
                            edges.append((f"item:{it.name}", f"tool:{trig.target}", "reveals"))
                        elif trig.target_kind == "scene":
                            edges.append((f"item:{it.name}", f"scene:{trig.target}", "opens"))
                        elif trig.target_kind == "item":
                            edges.append((f"item:{it.name}", f"item:{trig.target}", "reveals"))
                if tr.ends_game:
                    edges.append((f"item:{it.name}", "exit:GAME END", "exit"))
    for t in d.tools:
        for st in t.states:
            for other in st.wait_for:
                edges.append((f"tool:{other}", f"tool:{t.name}", "craft"))
    return sorted(set(edges))


def draw_definition(d: GameDefinition, path: Path, creative: frozenset[str] = frozenset(),
                    title: str | None = None) -> Path:
    """Draw ``d``'s dependency graph into ``path`` (PNG). ``creative`` holds the names of
    tools whose use is a creative step (drawn red)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    edges = dependency_edges(d)
    nodes = sorted({n for e in edges for n in e[:2]})
    preds: dict[str, list[str]] = defaultdict(list)
    for a, b, _ in edges:
        preds[b].append(a)
    depth: dict[str, int] = {}

    def level(n: str, seen: frozenset[str] = frozenset()) -> int:
        if n in depth:
            return depth[n]
        ps = [p for p in preds[n] if p not in seen]
        depth[n] = 1 + max((level(p, seen | {n}) for p in ps), default=-1)
        return depth[n]

    for n in nodes:
        level(n)
    columns: dict[int, list[str]] = defaultdict(list)
    for n in nodes:
        columns[depth[n]].append(n)
    pos = {n: (x, -y) for x, col in columns.items() for y, n in enumerate(col)}
    tall = max((len(c) for c in columns.values()), default=1)
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(columns)), max(4, 0.45 * tall)))
    colors = {"apply": "#555555", "craft": "#1f77b4", "input": "#9467bd", "reveals": "#2ca02c",
              "opens": "#ff7f0e", "becomes": "#17becf", "exit": "#d62728"}
    for a, b, kind in edges:
        (x0, y0), (x1, y1) = pos[a], pos[b]
        red = kind == "apply" and a.split(":", 1)[1] in creative
        ax.annotate("", xy=(x1, y1), xytext=(x0, y0), arrowprops={
            "arrowstyle": "->", "color": "#d62728" if red else colors[kind],
            "lw": 2 if red else 0.8, "alpha": 0.8})
    shapes = {"tool": "o", "item": "s", "scene": "D", "code": "^", "exit": "*"}
    locks = {b for _, b, kind in edges if kind in ("apply", "input")}  # a tool or code opens it
    where = {f"item:{d.items[i].name}": s.name for s in d.scenes for i in s.items}
    where.update({f"tool:{d.tools[i].name}": s.name for s in d.scenes for i in s.tools})
    for n, (x, y) in pos.items():
        kind, name = n.split(":", 1)
        fill = ("#d62728" if name in creative or kind == "exit"
                else "#808080" if n in locks else "#cccccc")
        ax.scatter([x], [y], marker=shapes[kind], s=160 if kind != "exit" else 400,
                   c=fill, edgecolors="black", zorder=3)
        ax.text(x, y + 0.25, name, fontsize=6, ha="center", zorder=4)
        if n in where:  # the scene an item or tool lies in, small and grey under it
            ax.text(x, y - 0.32, where[n], fontsize=4.5, ha="center", color="#777777",
                    zorder=4)
    ax.set_title(title or f"{d.title} ({d.setting}): tools o, items s (locks darker), "
                 "scenes D, codes ^; red = creative step", fontsize=8)
    ax.axis("off")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def draw_design(design: Design, path: Path, d: GameDefinition | None = None) -> Path:
    """Draw a generated game (its normal setting ``d``, loaded from the design if absent)."""
    if d is None:
        from escapebench.games.loading import load_own_text
        from escapebench.generate.make import render

        d = next(x for x in load_own_text(render(design.doc), "g.yaml")
                 if x.difficulty == "normal")
    creative = frozenset(c.split(" (", 1)[0] for c in design.creative)
    return draw_definition(d, path, creative)
