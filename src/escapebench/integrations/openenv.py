"""An OpenEnv environment over the engine (optional extra ``openenv``).

`OpenEnv <https://pypi.org/project/openenv/>`_ serves an environment as typed ``reset`` /
``step`` / ``state`` calls over a WebSocket (FastAPI, with ``/health``, ``/metadata`` and
``/schema``). Here the game is played as our Gymnasium environment plays it
(:class:`escapebench.integrations.gym.EscapeBenchEnv`, with
:class:`~escapebench.integrations.gym.HintWrapper` when hints are on), so the texts, the valid
actions, the reward and the hint system are the same:

* :class:`EscapeBenchAction`: ``action``, an action string or a model's whole answer (read as
  the protocol reads an answer: the last well-formed call).
* :class:`EscapeBenchObservation`: ``text`` (the protocol's text: feedback, position, scene,
  the hint while one is in force), ``valid_actions``, the progress counters, and OpenEnv's
  ``reward`` (computed here: ``progress`` +1 per new key step or tool collected, or
  ``sparse`` +1 on escaping, less ``step_cost``) and ``done`` (escaped, or ``max_steps``).
* :class:`EscapeBenchState`: the episode id, steps, setting, protocol and progress.

``reset(setting=...)`` picks one setting of the served games (default: the first normal
version; the games
are any ``--games`` spec: a built-in name, a file, an original data folder, ``gen:...``).
``escapebench openenv`` serves it on 127.0.0.1 (the Host header checked);
:func:`create_app` builds the app, :class:`EscapeBenchClient` is OpenEnv's typed client.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    from openenv.core import EnvClient
    from openenv.core.client_types import StepResult
    from openenv.core.env_server.http_server import create_app as _openenv_app
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
    from pydantic import Field
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "the OpenEnv environment needs the 'openenv' extra: pip install 'escapebench[openenv]'"
    ) from exc

from escapebench import __version__
from escapebench.bench.episode import DEFAULT_MAX_STEPS
from escapebench.bench.hints import HintOptions
from escapebench.engine.model import GameDefinition
from escapebench.integrations.gym import EscapeBenchEnv, HintWrapper, RewardMode
from escapebench.integrations.texts import choose_protocol
from escapebench.protocols import PromptProtocol

__all__ = [
    "ENV_NAME",
    "EscapeBenchAction",
    "EscapeBenchClient",
    "EscapeBenchEnvironment",
    "EscapeBenchObservation",
    "EscapeBenchState",
    "OpenEnvConfig",
    "create_app",
]

ENV_NAME = "escapebench"


class EscapeBenchAction(Action):
    """One move: an action string (``click(note)``) or a model's answer holding one."""

    action: str = Field(..., max_length=65_536,
                        description="an action such as click(note) or apply(key, door), or "
                        "an answer holding one (its last well-formed call is played)")


class EscapeBenchObservation(Observation):
    """What the player sees after a step (or at the start), with the progress as data."""

    text: str = Field(default="", description="the protocol's text: the last action's "
                      "feedback, the position, the scene, and the hint while one is in force")
    valid_actions: list[str] = Field(default_factory=list,
                                     description="every well-formed action on screen")
    feedback: str = Field(default="", description="the last action's feedback")
    setting: str = ""
    scene: str = ""
    steps: int = 0
    key_steps: int = 0
    total_key_steps: int = 0
    tools_collected: int = 0
    total_tools: int = 0
    progress: float = 0.0
    escaped: bool = False
    truncated: bool = Field(default=False, description="the step limit ended the episode")
    hint: dict[str, Any] | None = Field(
        default=None, description="the hint in force (action, scene, index, steps_in_help, "
        "forced_next), with hints on")
    forced: bool = Field(default=False, description="the hint system played this step")
    protocol: str = ""


class EscapeBenchState(State):
    """The episode as a whole."""

    setting: str = ""
    protocol: str = ""
    escaped: bool = False
    done: bool = False
    progress: float = 0.0
    key_steps: int = 0
    tools_collected: int = 0
    hints_started: int = 0
    total_reward: float = 0.0


