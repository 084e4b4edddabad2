"""A verifiers environment over the engine (optional extra ``verifiers``; verifiers 0.4, the
``verifiers.v1`` Taskset / Env API).

One task is one setting; one rollout is one episode of our own harness
(:class:`escapebench.bench.episode.Episode`, with the paper's hint system), in which the model
under training is the player: every step the observation in the words of the protocol chosen
(``protocol``: ``escapebench`` by default, ``original`` with a checkout; see
:meth:`escapebench.protocols.base.PromptProtocol.environment_text`) is the user turn, and the
model's answer is read by that protocol's rules, as ``run`` reads an agent's. The rewards come
from the same progress signal as the harness and the Gymnasium environment: ``progress`` (key
steps + tools collected, over their totals, in [0, 1]) and ``escaped``; the paper's metrics
(Table 3: hints used, total steps, early-exit progress, ...) go in the trace's
``info["escapebench"]`` and ``metrics``.

Run it with ``vf-eval`` (taskset id ``escapebench-verifiers``, the top-level module that
re-exports this one)::

    vf-eval escapebench-verifiers -m MODEL --env.taskset.games '["tutorial"]' ...

or from Python with :func:`load_environment`.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import verifiers.v1 as vf
    from verifiers.v1.harnesses.null import NullHarness
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "the verifiers environment needs the 'verifiers' extra: "
        "pip install 'escapebench[verifiers]'"
    ) from exc

from escapebench.agents.base import Agent, Decision, TurnContext
from escapebench.agents.base_agent import protocol_of
from escapebench.bench.episode import Episode, EpisodeSpec
from escapebench.bench.hints import DEFAULT_HELP_STEPS, DEFAULT_PATIENCE, HintOptions
from escapebench.bench.metrics import EpisodeResult
from escapebench.catalog import load_games, source_of, split_specs
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.integrations.extras import warn_openai_clash
from escapebench.integrations.texts import choose_protocol, environment_text, texts_version
from escapebench.protocols import HistoryStep, PromptProtocol
from escapebench.protocols.escapebench import prompts
from escapebench.protocols.escapebench.parsing import answer_reasoning

__all__ = [
    "EscapeBenchData",
    "EscapeBenchEnv",
    "EscapeBenchEnvConfig",
    "EscapeBenchHarness",
    "EscapeBenchTask",
    "EscapeBenchTaskset",
    "EscapeBenchTasksetConfig",
    "load_environment",
]

TASKSET_ID = "escapebench-verifiers"
warn_openai_clash()  # one line where Inspect is installed too (it needs openai>=3.4)
#: The system prompt: the escapebench action prompt with the answer format.
SYSTEM_PROMPT = prompts.ACTION_SYSTEM_PROMPT + "\n\n" + prompts.CHAIN_OF_THOUGHT_INSTRUCTION
#: Steps per RL episode (short rollouts for training; a benchmark run's cap is bench's
#: DEFAULT_MAX_STEPS, 4000).
ROLLOUT_MAX_STEPS = 50


class EscapeBenchTasksetConfig(vf.TasksetConfig):
    """Which settings to play and the episode's limits."""

    games: list[str] = ["tutorial"]
    """Game specs as ``escapebench run --games`` takes them: built-in names, ``builtin``,
    game files, original data folders."""
    difficulties: list[str] | None = None
    """Only these difficulties (default: every setting the specs name)."""
    max_steps: int = ROLLOUT_MAX_STEPS
    """Steps (model turns, forced steps included) before an episode ends unescaped."""
    patience: int = DEFAULT_PATIENCE
    """Steps without progress before a hint (the paper's 50)."""
    help_steps: int = DEFAULT_HELP_STEPS
    """Steps in help before the hinted action is played for the model (the paper's 10)."""
    protocol: str | None = None
    """What the model reads and how its answers are read, as ``run --protocol`` takes it
    (``escapebench`` or ``original``; default: ``original`` for games of an original
    checkout, else ``escapebench``)."""
    original_source: str | None = None
    """The original release's checkout, for ``protocol: original``."""


