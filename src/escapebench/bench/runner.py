"""Run a suite of episodes concurrently into a result folder, resumably.

:func:`plan_run` turns :class:`RunSettings` into the list of episodes (games x repeats, sorted by
episode id, optionally one shard of them) and :func:`run_suite` plays them with ``concurrency``
episodes at once on one asyncio loop, writing the shared result-folder layout::

    RUN_DIR/run.json, results.csv, summary.csv, summary.md
    RUN_DIR/episodes/<episode_id>/steps.jsonl, result.json (checkpoint.jsonl while unfinished)

Running the same settings into the same folder again resumes: finished episodes (those with a
``result.json``) are skipped and unfinished ones continue from their step log. A folder whose
``run.json`` records different result-affecting settings is refused (:class:`RunConfigError`).
A model server that stays down (:class:`~escapebench.llm.base.ModelUnavailableError`) stops the
run; every finished step stays on disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import errno
import hashlib
import importlib
import json
import math
import os
import platform
import re
import sqlite3
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from escapebench.agents.base import Agent
from escapebench.bench.display import LiveDisplay
from escapebench.bench.episode import DEFAULT_MAX_STEPS, Episode, EpisodeSpec
from escapebench.bench.hints import (
    DEFAULT_HELP_STEPS,
    DEFAULT_PATIENCE,
    HintOptions,
    ReferenceEffect,
    reference_effects,
)
from escapebench.bench.metrics import (
    RESULT_VERSION,
    EpisodeResult,
    ResultFileError,
    Summary,
    aggregate,
    atomic_write_text,
    read_result_json,
    write_results_csv,
    write_summary_csv,
    write_summary_md,
)
from escapebench.bench.records import (
    EPISODES_DIR,
    ERROR_FILE,
    RESULT_FILE,
    RESULTS_FILE,
    RUN_FILE,
    SUMMARY_CSV,
    SUMMARY_MD,
)
from escapebench.engine.model import GameDefinition
from escapebench.engine.observation import OBSERVATION_VERSION
from escapebench.exit_codes import (
    EXIT_EPISODE_ERRORS,
    EXIT_MODEL_UNAVAILABLE,
    EXIT_OK,
    EXIT_STORAGE,
)
from escapebench.llm.base import ChatModel, ModelUnavailableError, SamplingSettings
from escapebench.protocols.base import Protocol

RUN_FORMAT = 1
FINGERPRINT_KEYS: tuple[str, ...] = (
    "escapebench_version",
    "prompt_version",
    "observation_version",
    "result_version",
    "agent",
    "agent_settings",
    "model",
    "sampling",
    "hints",
    "max_steps",
    "action_format",
    "protocol",
)
"""Keys of ``run.json`` that decide results: folders must agree on them to be combined."""
FINGERPRINT_DEFAULTS: dict[str, Any] = {"action_format": "text"}
"""What a key means in a ``run.json`` written before the key existed."""

MODEL_AGENTS = ("base", "escape")
"""Built-in agents that need a model; the others (random, explorer) play without one."""
BUILTIN_AGENTS = ("base", "escape", "random", "explorer")
NO_MODEL = "none"
DEFAULT_MEMORY = 10
MAX_REPEATS = 10_000
"""More repeats than this is a typo; the plan of a run is held in memory."""

_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


MAX_MEMORY = 1_000_000  # steps of working memory (a prompt holds them all)
MAX_TOKENS_LIMIT = 2**31 - 1  # the largest answer length a server's 32-bit field holds


class RunConfigError(ValueError):
    """Settings that cannot be run (bad option values, a result folder of another run)."""


def slug(text: str) -> str:
    """A file-name-safe form of ``text``."""
    return _SLUG.sub("_", text).strip("._")[:100] or "x"


def default_cache_path() -> Path:
    """The response cache shared by all runs of this user (so any re-run costs nothing)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "escapebench" / "responses.sqlite"


