"""Gymnasium environments over the engine (optional extra ``gym``).

``import escapebench.gym`` registers one id per built-in setting (``escapebench/lab-hard-v0``,
``escapebench/tutorial-v0`` for the normal version, ...) and the generic ``escapebench/game-v0``,
which takes ``game=`` (a game file, an original data folder, or a built-in name) and
``setting=`` (one setting of it)::

    import gymnasium as gym
    import escapebench.gym  # noqa: F401  (registers the ids)

    env = gym.make("escapebench/tutorial-v0", max_episode_steps=50)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(info["valid_actions"][0])

* Observation: the text a model would read (a :class:`~gymnasium.spaces.Text`); ``info`` holds
  the same as data: ``items``, ``scene_tools``, ``exits``, ``bag``, ``valid_actions`` (every
  well-formed action on screen, as strings: the action mask of a text action space) and the
  progress counters.
* Action: an action string (``Text``), read as the harness reads an agent's answer (the last
  well-formed call in the text).
* Reward (``reward=``): ``"progress"`` (default) gives +1 per new key step and per tool
  collected, the paper's progress; ``"sparse"`` gives +1 on escaping only. ``step_cost`` is
  taken off every step.
* ``terminated`` at GAME END; ``truncated`` at ``max_episode_steps`` (Gymnasium's
  ``TimeLimit``; the registered ids use the paper's 4000).
* Wrappers: :class:`HintWrapper` (the paper's hint system, off by default),
  :class:`RecordSteps` (a JSON line per step); the step limit is Gymnasium's ``TimeLimit``.

The game is deterministic: ``reset(seed=...)`` always starts the same play-through (the seed
only seeds ``np_random`` and the spaces, as Gymnasium asks).
"""

from __future__ import annotations

import functools
import json
import string
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, SupportsFloat

try:
    import gymnasium as gym
    import numpy as np
    from gymnasium import spaces
    from gymnasium.vector.utils import read_from_shared_memory
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "the Gymnasium environments need the 'gym' extra: pip install 'escapebench[gym]'"
    ) from exc

from escapebench.agents.base import Decision
from escapebench.agents.screen import candidate_strings, read_screen, screen_actions
from escapebench.bench.episode import DEFAULT_MAX_STEPS
from escapebench.bench.hints import HintOptions, HintPolicy, ReferenceEffect, reference_effects
from escapebench.bench.loop import EscapeEnv, HintSystem, TurnLoop
from escapebench.catalog import load_games, pick_setting, split_specs
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.games.loading import builtin_files, load_file
from escapebench.integrations.texts import choose_protocol, texts_version
from escapebench.protocols import HistoryStep, PromptProtocol
from escapebench.protocols.base import Session
from escapebench.protocols.escapebench import prompts

__all__ = [
    "ACTION_MAX_LENGTH",
    "GENERIC_ID",
    "EscapeBenchEnv",
    "HintWrapper",
    "RecordSteps",
    "builtin_ids",
    "env_id",
    "register_envs",
]

NAMESPACE = "escapebench"
VERSION = 0
GENERIC_ID = f"{NAMESPACE}/game-v{VERSION}"
#: A fresh generated game at each reset (``tier=``; the reset's seed picks the game).
GENERATED_ID = f"{NAMESPACE}/generated-v{VERSION}"
ENTRY_POINT = "escapebench.integrations.gym:EscapeBenchEnv"
#: Longest action text the action space holds (a model answer with its reasoning fits).
ACTION_MAX_LENGTH = 4096
#: How many strings found on screen ``valid_actions`` offers to type into each item.
MAX_INPUT_TEXTS = 3
#: Stands for a character outside the game's alphabet (only an echo of an action from outside
#: the action space can bring one into an observation).
REPLACEMENT = "?"

RewardMode = Literal["progress", "sparse"]


def env_id(setting: str) -> str:
    """The Gymnasium id of a built-in setting: ``lab-hard`` -> ``escapebench/lab-hard-v0``."""
    return f"{NAMESPACE}/{setting}-v{VERSION}"


@functools.lru_cache(maxsize=1)
def _builtin_settings() -> tuple[str, ...]:
    return tuple(d.setting for f in builtin_files() for d in load_file(f))


def builtin_ids() -> list[str]:
    """The ids of every built-in setting, tutorial first."""
    return [env_id(s) for s in _builtin_settings()]