class EscapeBenchData(vf.TaskData):
    info: dict
    """The game spec and the setting the rollout plays, and the episode's limits."""


class EscapeBenchTask(vf.Task[EscapeBenchData, vf.State, vf.TaskConfig]):
    pass


class EscapeBenchEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig()


class EscapeBenchHarness(NullHarness):
    """The default harness of the taskset: the plain chat loop (no tools; the game is the
    user)."""


def _definitions(config: EscapeBenchTasksetConfig) -> list[GameDefinition]:
    return load_games(config.games, config.difficulties)


def system_prompt(protocol: PromptProtocol) -> str:
    """The system turn under ``protocol``: its action prompt (ours with the answer format)."""
    if protocol.name == "escapebench":
        return SYSTEM_PROMPT
    return protocol.action_system_prompt()


@functools.lru_cache(maxsize=16)
def _generated(spec: str) -> tuple[GameDefinition, ...]:
    """The settings of a ``gen:`` spec, made once per process (the same spec always makes the
    same games; a file is read again each rollout, as it may have changed)."""
    return tuple(load_games([spec]))


def _definition(info: dict[str, Any]) -> GameDefinition:
    spec = str(info["game"])
    for d in _generated(spec) if source_of(spec) else load_games([spec]):
        if d.setting == info["setting"]:
            return d
    raise ValueError(f"{info['game']}: no setting {info['setting']!r}")


class EscapeBenchTaskset(vf.Taskset[EscapeBenchTask, EscapeBenchTasksetConfig]):
    """One task per setting the config's game specs name, in their order."""

    def load(self) -> Iterator[EscapeBenchTask]:
        cfg = self.config
        specs = split_specs(cfg.games)
        protocol = choose_protocol(cfg.protocol, specs, cfg.original_source)
        for spec in specs:
            for d in load_games([spec], cfg.difficulties):
                yield EscapeBenchTask(
                    EscapeBenchData(
                        name=d.setting,
                        prompt=environment_text(
                            protocol, protocol.session(d), EscapeGame(d), step=0
                        ),
                        system_prompt=system_prompt(protocol),
                        info={
                            "game": spec,
                            "setting": d.setting,
                            "max_steps": cfg.max_steps,
                            "patience": cfg.patience,
                            "help_steps": cfg.help_steps,
                            "protocol": protocol.name,
                            "original_source": cfg.original_source,
                            "texts_version": texts_version(protocol),
                        },
                    ),
                    cfg.task,
                )


class _ExchangeOver(Exception):
    """The interaction ended (a turn limit of the harness) before the episode did."""


class ModelPlayer(Agent):
    """The model being trained, as a player of our harness: each decision is one turn of the
    verifiers interaction. The task's prompt is the first observation, so the first turn is
    a bare ``turn()``; later turns carry the feedback of the steps since the last turn
    (a forced step's too) and the new observation."""

    name = "verifiers"

    def __init__(self, interaction: Any) -> None:
        self.interaction = interaction
        self.turns = 0
        self._feedback: list[str] = []
        self._last: tuple[int, str, str] | None = None  # (step, position, action shown)

    async def decide(self, ctx: TurnContext) -> Decision:
        protocol = protocol_of(ctx)
        if self.turns == 0:
            segment = await self.interaction.turn()
        else:
            last = None
            if self._last is not None:
                step, position, action = self._last
                last = HistoryStep(step, position, action, "\n".join(self._feedback))
            text = protocol.environment_text(
                step=ctx.step, position=ctx.position,
                observation=ctx.observation if ctx.observation is not None else "",
                last=last, hint=ctx.hint_view,
            )
            segment = await self.interaction.turn(text)
        self.turns += 1
        self._feedback = []
        if segment.terminated:
            raise _ExchangeOver
        answer = segment.last_reply
        reading = protocol.read_answer(answer)  # read once: the call goes on to the loop
        return Decision(
            action=reading.text,
            reading=reading,
            reasoning=answer_reasoning(answer, reading.thought),
            raw_answer=answer,
            mode="help" if ctx.hint else "free explore",
        )

    def observe(
        self, ctx: TurnContext, decision: Decision, result: StepResult, position_after: str
    ) -> dict[str, Any]:
        self._feedback.append(result.feedback)
        shown = protocol_of(ctx).shown_action(decision.action, result)
        self._last = (ctx.step, ctx.position, shown)
        return {}


