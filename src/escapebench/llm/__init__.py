"""escapebench.llm: the language-model layer.

* :mod:`.base`: the :class:`ChatModel` protocol, :class:`SamplingSettings`,
  :class:`Completion`, :class:`ModelUnavailableError` (and :class:`ServerNotReachedError`, a
  server that never answered);
* :mod:`.openai_client`: OpenAI-compatible servers (hosted, vLLM, SGLang, Ollama, llama.cpp);
* :mod:`.local`: GGUF files served by llama-cpp-python in a child process (extra ``local``);
* :mod:`.scripted`: a deterministic fake for tests and demos;
* :mod:`.fake_server`: a deterministic OpenAI-compatible model over HTTP
  (``escapebench fake-server``, :mod:`.command_fake_server`);
* :mod:`.cache`: the SQLite response cache and its :class:`CachedChatModel` wrapper;
* :mod:`.factory`: :func:`make_model` from a ``--model`` spec.

Only the protocol is imported here; the backends are imported where used, so that commands
that never talk to a model do not pay for the HTTP client.
"""

from escapebench.llm.base import (
    ChatModel,
    Completion,
    Message,
    ModelUnavailableError,
    SamplingSettings,
    ServerNotReachedError,
)

__all__ = [
    "ChatModel",
    "Completion",
    "Message",
    "ModelUnavailableError",
    "SamplingSettings",
    "ServerNotReachedError",
]
