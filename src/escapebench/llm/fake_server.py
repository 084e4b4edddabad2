"""A deterministic OpenAI-compatible model served on 127.0.0.1, for trying things offline.

``escapebench fake-server`` runs it (:mod:`escapebench.llm.command_fake_server`). It answers
``POST /v1/chat/completions`` and lists itself at ``GET /v1/models``, so ``escapebench run
--model fake --base-url http://127.0.0.1:8999/v1``, Inspect's ``openai/...`` models and the
verifiers environments can be exercised without a network or a GPU.

The answer is a function of the request alone (same messages, same answer): it reads the
interactable items and nearby scenes listed in the last user message (``<interactable item>
NAME`` and ``<interactable scene> LABEL: It leads to SCENE``, the observation format of both
protocols) and picks one by a hash of the conversation, as ``Action: click(NAME)`` or
``Action: move(SCENE)``. When the request offers tools it calls the matching function instead.
Usage is reported (prompt and completion tokens, estimated at four characters a token).
Standard library only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_PORT = 8999
DEFAULT_MODEL = "fake"

_ITEM = re.compile(r"^\s*<interactable item>\s*(.+?)\s*$", re.MULTILINE)
_SCENE = re.compile(r"^\s*<interactable scene>\s*.*?It leads to\s+(.+?)\s*$", re.MULTILINE)


def _text(content: object) -> str:
    """A message's content as text (a string, or the text parts of a content list)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4) if text else 0


def choose_action(messages: list[dict[str, Any]]) -> tuple[str, str]:
    """The fake model's move for ``messages``: ``(verb, argument)``, e.g. ``("click", "door")``.

    Deterministic: a hash of the whole conversation picks among the items and scenes the last
    user message offers; with none offered it clicks ``door``.
    """
    last = next((_text(m.get("content")) for m in reversed(messages)
                 if isinstance(m, dict) and m.get("role") == "user"), "")
    options = [("click", name) for name in _ITEM.findall(last)]
    options += [("move", name) for name in _SCENE.findall(last)]
    if not options:
        return "click", "door"
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode("utf-8")).digest()
    return options[int.from_bytes(digest[:8], "big") % len(options)]


def answer(body: dict[str, Any]) -> dict[str, Any]:
    """The assistant message for the chat request ``body`` (text, or a tool call if offered)."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    verb, argument = choose_action(messages)
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or function.get("name") != verb:
            continue
        params = list((function.get("parameters") or {}).get("properties") or {})
        arguments = json.dumps({params[0] if params else "name": argument})
        call_id = "call_" + hashlib.sha256(arguments.encode()).hexdigest()[:8]
        return {
            "role": "assistant",
            "content": f"I will {verb} {argument}.",
            "tool_calls": [{"id": call_id, "type": "function",
                            "function": {"name": verb, "arguments": arguments}}],
        }
    return {"role": "assistant",
            "content": f"Thought: I will try {argument}.\nAction: {verb}({argument})"}


def stream_events(
    payload: dict[str, Any], message: dict[str, Any], finish_reason: str, body: dict[str, Any]
) -> bytes:
    """A completion ``payload`` as the server-sent events of ``"stream": true``: a chunk with
    the ``message`` (role, content, tool calls), one with the finish reason, the usage if the
    request asked for it (``stream_options.include_usage``) and the payload has one, then
    ``[DONE]``."""
    head = {k: payload[k] for k in ("id", "created", "model")}
    head["object"] = "chat.completion.chunk"
    chunks: list[dict[str, Any]] = [
        {**head, "choices": [{"index": 0, "delta": message, "finish_reason": None}]},
        {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish_reason}]},
    ]
    if "usage" in payload and (body.get("stream_options") or {}).get("include_usage"):
        chunks.append({**head, "choices": [], "usage": payload["usage"]})
    return b"".join(
        b"data: " + json.dumps(c).encode("utf-8") + b"\n\n" for c in chunks
    ) + b"data: [DONE]\n\n"


def completion_payload(body: dict[str, Any], model: str = DEFAULT_MODEL) -> dict[str, Any]:
    """The whole ``chat.completion`` JSON answer to ``body``, with usage."""
    message = answer(body)
    prompt = sum(_tokens(_text(m.get("content"))) + 4 for m in body.get("messages") or []
                 if isinstance(m, dict))
    completion = _tokens(str(message.get("content") or "")
                         + json.dumps(message.get("tool_calls") or ""))
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "id": f"chatcmpl-fake-{digest}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(body.get("model") or model),
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion},
    }


class FakeModelServer:
    """The fake model on ``host:port`` (port 0: a free one), served from a background thread.

    Use as a context manager or with :meth:`start` / :meth:`stop`; :attr:`base_url` is what
    ``--base-url`` takes. :attr:`request_count` counts chat requests.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                 model: str = DEFAULT_MODEL) -> None:
        self.host, self.port, self.model = host, port, model
        self.request_count = 0
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT/v1``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/v1"

    def start(self) -> FakeModelServer:
        """Bind and serve in a daemon thread (raises ``OSError`` if the port is taken)."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        server_class = type("_Server", (ThreadingHTTPServer,), {
            "address_family": family, "daemon_threads": True, "allow_reuse_address": True,
            "request_queue_size": 128,
        })
        self._httpd = server_class((self.host, self.port), _handler(self))
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve (starting first if needed) and block until interrupted."""
        if self._httpd is None:
            self.start()
        assert self._thread is not None
        try:
            while self._thread.is_alive():
                self._thread.join(0.5)
        finally:
            self.stop()

    def stop(self) -> None:
        """Stop serving."""
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def setup(self) -> None:
            super().setup()
            with contextlib.suppress(OSError):
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def _send(self, status: int, payload: object) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(data)

        def _error(self, status: int, message: str) -> None:
            self._send(status, {"error": {"message": message, "type": "invalid_request_error"}})

        def do_GET(self) -> None:  # noqa: N802
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                self._send(200, {"object": "list", "data": [
                    {"id": server.model, "object": "model", "owned_by": "escapebench"}]})
            else:
                self._error(404, f"no route {self.path}")

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._error(404, f"no route {self.path}")
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._error(400, "the request body is not JSON")
                return
            if not isinstance(body, dict):
                self._error(400, "the request body is not a JSON object")
                return
            with server._lock:
                server.request_count += 1
            payload = completion_payload(body, server.model)
            if body.get("stream"):
                self._stream(payload, body)
            else:
                self._send(200, payload)

        def _stream(self, payload: dict[str, Any], body: dict[str, Any]) -> None:
            choice = payload["choices"][0]
            data = stream_events(payload, choice["message"], choice["finish_reason"], body)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(data)

    return Handler
