"""The floor: a uniformly random valid action every step, reproducible from a seed."""

from __future__ import annotations

import random
from typing import Any

from escapebench.agents.base import Agent, Decision, TurnContext
from escapebench.agents.screen import candidate_strings, read_screen, screen_actions
from escapebench.engine.env import EscapeGame, StepResult

#: How many strings the random agent may type: those its current view and the last feedback
#: mention, first come first served. A few keep inputs from swamping the other actions.
MAX_INPUT_TEXTS = 3


class RandomAgent(Agent):
    """Picks uniformly among the valid actions on screen.

    Valid actions are moves to open exits, clicks on interactable items and tools lying in the
    scene, applies of bag tools to items, crafts of bag pairs, and inputs to items of a few
    strings read in the observation or the last feedback (:data:`MAX_INPUT_TEXTS`). The hint
    system is ignored, as a random player would: the harness forces the hinted action after
    its help period. The only memory is the random generator's state and the last feedback.
    """

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)
        self.draws = 0  # choices made so far: with the seed, the whole generator state
        self.setting = ""  # the setting played: each setting has its own stream of draws
        self._last_feedback = ""

    def settings(self) -> dict[str, Any]:
        return {"agent": self.name, "seed": self.seed, "max_input_texts": MAX_INPUT_TEXTS,
                "draws": "per setting"}

    def reset(self, game: EscapeGame) -> None:
        """Start the episode from the seed, so every episode of a seed and setting plays the
        same. The setting is part of the generator's key: with one stream for every setting,
        a seed's luck (say, a lucky first few draws) would be shared by all settings of a
        run, and two seeds would differ systematically instead of like independent samples."""
        self.draws = 0
        self.setting = game.defn.setting
        self._last_feedback = ""

    def choices(self, game: EscapeGame) -> list[str]:
        """The actions this agent chooses among in ``game``'s current state."""
        screen = read_screen(game)
        texts = candidate_strings("\n".join([*screen.texts, self._last_feedback]))
        return screen_actions(screen, texts[:MAX_INPUT_TEXTS])

    def _draw(self, n: int) -> int:
        """A uniform index below ``n``, from the generator keyed by (seed, setting, draw
        number).

        Keying each draw keeps the state two integers (a Mersenne Twister state is 625 of
        them, and the harness logs the agent's state at every step). Seeding with a string
        hashes it with SHA-512, the same on every platform and Python process.
        """
        rng = random.Random(f"escapebench-random:{self.seed}:{self.setting}:{self.draws}")
        self.draws += 1
        return rng.randrange(n)

    async def decide(self, ctx: TurnContext) -> Decision:
        options = self.choices(ctx.game)
        if not options:  # nothing on screen at all: a harmless no-op the engine rejects
            return Decision("move(nowhere)", reasoning="no action available")
        action = options[self._draw(len(options))]
        return Decision(action, reasoning=f"random choice among {len(options)} actions")

    def observe(
        self, ctx: TurnContext, decision: Decision, result: StepResult, position_after: str
    ) -> dict[str, Any]:
        self._last_feedback = result.feedback
        return {}

    def snapshot(self) -> dict[str, Any]:
        """The generator state (seed and draws so far) and the last feedback, as JSON data."""
        return {"seed": self.seed, "setting": self.setting, "draws": self.draws,
                "last_feedback": self._last_feedback}

    def restore(self, data: dict[str, Any]) -> None:
        self.seed = int(data["seed"])
        self.draws = int(data["draws"])
        self.setting = str(data.get("setting", self.setting))
        self._last_feedback = str(data.get("last_feedback", ""))