def record_result(trace: Any, result: EpisodeResult) -> None:
    """The rewards, metrics and info a rollout reports for a finished episode."""
    trace.record_reward("progress", result.progress, 1.0)
    trace.record_reward("escaped", float(result.escaped), 0.0)
    trace.record_metrics(
        {
            "escaped": float(result.escaped),
            "progress": result.progress,
            "hints_used": result.hints_used,
            "total_steps": result.total_steps,
            "early_exit_progress": result.early_exit_progress,
            "key_steps": result.key_steps,
            "tools_collected": result.tools_collected,
            "forced_steps": result.forced_steps,
            "error_actions": result.error_actions,
        }
    )
    trace.info["escapebench"] = result.to_dict()


class EscapeBenchEnv(vf.Env[EscapeBenchEnvConfig]):
    """Plays one episode of the task's setting with the model as the player."""

    async def run(self, task: EscapeBenchTask, agents: Any) -> None:
        info = task.data.info
        defn = _definition(info)
        protocol = choose_protocol(
            info.get("protocol"), [info["game"]], info.get("original_source")
        )
        spec = EpisodeSpec(
            episode_id=f"{defn.setting}__verifiers",
            defn=defn,
            agent="verifiers",
            model="verifiers",
            max_steps=int(info["max_steps"]),
            hints=HintOptions(patience=int(info["patience"]), help_steps=int(info["help_steps"])),
            prompt_version=texts_version(protocol),
            protocol=protocol.label,
        )
        with tempfile.TemporaryDirectory(prefix="escapebench-vf-") as folder:
            async with agents.player.interaction(task) as interaction:
                player = ModelPlayer(interaction)
                episode = Episode(spec, player, Path(folder), fsync=False, protocol=protocol)
                try:
                    result = await episode.run()
                except _ExchangeOver:
                    # The harness stopped the exchange: the episode ends where it is.
                    result = episode.metrics.result(
                        episode_id=spec.episode_id,
                        agent=spec.agent,
                        model=spec.model,
                        repeat=0,
                        prompt_version=spec.prompt_version,
                        max_steps=spec.max_steps,
                        player="agent",
                    )
                # (inside the interaction: its close scores the rollout)
                record_result(interaction.trace, result)


def load_environment(
    games: list[str] | None = None,
    *,
    difficulties: list[str] | None = None,
    max_steps: int = ROLLOUT_MAX_STEPS,
    patience: int = DEFAULT_PATIENCE,
    help_steps: int = DEFAULT_HELP_STEPS,
    protocol: str | None = None,
    original_source: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    **env_config: Any,
) -> EscapeBenchEnv:
    """The verifiers environment for ``games`` (default: the tutorial)."""
    player: dict[str, Any] = {}
    if model is not None:
        player["model"] = model
    if base_url is not None:
        player["client"] = {"base_url": base_url}
    config = EscapeBenchEnvConfig.model_validate(
        {
            "taskset": {
                "id": TASKSET_ID,
                "games": list(games or ["tutorial"]),
                "difficulties": difficulties,
                "max_steps": max_steps,
                "patience": patience,
                "help_steps": help_steps,
                "protocol": protocol,
                "original_source": original_source,
            },
            **({"player": player} if player else {}),
            **env_config,
        }
    )
    return EscapeBenchEnv(config)
