"""Chat models behind an OpenAI-compatible HTTP API.

One class covers hosted APIs (OpenAI and compatible services) and local servers (vLLM,
SGLang, Ollama, llama.cpp server): they all speak ``POST {base_url}/chat/completions``.

Retries are ours, not the SDK's: the SDK's retry loop knows nothing about replicas and treats
a 200 answer with a broken body as success. Every failed attempt moves on to the next replica;
when every replica has failed once, we back off exponentially (with jitter), and never sooner
than a replica's ``Retry-After``. After the last attempt the caller gets a
:class:`ModelUnavailableError` whose message names the URLs, the attempts and the last error.
A server that has never answered and finds nobody there (the connection refused, or its name
does not resolve) is a wrong URL rather than an outage: once every replica was found so, the
call raises :class:`ServerNotReachedError` at once, one line naming the server and what to
check. After any replica has answered, the same errors are retried like any other.

The API key is only ever handed to the SDK; error messages and log lines go through
:func:`redact` so that neither the key nor fragments of it (some servers echo a masked key
back) end up in logs or result files.

CPU per call is what limits how many calls one process keeps in flight (the event loop runs on
one core), so the hot path is lean: ``client.post`` with the raw response rather than
``chat.completions.create`` (whose request transform and response models cost about 1 ms a
call), the body parsed with ``json.loads``, keep-alive connections that are cheap to manage
(see :class:`_LoopState`), and aiohttp under the SDK when it is installed.
``benchmarks/model_calls.py`` measures it.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import importlib.util
import itertools
import json
import logging
import math
import os
import random
import re
import socket
import ssl
import sys
import time
from collections.abc import AsyncGenerator, Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

import httpx
import openai

from escapebench.json_limits import MAX_JSON_DEPTH, structural_brackets
from escapebench.llm.base import (
    Completion,
    Message,
    ModelUnavailableError,
    SamplingSettings,
    ServerNotReachedError,
    ToolCall,
    clean_model_text,
    estimate_prompt_tokens,
    estimate_tokens,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_API_HOST = "api.openai.com"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
PLACEHOLDER_API_KEY = "EMPTY"
"""Sent when no key is configured: local servers ignore it, the SDK insists on some value."""

KEEPALIVE_S = 4.0
"""Idle connections are dropped after this long: a little sooner than servers drop them
(uvicorn under vLLM and SGLang, and llama.cpp's server, after 5 s), so that a request is not
sent on a connection the server is closing at that very moment."""

MAX_RETRY_AFTER_S = 300.0
"""A larger ``Retry-After`` is clipped: a run should not silently sleep for hours."""

# HTTP statuses that say "try again later" rather than "your request is wrong".
_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})

# What an environment variable's name can be (POSIX shells).
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Things that look like API keys in server messages ("sk-...", "Bearer ...").
_KEY_PATTERNS = (
    re.compile(r"sk-[A-Za-z0-9_\-\*\.]{6,}"),
    re.compile(r"(?i)sk%2D[A-Za-z0-9_%\-\*\.]{6,}"),
    re.compile(r"(?i)bearer\s+[A-Za-z0-9_\-\.\*]+"),
)


FRAGMENT_CHARS = 8
"""A run of this many characters of a key (as sent, or percent-encoded) is removed wherever it
appears: servers echo keys masked in the middle ("sk-te...cdef") or URL-encoded."""


def _encodings(secret: str) -> tuple[str, ...]:
    """``secret`` as sent and as a server may echo it in a URL (``%2D`` or ``%2d`` for ``-``)."""
    every = "".join(c if c.isalnum() else f"%{ord(c):02X}" for c in secret)
    return tuple(dict.fromkeys((secret, quote(secret, safe=""), every, every.lower())))


def _redact_fragments(text: str, secret: str) -> str:
    """``text`` with every run of :data:`FRAGMENT_CHARS` or more characters of ``secret`` (in
    any of its encodings) replaced by ``***``."""
    n = FRAGMENT_CHARS
    grams = {form[i : i + n] for form in _encodings(secret) for i in range(len(form) - n + 1)}
    covered = [False] * len(text)
    for j in range(len(text) - n + 1):
        if text[j : j + n] in grams:
            covered[j : j + n] = [True] * n
    if not any(covered):
        return text
    out: list[str] = []
    for j, ch in enumerate(text):
        if not covered[j]:
            out.append(ch)
        elif j == 0 or not covered[j - 1]:
            out.append("***")
    return "".join(out)


def redact(text: str, secrets: Sequence[str] = ()) -> str:
    """Remove ``secrets`` and anything shaped like an API key from ``text``: a key of
    :data:`FRAGMENT_CHARS` or more characters also where it is percent-encoded or cut short."""
    for secret in secrets:
        if len(secret) >= FRAGMENT_CHARS:
            for form in _encodings(secret):
                text = text.replace(form, "***")
            text = _redact_fragments(text, secret)
        elif secret:
            # A short key (a local server's "hunter2") inside a word is a coincidence, not
            # the key: replace it only where it stands alone, as servers echo it.
            text = re.sub(rf"(?<![\w-]){re.escape(secret)}(?![\w-])", "***", text)
    for pattern in _KEY_PATTERNS:
        text = pattern.sub("***", text)
    return text


_HEADER_SAFE = re.compile(r"[!-~]+")  # printable ASCII without spaces: what a Bearer token is


def safe_url(url: str) -> str:
    """``url`` without user info and query string, which may carry credentials."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid url>"
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (seconds or HTTP date)."""
    if not headers:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            seconds = float(value) / 1000.0
        except ValueError:
            seconds = math.nan
        if math.isfinite(seconds) and seconds >= 0:
            return seconds
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


class _RetryableError(Exception):
    """One failed attempt that is worth repeating, possibly on another replica."""

    def __init__(
        self, reason: str, retry_after: float | None = None, *, answered: bool = False
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.answered = answered  # the server sent an HTTP answer (it is there)


class _NotReachedError(_RetryableError):
    """Nobody there: the connection was refused, or the server's name does not resolve."""


class _FatalError(Exception):
    """A failure that retrying cannot fix (bad key, unknown model, invalid request)."""

    def __init__(self, reason: str, status: int | None = None) -> None:
        super().__init__(reason)
        self.status = status  # the HTTP status, when the server answered with one


def _sdk_http_library() -> ModuleType:
    """The HTTP library under the SDK's own client: ``httpx``, or ``httpx2`` in newer SDKs.

    Limits, TLS context and the raw response type must come from the same library."""
    for cls in openai.DefaultAsyncHttpxClient.__mro__:
        module = sys.modules.get(cls.__module__.partition(".")[0])
        if module is not None and module is not openai and hasattr(module, "create_ssl_context"):
            return module
    return httpx


_HTTP = _sdk_http_library()

HTTP_BACKENDS = ("auto", "aiohttp", "httpx")
"""Ways the SDK can send requests: ``aiohttp`` (the SDK's ``DefaultAioHttpClient``, needs
``openai[aiohttp]``), ``httpx`` (the SDK's default), or ``auto``: aiohttp when installed."""


def aiohttp_available() -> bool:
    """Whether the SDK can send its requests through aiohttp (``pip install openai[aiohttp]``)."""
    if not hasattr(openai, "DefaultAioHttpClient") or not _importable("aiohttp"):
        return False
    # The SDK's adapter between httpx and aiohttp: vendored in newer SDKs, the httpx-aiohttp
    # package in older ones.
    return _importable("openai._vendor.httpx_aiohttp") or _importable("httpx_aiohttp")


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # a parent package is missing
        return False


@dataclass
class _LoopState:
    """HTTP clients and the in-flight limit, which belong to one event loop.

    With aiohttp, each replica has one SDK client whose pool holds up to ``max_in_flight``
    keep-alive connections. With httpx, each replica has a stack of idle *lanes*: SDK clients
    with a pool of one keep-alive connection; an attempt takes a lane for itself and gives it
    back afterwards. One shared httpx pool would do the same job, but it checks every idle
    connection (a system call each) whenever a request starts or ends, which at 36 requests in
    flight cost more CPU than building and parsing the request together.
    """

    loop: asyncio.AbstractEventLoop
    semaphore: asyncio.Semaphore
    shared: dict[int, openai.AsyncOpenAI] = field(default_factory=dict)
    idle_lanes: dict[int, list[openai.AsyncOpenAI]] = field(default_factory=dict)
    all_clients: list[openai.AsyncOpenAI] = field(default_factory=list)
    closer: AsyncGenerator[None, None] | None = None

    async def close_when_done(self) -> AsyncGenerator[None, None]:
        """Suspended until the loop shuts its async generators down (``asyncio.run`` does
        that before it closes the loop), then closes the clients while the loop still runs.
        Otherwise their connections would only go with the garbage collector, and aiohttp
        complains about every unclosed session on stderr."""
        try:
            yield
        finally:
            clients, self.all_clients = self.all_clients, []
            self.shared.clear()
            self.idle_lanes.clear()
            for client in clients:
                with contextlib.suppress(Exception):
                    await client.close()


class OpenAIChatModel:
    """A model served over the OpenAI chat-completions API, on one or more replicas.

    Args:
        model: model name sent in each request and used as :attr:`name`.
        base_urls: one URL or several replicas of the same model (``.../v1``). Calls are
            spread round-robin; a failed attempt is retried on the next replica. Default:
            ``$OPENAI_BASE_URL``, else the OpenAI API.
        api_key: the key itself (prefer ``api_key_env``).
        api_key_env: environment variable holding the key; default ``OPENAI_API_KEY``. If
            that default variable is unset, the placeholder ``"EMPTY"`` is sent (fine for
            local servers); an explicitly named variable that is unset is an error.
        timeout: seconds one attempt may take, connection included.
        max_retries: attempts after the first one before giving up.
        backoff_base: first backoff delay in seconds; doubles per round of failures.
        backoff_cap: longest backoff delay in seconds.
        max_in_flight: most requests waiting on the server at once (over all replicas).
        max_tokens_param: request field for the output limit; newer OpenAI models want
            ``"max_completion_tokens"``.
        http_backend: how the SDK sends requests, one of :data:`HTTP_BACKENDS`. aiohttp
            costs about a third less CPU per call than httpx, which is what limits how many
            calls one process can keep in flight.
        extra_body: extra JSON fields merged into every request (server-specific options).
        rng: random source of the backoff jitter (seed it for reproducible tests).
    """

    backend = "openai"

    def __init__(
        self,
        model: str,
        base_urls: str | Sequence[str] | None = None,
        *,
        api_key: str | None = None,
        api_key_env: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 6,
        backoff_base: float = 1.0,
        backoff_cap: float = 60.0,
        max_in_flight: int = 16,
        max_tokens_param: str = "max_tokens",
        extra_body: Mapping[str, Any] | None = None,
        http_backend: str = "auto",
        rng: random.Random | None = None,
    ) -> None:
        if not model:
            raise ValueError("model name must not be empty")
        if isinstance(base_urls, str):
            base_urls = [base_urls]
        if not base_urls:
            # Same fallback as the SDK: an OPENAI_BASE_URL from the environment, else OpenAI.
            base_urls = [os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL]
        urls = [u.strip().rstrip("/") for u in base_urls if u.strip()]
        if not urls:
            raise ValueError("at least one base URL is needed")
        if timeout <= 0 or max_retries < 0 or max_in_flight < 1:
            raise ValueError("timeout must be > 0, max_retries >= 0 and max_in_flight >= 1")
        if http_backend not in HTTP_BACKENDS:
            raise ValueError(f"http_backend must be one of {', '.join(HTTP_BACKENDS)}")
        if http_backend == "aiohttp" and not aiohttp_available():
            raise ValueError("http_backend 'aiohttp' needs pip install 'openai[aiohttp]'")
        if http_backend == "auto":
            http_backend = "aiohttp" if aiohttp_available() else "httpx"
        self.name = model
        self.base_urls: list[str] = urls
        if api_key_env is not None and (
            not _ENV_NAME.fullmatch(api_key_env)
            or api_key_env == os.environ.get(DEFAULT_API_KEY_ENV)
        ):
            # Most likely the key itself (--api-key-env "$OPENAI_API_KEY"): never echo it.
            raise ValueError(
                "--api-key-env takes the name of the environment variable that holds the key "
                f"(like {DEFAULT_API_KEY_ENV}), not the key itself"
            )
        self.api_key_env = api_key_env or DEFAULT_API_KEY_ENV
        self._api_key = api_key if api_key is not None else self._key_from_env(api_key_env)
        if not self.has_api_key and any(
            urlsplit(u).hostname == OPENAI_API_HOST for u in urls
        ):
            # Without a key the hosted API answers 401 (not retried), but without a network
            # the retries would take a minute to end in "unavailable": say it now.
            raise ValueError(
                f"no API key for {DEFAULT_BASE_URL}: set {self.api_key_env} (or name another "
                "variable with --api-key-env), or point --base-url at your own server "
                "(vLLM, Ollama, llama.cpp)"
            )
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff_base = float(backoff_base)
        self.backoff_cap = float(backoff_cap)
        self.max_in_flight = int(max_in_flight)
        self.max_tokens_param = max_tokens_param
        self.extra_body = dict(extra_body or {})
        self.http_backend = http_backend
        self._rng = rng or random.Random()
        self._round_robin = itertools.count()
        # Per replica: monotonic time before which it asked us (Retry-After) not to call.
        self._cooldown_until = [0.0] * len(urls)
        # Per replica: whether it has ever answered (any HTTP response). Until it has, a
        # refused connection or a name that does not resolve is a wrong URL, not an outage.
        self._answered = [False] * len(urls)
        self._state: _LoopState | None = None
        self._tls_context: ssl.SSLContext | None = None

    @staticmethod
    def _key_from_env(env_name: str | None) -> str:
        name = env_name or DEFAULT_API_KEY_ENV
        key = os.environ.get(name, "")
        if key:
            if not _HEADER_SAFE.fullmatch(key):  # the key itself is never shown
                raise ValueError(
                    f"environment variable {name} (API key) holds a space, a line break or a "
                    "character that is not ASCII, which an HTTP header cannot carry"
                )
            return key
        if env_name and env_name != DEFAULT_API_KEY_ENV:
            raise ValueError(f"environment variable {env_name} (API key) is not set")
        return PLACEHOLDER_API_KEY

    @property
    def has_api_key(self) -> bool:
        """Whether a real key (not the placeholder) is configured."""
        return self._api_key != PLACEHOLDER_API_KEY

    def __repr__(self) -> str:  # the default repr would be fine, but never risk the key
        return f"OpenAIChatModel({self.name!r}, base_urls={self.safe_base_urls!r})"

    @property
    def safe_base_urls(self) -> list[str]:
        """The base URLs with any credentials stripped, for logs and metadata."""
        return [safe_url(u) for u in self.base_urls]

    def cache_identity(self) -> str:
        """Which server answers, for the response cache's key: the base URLs given together
        (without credentials, in a fixed order). A local server's model name is often
        arbitrary ("local", "default"), so the name alone does not say which weights
        answered; replicas given together with several base URLs share their entries."""
        return " ".join(sorted({safe_url(u).rstrip("/") for u in self.base_urls}))

    def describe(self) -> dict[str, object]:
        """Settings of this backend for result metadata (no key, only its variable name)."""
        return {
            "backend": self.backend,
            "model": self.name,
            "base_urls": self.safe_base_urls,
            "api_key_env": self.api_key_env,
            "api_key_set": self.has_api_key,
            "timeout_s": self.timeout,
            "max_retries": self.max_retries,
            "backoff_base_s": self.backoff_base,
            "backoff_cap_s": self.backoff_cap,
            "max_in_flight": self.max_in_flight,
            "max_tokens_param": self.max_tokens_param,
            "extra_body": dict(self.extra_body),
            "http_backend": self.http_backend,
        }

    # -- event-loop bound state ----------------------------------------------------------

    async def _loop_state(self) -> _LoopState:
        # Connection pools and asyncio semaphores belong to the loop that first used them; a
        # harness that calls asyncio.run() once per game needs fresh ones each time.
        loop = asyncio.get_running_loop()
        state = self._state
        if state is None or state.loop is not loop or loop.is_closed():
            state = _LoopState(loop, asyncio.Semaphore(self.max_in_flight))
            self._state = state
            # Started here, so that the loop knows it (the loop holds it weakly; we do not).
            state.closer = state.close_when_done()
            await state.closer.asend(None)
        return state

    def _new_client(self, state: _LoopState, index: int, connections: int) -> openai.AsyncOpenAI:
        """An SDK client for replica ``index`` with up to ``connections`` keep-alive
        connections."""
        if self._tls_context is None:
            # Loading the trusted certificates takes ~40 ms; all clients share one context.
            self._tls_context = _HTTP.create_ssl_context()
        options: dict[str, Any] = {
            "limits": _HTTP.Limits(
                max_connections=connections,
                max_keepalive_connections=connections,
                keepalive_expiry=KEEPALIVE_S,
            ),
            "verify": self._tls_context,
        }
        http_client = (
            openai.DefaultAioHttpClient(**options)
            if self.http_backend == "aiohttp"
            else openai.DefaultAsyncHttpxClient(**options)
        )
        client = openai.AsyncOpenAI(
            api_key=self._api_key,
            base_url=self.base_urls[index],
            timeout=self.timeout,
            max_retries=0,  # our own retry loop, see the module docstring
            http_client=http_client,
        )
        state.all_clients.append(client)
        return client

    def _take_client(self, state: _LoopState, index: int) -> openai.AsyncOpenAI:
        """The SDK client for one attempt on replica ``index`` (give it back afterwards)."""
        if self.http_backend == "aiohttp":
            client = state.shared.get(index)
            if client is None:
                client = state.shared[index] = self._new_client(state, index, self.max_in_flight)
            return client
        # Most recently used lane first: its connection is the least likely to have been
        # closed by the server's keep-alive timeout.
        idle = state.idle_lanes.setdefault(index, [])
        return idle.pop() if idle else self._new_client(state, index, 1)

    def _give_back(self, state: _LoopState, index: int, client: openai.AsyncOpenAI) -> None:
        if self.http_backend != "aiohttp":
            state.idle_lanes.setdefault(index, []).append(client)

    async def aclose(self) -> None:
        """Close the HTTP connections (optional: ``asyncio.run`` closes them at its end)."""
        state, self._state = self._state, None
        loop = asyncio.get_running_loop()
        if state is not None and state.closer is not None and state.loop is loop:
            await state.closer.aclose()

    # -- the call ------------------------------------------------------------------------

    def _payload(self, messages: Sequence[Message], settings: SamplingSettings) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.name,
            "messages": [dict(m) for m in messages],
            "temperature": settings.temperature,
            "top_p": settings.top_p,
        }
        if settings.max_tokens:
            payload[self.max_tokens_param] = settings.max_tokens
        if settings.seed is not None:
            payload["seed"] = settings.seed
        if settings.stop:
            payload["stop"] = list(settings.stop)
        if settings.tools:
            # Native tool calling: the model may answer with one of these function calls.
            payload["tools"] = [t.openai_tool() for t in settings.tools]
        # Server-specific options win over ours, as the SDK's ``extra_body`` would.
        payload.update(self.extra_body)
        return payload

    def _backoff(self, round_number: int) -> float:
        """Exponential backoff with "equal jitter": half fixed, half random."""
        # (2.0 ** 1024 overflows a float; 64 doubles are far past any cap already)
        delay = min(self.backoff_cap, self.backoff_base * (2.0 ** min(round_number, 64)))
        return delay / 2 + self._rng.uniform(0, delay / 2)

    def _first_replica(self) -> int:
        """Next replica in round-robin order, skipping ones still cooling down if possible."""
        n = len(self.base_urls)
        start = next(self._round_robin) % n
        now = time.monotonic()
        for offset in range(n):
            index = (start + offset) % n
            if self._cooldown_until[index] <= now:
                return index
        return start

    async def complete(self, messages: Sequence[Message], settings: SamplingSettings) -> Completion:
        """Ask the model; retry over replicas; raise :class:`ModelUnavailableError` at last."""
        state = await self._loop_state()
        payload = self._payload(messages, settings)
        n = len(self.base_urls)
        attempts = self.max_retries + 1
        first = self._first_replica()
        started = time.monotonic()
        last_error = "no attempt made"
        last_url = self.base_urls[first]
        failures_this_round = 0
        backoff_round = 0
        not_reached: dict[int, str] = {}  # replica -> "connection refused", ... (this call)
        for attempt in range(attempts):
            index = (first + attempt) % n
            url = self.base_urls[index]
            wait = self._cooldown_until[index] - time.monotonic()
            if failures_this_round >= n:
                # Every replica failed once: back off before going round again.
                wait = max(wait, self._backoff(backoff_round))
                backoff_round += 1
                failures_this_round = 0
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                async with state.semaphore:
                    client = self._take_client(state, index)
                    try:
                        text, meta = await self._attempt(client, payload)
                    finally:
                        self._give_back(state, index, client)
            except _RetryableError as exc:
                if isinstance(exc, _NotReachedError) and not any(self._answered):
                    # No replica has ever answered and nobody is there: a wrong URL (or a
                    # server not started), not an outage; once every replica was found so,
                    # retrying would only take time.
                    not_reached[index] = exc.reason
                    if len(not_reached) == n:
                        raise ServerNotReachedError(
                            _not_reached_message(self.base_urls, not_reached)
                        ) from None
                if exc.answered:
                    self._answered[index] = True
                last_error, last_url = exc.reason, url
                failures_this_round += 1
                if exc.retry_after is not None:
                    self._cooldown_until[index] = time.monotonic() + min(
                        exc.retry_after, MAX_RETRY_AFTER_S
                    )
                if attempt + 1 < attempts:
                    log.warning(
                        "model %s at %s: %s (attempt %d of %d, retrying)",
                        self.name,
                        safe_url(url),
                        exc.reason,
                        attempt + 1,
                        attempts,
                    )
                continue
            except _FatalError as exc:
                self._answered[index] = True
                raise ModelUnavailableError(
                    f"model {self.name!r} at {safe_url(url)} refused the request: {exc} "
                    f"(not retried: this needs a fix of the configuration or the request"
                    f"{_missing_v1_hint(url, exc.status)})"
                ) from None
            self._answered[index] = True
            usage = meta.get("usage")
            estimated = not isinstance(usage, dict) or "prompt_tokens" not in usage
            if estimated:
                tokens_cached = 0
                tokens_in = estimate_prompt_tokens(messages)
                tokens_out = estimate_tokens(text)
            else:
                assert isinstance(usage, dict)
                tokens_in = _as_int(usage.get("prompt_tokens"))
                tokens_out = _as_int(usage.get("completion_tokens"))
            tokens_cached = min(prompt_cache_tokens(meta), tokens_in)
            extra: dict[str, object] = {
                "base_url": safe_url(url),
                "finish_reason": meta.get("finish_reason"),
                "tokens_estimated": estimated,
            }
            if meta.get("model"):
                # Some servers echo the key as the model's name: never kept, never cached.
                secrets = (self._api_key,) if self.has_api_key else ()
                extra["served_model"] = redact(str(meta["model"]), secrets)
            return Completion(
                text=text,
                tokens_in=tokens_in,
                tokens_out=tokens_out,
                tokens_cached=tokens_cached,
                model=self.name,
                cached=False,
                retries=attempt,
                latency_s=time.monotonic() - started,
                extra=extra,
                tool_calls=meta.get("tool_calls", ()),
            )
        urls = ", ".join(self.safe_base_urls)
        tries = "1 attempt" if attempts == 1 else f"{attempts} attempts"
        raise ModelUnavailableError(
            f"model {self.name!r} unavailable at {urls}: {tries} failed over "
            f"{time.monotonic() - started:.1f}s; last error (from {safe_url(last_url)}): "
            f"{last_error}"
        )

    async def _attempt(
        self, client: openai.AsyncOpenAI, payload: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        """One HTTP request; returns the text and metadata or raises a classified error."""
        # The placeholder sent without a key is no secret (and would mask the word EMPTY).
        secrets = (self._api_key,) if self.has_api_key else ()
        try:
            # A hard deadline over the whole exchange: the SDK's timeout is per read, so a
            # server that trickles bytes could otherwise hold us forever. The raw response
            # (``cast_to``) skips the SDK's request validation and response models; the body
            # is checked by _parse_chat_body, which also catches a 200 with a broken body.
            response = await _within(
                self.timeout,
                client.post("/chat/completions", body=payload, cast_to=_HTTP.Response),
            )
            body = response.content
        except openai.APITimeoutError as exc:
            cause = _root_cause(exc)
            if not _is_timeout(cause):
                # The SDK's aiohttp adapter reports refused and dropped connections as
                # connect timeouts; say what really happened.
                _raise_if_not_reached(exc)
                detail = redact(f"{type(cause).__name__}: {cause}", secrets)
                raise _RetryableError(f"connection error ({detail})") from None
            raise _RetryableError(f"timed out after {self.timeout:g}s") from None
        except asyncio.TimeoutError:  # our deadline
            raise _RetryableError(f"timed out after {self.timeout:g}s") from None
        except openai.APIConnectionError as exc:
            _raise_if_not_reached(exc)
            cause = exc.__cause__ or exc
            detail = redact(f"{type(cause).__name__}: {cause}", secrets)
            raise _RetryableError(f"connection error ({detail})") from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            # Redacted before it is cut short: a cut key would no longer match.
            message = redact(_status_message(exc), secrets)[:300]
            if status in _RETRYABLE_STATUS or status >= 500:
                retry_after = parse_retry_after(exc.response.headers)
                raise _RetryableError(
                    f"HTTP {status}: {message}", retry_after, answered=True
                ) from None
            raise _FatalError(f"HTTP {status}: {message}", status) from None
        except openai.APIResponseValidationError as exc:
            raise _RetryableError(
                f"malformed response ({redact(str(exc), secrets)[:200]})", answered=True
            ) from None
        except openai.APIError as exc:
            raise _RetryableError(f"API error ({redact(str(exc), secrets)[:200]})") from None
        try:
            return _parse_chat_body(body)
        except _RetryableError as exc:
            exc.answered = True  # a broken body, but the server is there
            raise


def _not_reached(exc: BaseException) -> str | None:
    """"connection refused" or "name does not resolve" when that is what ``exc`` (or an
    exception it was raised from) says; None for any other connection problem."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, socket.gaierror):
            return "name does not resolve"
        if isinstance(current, ConnectionRefusedError):
            return "connection refused"
        # aiohttp keeps the socket's error in ``os_error``, the HTTP libraries chain it.
        os_error = getattr(current, "os_error", None)
        pending.extend((current.__cause__, current.__context__,
                        os_error if isinstance(os_error, BaseException) else None))
    return None


def _raise_if_not_reached(exc: BaseException) -> None:
    reason = _not_reached(exc)
    if reason is not None:
        raise _NotReachedError(reason) from None


def _not_reached_message(urls: Sequence[str], reasons: Mapping[int, str]) -> str:
    """One line: the server(s), what went wrong, what to check."""
    parts = []
    for index, reason in sorted(reasons.items()):
        host = urlsplit(urls[index]).hostname or safe_url(urls[index])
        what = (f"the name {host!r} does not resolve" if reason == "name does not resolve"
                else "the connection was refused (nothing listens there)")
        parts.append(f"{safe_url(urls[index])}: {what}")
    if all(r == "name does not resolve" for r in reasons.values()):
        check = "check the host name in --base-url (or $OPENAI_BASE_URL) and the network"
    else:
        check = ("check --base-url (or $OPENAI_BASE_URL): its host and port, and that the "
                 "server is running")
    where = "the model server at " if len(parts) == 1 else "any model server: "
    return f"cannot reach {where}{'; '.join(parts)}; {check}"


async def _within(seconds: float, awaitable: Awaitable[_T]) -> _T:
    """``await awaitable``, cancelled with ``asyncio.TimeoutError`` after ``seconds``."""
    if sys.version_info >= (3, 11):
        # Unlike wait_for (before 3.12), no extra task per call.
        async with asyncio.timeout(seconds):
            return await awaitable
    return await asyncio.wait_for(awaitable, seconds)  # pragma: no cover - Python 3.10


def _root_cause(exc: BaseException) -> BaseException:
    """The innermost exception of the ``raise ... from`` chain."""
    seen = {id(exc)}
    while exc.__cause__ is not None and id(exc.__cause__) not in seen:
        exc = exc.__cause__
        seen.add(id(exc))
    return exc


def _is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, (TimeoutError, asyncio.TimeoutError)) or (
        "timeout" in type(exc).__name__.lower()
    )


def _status_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
    return str(exc.message)


def _as_int(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def prompt_cache_tokens(meta: dict[str, Any]) -> int:
    """Prompt tokens the server says it read from its prefix cache (0 where it says nothing).

    OpenAI and vLLM report ``usage.prompt_tokens_details.cached_tokens``; llama.cpp's server
    reports ``timings.cache_n`` (tokens reused) next to ``timings.prompt_n`` (evaluated).
    """
    usage = meta.get("usage")
    if isinstance(usage, dict):
        details = usage.get("prompt_tokens_details")
        if isinstance(details, dict) and "cached_tokens" in details:
            return _as_int(details.get("cached_tokens"))
    timings = meta.get("timings")
    if isinstance(timings, dict) and "cache_n" in timings:
        return _as_int(timings.get("cache_n"))
    return 0


def _parse_chat_body(body: bytes) -> tuple[str, dict[str, Any]]:
    """Extract the answer from a chat-completion JSON body, or raise ``_RetryableError``."""
    try:
        # A body that is JSON except for bytes that are not UTF-8 (a server cutting a
        # multi-byte character in two) is read with those bytes replaced: the answer is
        # the model's and goes to the game; retrying would get the same bytes at temperature 0.
        decoded = body.decode("utf-8", errors="replace")
        try:
            data = json.loads(decoded, parse_int=_json_int)
        except RecursionError:
            data = json.loads(_collapse_deep_json(decoded), parse_int=_json_int)
    except (ValueError, RecursionError):
        start = body[:80].decode("utf-8", errors="replace")
        raise _RetryableError(f"malformed response: invalid JSON ({start!r})") from None
    if not isinstance(data, dict):
        raise _RetryableError("malformed response: JSON body is not an object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        error = data.get("error")
        if isinstance(error, dict) and error.get("message"):
            raise _RetryableError(f"server error in a 200 answer: {str(error['message'])[:200]}")
        raise _RetryableError("malformed response: no choices")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    tool_calls = _tool_calls(message) if isinstance(message, dict) else ()
    if content is None and tool_calls:
        content = ""  # an answer that is only a function call
    if content is None and isinstance(message, dict):
        content = _answer_without_content(message, choice.get("finish_reason"))
    if not isinstance(content, str):
        raise _RetryableError("malformed response: the message has no content")
    content = clean_model_text(content)
    meta: dict[str, Any] = {
        "usage": data.get("usage"),
        "timings": data.get("timings"),
        "finish_reason": choice.get("finish_reason"),
        "model": data.get("model"),
        "tool_calls": tool_calls,
    }
    return content, meta


def _tool_calls(message: dict[str, Any]) -> tuple[ToolCall, ...]:
    """The function calls of an answer's message, as the model wrote them.

    A call whose arguments are not a string (some servers send a JSON object) is kept as
    JSON text; an entry that is not a function call at all is skipped. Whether a call makes
    sense is for the agent to judge, so a broken call is never an error here.
    """
    calls = message.get("tool_calls")
    if calls is None or calls == []:
        return ()
    if not isinstance(calls, list):
        calls = [calls]  # a single call, or something else: the agent judges it
    out: list[ToolCall] = []
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            # Not a function call: kept as a call without a name, which the agent plays as a
            # wasted step with feedback (retrying would get the same answer).
            out.append(ToolCall(name="", arguments=clean_model_text(_json_text(call))))
            continue
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = _json_text(arguments if arguments is not None else {})
        out.append(
            ToolCall(
                name=clean_model_text(str(function.get("name") or "")),
                arguments=clean_model_text(arguments),
                id=str(call.get("id") or ""),
            )
        )
    return tuple(out)


def _json_text(value: object) -> str:
    """``value`` as JSON text, however deep or odd it is (a model's answer is never an error)."""
    try:
        return json.dumps(value)
    except (RecursionError, ValueError, TypeError):
        return "(JSON nested too deeply to show)"


def _json_int(digits: str) -> int | str:
    """A JSON integer; one too long for Python's int conversion stays the text of its digits."""
    try:
        return int(digits)
    except ValueError:
        return digits


def _collapse_deep_json(text: str, limit: int = MAX_JSON_DEPTH) -> str:
    """``text`` with every array or object nested deeper than ``limit`` replaced by a string
    placeholder, in one pass, so that a body ``json.loads`` cannot read for recursion (an
    argument object a thousand levels deep) still gives its answer."""
    out: list[str] = []
    skip_from = -1  # depth at which the part being dropped started
    start = 0
    for i, bracket, depth in structural_brackets(text):
        if bracket in "[{":
            if depth > limit and skip_from < 0:
                skip_from = depth
                out.append(text[start:i])
                out.append('"(nested too deeply)"')
        elif skip_from == depth:
            skip_from = -1
            start = i + 1
    if skip_from < 0:
        out.append(text[start:])
    return "".join(out)


def _answer_without_content(message: dict[str, Any], finish_reason: object) -> str | None:
    """The answer of a message whose ``content`` is null, when the model meant it so.

    An OpenAI refusal carries its text in ``refusal``; a reasoning model (vLLM, SGLang)
    that spent its whole token budget thinking ends with ``finish_reason`` "length" and no
    content: it gave no answer (""). Both recur on a retry at temperature 0, so they are
    answers for the game to judge. Anything else (None) is a broken response, retried.
    """
    refusal = message.get("refusal")
    if isinstance(refusal, str):
        return refusal
    if finish_reason == "length":
        return ""
    return None


def _missing_v1_hint(url: str, status: int | None) -> str:
    """A hint for the most common wrong base URL: the server's address without ``/v1``."""
    parts = urlsplit(url)
    if status != 404 or parts.path.rstrip("/").endswith("/v1"):
        return ""
    return f"; OpenAI-compatible servers answer under /v1: try --base-url " \
        f"{parts.scheme}://{parts.netloc}/v1"