@dataclass
class RunSettings:
    """Everything ``escapebench run`` can be told."""

    agent: str = "explorer"
    no_reflection: bool = False
    no_foresight: bool = False
    model: str | None = None
    base_urls: list[str] = field(default_factory=list)
    api_key_env: str | None = None
    games: list[str] = field(default_factory=lambda: ["builtin"])
    difficulties: list[str] | None = None
    out: Path | None = None
    concurrency: int = 4
    max_steps: int = DEFAULT_MAX_STEPS
    repeats: int = 1
    patience: int = DEFAULT_PATIENCE
    help_steps: int = DEFAULT_HELP_STEPS
    memory: int = DEFAULT_MEMORY
    temperature: float = 0.0
    max_tokens: int = SamplingSettings.max_tokens
    seed: int | None = None
    action_format: str = "text"  # "text" (the paper's) or "tools" (native function calls)
    shard: tuple[int, int] | None = None  # (i, n), 1 <= i <= n
    cache: Path | None = None  # None: the default cache file
    no_cache: bool = False
    allow_server_change: bool = False
    timeout: float = 120.0
    max_retries: int = 6
    fsync: bool = True
    quiet: bool = False
    skip_unplayable: bool = False  # play the other settings; record the skipped ones
    command_line: list[str] = field(default_factory=list)
    protocol: str | None = None  # None: original for games of an original checkout
    original_source: Path | None = None  # the original checkout (or its src folder)

    @property
    def needs_model(self) -> bool:
        return self.agent in MODEL_AGENTS or (":" in self.agent and self.model is not None)

    def validate(self) -> None:
        """Raise :class:`RunConfigError` for values that cannot work."""
        if self.agent not in BUILTIN_AGENTS and ":" not in self.agent:
            raise RunConfigError(
                f"unknown agent {self.agent!r}: choose one of {', '.join(BUILTIN_AGENTS)} "
                "or give a Python factory as module:function"
            )
        if (self.no_reflection or self.no_foresight) and self.agent != "escape":
            raise RunConfigError("--no-reflection and --no-foresight only apply to --agent escape")
        if self.agent in MODEL_AGENTS and not self.model:
            raise RunConfigError(
                f"--agent {self.agent} needs --model (a served model name with --base-url, "
                "or 'local' for the bundled SmolLM2)"
            )
        if self.base_urls and not self.model:
            raise RunConfigError("--base-url needs --model (the name of the served model)")
        if self.model and self.agent in ("random", "explorer"):
            raise RunConfigError(f"--agent {self.agent} plays without a model; drop --model")
        if self.action_format not in ("text", "tools"):
            raise RunConfigError(
                f"--action-format {self.action_format!r}: choose text or tools"
            )
        if self.action_format != "text" and self.agent not in MODEL_AGENTS:
            raise RunConfigError(
                f"--action-format {self.action_format} is for the model agents (base, escape), "
                f"not {self.agent}"
            )
        for url in self.base_urls:
            problem = url_problem(url)
            if problem:
                raise RunConfigError(f"--base-url {_shown_url(url)!r}: {problem}")
        env_url = os.environ.get("OPENAI_BASE_URL", "")
        if env_url and not self.base_urls and self.needs_model:
            from escapebench.llm.factory import runs_in_process

            # the served model's address when --base-url is not given
            problem = None if runs_in_process(self.model or "") else url_problem(env_url)
            if problem:
                raise RunConfigError(f"$OPENAI_BASE_URL {_shown_url(env_url)!r}: {problem}")
        checks = [
            (self.concurrency >= 1, "--concurrency must be at least 1"),
            (self.max_steps >= 1, "--max-steps must be at least 1"),
            (self.repeats >= 1, "--repeats must be at least 1"),
            (self.patience >= 0, "--patience must be >= 0"),
            (self.help_steps >= 0, "--help-steps must be >= 0"),
            (self.memory >= 0, "--memory must be >= 0"),
            (self.repeats <= MAX_REPEATS, f"--repeats must be at most {MAX_REPEATS}"),
            (math.isfinite(self.temperature) and self.temperature >= 0,
             "--temperature must be a finite number >= 0"),
            (self.max_tokens >= 1, "--max-tokens must be at least 1"),
            (math.isfinite(self.timeout) and self.timeout > 0,
             "--timeout must be a finite number > 0"),
            (self.max_retries >= 0, "--max-retries must be >= 0"),
            # values that would only fail later, in every episode (an OverflowError, a server
            # refusing a number no JSON integer type holds)
            (self.memory <= MAX_MEMORY, f"--memory must be at most {MAX_MEMORY}"),
            (self.max_tokens <= MAX_TOKENS_LIMIT,
             f"--max-tokens must be at most {MAX_TOKENS_LIMIT}"),
            (self.seed is None or -(2**63) <= self.seed <= 2**63 - 1 - self.repeats,
             "--seed must fit a 64-bit integer (repeat r uses seed + r)"),
        ]
        for ok, message in checks:
            if not ok:
                raise RunConfigError(message)
        if self.shard is not None:
            i, n = self.shard
            if not (n >= 1 and 1 <= i <= n):
                raise RunConfigError("--shard must be i/n with 1 <= i <= n")


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a server address (None: it can).

    Checked before anything is created, so that a typo is an option error and not a run that
    retries a server that cannot exist and then reports it "unavailable".
    """
    from urllib.parse import urlsplit

    if any(c.isspace() for c in url.strip()):
        return "the URL contains a space"
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        return f"not a URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "expected an http:// or https:// URL, e.g. http://127.0.0.1:8000/v1"
    if not parts.hostname:
        return "the URL has no host, e.g. http://127.0.0.1:8000/v1"
    if parts.query or parts.fragment or url.strip().endswith(("?", "#")):
        return "the URL has a query or fragment (?... or #...); give the server's address only"
    if parts.username is not None or parts.password is not None:
        return (
            "the URL holds a user name or password (user:password@), which would be sent to "
            "the server and written next to results; put the key in an environment variable "
            "and name it with --api-key-env"
        )
    return None


def _shown_url(url: str) -> str:
    """``url`` as an error message may show it: whatever could be a user name, password or key
    (before an ``@``, after a ``?`` or ``#``) is replaced by ``***``, however broken the URL."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    for mark in "?#":
        if mark in rest:
            rest = rest.split(mark, 1)[0] + mark + "***"
    if "@" in rest:
        rest = "***@" + rest.rpartition("@")[2]
    return f"{scheme}{sep}{rest}"


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise RunConfigError(f"--shard {text!r}: expected i/n with 1 <= i <= n, e.g. 1/4")
    return int(m.group(1)), int(m.group(2))


# ---------------------------------------------------------------------- agents
def sampling_for(settings: RunSettings, repeat: int) -> SamplingSettings:
    """Sampling settings of one repeat.

    Repeats get different seeds (``seed + repeat``), so that with a temperature above 0 they
    are different samples and not one cached answer replayed; repeat 0 without ``--seed``
    sends no seed at all.
    """
    seed = None if settings.seed is None and repeat == 0 else (settings.seed or 0) + repeat
    return SamplingSettings(
        temperature=settings.temperature, max_tokens=settings.max_tokens, seed=seed
    )


def agent_options(settings: RunSettings, repeat: int) -> dict[str, Any]:
    """Keyword options for the agent factory of one repeat."""
    if settings.agent in MODEL_AGENTS:
        options: dict[str, Any] = {
            "memory": settings.memory,
            "sampling": sampling_for(settings, repeat),
        }
        if settings.agent == "escape":
            options["no_reflection"] = settings.no_reflection
            options["no_foresight"] = settings.no_foresight
        if settings.action_format != "text":
            options["action_format"] = settings.action_format
        return options
    if settings.agent == "random":
        return {"seed": (settings.seed or 0) + repeat}
    if settings.agent == "explorer":
        return {}
    # A user's factory gets everything that might matter to it.
    return {
        "memory": settings.memory,
        "sampling": sampling_for(settings, repeat),
        "seed": (settings.seed or 0) + repeat,
    }


def agent_factory(name: str) -> Callable[..., Agent]:
    """The factory of a built-in agent (through the registry) or of ``module:function``."""
    if ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            if not module_name or not attr:
                raise ValueError("expected module:function, e.g. mypackage.agents:make_agent")
            module = importlib.import_module(module_name)
            factory = getattr(module, attr)
        except Exception as exc:  # noqa: BLE001 - any failure of the user's module, e.g. a
            # SyntaxError, or a relative name that import_module rejects with TypeError
            raise RunConfigError(
                f"cannot load agent factory {name!r}: {type(exc).__name__}: {exc}"
            ) from None
        return factory  # type: ignore[no-any-return]
    try:
        from escapebench.agents.registry import make_agent
    except ImportError as exc:  # pragma: no cover - the registry ships with the package
        raise RunConfigError(f"the agent registry is not available: {exc}") from None

    def build(*, model: ChatModel | None, **options: Any) -> Agent:
        return make_agent(name, model=model, **options)

    return build


def make_episode_agent(settings: RunSettings, model: ChatModel | None, repeat: int) -> Agent:
    """A fresh agent for one episode."""
    from escapebench.agents.registry import AgentConfigError

    factory = agent_factory(settings.agent)
    if not callable(factory):
        raise RunConfigError(f"agent factory {settings.agent!r} is not callable")
    options = agent_options(settings, repeat)
    try:
        agent = factory(model=model, **options)
    except AgentConfigError as exc:
        raise RunConfigError(str(exc)) from None
    except TypeError as exc:
        if ":" not in settings.agent:
            raise
        # A user's function that does not take the factory's keywords (os:system, a typo).
        keywords = ", ".join(["model", *options])
        raise RunConfigError(
            f"agent factory {settings.agent!r} cannot be called with the keyword arguments "
            f"{keywords} ({exc}); it must return an Agent (see escapebench.agents.base)"
        ) from None
    if not isinstance(agent, Agent):
        raise RunConfigError(
            f"agent factory {settings.agent!r} returned {type(agent).__name__}, not an Agent"
        )
    return agent


def prompt_version() -> str:
    """The version name of the agents' prompt templates (empty if the module is absent)."""
    try:
        from escapebench.agents.prompts import PROMPT_VERSION
    except ImportError:  # pragma: no cover
        return ""
    return str(PROMPT_VERSION)


# ---------------------------------------------------------------------- planning
@dataclass
class RunPlan:
    """The episodes of a run and the metadata written next to their results."""

    settings: RunSettings
    out: Path
    specs: list[EpisodeSpec]
    definitions: dict[str, GameDefinition]  # setting -> definition
    effects: dict[str, tuple[ReferenceEffect, ...]]
    model_name: str
    fingerprint: dict[str, Any]
    games: list[dict[str, Any]]
    protocol: Protocol | None = None
    # settings left out by --skip-unplayable: {"setting", "source", "reason", "errors"}
    skipped: list[dict[str, Any]] = field(default_factory=list)


def episode_id(setting: str, agent: str, model: str, repeat: int) -> str:
    """``<setting>__<agent>__<model-slug>__r<repeat>``, safe as a folder name."""
    return f"{slug(setting)}__{slug(agent)}__{slug(model)}__r{repeat}"


def game_record(defn: GameDefinition) -> dict[str, Any]:
    """What ``run.json`` records of a game: its setting, file and the hashes that tell whether
    two runs played the same game."""
    source = Path(defn.source) if defn.source else None
    sha = ""
    if source is not None and source.is_file():
        sha = hashlib.sha256(source.read_bytes()).hexdigest()
    reference = json.dumps([[list(r.path), r.action] for r in defn.reference])
    return {
        "setting": defn.setting,
        "game": defn.game,
        "difficulty": defn.difficulty,
        "file": str(source) if source else "",
        "sha256": sha,
        "reference_sha256": hashlib.sha256(reference.encode()).hexdigest(),
    }


def refuse_broken_games(definitions: Sequence[GameDefinition]) -> None:
    """Raise :class:`RunConfigError` naming file:line and problem if a setting has errors
    (see :func:`escapebench.games.require_playable`)."""
    from escapebench.games import BrokenGamesError, require_playable

    try:
        require_playable(definitions)
    except BrokenGamesError as exc:
        raise RunConfigError(
            f"{exc.summary}; a game with errors would give meaningless results, so nothing "
            f"was played:\n{exc.details}"
        ) from None


def plan_run(
    settings: RunSettings, model_name: str, agent_settings: dict[str, Any], label: str
) -> RunPlan:
    """Resolve games, episodes, shard and output folder (no file is written)."""
    from escapebench.games import load_games_reporting, split_playable, unplayable_file

    settings.validate()
    definitions, failed = load_games_reporting(settings.games, settings.difficulties)
    if len(failed) == 1 and not definitions:
        raise failed[0]  # the one file named does not load: its error is the whole story
    # Every setting that cannot be played, at once: files that do not load, settings with
    # check errors (a game with errors can stop in the middle of play, and its numbers would
    # mean nothing).
    definitions, unplayable, _ = split_playable(definitions)
    unplayable = [unplayable_file(e) for e in failed] + unplayable
    if unplayable and not settings.skip_unplayable:
        listed = "\n  ".join(str(u) for u in unplayable)
        files = " ".join(sorted({u.source for u in unplayable}))
        raise RunConfigError(
            f"{len(unplayable)} setting(s) cannot be played (a game with errors would give "
            f"meaningless results), so nothing was played:\n  {listed}\n"
            f"Run 'escapebench check {files}' for the full report, or pass --skip-unplayable "
            "to play the others (the skipped ones are recorded in run.json)."
        )
    if not definitions:
        if unplayable:
            raise RunConfigError(
                "no playable settings left: every setting matched was skipped as unplayable"
            )
        raise RunConfigError("no game settings match --games and --difficulty")
    by_setting: dict[str, GameDefinition] = {}
    for d in definitions:
        other = by_setting.get(d.setting)
        if other is not None:
            raise RunConfigError(
                f"setting {d.setting!r} is defined twice ({other.source} and {d.source}); "
                "episode ids must be unique"
            )
        by_setting[d.setting] = d
    protocol = protocol_for(settings)
    specs = [
        EpisodeSpec(
            episode_id=episode_id(d.setting, label, model_name, r),
            defn=d,
            agent=label,
            model=model_name,
            repeat=r,
            max_steps=settings.max_steps,
            hints=HintOptions(settings.patience, settings.help_steps),
            prompt_version=str(agent_settings.get("prompt_version", "")),
            action_format=settings.action_format,
            protocol=protocol.label,
        )
        for d in definitions
        for r in range(settings.repeats)
    ]
    specs.sort(key=lambda s: s.episode_id)
    if settings.shard is not None:
        i, n = settings.shard
        specs = specs[i - 1 :: n]
    games = [game_record(d) for d in sorted(definitions, key=lambda d: d.setting)]
    fingerprint = run_fingerprint(
        agent=label,
        agent_settings=agent_settings,
        model=model_name,
        hints=HintOptions(settings.patience, settings.help_steps),
        max_steps=settings.max_steps,
        prompt_version=prompt_version(),
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        seed=settings.seed,
        action_format=settings.action_format,
        protocol=protocol_record(protocol),
    )
    out = settings.out or default_out_dir(fingerprint, games)
    effects = {d.setting: reference_effects(d) for d in definitions}
    return RunPlan(
        settings, out, specs, by_setting, effects, model_name, fingerprint, games, protocol,
        skipped=[u.to_json() for u in unplayable],
    )


def protocol_for(settings: RunSettings) -> Protocol:
    """The run's protocol (``--protocol``; by default ``original`` for games of an original
    checkout), or :class:`RunConfigError` in one line saying what to pass."""
    from escapebench.protocols import OriginalSourceError, make_protocol

    try:
        return make_protocol(settings.protocol, settings.games, settings.original_source)
    except (OriginalSourceError, ValueError) as exc:
        raise RunConfigError(str(exc)) from None


def protocol_record(protocol: Protocol) -> dict[str, Any]:
    """What decides results of a protocol (its name, version and the sha256 of the files its
    texts come from), for the fingerprint; where the files were is not in it."""
    return {k: v for k, v in protocol.record().items() if k != "source"}


def run_fingerprint(
    *,
    agent: str,
    agent_settings: dict[str, Any],
    model: str,
    hints: HintOptions,
    max_steps: int,
    prompt_version: str = "",
    temperature: float | None = None,
    max_tokens: int | None = None,
    seed: int | None = None,
    action_format: str = "text",
    protocol: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The keys of ``run.json`` that decide results (:data:`FINGERPRINT_KEYS`), for the harness
    and for human play: two folders can be combined only if these are equal.

    ``temperature``, ``max_tokens`` and ``seed`` are the run's sampling options (None where
    no model samples); the escapebench, observation and result versions are this package's.
    """
    fingerprint: dict[str, Any] = {
        "escapebench_version": _package_version(),
        "prompt_version": prompt_version,
        "observation_version": OBSERVATION_VERSION,
        "result_version": RESULT_VERSION,
        "agent": agent,
        "agent_settings": agent_settings,
        "model": model,
        "sampling": {"temperature": temperature, "max_tokens": max_tokens, "seed": seed},
        "hints": {"patience": hints.patience, "help_steps": hints.help_steps},
        "max_steps": max_steps,
        "action_format": action_format,
        "protocol": protocol or _escapebench_record(),
    }
    assert tuple(fingerprint) == FINGERPRINT_KEYS
    return fingerprint


def _escapebench_record() -> dict[str, Any]:
    from escapebench.protocols.escapebench import EscapebenchProtocol

    return EscapebenchProtocol().record()


def default_out_dir(fingerprint: dict[str, Any], games: list[dict[str, Any]]) -> Path:
    """``runs/<agent>__<model>__<hash>``: the same command always lands in the same folder,
    which is what makes re-running it resume."""
    digest = hashlib.sha256(
        json.dumps([fingerprint, games], sort_keys=True, default=str).encode()
    ).hexdigest()[:10]
    return Path("runs") / f"{slug(fingerprint['agent'])}__{slug(fingerprint['model'])}__{digest}"


def _package_version() -> str:
    from escapebench import __version__

    return str(__version__)


# ---------------------------------------------------------------------- run.json
def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(value)
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"not JSON-serializable: {type(value).__name__}")


def _normalized(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists, dataclasses dicts)."""
    return json.loads(json.dumps(value, default=_json_default))


def compatible(existing: dict[str, Any], plan_fingerprint: dict[str, Any],
               games: list[dict[str, Any]], *, existing_is: str = "in the folder",
               new_is: str = "now") -> list[str]:
    """Why a folder's ``run.json`` cannot take these results (empty: it can).

    Every result-affecting setting must be equal; games present in both must have the same
    file and reference hashes. More games or more repeats are fine: the folder just grows.
    ``existing_is`` and ``new_is`` say where each value comes from in the messages
    ("agent: 'base' in the folder, 'explorer' now").
    """
    problems = []
    new = _normalized(plan_fingerprint)
    for key in sorted(new):
        before = existing.get(key, FINGERPRINT_DEFAULTS.get(key))
        now = FINGERPRINT_DEFAULTS.get(key) if new[key] is None else new[key]
        if before != now:
            problems.append(f"{key}: {before!r} {existing_is}, {now!r} {new_is}")
    old_games = {g["setting"]: g for g in existing.get("games", [])}
    for g in games:
        before = old_games.get(g["setting"])
        if before is None:
            continue
        for key in ("sha256", "reference_sha256"):
            if before.get(key) and g.get(key) and before[key] != g[key]:
                problems.append(f"game {g['setting']}: its file has changed ({key})")
                break
    return problems


def read_run_json(folder: Path) -> dict[str, Any] | None:
    """The folder's ``run.json``, or None."""
    path = folder / RUN_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise RunConfigError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise RunConfigError(f"{path}: not a run description")
    return data


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _redacted_command(argv: Sequence[str]) -> list[str]:
    """The command line without credentials (URL user info, key-shaped arguments)."""
    if not any("://" in a or "sk-" in a or "bearer" in a.lower() for a in argv):
        return list(argv)  # nothing to scrub; spares model-free runs the HTTP client import
    from escapebench.llm.openai_client import redact, safe_url

    return [redact(safe_url(a) if "://" in a else a) for a in argv]


def server_identity(model: ChatModel | None) -> str | None:
    """Which server (or weights) answers ``model``'s calls: its ``cache_identity()``, the one
    the response cache keys on; None for a run without a model or a backend that has none."""
    inner = getattr(model, "inner", model)
    identity = getattr(inner, "cache_identity", None)
    return str(identity()) if callable(identity) else None


def check_server_change(existing: dict[str, Any], server: str | None, folder: Path, *,
                        allow: bool) -> None:
    """Refuse to resume ``folder`` against another server than the one it was played with
    (its numbers would mix two models' answers) unless ``allow``."""
    before = existing.get("server")
    if before is None or server is None or before == server or allow:
        return
    raise RunConfigError(
        f"{folder} was played against {before}, and this run would continue against "
        f"{server}: its episodes would mix two servers' answers. Use the original "
        "--base-url to resume, another --out for a new run, or --allow-server-change if "
        "both serve the same model (the change is recorded in run.json)"
    )


RESULT_FOLDER_ENTRIES = frozenset({RUN_FILE, RESULTS_FILE, SUMMARY_CSV, SUMMARY_MD,
                                   EPISODES_DIR, ".lock"})


def refuse_foreign_folder(folder: Path) -> None:
    """Refuse an ``--out`` folder that holds files but is not a result folder (no
    ``run.json``): writing episodes into someone's documents would mix them with files a
    report cannot tell from results, and a later clean-up would delete both."""
    if not folder.is_dir():
        return
    others = sorted(p.name for p in folder.iterdir() if p.name not in RESULT_FOLDER_ENTRIES)
    if others:
        shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5
                                         else "")
        raise RunConfigError(
            f"--out {folder} is not empty and is not a result folder (no {RUN_FILE}; it "
            f"holds {shown}); choose a new or empty folder"
        )