@dataclass(frozen=True)
class OpenEnvConfig:
    """What the served environment plays; fixed for the server's life."""

    games: Sequence[str] = ("tutorial",)
    difficulties: Sequence[str] | None = None
    protocol: str | None = None
    original_source: Path | None = None
    hints: bool = False
    patience: int = HintOptions().patience
    help_steps: int = HintOptions().help_steps
    reward: RewardMode = "progress"
    step_cost: float = 0.0
    max_steps: int = DEFAULT_MAX_STEPS
    max_sessions: int = 8
    host: str = "127.0.0.1"
    settings: tuple[GameDefinition, ...] = field(default=(), compare=False)
    resolved_protocol: PromptProtocol | None = field(default=None, compare=False)

    def loaded(self) -> OpenEnvConfig:
        """This config with its settings loaded (and checked: raises GameFileError,
        OriginalSourceError or ValueError in one line)."""
        from dataclasses import replace

        from escapebench.catalog import load_games, split_specs

        settings = tuple(load_games(list(self.games), self.difficulties))
        if not settings:
            raise ValueError("no game settings match the games and difficulties given")
        protocol = choose_protocol(self.protocol, split_specs(self.games), self.original_source)
        return replace(self, settings=settings, resolved_protocol=protocol)


class EscapeBenchEnvironment(Environment[EscapeBenchAction, EscapeBenchObservation,
                                         EscapeBenchState]):
    """One session's game (each WebSocket session gets its own)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, config: OpenEnvConfig | None = None) -> None:
        super().__init__()
        config = config or OpenEnvConfig()
        self.config = config if config.settings else config.loaded()
        self._by_setting = {d.setting: d for d in self.config.settings}
        self._env: Any = None
        self._state = EscapeBenchState()
        self._done = False

    # ------------------------------------------------------------------ OpenEnv's API
    def reset(self, seed: int | None = None, episode_id: str | None = None,
              setting: str | None = None, **kwargs: Any) -> EscapeBenchObservation:
        """Start ``setting`` (a setting of the served games; default the first) again. The
        games have no randomness: ``seed`` changes nothing."""
        cfg = self.config
        if setting is None:  # the first normal version, else the first setting
            defn = next((d for d in cfg.settings if d.difficulty == "normal"), cfg.settings[0])
        elif setting in self._by_setting:
            defn = self._by_setting[setting]
        else:
            raise ValueError(f"no setting {setting!r} here; served: "
                             + ", ".join(sorted(self._by_setting)))
        base = EscapeBenchEnv(defn, reward=cfg.reward, step_cost=cfg.step_cost,
                              protocol=cfg.resolved_protocol)
        self._env = (HintWrapper(base, patience=cfg.patience, help_steps=cfg.help_steps)
                     if cfg.hints else base)
        text, info = self._env.reset(seed=seed)
        self._done = False
        self._state = EscapeBenchState(
            episode_id=episode_id or str(uuid.uuid4()), step_count=0, setting=defn.setting,
            protocol=info.get("protocol", ""),
        )
        return self._observation(text, info, reward=None)

    def step(self, action: EscapeBenchAction, timeout_s: float | None = None,
             **kwargs: Any) -> EscapeBenchObservation:
        """Play ``action`` (after the end of an episode: the last observation again, reward
        0, until the next reset)."""
        if self._env is None:
            self.reset()
        if self._done:
            return self._last.model_copy(update={"reward": 0.0})
        text, reward, terminated, _, info = self._env.step(action.action)
        steps = int(info.get("steps", 0))
        truncated = not terminated and steps >= self.config.max_steps
        self._done = bool(terminated or truncated)
        s = self._state
        s.step_count = steps
        s.total_reward = s.total_reward + float(reward)
        return self._observation(text, info, reward=float(reward), truncated=truncated)

    @property
    def state(self) -> EscapeBenchState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        settings = ", ".join(d.setting for d in self.config.settings[:12])
        more = len(self.config.settings) - 12
        return EnvironmentMetadata(
            name=ENV_NAME,
            description=(
                "Room-escape games (EscapeBench, ACL 2025) for language-model agents: text "
                "observations, actions such as click(note) or apply(key, door), reward per key "
                f"step and tool collected. Settings: {settings}"
                + (f" and {more} more" if more > 0 else "")
            ),
            version=__version__,
            author="escapebench",
        )

    # ------------------------------------------------------------------ views
    def _observation(self, text: str, info: dict[str, Any], *, reward: float | None,
                     truncated: bool = False) -> EscapeBenchObservation:
        s = self._state
        s.escaped = bool(info.get("escaped"))
        s.progress = float(info.get("progress", 0.0))
        s.key_steps = int(info.get("key_steps", 0))
        s.tools_collected = int(info.get("tools_collected", 0))
        s.hints_started = int(info.get("hints_started", 0))
        s.done = self._done
        obs = EscapeBenchObservation(
            done=self._done,
            reward=reward,
            text=text,
            valid_actions=list(info.get("valid_actions") or []),
            feedback=str(info.get("feedback", "")),
            setting=str(info.get("setting", "")),
            scene=str(info.get("scene", "")),
            steps=int(info.get("steps", 0)),
            key_steps=s.key_steps,
            total_key_steps=int(info.get("total_key_steps", 0)),
            tools_collected=s.tools_collected,
            total_tools=int(info.get("total_tools", 0)),
            progress=s.progress,
            escaped=s.escaped,
            truncated=truncated,
            hint=info.get("hint"),
            forced=bool(info.get("forced", False)),
            protocol=str(info.get("protocol", "")),
        )
        self._last = obs
        return obs


# ---------------------------------------------------------------------- the server
def create_app(config: OpenEnvConfig | None = None) -> Any:
    """The FastAPI app serving :class:`EscapeBenchEnvironment` with ``config`` (loaded once,
    shared read-only by the sessions). Only requests whose Host header names a loopback
    address are answered unless ``config.host`` is another address."""
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    config = config if config is not None and config.settings else (
        config or OpenEnvConfig()).loaded()
    app = _openenv_app(
        lambda: EscapeBenchEnvironment(config),
        EscapeBenchAction,
        EscapeBenchObservation,
        env_name=ENV_NAME,
        max_concurrent_envs=config.max_sessions,
        state_cls=EscapeBenchState,
    )
    from escapebench.serving import allowed_hosts

    app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts(config.host))
    return app


def config_from_environment() -> OpenEnvConfig:
    """The config of ``uvicorn escapebench.integrations.openenv:app``, from variables:
    ``ESCAPEBENCH_GAMES`` (comma-separated specs, default ``tutorial``),
    ``ESCAPEBENCH_PROTOCOL``, ``ESCAPEBENCH_ORIGINAL_SOURCE``, ``ESCAPEBENCH_HINTS`` (1: on),
    ``ESCAPEBENCH_REWARD``, ``ESCAPEBENCH_MAX_STEPS``, ``ESCAPEBENCH_HOST``."""
    env = os.environ
    from escapebench.catalog import split_specs

    # a comma list, as --games takes it (a gen: spec keeps its own commas)
    games = [g for g in split_specs([env.get("ESCAPEBENCH_GAMES", "tutorial")]) if g.strip()]
    source = env.get("ESCAPEBENCH_ORIGINAL_SOURCE")
    return OpenEnvConfig(
        games=tuple(games or ["tutorial"]),
        protocol=env.get("ESCAPEBENCH_PROTOCOL") or None,
        original_source=Path(source) if source else None,
        hints=env.get("ESCAPEBENCH_HINTS", "0").lower() in ("1", "true", "yes", "on"),
        reward="sparse" if env.get("ESCAPEBENCH_REWARD") == "sparse" else "progress",
        max_steps=int(env.get("ESCAPEBENCH_MAX_STEPS", DEFAULT_MAX_STEPS)),
        host=env.get("ESCAPEBENCH_HOST", "127.0.0.1"),
    )


def __getattr__(name: str) -> Any:
    # ``app`` is built on first use (uvicorn's import), from the environment variables.
    if name == "app":
        global app
        app = create_app(config_from_environment())
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------- the client
class EscapeBenchClient(EnvClient[EscapeBenchAction, EscapeBenchObservation, EscapeBenchState]):
    """OpenEnv's client for this environment (WebSocket; ``.sync()`` for plain calls)::

        with EscapeBenchClient(base_url="http://127.0.0.1:8000").sync() as env:
            result = env.reset()
            result = env.step(EscapeBenchAction(action=result.observation.valid_actions[0]))
    """

    def _step_payload(self, action: EscapeBenchAction) -> dict[str, Any]:
        return {"action": action.action}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[EscapeBenchObservation]:
        data = dict(payload.get("observation") or {})
        data.update(done=payload.get("done", False), reward=payload.get("reward"))
        observation = EscapeBenchObservation.model_validate(data)
        return StepResult(observation=observation, reward=payload.get("reward"),
                          done=bool(payload.get("done", False)))

    def _parse_state(self, payload: dict[str, Any]) -> EscapeBenchState:
        return EscapeBenchState.model_validate(payload)
