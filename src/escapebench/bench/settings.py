"""What ``escapebench run`` can be told: :class:`RunSettings` and their validation.

:meth:`RunSettings.validate` refuses values that cannot work (an unknown agent, a model agent
without ``--model``, a server address that cannot be one, numbers out of range) with a
:class:`RunConfigError` before anything is created or played; the command turns it into exit
status 2. :func:`parse_shard` reads ``--shard i/n``.
"""

from __future__ import annotations

import argparse
import inspect
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, dataclass, field, fields
from pathlib import Path
from typing import Any

from escapebench.agents.base import DEFAULT_MEMORY
from escapebench.agents.registry import AGENT_NAMES, ESCAPE_AGENTS, MODEL_AGENTS
from escapebench.bench.costs import Prices
from escapebench.bench.episode import DEFAULT_MAX_STEPS
from escapebench.bench.hints import DEFAULT_HELP_STEPS, DEFAULT_PATIENCE
from escapebench.engine.model import DIFFICULTIES
from escapebench.llm.base import SamplingSettings

BUILTIN_AGENTS = tuple(a for a in AGENT_NAMES if a != "scripted")
"""The agents ``--agent`` names (the scripted agent takes its actions from code)."""
NO_MODEL = "none"
MAX_REPEATS = 10_000
"""More repeats than this is a typo; the plan of a run is held in memory."""
MAX_MEMORY = 1_000_000  # steps of working memory (a prompt holds them all)
MAX_TOKENS_LIMIT = 2**31 - 1  # the largest answer length a server's 32-bit field holds


class RunConfigError(ValueError):
    """Settings that cannot be run (bad option values, a result folder of another run)."""


def default_cache_path() -> Path:
    """The response cache shared by all runs of this user (so any re-run costs nothing)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "escapebench" / "responses.sqlite"


AGENT_GROUP, GAMES_GROUP, RUNNING_GROUP = "agent and model", "games and episodes", "running"
_UNSET: Any = object()


@dataclass(frozen=True)
class Option:
    """How a :class:`RunSettings` field is given: ``escapebench run``'s option (its help, and
    where they are not the field's own, its flag, metavar, choices, argparse default and
    ``action``), and, with ``task``, a parameter of the Inspect task of the same name (with
    ``task_default`` where the task's default differs). ``read`` turns the option's value
    into the field's."""

    help: str | Callable[[], str]
    group: str
    flag: str = ""  # default: --<field-name>
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    action: str | None = None  # "append"; a bool field is a "store_true" flag
    cli_default: Any = _UNSET  # default: the field's
    read: Callable[[Any], Any] | None = None
    task: bool = False
    task_default: Any = _UNSET

    def help_text(self) -> str:
        return self.help() if callable(self.help) else self.help


def _setting(default: Any, help: str | Callable[[], str], group: str, **option: Any) -> Any:
    """A field of :class:`RunSettings` with its :class:`Option`."""
    meta = {"option": Option(help, group, **option)}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=meta)
    return field(default=default, metadata=meta)


def _game_specs(values: str | list[str] | None) -> list[str]:
    from escapebench.catalog import split_specs

    return split_specs([values] if isinstance(values, str) else values or ["builtin"])


