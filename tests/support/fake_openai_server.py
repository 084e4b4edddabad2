"""A real OpenAI-compatible HTTP server for tests, with injectable faults.

It speaks just enough of the OpenAI API (``POST /v1/chat/completions``, ``GET /v1/models``)
for the ``openai`` SDK and for plain HTTP clients. It runs on 127.0.0.1 in a background
thread, uses only the standard library, and can be stopped and restarted on the same port to
simulate a server that dies and comes back.

Typical use::

    with FakeOpenAIServer(answer=lambda req: "look around", latency_s=0.05) as server:
        model = OpenAIChatModel("fake-model", base_urls=[server.base_url])
        ...
        assert server.request_count == 1

Faults are injected either from a fixed schedule (``faults=["429", None, "500"]``: the n-th
chat request gets the n-th entry, ``None`` meaning a normal answer, later requests are normal)
or at random with ``fault_rate`` from an RNG seeded with ``seed`` (so a failing test can be
reproduced). Fault kinds are the strings in :data:`FAULT_KINDS`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import socket
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from escapebench.llm.fake_server import stream_events

Answer = str | dict[str, Any]
"""The assistant's text, or a whole assistant message (see :func:`tool_call_answer`)."""
AnswerFn = Callable[[dict[str, Any]], Answer]
"""Computes the assistant's answer from the decoded JSON body of a chat request."""

FAULT_KINDS: tuple[str, ...] = (
    "429",  # rate limited, with a Retry-After header
    "500",  # internal server error
    "503",  # service unavailable, with a Retry-After header
    "slow",  # a correct answer, but only after ``slow_s`` (beyond a short client timeout)
    "malformed",  # HTTP 200 whose body is not valid JSON
    "empty_choices",  # HTTP 200, valid JSON, ``"choices": []``
    "missing_content",  # HTTP 200, the message has no ``content``
    "disconnect",  # the connection is closed without any response
)

ANSWER_FAULT_KINDS: tuple[str, ...] = (
    # HTTP 200 with the answer followed by half a multi-byte character: bytes that are not UTF-8
    # (not a failure of the request, so never drawn at random: only by schedule).
    "invalid_utf8",
    # HTTP 200, ``content`` null and the answer in ``refusal`` (OpenAI's refusals).
    "refusal",
    # HTTP 200, ``content`` null, the answer in ``reasoning_content`` and finish_reason
    # "length" (a reasoning model that spent its whole token budget thinking, as vLLM says it).
    "reasoning_only",
)


def default_answer(request: dict[str, Any]) -> str:
    """A deterministic answer that differs between conversations (handy for cache tests)."""
    digest = hashlib.sha256(
        json.dumps(request.get("messages"), sort_keys=True).encode("utf-8")
    ).hexdigest()
    return f"fake answer {digest[:12]}"


