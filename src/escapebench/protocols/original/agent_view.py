"""The game as the original release's EscapeAgent is shown it, in the original protocol's texts.

The original EscapeAgent (``agents/escape_original.py``, agent ``escape-original``) keeps only
its procedure: tasks, proposals, modes. What it reads of the game is rendered here, by the
protocol's session for its setting: the observation with the path line (the original's
``graph.describe(scene_stack)``), the bag listing that leaves one tool out
(``bag.describe(ignore_tools=...)``), a tool's description, the scene's key, the item an answer
acts on (found as the original finds names on a screen), and the hint and history blocks.
"""

from __future__ import annotations

from collections.abc import Sequence

from escapebench.engine.env import EscapeGame
from escapebench.engine.model import TOOL_IN_SCENE, BrokenGameError, GameDefinition
from escapebench.protocols.base import HintView, HistoryStep, Reading
from escapebench.protocols.original.protocol import (
    PATH_SEPARATOR,
    OriginalProtocol,
    call_args,
)

_SCENE = "env/scene.py"


class OriginalAgentView:
    """What the original EscapeAgent reads of one setting's game, rendered by the ``original``
    protocol (its session for ``defn``).

    The session renders the observation without the path line; it is added here with the
    original's text, where the original prints it.
    """

    def __init__(self, protocol: OriginalProtocol, defn: GameDefinition) -> None:
        self.protocol = protocol
        self.defn = defn
        self.session = protocol.session(defn)
        self.written = self.session.written
        self.texts = protocol.texts
        self.path_line = protocol.source.message(_SCENE, "Scene.describe", 1, 1)

    def describe(self, game: EscapeGame, path: Sequence[str]) -> str:
        """The original's observation with the path line (``graph.describe(scene_stack)``)."""
        obs = self.session.observation(game)
        if not path:
            return obs
        t = self.texts
        scene = self.written.scenes[game.scene]
        head = t.scene_head.fill(scene.name, scene.desc)
        line = self.path_line.fill(PATH_SEPARATOR.join(path))
        start = len(t.describe.pieces()[0])
        spec = self.defn.scenes[game.scene]
        seen_more = any(game.item_present[i] for i in spec.items) or any(
            game.tool_where[k] == TOOL_IN_SCENE for k in spec.tools
        )
        # The original prints the path line right after the scene's head line; the head line
        # keeps its line end when more follows it, else the block's strip() takes it.
        if seen_more:
            if obs[start : start + len(head)] != head:
                raise AssertionError("the observation does not start with its scene line")
            return obs[:start] + head + line + obs[start + len(head) :]
        cut = head.rstrip()
        if obs[start : start + len(cut)] != cut:
            raise AssertionError("the observation does not start with its scene line")
        return obs[:start] + head + line.rstrip() + obs[start + len(cut) :]

    def bag_text(self, game: EscapeGame, ignore: Sequence[str] = ()) -> str:
        """The original's listing of the bag (without indices), leaving out ``ignore``."""
        t = self.texts
        if not game.bag:
            return t.bag_empty
        return t.bag_head + "".join(
            t.bag_name.fill(self.written.tools[k].name)
            + t.bag_desc.fill(self._desc(game, k))
            + t.bag_end
            for k in game.bag
            if self.written.tools[k].name not in ignore
        )

    def _desc(self, game: EscapeGame, k: int) -> str:
        return str(self.written.tools[k].states[game.tool_state[k]])

    def tool_desc(self, game: EscapeGame, name: str) -> str:
        """The description of the bag tool ``name`` in its current state."""
        for k in game.bag:
            if self.written.tools[k].name == name:
                return self._desc(game, k)
        raise KeyError(name)

    def tool_name(self, tool: int) -> str:
        """The name of tool ``tool`` (an index of the definition) as the original spells it."""
        return self.written.tools[tool].name

    def scene_key(self, game: EscapeGame) -> str:
        """The current scene's name as the original keeps it (its graph's key)."""
        return self.written.scenes[game.scene].key

    def moved_to(self, game: EscapeGame, scene_key: str) -> EscapeGame:
        """The game with the player in the scene the original names ``scene_key`` (a
        look-ahead: ``game`` does not change)."""
        index = self.written.scene_by_key.get(scene_key)
        if index is None:
            raise BrokenGameError(
                f"{self.defn.setting}: the original EscapeAgent would go to scene "
                f"{scene_key!r}, which the game does not have (the original fails here)"
            )
        return game.moved_to(self.defn.scenes[index].name)

    def acted_on(self, game: EscapeGame, reading: Reading) -> str | None:
        """The name of the item (or tool) a click / apply / input answer names, as the
        original resolves it on the current screen (its ``current_arg_name``); None if none."""
        call = reading.call
        if call is None:
            return None
        verb, args = call.verb, call_args(call)
        if verb not in ("click", "apply", "input") or len(args) != (1 if verb == "click" else 2):
            return None
        found = self.session.names_on_screen(game).get(args[-1].lower())
        if found is None:
            return None
        kind, index = found
        return (self.written.items if kind == "item" else self.written.tools)[index].key

    def helper(self, position: str, action: str) -> str:
        """The hint block of the action prompt (the original's ``form_helper_prompt``)."""
        return self.protocol.hint_text(HintView(position=position, action=action))

    def history(self, steps: Sequence[HistoryStep]) -> str:
        """The history block of the action prompt (the original's ``add_history``)."""
        return self.protocol.history_text(steps)

    def read(self, answer: str) -> Reading:
        """The action an answer holds, read once as the original reads it (the protocol's
        :meth:`~OriginalProtocol.read`)."""
        return self.protocol.read(answer)