@dataclass
class RunSettings:
    """Everything ``escapebench run`` can be told. Each field that is an option carries it
    (:class:`Option`): ``escapebench run``'s arguments and the Inspect task's parameters are
    made from these fields (:func:`add_run_options`, :func:`settings_from`)."""

    # agent and model
    agent: str = _setting(
        "explorer", f"one of {', '.join(BUILTIN_AGENTS)}, or a Python factory module:function",
        AGENT_GROUP, metavar="NAME", task=True, task_default=MODEL_AGENTS[0])
    no_reflection: bool = _setting(False, "EscapeAgent without its Reflection module",
                                   AGENT_GROUP, task=True)
    no_foresight: bool = _setting(False, "EscapeAgent without its Foresight module",
                                  AGENT_GROUP, task=True)
    model: str | None = _setting(
        None, "served model name (with --base-url), 'local' (bundled SmolLM2) or gguf:PATH; "
        "required for base and escape", AGENT_GROUP)
    base_urls: list[str] = _setting(
        [], "OpenAI-compatible server (.../v1); repeat for replicas of one model", AGENT_GROUP,
        flag="--base-url", action="append", metavar="URL")
    api_key_env: str | None = _setting(
        None, "environment variable holding the API key (default OPENAI_API_KEY)", AGENT_GROUP,
        metavar="VAR")
    memory: int = _setting(DEFAULT_MEMORY, "steps of working memory in each prompt",
                           AGENT_GROUP, task=True)
    temperature: float = _setting(0.0, "sampling temperature; 0 is greedy, as in the paper",
                                  AGENT_GROUP, task=True)
    max_tokens: int = _setting(SamplingSettings.max_tokens, "answer length limit", AGENT_GROUP,
                               task=True)
    seed: int | None = _setting(
        None, "sampling seed (repeat r uses seed + r); random agent seed", AGENT_GROUP,
        task=True)
    action_format: str = _setting(
        "text", "how the model acts: 'text' writes the action in its answer (the paper's "
        "protocol), 'tools' calls one of five functions (native tool calling; a separate "
        "result label, never ranked with text)", AGENT_GROUP, choices=("text", "tools"),
        task=True)
    timeout: float = _setting(120.0, "seconds per model request", AGENT_GROUP)
    max_retries: int = _setting(6, "retries of a failed model request before the run stops",
                                AGENT_GROUP)
    # games and episodes
    games: list[str] = _setting(
        ["builtin"], "built-in game or setting name, 'builtin', a game file, a folder in the "
        "original layout, a glob or a gen: spec; repeatable or comma-separated "
        "(default: builtin)", GAMES_GROUP, action="append", metavar="SPEC", cli_default=None,
        read=_game_specs, task=True, task_default="builtin")
    difficulties: list[str] | None = _setting(
        None, "only these difficulties; repeatable (default: all three)", GAMES_GROUP,
        flag="--difficulty", action="append", choices=DIFFICULTIES,
        read=lambda v: list(v) if v else None, task=True)
    repeats: int = _setting(1, "episodes per setting", GAMES_GROUP, task=True)
    max_steps: int = _setting(DEFAULT_MAX_STEPS, "an episode not escaped by then ends unescaped",
                              GAMES_GROUP, task=True)
    patience: int = _setting(DEFAULT_PATIENCE, "steps without progress before a hint",
                             GAMES_GROUP, task=True)
    help_steps: int = _setting(
        DEFAULT_HELP_STEPS, "steps in help before the hinted action is played for the agent",
        GAMES_GROUP, task=True)
    protocol: str | None = _setting(
        None, "what the model reads: the original harness's texts (read from the original "
        "checkout) or ours (default: original for games of an original checkout, escapebench "
        "otherwise)", GAMES_GROUP, choices=("original", "escapebench"),
        read=lambda v: v or None, task=True, task_default="")
    original_source: Path | None = _setting(
        None, "the original EscapeBench checkout (or its src folder) for --protocol original "
        "(default: found from the games folder CHECKOUT/data)", GAMES_GROUP, metavar="DIR")
    skip_unplayable: bool = _setting(
        False, "play the settings that can be played and skip the others (files that do not "
        "load, settings with check errors), recorded in run.json; without it, such a setting "
        "stops the run before it starts", GAMES_GROUP)
    shard: tuple[int, int] | None = _setting(
        None, "play only the I-th of N deterministic slices of the episodes", GAMES_GROUP,
        metavar="I/N", read=lambda v: parse_shard(v) if v else None)  # (i, n), 1 <= i <= n
    # running
    out: Path | None = _setting(
        None, "result folder (default: runs/<agent>__<model>__<settings hash>)", RUNNING_GROUP,
        metavar="DIR")
    concurrency: int = _setting(
        4, "episodes played at once (also the bound on in-flight model requests)",
        RUNNING_GROUP)
    cache: Path | None = _setting(  # None: the default cache file
        None, lambda: f"response cache file (default: {default_cache_path()})", RUNNING_GROUP,
        metavar="PATH")
    no_cache: bool = _setting(False, "do not cache model answers", RUNNING_GROUP)
    allow_server_change: bool = _setting(
        False, "resume a run against another server than it started with (recorded in "
        "run.json); refused without it", RUNNING_GROUP)
    fsync: bool = _setting(
        True, "flush step logs without fsync (still safe against kill -9, not against power "
        "loss)", RUNNING_GROUP, flag="--no-fsync", read=lambda no_fsync: not no_fsync)
    quiet: bool = _setting(False, "no live progress, only the table", RUNNING_GROUP)
    # not options
    command_line: list[str] = field(default_factory=list)
    prices: Prices | None = None  # USD per 1M tokens, for cost columns (not in the fingerprint)

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
        if (self.no_reflection or self.no_foresight) and self.agent not in ESCAPE_AGENTS:
            raise RunConfigError(
                "--no-reflection and --no-foresight only apply to --agent escape (or "
                "escape-original)"
            )
        if self.agent in MODEL_AGENTS and not self.model:
            raise RunConfigError(
                f"--agent {self.agent} needs --model (a served model name with --base-url, "
                "or 'local' for the bundled SmolLM2)"
            )
        if self.base_urls and not self.model:
            raise RunConfigError("--base-url needs --model (the name of the served model)")
        if self.model and self.agent in BUILTIN_AGENTS and self.agent not in MODEL_AGENTS:
            raise RunConfigError(f"--agent {self.agent} plays without a model; drop --model")
        if self.action_format not in ("text", "tools"):
            raise RunConfigError(
                f"--action-format {self.action_format!r}: choose text or tools"
            )
        if self.action_format != "text" and self.agent not in MODEL_AGENTS:
            raise RunConfigError(
                f"--action-format {self.action_format} is for the model agents "
                f"({', '.join(MODEL_AGENTS)}), not {self.agent}"
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


def run_options() -> list[tuple[Field[Any], Option]]:
    """The fields of :class:`RunSettings` that are options, each with its :class:`Option`, in
    the order ``escapebench run --help`` lists them."""
    return [(f, f.metadata["option"]) for f in fields(RunSettings) if "option" in f.metadata]


def option_name(f: Field[Any], opt: Option) -> str:
    """The option's name as argparse stores it and the Inspect task takes it: ``max_steps``
    for ``--max-steps``, ``difficulty`` for the ``difficulties`` field."""
    return (opt.flag or f.name).removeprefix("--").replace("-", "_")


def _field_default(f: Field[Any]) -> Any:
    return f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc]