def register_envs() -> list[str]:
    """Register every built-in setting and the generic id (again: a no-op); returns the ids."""
    ids = []
    for setting in _builtin_settings():
        ids.append(_register(env_id(setting), {"game": setting}))
    ids.append(_register(GENERIC_ID, {}))
    if GENERATED_ID not in gym.registry:
        gym.register(id=GENERATED_ID, entry_point=f"{__name__}:GeneratedEnv",
                     max_episode_steps=DEFAULT_MAX_STEPS, kwargs={}, disable_env_checker=False)
    ids.append(GENERATED_ID)
    return ids


def _register(id_: str, kwargs: dict[str, Any]) -> str:
    if id_ not in gym.registry:
        gym.register(
            id=id_,
            entry_point=ENTRY_POINT,
            max_episode_steps=DEFAULT_MAX_STEPS,
            kwargs=kwargs,
            disable_env_checker=False,
        )
    return id_


@functools.lru_cache(maxsize=64)
def _load(game: str, setting: str | None) -> GameDefinition:
    """The setting ``game`` (file, folder or built-in name) and ``setting`` name: loaded once
    per process (definitions are immutable and shared)."""
    if setting is None:
        return pick_setting(game, None)
    found = [d for d in load_games([game]) if d.setting == setting]
    if not found:
        names = ", ".join(sorted(d.setting for d in load_games([game])))
        raise ValueError(f"{game}: no setting {setting!r} (it has: {names})")
    return found[0]


@functools.lru_cache(maxsize=64)
def _effects(defn: GameDefinition) -> tuple[ReferenceEffect, ...]:
    """The reference chain's effects of ``defn`` (worked out once per definition)."""
    return reference_effects(defn)


def _definition_texts(d: GameDefinition) -> Iterable[str]:
    """Every text of a definition that can reach the screen or the feedback."""
    yield d.title
    for s in d.scenes:
        yield s.name
        yield s.desc
        for link in s.links:
            yield link.label
            yield link.target
    for it in d.items:
        yield it.name
        yield it.position
        for st in it.states:
            yield st.desc
            yield st.neg_reward or ""
            for tr in st.transitions:
                yield tr.reward or ""
                for w in tr.waits:
                    yield w.arg
    for t in d.tools:
        yield t.name
        yield t.position
        for ts in t.states:
            yield ts.desc
            yield ts.neg_reward


def _alphabet(d: GameDefinition) -> frozenset[str]:
    """The characters an observation of ``d`` is written in: printable ASCII, the game's own
    texts, and the frame (the prompt pieces and the engine's words, all ASCII or in here)."""
    chars = set(string.printable)
    for text in _definition_texts(d):
        chars.update(text)
    for text in (prompts.CURRENT_STEP_TEMPLATE, prompts.HINT_TEMPLATE):
        chars.update(text)
    return frozenset(chars)


class GameText(spaces.Text):
    """A :class:`~gymnasium.spaces.Text` in a game's alphabet. Only reading it from an async
    vector environment's shared memory differs (see :func:`_read_game_text`)."""


class _LiveTexts(Sequence[str]):
    """The observations of an async vector environment, decoded from its shared memory
    when read (Gymnasium reads a ``Text`` space's shared memory once, when the vector
    environment starts, so every later observation would be its first; numeric spaces
    read as views of the memory, which this does for text). A deep copy, which the vector
    environment returns by default, is a plain tuple of strings."""

    def __init__(self, space: spaces.Text, memory: Any, n: int) -> None:
        self._space, self._memory, self._n = space, memory, n

    def __len__(self) -> int:
        return self._n

    def _rows(self) -> Any:
        return np.frombuffer(self._memory.get_obj(), dtype=np.int32).reshape(
            (self._n, self._space.max_length)
        )

    def _decode(self, row: Any) -> str:
        chars, end = self._space.character_list, len(self._space.character_set)
        return "".join(chars[v] for v in row[row < end])

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        return self._decode(self._rows()[index])

    def __iter__(self) -> Any:
        return iter(tuple(self._decode(row) for row in self._rows()))

    def __deepcopy__(self, memo: dict) -> tuple[str, ...]:
        return tuple(self)

    def __eq__(self, other: object) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, Sequence) else other)

    def __repr__(self) -> str:
        return repr(tuple(self))