def tool_call_answer(
    name: str, arguments: dict[str, Any] | str, content: str | None = None, call_id: str = ""
) -> dict[str, Any]:
    """An answer that calls the function ``name`` (native tool calling), as OpenAI sends it:
    ``content`` (the reasoning, often null) and one entry in ``tool_calls``. ``arguments`` is
    sent as JSON text; give a string to send it as it is (for example broken JSON)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "content": content,
        "tool_calls": [
            {
                "id": call_id or f"call_{hashlib.sha256(text.encode()).hexdigest()[:8]}",
                "type": "function",
                "function": {"name": name, "arguments": text},
            }
        ],
    }


def _estimate_tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4) if text else 0


class FakeOpenAIServer:
    """An OpenAI-compatible chat server on 127.0.0.1 with scripted answers and faults.

    Args:
        answer: the assistant's answer: a function of the request JSON, a fixed string, or a
            list of answers used in turn (the last one repeats). An answer is a text or a
            whole assistant message (a dict with ``content`` and ``tool_calls``, see
            :func:`tool_call_answer`). Default: :func:`default_answer`.
        latency_s: fixed delay before every chat answer.
        faults: fixed schedule of fault kinds (or ``None`` for a normal answer) by chat
            request number, starting at 0.
        fault_rate: probability of a random fault per chat request not covered by
            ``faults``.
        fault_kinds: kinds drawn from when a random fault happens.
        seed: seed of the fault RNG.
        retry_after_s: value of the ``Retry-After`` header sent with 429 and 503.
        slow_s: delay of the ``slow`` fault.
        include_usage: send ``usage`` token counts (turn off to test client estimates).
        report_cached: also send ``usage.prompt_tokens_details.cached_tokens``, as a prefix
            cache would: the tokens (4 characters each) of the longest common prefix of this
            request's message contents (joined) and the previous request's.
        require_api_key: if set, requests without ``Authorization: Bearer <key>`` get 401.
        model_name: the model id listed by ``/v1/models``.
        port: port to listen on; 0 picks a free one (kept across :meth:`restart`).
    """

    def __init__(
        self,
        *,
        answer: AnswerFn | Answer | Sequence[Answer] | None = None,
        latency_s: float = 0.0,
        faults: Sequence[str | None] = (),
        fault_rate: float = 0.0,
        fault_kinds: Sequence[str] = FAULT_KINDS,
        seed: int = 0,
        retry_after_s: float = 1.0,
        slow_s: float = 5.0,
        include_usage: bool = True,
        report_cached: bool = False,
        require_api_key: str | None = None,
        model_name: str = "fake-model",
        port: int = 0,
    ) -> None:
        known = (*FAULT_KINDS, *ANSWER_FAULT_KINDS)
        unknown = [k for k in [*faults, *fault_kinds] if k is not None and k not in known]
        if unknown:
            raise ValueError(f"unknown fault kinds {unknown}; known: {known}")
        self.answer = answer
        self.latency_s = latency_s
        self.faults: list[str | None] = list(faults)
        self.fault_rate = fault_rate
        self.fault_kinds = tuple(fault_kinds)
        self.retry_after_s = retry_after_s
        self.slow_s = slow_s
        self.include_usage = include_usage
        self.report_cached = report_cached
        self._last_prompt = ""
        self.require_api_key = require_api_key
        self.model_name = model_name
        self._rng = random.Random(seed)
        self._port = port
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._open_sockets: set[socket.socket] = set()
        self._answer_index = 0
        self._in_flight = 0
        # Public counters and logs, all guarded by ``_lock``; read them after the calls.
        self.request_count = 0
        """Chat-completion requests received (faulted ones included)."""
        self.requests: list[dict[str, Any]] = []
        """Decoded JSON bodies of the chat requests, in arrival order."""
        self.faults_injected: list[str] = []
        """Fault kinds actually injected, in order."""
        self.request_times: list[float] = []
        """``time.monotonic()`` at the arrival of each chat request."""
        self.max_in_flight = 0
        """Largest number of chat requests handled at the same time."""
        self.models_requests = 0
        """Requests to ``GET /v1/models``."""

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        """Start serving in a background thread (on the same port as before, if restarted)."""
        if self._httpd is not None:
            return self
        self._stopping.clear()
        handler = _make_handler(self)
        httpd = _Server(("127.0.0.1", self._port), handler)
        self._port = httpd.server_address[1]
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fake-openai-{self._port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving: new connections are refused and open ones are cut."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()  # wakes handlers sleeping in latency/slow faults
        httpd.shutdown()
        httpd.server_close()
        # Keep-alive connections outlive the listening socket; cut them so the server is
        # really gone from the client's point of view.
        with self._lock:
            sockets = list(self._open_sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def restart(self) -> FakeOpenAIServer:
        """Stop if running, then start again on the same port."""
        self.stop()
        return self.start()

    @property
    def running(self) -> bool:
        """Whether the server is accepting connections."""
        return self._httpd is not None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses ---------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The TCP port (known after :meth:`start`)."""
        return self._port

    @property
    def base_url(self) -> str:
        """The OpenAI ``base_url``: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self._port}/v1"

    url = base_url

    # -- behaviour ---------------------------------------------------------------------

    def reset_counters(self) -> None:
        """Forget received requests and injected faults (the fault schedule restarts)."""
        with self._lock:
            self.request_count = 0
            self.requests.clear()
            self.faults_injected.clear()
            self.request_times.clear()
            self.max_in_flight = 0
            self.models_requests = 0

    def _register_request(self, body: dict[str, Any]) -> tuple[int, str | None]:
        with self._lock:
            n = self.request_count
            self.request_count += 1
            self.requests.append(body)
            self.request_times.append(time.monotonic())
            if n < len(self.faults):
                fault = self.faults[n]
            elif self.fault_rate > 0 and self._rng.random() < self.fault_rate:
                fault = self._rng.choice(self.fault_kinds)
            else:
                fault = None
            if fault is not None:
                self.faults_injected.append(fault)
            return n, fault

    def _answer_text(self, body: dict[str, Any]) -> Answer:
        answer = self.answer
        if answer is None:
            return default_answer(body)
        if isinstance(answer, (str, dict)):
            return answer
        if callable(answer):
            return answer(body)
        answers = list(answer)
        with self._lock:
            i = min(self._answer_index, len(answers) - 1)
            self._answer_index += 1
        return answers[i]

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the server is stopped meanwhile; return whether it is still up."""
        if seconds <= 0:
            return not self._stopping.is_set()
        return not self._stopping.wait(seconds)

    def _track(self, sock: socket.socket, add: bool) -> None:
        with self._lock:
            if add:
                self._open_sockets.add(sock)
            else:
                self._open_sockets.discard(sock)

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1