_SCALARS: dict[str, type] = {"int": int, "float": float, "bool": bool, "str": str, "Path": Path}


def _scalar_type(f: Field[Any]) -> type | None:
    """``int`` for ``int`` and ``int | None``; None for lists and tuples."""
    return _SCALARS.get(str(f.type).split("|")[0].strip())


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """``escapebench run``'s options, made from the fields of :class:`RunSettings`, in their
    argument groups."""
    groups: dict[str, Any] = {}
    for f, opt in run_options():
        if opt.group not in groups:
            groups[opt.group] = parser.add_argument_group(opt.group)
        kwargs: dict[str, Any] = {"help": opt.help_text()}
        if f.type == "bool":
            kwargs["action"] = "store_true"
        else:
            kwargs["default"] = _field_default(f) if opt.cli_default is _UNSET else opt.cli_default
            if opt.action:
                kwargs["action"] = opt.action
            elif _scalar_type(f) not in (None, str):
                kwargs["type"] = _scalar_type(f)
            if opt.metavar:
                kwargs["metavar"] = opt.metavar
            if opt.choices:
                kwargs["choices"] = opt.choices
        groups[opt.group].add_argument(opt.flag or "--" + f.name.replace("_", "-"), **kwargs)


def settings_from(values: argparse.Namespace | Mapping[str, Any], **fixed: Any) -> RunSettings:
    """The :class:`RunSettings` of option values by their names (an argparse namespace of
    :func:`add_run_options`, or the Inspect task's parameters); ``fixed`` sets other fields."""
    given = vars(values) if isinstance(values, argparse.Namespace) else dict(values)
    out: dict[str, Any] = {}
    for f, opt in run_options():
        name = option_name(f, opt)
        if name in given:
            out[f.name] = opt.read(given[name]) if opt.read else given[name]
    return RunSettings(**out, **fixed)


def task_parameters() -> list[inspect.Parameter]:
    """The Inspect task's parameters (keyword-only): the options marked ``task``, with the
    task's defaults."""
    out = []
    for f, opt in run_options():
        if opt.task:
            default = _field_default(f) if opt.task_default is _UNSET else opt.task_default
            kind = str(f.type) if _scalar_type(f) else "str | list[str]" + (
                " | None" if default is None else "")  # a list: also comma-separated
            out.append(inspect.Parameter(option_name(f, opt), inspect.Parameter.KEYWORD_ONLY,
                                         default=default, annotation=kind))
    return out


def task_value(name: str, value: Any) -> Any:
    """A task parameter's value as its field's type (Inspect passes ``-T`` values as read from
    the command line: ``-T max_steps=30`` is a number, ``-T games=lab,ship`` a list)."""
    for f, opt in run_options():
        if option_name(f, opt) == name:
            kind = _scalar_type(f)
            return value if value is None or kind is None else kind(value)
    raise TypeError(f"no task parameter {name!r}")