def write_run_json(plan: RunPlan, model_record: dict[str, Any] | None,
                   existing: dict[str, Any] | None, finished: bool,
                   server: str | None = None) -> None:
    """Write (or update) ``run.json`` with everything the results depend on, including the
    server that answered (``server``) and every change of it on resume."""
    s = plan.settings
    changes = list((existing or {}).get("server_changes") or [])
    before = (existing or {}).get("server")
    if before is not None and server is not None and before != server:
        changes.append({"from": before, "to": server, "at": _now()})
    games = {g["setting"]: g for g in (existing or {}).get("games", [])}
    games.update({g["setting"]: g for g in plan.games})
    data = {
        "format": RUN_FORMAT,
        **_normalized(plan.fingerprint),
        "model_backend": model_record,
        "server": server if server is not None else (existing or {}).get("server"),
        "server_changes": changes,
        "games": [games[k] for k in sorted(games)],
        "protocol_source": (
            plan.protocol.record().get("source") if plan.protocol is not None else None
        ),
        "skipped": plan.skipped,  # settings --skip-unplayable left out, with the reason
        "repeats": max(s.repeats, int((existing or {}).get("repeats", 0))),
        "shard": list(s.shard) if s.shard else None,
        "concurrency": s.concurrency,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "command_line": _redacted_command(s.command_line or sys.argv),
        "started": (existing or {}).get("started") or _now(),
        "finished": _now() if finished else None,
    }
    plan.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(plan.out / RUN_FILE, json.dumps(data, indent=1, default=str) + "\n")