class _Server(ThreadingHTTPServer):
    # Restarting on the same port must work right after a stop (sockets in TIME_WAIT).
    allow_reuse_address = True
    # Handler threads may be asleep in a "slow" fault; never make stop() wait for them.
    daemon_threads = True
    block_on_close = False
    # The default listen backlog of 5 resets connections when many games start at once.
    request_queue_size = 256


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, like real servers

        def setup(self) -> None:
            super().setup()
            # Headers and body go out in two writes; without TCP_NODELAY, Nagle's algorithm
            # and the client's delayed ACK add ~40 ms to every answer (real servers set it).
            with contextlib.suppress(OSError):
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            server._track(self.connection, add=True)

        def finish(self) -> None:
            server._track(self.connection, add=False)
            with contextlib.suppress(OSError):
                super().finish()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass  # keep test output clean

        def handle_one_request(self) -> None:
            # Clients hang up in the middle of slow answers; that is expected, not an error.
            with contextlib.suppress(ConnectionError, TimeoutError, OSError):
                super().handle_one_request()

        # -- helpers ---------------------------------------------------------------------

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()

        def _send_json(
            self, status: int, payload: object, headers: dict[str, str] | None = None
        ) -> None:
            self._send(status, json.dumps(payload).encode("utf-8"), headers)

        def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
            kind = "rate_limit_error" if status == 429 else "server_error"
            self._send_json(status, {"error": {"message": message, "type": kind}}, headers)

        def _authorized(self) -> bool:
            if server.require_api_key is None:
                return True
            if self.headers.get("Authorization") == f"Bearer {server.require_api_key}":
                return True
            # Echoes the key it got, as real servers do: clients must not repeat it.
            given = self.headers.get("Authorization", "").removeprefix("Bearer ")
            message = f"Incorrect API key provided: {given}."
            self._send_json(401, {"error": {"message": message, "type": "invalid_request"}})
            return False

        # -- routes ----------------------------------------------------------------------

        def do_GET(self) -> None:  # noqa: N802 (http.server naming)
            if self.path.rstrip("/") not in ("/v1/models", "/models"):
                self._error(404, f"no route {self.path}")
                return
            if not self._authorized():
                return
            with server._lock:
                server.models_requests += 1
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [{"id": server.model_name, "object": "model", "owned_by": "fake"}],
                },
            )

        def do_POST(self) -> None:  # noqa: N802 (http.server naming)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._error(404, f"no route {self.path}")
                return
            if not self._authorized():
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._error(400, "request body is not JSON")
                return
            n, fault = server._register_request(body)
            server._enter()
            try:
                self._chat(n, body, fault)
            finally:
                server._leave()

        def _chat(self, n: int, body: dict[str, Any], fault: str | None) -> None:
            if not server._sleep(server.latency_s):
                return
            retry_after = {"Retry-After": _format_seconds(server.retry_after_s)}
            if fault == "429":
                self._error(429, "Rate limit reached (fake).", retry_after)
                return
            if fault == "500":
                self._error(500, "Internal error (fake).")
                return
            if fault == "503":
                self._error(503, "Service unavailable (fake).", retry_after)
                return
            if fault == "disconnect":
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            if fault == "slow" and not server._sleep(server.slow_s):
                return
            if fault == "malformed":
                self._send(200, b'{"id": "chatcmpl-broken", "choices": [{"message": ')
                return
            answer = server._answer_text(body)
            finish_reason = "stop"
            if isinstance(answer, dict):  # a whole message, e.g. with tool calls
                message: dict[str, Any] = {"role": "assistant", **answer}
                text = str(answer.get("content") or "") + json.dumps(answer.get("tool_calls"))
                if answer.get("tool_calls"):
                    finish_reason = "tool_calls"
            else:
                text = answer
                message = {"role": "assistant", "content": text}
            if fault == "missing_content":
                message = {"role": "assistant"}
            elif fault == "refusal":
                message = {"role": "assistant", "content": None, "refusal": text}
            elif fault == "reasoning_only":
                message = {"role": "assistant", "content": None, "reasoning_content": text}
                finish_reason = "length"
            choices = (
                []
                if fault == "empty_choices"
                else [{"index": 0, "message": message, "finish_reason": finish_reason,
                       "logprobs": None}]
            )
            payload: dict[str, Any] = {
                "id": f"chatcmpl-fake-{n}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", server.model_name),
                "choices": choices,
            }
            if server.include_usage:
                prompt = sum(
                    _estimate_tokens(str(m.get("content", ""))) + 4
                    for m in body.get("messages", [])
                    if isinstance(m, dict)
                )
                completion = _estimate_tokens(text)
                payload["usage"] = {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                }
                if server.report_cached:
                    serialised = "".join(str(m.get("content", "")) for m in
                                         body.get("messages", []) if isinstance(m, dict))
                    with server._lock:
                        before, server._last_prompt = server._last_prompt, serialised
                    same = len(os.path.commonprefix([before, serialised]))
                    payload["usage"]["prompt_tokens_details"] = {
                        "cached_tokens": min(same // 4, prompt)}
            if body.get("stream") and fault is None:
                self._stream(payload, message, finish_reason, body)
                return
            if fault == "invalid_utf8":
                body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
                quoted = json.dumps(text, ensure_ascii=False).encode("utf-8")
                cut = quoted[:-1] + "\u20ac".encode("utf-8")[:2] + b'"'  # half a euro sign
                self._send(200, body.replace(quoted, cut, 1))
                return
            self._send_json(200, payload)

        def _stream(
            self, payload: dict[str, Any], message: dict[str, Any], finish_reason: str,
            body: dict[str, Any],
        ) -> None:
            """The answer as server-sent events (``"stream": true``): a chunk with the role
            and the content, one with the finish reason, the usage if asked, then [DONE]."""
            data = stream_events(payload, message, finish_reason, body)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(data)

    return Handler


def _format_seconds(seconds: float) -> str:
    # Real servers send whole seconds; fractions are allowed here so tests can stay fast.
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"
