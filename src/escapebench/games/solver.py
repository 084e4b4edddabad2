"""The solver: a search of a game's states for any way to ``GAME END``.

:func:`solve` walks (never teleports) and tries only the actions that can change the state, so
"unreachable" is a proof; it gives up after :data:`SOLVER_STATE_LIMIT` states.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

from escapebench.engine.actions import Action
from escapebench.engine.env import EscapeGame
from escapebench.engine.model import BrokenGameError, GameDefinition, Tool

# States the solver may visit before it gives up (a warning, not an error).
SOLVER_STATE_LIMIT = 5_000


def _state_key(game: EscapeGame) -> tuple[Any, ...]:
    return (
        game.scene,
        tuple(game.scene_visible),
        tuple(game.item_visible),
        tuple(game.item_interact),
        tuple(game.item_state),
        tuple(game.item_present),
        tuple(game.tool_visible),
        tuple(game.tool_where),
        tuple(game.tool_state),
        frozenset(game.bag),
        frozenset((k, frozenset(v)) for k, v in game.satisfied.items() if v),
        frozenset((k, tuple(sorted(v))) for k, v in game.used.items() if v),
    )


# The play state the solver saves and restores between branches. snapshot()/restore() would
# do, but they build JSON-ready data and validate it, which made them most of the search's
# time; tests/games/test_solver.py checks this list against EscapeGame.__slots__.
_LIST_FIELDS = (
    "scene_visible", "item_visible", "item_interact", "item_state", "item_present",
    "tool_visible", "tool_where", "tool_state", "bag",
)
_SET_MAP_FIELDS = ("satisfied", "used")  # maps to sets (satisfied) or lists (used)
_VALUE_FIELDS = ("scene", "key_steps", "tools_collected", "ended")
_SET_FIELDS = ("counted",)


def _save(game: EscapeGame) -> tuple[Any, ...]:
    return (
        tuple(getattr(game, f)[:] for f in _LIST_FIELDS),
        tuple({k: v.copy() for k, v in getattr(game, f).items()} for f in _SET_MAP_FIELDS),
        tuple(getattr(game, f) for f in _VALUE_FIELDS),
        tuple(set(getattr(game, f)) for f in _SET_FIELDS),
    )


def _load(game: EscapeGame, saved: tuple[Any, ...]) -> None:
    lists, set_maps, values, sets = saved
    for f, v in zip(_LIST_FIELDS, lists, strict=True):
        setattr(game, f, v[:])
    for f, v in zip(_SET_MAP_FIELDS, set_maps, strict=True):
        setattr(game, f, {k: x.copy() for k, x in v.items()})
    for f, v in zip(_VALUE_FIELDS, values, strict=True):
        setattr(game, f, v)
    for f, v in zip(_SET_FIELDS, sets, strict=True):
        setattr(game, f, set(v))
    game.state_changed()  # the observation it caches is of the state replaced here


def _reachable_scenes(game: EscapeGame) -> list[int]:
    d = game.defn
    seen = {game.scene}
    order = [game.scene]
    queue = deque(order)
    while queue:
        cur = queue.popleft()
        for link in d.scenes[cur].links:
            nxt = d.scene_index.get(link.target)
            if nxt is not None and nxt not in seen and game.scene_visible[nxt]:
                seen.add(nxt)
                order.append(nxt)
                queue.append(nxt)
    return order


def _candidates(game: EscapeGame) -> Iterator[tuple[int, Action]]:
    """Every (scene, action) that could change the state: those are the only ones to try.

    A step changes the state only by collecting a tool, matching a wait of an item's current
    state, or a craft whose ``apply_to``/``wait_for`` pair up, so nothing else is generated.
    Tool pick-ups come first: they never hurt, which keeps the depth-first search short.
    """
    d = game.defn
    bag_tools: list[Tool] = [d.tools[t] for t in game.bag]
    scenes = _reachable_scenes(game)
    saved = game.scene
    for sc in scenes:
        game.scene = sc
        for t in game.visible_scene_tools():
            yield sc, Action("click", (d.tools[t].name,))
    for sc in scenes:
        game.scene = sc
        for i in game.visible_items():
            if not game.item_interact[i]:
                continue
            it = d.items[i]
            for tr in it.states[game.item_state[i]].transitions:
                for w in tr.waits:
                    if w.kind == "click":
                        yield sc, Action("click", (it.name,))
                    elif w.kind == "input":
                        yield sc, Action("input", (w.arg, it.name))
                    else:
                        for t, tool in zip(game.bag, bag_tools, strict=True):
                            if tool.name == w.arg and it.name in tool.states[
                                game.tool_state[t]
                            ].apply_to:
                                yield sc, Action("apply", (tool.name, it.name))
    game.scene = saved
    for a, ta in zip(game.bag, bag_tools, strict=True):
        for b, tb in zip(game.bag, bag_tools, strict=True):
            if a != b and tb.name in ta.states[game.tool_state[a]].apply_to and ta.name in (
                tb.states[game.tool_state[b]].wait_for
            ):
                yield saved, Action("craft", (ta.name, tb.name))


def _collect_all(game: EscapeGame) -> None:
    """Pick up every tool lying in a scene the player can walk to and back from.

    Collecting a tool never closes a way forward, so the search does it at once instead of
    branching on the order of pick-ups. Scenes behind one-way links are left to the search:
    going there may be a commitment.
    """
    d = game.defn
    here = game.scene
    for sc in _reachable_scenes(game):
        game.scene = sc
        tools = game.visible_scene_tools()
        if tools and (sc == here or here in _reachable_scenes(game)):
            for t in tools:
                game.step(Action("click", (d.tools[t].name,)))
    game.scene = here


def solve(defn: GameDefinition, state_limit: int = SOLVER_STATE_LIMIT) -> tuple[str, int]:
    """Search the game's states for any way to ``GAME END`` (walking, never teleporting).

    Returns ``("reached" | "unreachable" | "gave up", states visited)``. Only actions that
    cannot change the state are left out, so "unreachable" is a proof, not a guess; a game
    whose end cannot be reached usually has too many states to prove it, hence "gave up".
    """
    game = EscapeGame(defn)
    _collect_all(game)
    visited = {_state_key(game)}
    stack: list[tuple[tuple[Any, ...], Iterator[tuple[int, Action]]]] = []
    stack.append((_save(game), iter(list(_candidates(game)))))
    while stack:
        saved, todo = stack[-1]
        nxt = next(todo, None)
        if nxt is None:
            stack.pop()
            continue
        _load(game, saved)
        game.scene, action = nxt
        try:
            result = game.step(action)
        except BrokenGameError:  # a thing shown in a state it does not have: a dead end
            continue
        if result.error or not result.success:
            continue
        if result.game_end:
            return "reached", len(visited)
        _collect_all(game)
        before = len(visited)
        visited.add(_state_key(game))  # one hash of the key (tuples do not keep theirs)
        if len(visited) == before:  # seen already
            continue
        if len(visited) >= state_limit:
            return "gave up", len(visited)
        stack.append((_save(game), iter(list(_candidates(game)))))
    return "unreachable", len(visited)
