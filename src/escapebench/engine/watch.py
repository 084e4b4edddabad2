"""Who is told what a step changed: the hook a view of the state keeps itself current by.

The engine calls the methods of its game's :class:`StateWatcher` as it changes the state, so a
screen (a protocol's rendering of the state, see ``escapebench.protocols.escapebench``) can keep
its parts and rebuild only what changed. The base class does nothing; a game without a view
uses it.
"""

from __future__ import annotations

from typing import Any


class StateWatcher:
    """Told of every change a step makes to what a screen could show. Methods do nothing here;
    ``game`` is the :class:`~escapebench.engine.env.EscapeGame` that changed."""

    __slots__ = ()

    def start(self) -> None:
        """The game was reset to its initial state."""

    def forget(self) -> None:
        """Anything may have changed (a restore, a state set from outside, a past state)."""

    def item_changed(self, game: Any, i: int, scene: int) -> None:
        """Item ``i`` of ``scene`` changed its visibility, state or interactability."""

    def tool_changed(self, game: Any, t: int) -> None:
        """Tool ``t`` changed its visibility or left its scene."""

    def tool_collected(self, game: Any, t: int) -> None:
        """Tool ``t`` left its scene for the end of the bag."""

    def scene_visibility_changed(self, scene: int) -> None:
        """``scene`` was revealed or hidden."""

    def bag_removed(self, position: int) -> None:
        """The tool at ``position`` in the bag left it."""

    def bag_changed(self) -> None:
        """A tool changed its state."""


#: The watcher of a game nobody watches (it holds no state, so one serves every game).
NO_WATCHER = StateWatcher()