# ---------------------------------------------------------------------- results
def collect_results(folder: Path) -> list[EpisodeResult]:
    """Every finished episode of a result folder, sorted by episode id.

    Raises :class:`RunConfigError` naming a ``result.json`` that cannot be read.
    """
    out = []
    episodes = folder / EPISODES_DIR
    if episodes.is_dir():
        for sub in sorted(episodes.iterdir()):
            path = sub / RESULT_FILE
            if path.is_file():
                try:
                    out.append(read_result_json(path))
                except ResultFileError as exc:
                    raise RunConfigError(str(exc)) from None
    return out


def write_tables(folder: Path, results: Sequence[EpisodeResult]) -> list[Summary]:
    """Rebuild ``results.csv``, ``summary.csv`` and ``summary.md`` of a folder."""
    summaries = aggregate(results)
    write_results_csv(folder / RESULTS_FILE, results)
    write_summary_csv(folder / SUMMARY_CSV, summaries)
    write_summary_md(folder / SUMMARY_MD, summaries, title=f"escapebench results: {folder.name}")
    return summaries


# ---------------------------------------------------------------------- running
LOCK_FILE = ".lock"


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on a result folder for the duration of a run.

    Two processes appending to the same step logs would corrupt them; the second one is
    refused. The lock is released by the operating system when the process dies, even by
    kill -9, so it never needs cleaning up.
    """
    if folder.exists() and not folder.is_dir():
        raise RunConfigError(f"the result folder {folder} is a file; choose another --out")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunConfigError(
            f"cannot create the result folder {folder}: {exc.strerror or exc}"
        ) from None
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no protection, as before
        yield
        return
    with open(folder / LOCK_FILE, "a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise RunConfigError(
                f"{folder} is in use by another escapebench run; wait for it to finish or "
                "choose another --out"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@dataclass
class RunOutcome:
    """What a run did."""

    out: Path
    planned: int
    finished: int  # episodes finished in the folder's plan (this run or before)
    played: int  # episodes played (or finished) by this run
    failed: dict[str, str] = field(default_factory=dict)  # episode id -> error
    model_error: str | None = None
    storage_error: str | None = None  # "<file>: <problem>" of a write that failed during play
    summaries: list[Summary] = field(default_factory=list)
    wall_s: float = 0.0
    episode_wall_s: dict[str, float] = field(default_factory=dict)
    skipped: list[dict[str, Any]] = field(default_factory=list)  # see RunPlan.skipped

    @property
    def exit_code(self) -> int:
        if self.storage_error:
            return EXIT_STORAGE
        if self.model_error:
            return EXIT_MODEL_UNAVAILABLE
        return EXIT_EPISODE_ERRORS if self.failed else EXIT_OK


def build_model(settings: RunSettings) -> ChatModel | None:
    """The chat model of a run, wrapped in the response cache unless disabled."""
    if not settings.model:
        return None
    from escapebench.llm.factory import make_model

    cache = None if settings.no_cache else (settings.cache or default_cache_path())
    try:
        if cache is not None:
            Path(cache).parent.mkdir(parents=True, exist_ok=True)
        return make_model(
            settings.model,
            base_urls=settings.base_urls or None,
            api_key_env=settings.api_key_env,
            cache_path=cache,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
            max_in_flight=max(1, settings.concurrency),
        )
    except ValueError as exc:
        raise RunConfigError(str(exc)) from None
    except (OSError, sqlite3.Error) as exc:
        # A folder, a file that is not SQLite, a place that cannot be written.
        problem = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise RunConfigError(
            f"--cache {cache}: cannot be the response cache ({problem}); give another file "
            "or --no-cache"
        ) from None


async def run_suite(
    settings: RunSettings,
    *,
    model: ChatModel | None = None,
    stream: IO[str] | None = None,
    live: bool | None = None,
) -> RunOutcome:
    """Plan and play a run; return its outcome (the result files are written).

    ``model`` overrides the one ``settings`` would build (tests and benchmarks pass their
    own). ``stream`` receives the live display (default: stderr); ``live`` forces the
    redrawing display on or off (default: when ``stream`` is a terminal).
    """
    stream = stream if stream is not None else sys.stderr
    started = time.perf_counter()
    settings.validate()
    if model is None and settings.needs_model:
        model = build_model(settings)
    model_name = model.name if model is not None else NO_MODEL
    sample_agent = make_episode_agent(settings, model, 0)
    agent_settings = _normalized(sample_agent.settings())
    # The agent's own name labels its results ("escape-no-foresight" for that ablation).
    plan = plan_run(settings, model_name, agent_settings, sample_agent.name)
    if read_run_json(plan.out) is None:
        refuse_foreign_folder(plan.out)  # before the lock file is made in it
    with folder_lock(plan.out):
        return await _run_plan(plan, model, started, stream, live)


async def _run_plan(
    plan: RunPlan,
    model: ChatModel | None,
    started: float,
    stream: IO[str],
    live: bool | None,
) -> RunOutcome:
    settings = plan.settings
    existing = read_run_json(plan.out)
    server = server_identity(model)
    if existing is not None:
        problems = compatible(existing, plan.fingerprint, plan.games)
        if problems:
            raise RunConfigError(
                f"{plan.out} holds results of different settings; use another --out, or the "
                "original settings to resume:\n  " + "\n  ".join(problems)
            )
        check_server_change(existing, server, plan.out, allow=settings.allow_server_change)
    # The tables are rebuilt from every result at the end: a damaged one stops the run now,
    # before anything is played or written, and not after hours of play.
    collect_results(plan.out)
    model_record = None
    if model is not None:
        from escapebench.llm.factory import model_settings_record

        model_record = model_settings_record(model)
    write_run_json(plan, model_record, existing, finished=False, server=server)

    outcome = RunOutcome(plan.out, planned=len(plan.specs), finished=0, played=0,
                         skipped=list(plan.skipped))
    todo = [s for s in plan.specs if not (plan.out / EPISODES_DIR / s.episode_id / RESULT_FILE)
            .exists()]
    outcome.finished = len(plan.specs) - len(todo)
    display = LiveDisplay(
        total=len(plan.specs), already_done=outcome.finished, stream=stream,
        live=live, quiet=settings.quiet,
    )
    queue: asyncio.Queue[EpisodeSpec] = asyncio.Queue()
    for spec in todo:
        queue.put_nowait(spec)
    stop = asyncio.Event()

    async def worker() -> None:
        while not stop.is_set():
            try:
                spec = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            folder = plan.out / EPISODES_DIR / spec.episode_id
            display.started(spec)
            t0 = time.perf_counter()
            try:
                agent = make_episode_agent(settings, model, spec.repeat)
                episode = Episode(
                    spec, agent, folder, effects=plan.effects[spec.defn.setting],
                    protocol=plan.protocol,
                    on_step=display.update, fsync=settings.fsync,
                )
                result = await episode.run()
            except ModelUnavailableError as exc:
                outcome.model_error = str(exc)
                display.stopped(spec, "model unavailable")
                stop.set()
                return
            except asyncio.CancelledError:
                display.stopped(spec, "stopped")
                raise
            except Exception as exc:  # an agent or log problem: this episode only
                if is_storage_fault(exc, plan.out):  # the disk, not the episode: all stop
                    outcome.storage_error = outcome.storage_error or storage_problem(exc)
                    display.stopped(spec, "cannot write its results")
                    stop.set()
                    return
                message = f"{type(exc).__name__}: {exc}"
                try:
                    folder.mkdir(parents=True, exist_ok=True)
                    atomic_write_text(folder / ERROR_FILE, traceback.format_exc())
                except OSError as write_error:  # never a half-written error.txt
                    outcome.storage_error = outcome.storage_error or storage_problem(write_error)
                    display.stopped(spec, "cannot write its results")
                    stop.set()
                    return
                outcome.failed[spec.episode_id] = message
                display.stopped(spec, message)
                continue
            outcome.played += 1
            outcome.finished += 1
            outcome.episode_wall_s[spec.episode_id] = time.perf_counter() - t0
            display.finished(spec, result)

    tasks = [asyncio.create_task(worker()) for _ in range(min(settings.concurrency, len(todo)))]
    all_done = asyncio.gather(*tasks) if tasks else None
    try:
        if all_done is not None:
            stop_wait = asyncio.create_task(stop.wait())
            try:
                await asyncio.wait({stop_wait, all_done}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stop_wait.cancel()
            if stop.is_set():
                # The model is gone (or the disk is full): stop the other episodes where they
                # are. Their current step was not logged yet, so resuming plays it again from
                # the same state.
                for t in tasks:
                    t.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await all_done
    finally:
        if all_done is not None and not all_done.done():
            # Interrupted (Ctrl-C cancels this task): stop every episode at a step boundary
            # and wait for it, so that each log ends with a whole step and no task is left
            # running (or with an error nobody reads) when the loop closes.
            for t in tasks:
                t.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await all_done
        display.close()
        aclose = getattr(getattr(model, "inner", model), "aclose", None)
        if callable(aclose):
            with contextlib.suppress(Exception):
                await aclose()
        try:
            results = collect_results(plan.out)
            outcome.summaries = write_tables(plan.out, results)
            complete = outcome.finished == outcome.planned
            write_run_json(plan, model_record, read_run_json(plan.out), finished=complete,
                           server=server)
        except OSError as exc:  # the tables are rebuilt from the results by the next run
            outcome.storage_error = outcome.storage_error or storage_problem(exc)
        outcome.wall_s = time.perf_counter() - started
    return outcome


# What a write into the result folder fails with when the disk, not the run, is the problem.
_STORAGE_ERRNOS = frozenset(
    getattr(errno, name) for name in
    ("ENOSPC", "EDQUOT", "EACCES", "EPERM", "EROFS", "EIO", "EFBIG", "ENOENT", "ESTALE")
    if hasattr(errno, name)
)


def is_storage_fault(exc: BaseException, folder: Path) -> bool:
    """Whether ``exc`` is a failed write into the result ``folder`` (the disk full, permission
    or the folder lost) rather than a problem of the episode: an OSError of the kinds a full
    or read-only disk gives, about a file in the folder (or about no file: a write on a file
    already open)."""
    if not isinstance(exc, OSError) or exc.errno not in _STORAGE_ERRNOS:
        return False
    if exc.filename is None:
        return True
    try:
        return Path(os.fsdecode(exc.filename)).resolve().is_relative_to(folder.resolve())
    except (OSError, ValueError, TypeError):
        return False


def storage_problem(exc: OSError) -> str:
    """``"<file>: <what went wrong>"`` for the message of a storage fault."""
    where = exc.filename if exc.filename is not None else "the result folder"
    return f"{where}: {exc.strerror or exc}"