@read_from_shared_memory.register(GameText)
def _read_game_text(space: GameText, shared_memory: Any, n: int = 1) -> _LiveTexts:
    return _LiveTexts(space, shared_memory, n)


class EscapeBenchEnv(gym.Env[str, str]):
    """One setting as a Gymnasium environment (see the module docstring).

    Args:
        game: a built-in game or setting name, a game file, an original data folder, or a
            loaded :class:`GameDefinition`.
        setting: which setting of ``game`` (needed when it holds several, e.g. a data folder);
            without it, ``game``'s normal version.
        reward: ``"progress"`` (+1 per new key step or tool collected) or ``"sparse"`` (+1 on
            escaping).
        step_cost: taken off the reward of every step.
        valid_actions: list the well-formed actions in ``info`` (turn off for speed when the
            policy does not need them).
        render_mode: ``"ansi"`` (``render()`` returns the text) or ``"human"`` (prints it).
        protocol: what the learner reads and how its actions are read, as ``run --protocol``
            takes it: ``"escapebench"`` (ours), ``"original"`` (the original harness's texts
            and parser, read from a checkout: ``original_source``, or the checkout ``game``
            comes from), or a :class:`~escapebench.protocols.PromptProtocol`; None: ``original``
            for a game of an original checkout, else ``escapebench`` (as ``run`` chooses).
        original_source: the original release's checkout, for ``protocol="original"``.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        game: str | GameDefinition = "tutorial",
        setting: str | None = None,
        *,
        reward: RewardMode = "progress",
        step_cost: float = 0.0,
        valid_actions: bool = True,
        render_mode: str | None = None,
        protocol: str | PromptProtocol | None = None,
        original_source: str | Path | None = None,
    ) -> None:
        if reward not in ("progress", "sparse"):
            raise ValueError(f"reward must be 'progress' or 'sparse', not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.defn = game if isinstance(game, GameDefinition) else _load(str(game), setting)
        self.reward_mode = reward
        self.step_cost = float(step_cost)
        self.list_valid_actions = valid_actions
        self.render_mode = render_mode
        games = [] if isinstance(game, GameDefinition) else split_specs([str(game)])
        self.protocol = choose_protocol(protocol, games, original_source)
        self.hint_options: HintOptions | None = None  # the hint system's, once a HintWrapper
        # has put it in the loop
        self._make_loop()
        self.alphabet = _alphabet(self.defn)
        size = sum(len(t) for t in _definition_texts(self.defn))
        self.observation_space = GameText(
            max_length=4 * size + 4 * ACTION_MAX_LENGTH + 16384,
            min_length=0,
            charset=self.alphabet,
        )
        self.action_space = GameText(
            max_length=ACTION_MAX_LENGTH, min_length=1, charset=self.alphabet
        )
        self.last_result: StepResult | None = None
        self.feedback = ""
        self._text = ""
        self._last: HistoryStep | None = None  # the last step, as the next text shows it

    def _make_loop(self) -> None:
        """The turn loop of :attr:`defn` (:mod:`escapebench.bench.loop`), with the hint system
        when a :class:`HintWrapper` asked for it."""
        self.loop: TurnLoop = EscapeEnv(self.defn, self.protocol)
        if self.hint_options is not None:
            self.loop = HintSystem(self.loop, self.hint_options,
                                   effects=_effects(self.defn))

    @property
    def game(self) -> EscapeGame:
        return self.loop.game

    @property
    def session(self) -> Session:
        """The protocol session of the play-through."""
        return self.loop.unwrapped.session

    @property
    def steps(self) -> int:
        """Steps played since the reset."""
        return self.loop.steps

    # ------------------------------------------------------------------ the API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start the play-through again (it is the same for every seed)."""
        super().reset(seed=seed)
        self._start()
        return self.observe()

    def _start(self) -> None:
        """A new play-through: nothing played yet."""
        self.loop.reset()
        self.last_result = None
        self.feedback = ""
        self._last = None

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play ``action`` (an action string, or text holding one); on a step whose action the
        hint system plays (:class:`HintWrapper`), that action instead."""
        game = self.game
        before = game.key_steps + game.tools_collected
        turn = self.loop.turn
        played = str(action) if turn.forced is None else turn.forced
        self.loop.step_now(Decision(played, mode="free explore" if turn.hint is None
                                    else "help"))
        result = self.loop.unwrapped.last_result
        assert result is not None
        self.last_result = result
        self.feedback = result.feedback
        shown = self.protocol.shown_action(played, result)
        self._last = HistoryStep(turn.step, turn.position, shown, result.feedback)
        reward = -self.step_cost
        if self.reward_mode == "progress":
            reward += game.key_steps + game.tools_collected - before
        elif result.game_end:
            reward += 1.0
        obs, info = self.observe()
        return obs, float(reward), game.ended, False, info

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._text
        if self.render_mode == "human":
            print(self._text)  # noqa: T201 - the human render mode prints
        return None

    # ------------------------------------------------------------------ views
    @property
    def text(self) -> str:
        """The observation last returned."""
        return self._text

    def observe(self) -> tuple[str, dict[str, Any]]:
        """The observation and info of the turn about to be played."""
        turn = self.loop.turn
        text = self.protocol.environment_text(
            step=turn.step, position=turn.position,
            observation=turn.observation, last=self._last, hint=turn.hint_view,
        )
        if not self.alphabet.issuperset(text):
            text = "".join(c if c in self.alphabet else REPLACEMENT for c in text)
        text = text[: self.observation_space.max_length]
        self._text = text
        return text, self.info()

    def info(self) -> dict[str, Any]:
        """What is on screen and the progress counters, as plain data."""
        game, d = self.game, self.defn
        screen = read_screen(game)
        result = self.last_result
        info: dict[str, Any] = {
            "setting": d.setting,
            "scene": game.scene_name,
            "items": [i.name for i in screen.items],
            "scene_tools": [t.name for t in screen.scene_tools],
            "exits": [e.label for e in screen.exits],
            "bag": [t.name for t in screen.bag],
            "steps": self.steps,
            "key_steps": game.key_steps,
            "total_key_steps": d.total_key_steps,
            "tools_collected": game.tools_collected,
            "total_tools": d.total_tools,
            "progress": game.progress,
            "escaped": game.ended,
            "action": result.action if result else "",
            "success": bool(result and result.success),
            "error": bool(result and result.error),
            "feedback": self.feedback,
            "texts_version": texts_version(self.protocol),
            "protocol": self.protocol.label,
        }
        if self.list_valid_actions:
            texts = candidate_strings("\n".join([*screen.texts, self.feedback]))
            info["valid_actions"] = screen_actions(screen, texts[:MAX_INPUT_TEXTS])
        return info


def _base(env: gym.Env) -> EscapeBenchEnv:
    base = env.unwrapped
    if not isinstance(base, EscapeBenchEnv):
        raise TypeError(f"expected an escapebench environment, got {type(base).__name__}")
    return base


class HintWrapper(gym.Wrapper):
    """The paper's hint system (``escapebench.bench.hints``), as the harness applies it: the
    environment's turn loop gets the :class:`~escapebench.bench.loop.HintSystem` layer.

    After ``patience`` steps without progress a hint starts: the player is put in the target
    scene and the observation ends with the hint instruction; after ``help_steps`` steps in
    help the target action is played instead of the agent's (``info["forced"]``). Before every
    step ``info["hint"]`` says which hint is in force and whether the next step is forced.
    """

    def __init__(
        self, env: gym.Env, patience: int | None = None, help_steps: int | None = None
    ) -> None:
        super().__init__(env)
        defaults = HintOptions()
        self.options = HintOptions(
            patience=defaults.patience if patience is None else patience,
            help_steps=defaults.help_steps if help_steps is None else help_steps,
        )
        base = _base(env)
        base.hint_options = self.options
        base._make_loop()

    @property
    def hints(self) -> HintSystem:
        hints = _base(self.env).loop.find(HintSystem)
        assert hints is not None
        return hints

    @property
    def policy(self) -> HintPolicy:
        return self.hints.policy

    @property
    def hints_started(self) -> int:
        return self.policy.hints_started

    def reset(self, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return obs, self._info(info, {})

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        forced = _base(self.env).loop.turn.forced
        obs, reward, terminated, truncated, info = self.env.step(action)
        outcome = self.hints.last_update
        extra = {
            "forced": forced is not None,
            "hint_completed": outcome.completed,
            "hint_skipped": outcome.skipped,
        }
        if terminated or truncated:
            info.update(extra, hint=None, hints_started=self.policy.hints_started)
            return obs, reward, terminated, truncated, info
        return obs, reward, terminated, truncated, self._info(info, extra)

    def _info(self, info: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
        """The info of the next turn, with the hint in force and whether it is forced."""
        turn = _base(self.env).loop.turn
        hint = turn.hint
        info.update(extra)
        info["hints_started"] = self.policy.hints_started
        info["hint"] = (
            None
            if hint is None
            else {
                "action": hint.action,
                "scene": hint.scene,
                "index": hint.index,
                "steps_in_help": hint.steps_in_help,
                "forced_next": turn.forced is not None,
            }
        )
        return info


class RecordSteps(gym.Wrapper):
    """Record every step as plain data: ``self.steps`` holds the current episode's; with
    ``path``, every episode is appended to that JSON-lines file too (a line per reset and per
    step, flushed at once, so a crash loses no finished step). Put it outside
    :class:`HintWrapper` to record the hint in force at each step and the forced steps."""

    def __init__(self, env: gym.Env, path: str | Path | None = None) -> None:
        super().__init__(env)
        self.path = Path(path) if path is not None else None
        self._file = self.path.open("a", encoding="utf-8") if self.path else None
        self.episode = -1
        self.steps: list[dict[str, Any]] = []
        self._hint: dict[str, Any] | None = None  # the hint in force for the next step

    def _write(self, record: dict[str, Any]) -> None:
        if self._file is not None:
            self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
            self._file.flush()

    def reset(self, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self.episode += 1
        self.steps = []
        self._hint = info.get("hint")
        self._write(
            {
                "episode": self.episode,
                "reset": True,
                "seed": kwargs.get("seed"),
                "setting": info.get("setting"),
                "scene": info.get("scene"),
                "texts_version": info.get("texts_version"),
            }
        )
        return obs, info

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        hint, self._hint = self._hint, info.get("hint")
        record = {
            "episode": self.episode,
            "step": len(self.steps),
            "action": str(action),
            "played": info.get("action", ""),
            "forced": bool(info.get("forced", False)),
            "reward": float(reward),
            "terminated": bool(terminated),
            "truncated": bool(truncated),
            "feedback": info.get("feedback", ""),
            "scene": info.get("scene"),
            "key_steps": info.get("key_steps"),
            "tools_collected": info.get("tools_collected"),
            "hint": hint["action"] if hint else None,
        }
        self.steps.append(record)
        self._write(record)
        return obs, reward, terminated, truncated, info

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        super().close()


#: Observations of generated games are cut to this length (their texts vary per game).
GENERATED_MAX_LENGTH = 400_000


class GeneratedEnv(EscapeBenchEnv):
    """A fresh generated game of ``tier`` at every reset (``escapebench/generated-v0``).

    ``reset(seed=S)`` plays the game of ``gen:tier=T,count=1,seed=S`` (the same seed gives the
    same game, different seeds different games); a reset without a seed draws the next seed
    from the environment's random generator. ``difficulty`` picks the version played.
    """

    def __init__(self, tier: int = 2, difficulty: str = "normal", *,
                 reward: RewardMode = "progress", step_cost: float = 0.0,
                 valid_actions: bool = True, render_mode: str | None = None,
                 protocol: str | PromptProtocol | None = None) -> None:
        self.tier = int(tier)
        self.difficulty = difficulty
        super().__init__(self._game(0), reward=reward, step_cost=step_cost,
                         valid_actions=valid_actions, render_mode=render_mode,
                         protocol=protocol)
        self.alphabet = frozenset(string.printable) | frozenset(REPLACEMENT)
        self.observation_space = GameText(max_length=GENERATED_MAX_LENGTH, min_length=0,
                                          charset=self.alphabet)
        self.action_space = GameText(max_length=ACTION_MAX_LENGTH, min_length=1,
                                     charset=self.alphabet)
        self.game_seed = 0

    def _game(self, seed: int) -> GameDefinition:
        from escapebench.generate.make import generate_games

        game = generate_games(self.tier, 1, seed)[0]
        return next(d for d in game.settings if d.difficulty == self.difficulty)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Draw the game of ``seed`` (or of a seed drawn from the generator) and start it."""
        gym.Env.reset(self, seed=seed)
        self.game_seed = seed if seed is not None else int(self.np_random.integers(0, 2**31))
        self.defn = self._game(self.game_seed)
        self._make_loop()
        self._start()
        obs, info = self.observe()
        info["game_seed"] = self.game_seed
        return obs, info
