"""What ``escapebench run`` can be told: :class:`RunSettings` and their validation.

:meth:`RunSettings.validate` refuses values that cannot work (an unknown agent, a model agent
without ``--model``, a server address that cannot be one, numbers out of range) with a
:class:`RunConfigError` before anything is created or played; the command turns it into exit
status 2. :func:`parse_shard` reads ``--shard i/n``.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from escapebench.bench.costs import Prices
from escapebench.bench.episode import DEFAULT_MAX_STEPS
from escapebench.bench.hints import DEFAULT_HELP_STEPS, DEFAULT_PATIENCE
from escapebench.llm.base import SamplingSettings

MODEL_AGENTS = ("base", "escape")
"""Built-in agents that need a model; the others (random, explorer, oracle) play without one."""
BUILTIN_AGENTS = ("base", "escape", "random", "explorer", "oracle")
NO_MODEL = "none"
DEFAULT_MEMORY = 10
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
        if (self.no_reflection or self.no_foresight) and self.agent != "escape":
            raise RunConfigError("--no-reflection and --no-foresight only apply to --agent escape")
        if self.agent in MODEL_AGENTS and not self.model:
            raise RunConfigError(
                f"--agent {self.agent} needs --model (a served model name with --base-url, "
                "or 'local' for the bundled SmolLM2)"
            )
        if self.base_urls and not self.model:
            raise RunConfigError("--base-url needs --model (the name of the served model)")
        if self.model and self.agent in ("random", "explorer", "oracle"):
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
