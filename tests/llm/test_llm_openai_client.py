"""OpenAIChatModel against a real HTTP server with injected faults."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import random
import time
import warnings
from pathlib import Path

import pytest

from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_USAGE
from escapebench.llm import openai_client
from escapebench.llm.base import (
    Completion,
    ModelUnavailableError,
    SamplingSettings,
    ServerNotReachedError,
    estimate_prompt_tokens,
)
from escapebench.llm.openai_client import (
    OpenAIChatModel,
    aiohttp_available,
    parse_retry_after,
    redact,
    safe_url,
)
from tests.support.fake_openai_server import FakeOpenAIServer

MESSAGES = [
    {"role": "system", "content": "You are in a locked room."},
    {"role": "user", "content": "What do you do?"},
]
SETTINGS = SamplingSettings()
FAKE_KEY = "sk-test-DO-NOT-LEAK-0123456789abcdef"


# The HTTP library under the SDK that fast_model() uses; every test runs with each.
_backend = ["httpx"]


@pytest.fixture(autouse=True, params=["httpx", "aiohttp"])
def http_backend(request: pytest.FixtureRequest) -> str:
    """Run the test with the SDK on httpx and on aiohttp (when installed)."""
    if request.param == "aiohttp" and not aiohttp_available():
        pytest.skip("aiohttp is not installed")
    _backend[0] = request.param
    return str(request.param)


def fast_model(urls: list[str], **kwargs: object) -> OpenAIChatModel:
    """A client with millisecond backoff, so retry tests take no time."""
    options: dict[str, object] = {
        "timeout": 2.0,
        "max_retries": 4,
        "backoff_base": 0.01,
        "backoff_cap": 0.05,
        "rng": random.Random(0),
        "http_backend": _backend[0],
    }
    options.update(kwargs)
    return OpenAIChatModel("fake-model", urls, **options)  # type: ignore[arg-type]


async def test_plain_answer_records_usage_and_sends_settings() -> None:
    with FakeOpenAIServer(answer="pick up key") as server:
        model = fast_model([server.base_url])
        settings = SamplingSettings(temperature=0.0, max_tokens=64, seed=3, stop=("\n\n",))
        completion = await model.complete(MESSAGES, settings)
        assert completion.text == "pick up key"
        assert completion.model == "fake-model"
        assert completion.retries == 0
        assert not completion.cached
        assert completion.tokens_in > 0 and completion.tokens_out > 0
        assert completion.extra["tokens_estimated"] is False
        assert completion.latency_s > 0
        sent = server.requests[0]
        assert sent["model"] == "fake-model"
        assert sent["messages"] == MESSAGES
        assert sent["temperature"] == 0.0
        assert sent["max_tokens"] == 64
        assert sent["seed"] == 3
        assert sent["stop"] == ["\n\n"]


async def test_tokens_estimated_without_usage() -> None:
    with FakeOpenAIServer(answer="x" * 40, include_usage=False) as server:
        completion = await fast_model([server.base_url]).complete(MESSAGES, SETTINGS)
        assert completion.extra["tokens_estimated"] is True
        assert completion.tokens_in == estimate_prompt_tokens(MESSAGES)
        assert completion.tokens_out == 10


@pytest.mark.parametrize(
    "fault",
    ["429", "500", "503", "slow", "malformed", "empty_choices", "missing_content", "disconnect"],
)
async def test_recovers_from_each_fault_kind(fault: str) -> None:
    with FakeOpenAIServer(
        answer="ok", faults=[fault, fault], retry_after_s=0.05, slow_s=3.0
    ) as server:
        model = fast_model([server.base_url], timeout=0.5)
        completion = await model.complete(MESSAGES, SETTINGS)
        assert completion.text == "ok"
        assert completion.retries == 2
        assert server.request_count == 3
        assert server.faults_injected == [fault, fault]


async def test_answer_with_lone_surrogates_is_writable_text() -> None:
    # JSON may carry "\\ud800" escapes that decode to characters no file can hold; the step
    # log, the cache and the console all encode UTF-8.
    with FakeOpenAIServer(answer="- Action: click(\ud800door\udfff)") as server:
        completion = await fast_model([server.base_url]).complete(MESSAGES, SETTINGS)
        assert completion.text == "- Action: click(\ufffddoor\ufffd)"
        completion.text.encode("utf-8")
        assert completion.retries == 0


async def test_answer_with_bytes_that_are_not_utf8_is_the_answer_not_a_retry() -> None:
    # At temperature 0 a retry gets the same bytes: retrying would stop the run for good.
    with FakeOpenAIServer(answer="- Action: click(door)", faults=["invalid_utf8"]) as server:
        completion = await fast_model([server.base_url]).complete(MESSAGES, SETTINGS)
        assert completion.text == "- Action: click(door)\ufffd"
        assert completion.retries == 0 and server.request_count == 1


@pytest.mark.parametrize(("fault", "text"), [("refusal", "I can't help."), ("reasoning_only", "")])
async def test_a_message_without_content_that_the_model_meant_is_its_answer(
    fault: str, text: str
) -> None:
    # A refusal, or a reasoning model out of tokens before it answered: at temperature 0 a
    # retry gets the same, so retrying would stop the run at this step for good.
    with FakeOpenAIServer(answer="I can't help.", faults=[fault, fault]) as server:
        completion = await fast_model([server.base_url]).complete(MESSAGES, SETTINGS)
        assert completion.text == text
        assert completion.retries == 0 and server.request_count == 1
        assert completion.extra["finish_reason"] == ("length" if text == "" else "stop")


async def test_random_faults_all_recovered() -> None:
    kinds = ["429", "500", "503", "malformed", "empty_choices", "missing_content"]
    with FakeOpenAIServer(fault_rate=0.3, fault_kinds=kinds, seed=1, retry_after_s=0.01) as server:
        model = fast_model([server.base_url], max_retries=10)
        results = await asyncio.gather(
            *(model.complete([{"role": "user", "content": f"q{i}"}], SETTINGS) for i in range(20))
        )
        assert all(r.text.startswith("fake answer") for r in results)
        assert server.faults_injected
        assert sum(r.retries for r in results) == len(server.faults_injected)


@pytest.mark.parametrize("status", ["429", "503"])
async def test_retry_after_is_honoured(status: str) -> None:
    with FakeOpenAIServer(faults=[status], retry_after_s=1) as server:
        model = fast_model([server.base_url])
        completion = await model.complete(MESSAGES, SETTINGS)
        assert completion.retries == 1
        waited = server.request_times[1] - server.request_times[0]
        # The backoff alone would be ~10 ms; the server asked for a whole second.
        assert 0.95 <= waited < 3.0


async def test_server_that_stays_down(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    caplog.set_level(logging.DEBUG)  # everything, the SDK's and httpx's debug logs too
    server = FakeOpenAIServer().start()
    model = fast_model([server.base_url], max_retries=3)
    assert model.has_api_key
    await model.complete(MESSAGES, SETTINGS)  # it answered once: an outage is retried
    server.stop()
    with pytest.raises(ModelUnavailableError) as info:
        await model.complete(MESSAGES, SETTINGS)
    assert not isinstance(info.value, ServerNotReachedError)
    message = str(info.value)
    assert server.base_url in message
    assert "4 attempts" in message
    assert "connect" in message.lower()
    assert FAKE_KEY not in message
    assert FAKE_KEY not in caplog.text
    assert FAKE_KEY not in repr(model)
    assert "retrying" in caplog.text  # the retries are visible in the log


def _closed_port_url() -> str:
    server = FakeOpenAIServer().start()
    server.stop()  # nothing listens on its port now: connections are refused
    return server.base_url


@pytest.mark.parametrize("max_retries", [0, 6])
async def test_a_server_that_never_answered_is_one_error_at_once(
    caplog: pytest.LogCaptureFixture, max_retries: int
) -> None:
    # A wrong --base-url: refused at the first call, or a name that does not resolve. Not
    # six retries and a minute of backoff: one error, naming the server and what to check.
    caplog.set_level(logging.WARNING)
    refused, unresolved = _closed_port_url(), "http://nonexistent.invalid/v1"
    for url, what in ((refused, "the connection was refused"),
                      (unresolved, "the name 'nonexistent.invalid' does not resolve")):
        model = fast_model([url], max_retries=max_retries, backoff_base=5.0, timeout=20.0)
        started = time.monotonic()
        with pytest.raises(ServerNotReachedError) as info:
            await model.complete(MESSAGES, SETTINGS)
        assert time.monotonic() - started < 10.0
        message = str(info.value)
        assert "\n" not in message
        assert f"cannot reach the model server at {url}: {what}" in message
        assert "check" in message and "--base-url" in message
    assert "retrying" not in caplog.text


async def test_replicas_that_never_answered_are_named_together() -> None:
    dead = _closed_port_url()
    model = fast_model([dead, "http://nonexistent.invalid/v1"], backoff_base=5.0)
    with pytest.raises(ServerNotReachedError) as info:
        await model.complete(MESSAGES, SETTINGS)
    message = str(info.value)
    assert message.startswith("cannot reach any model server: ")
    assert f"{dead}: the connection was refused" in message
    assert "http://nonexistent.invalid/v1: the name 'nonexistent.invalid' does not" in message


async def test_errors_from_server_are_reported_without_key(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    caplog.set_level(logging.DEBUG)
    with FakeOpenAIServer(faults=["500"] * 10) as server:
        model = fast_model([server.base_url], max_retries=2)
        with pytest.raises(ModelUnavailableError) as info:
            await model.complete(MESSAGES, SETTINGS)
        assert "HTTP 500" in str(info.value)
        assert "3 attempts" in str(info.value)
        assert server.request_count == 3
    assert FAKE_KEY not in str(info.value)
    assert FAKE_KEY not in caplog.text


@pytest.mark.parametrize(
    ("max_retries", "phrase"), [(0, ": 1 attempt failed over "), (2, ": 3 attempts failed over ")]
)
async def test_unavailable_message_counts_attempts(max_retries: int, phrase: str) -> None:
    """``--max-retries 0`` makes one attempt, and the message says so in plain English."""
    with FakeOpenAIServer(faults=["503"] * 10, retry_after_s=0) as server:
        model = fast_model([server.base_url], max_retries=max_retries)
        with pytest.raises(ModelUnavailableError) as info:
            await model.complete(MESSAGES, SETTINGS)
        assert server.request_count == max_retries + 1
    message = str(info.value)
    assert phrase in message
    assert "1 attempts" not in message
    assert "HTTP 503" in message


async def test_bad_key_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    with FakeOpenAIServer(require_api_key="the-right-key-123") as server:
        model = fast_model([server.base_url], max_retries=5)
        with pytest.raises(ModelUnavailableError) as info:
            await model.complete(MESSAGES, SETTINGS)
        assert "HTTP 401" in str(info.value)
        assert server.request_count == 0  # rejected before counting as a chat request
        assert FAKE_KEY not in str(info.value)


@pytest.mark.parametrize("key", ["hunter2", "local-server-token"])
async def test_a_short_or_plain_key_echoed_by_the_server_is_not_repeated(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, key: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", key)
    caplog.set_level(logging.DEBUG)
    with (
        FakeOpenAIServer(require_api_key="the-right-key-123") as server,
        pytest.raises(ModelUnavailableError) as info,
    ):
        await fast_model([server.base_url]).complete(MESSAGES, SETTINGS)
    assert "HTTP 401: Incorrect API key provided: ***." in str(info.value)
    assert key not in str(info.value) and key not in caplog.text


@pytest.mark.parametrize("given", ["sk-live-abcdef123456", "my secret 42", "same-as-the-key"])
def test_a_key_given_as_the_key_variable_is_refused_without_echoing_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    given: str,
) -> None:
    # --api-key-env "$OPENAI_API_KEY" (the key instead of the variable's name) was printed
    # back as "environment variable sk-... (API key) is not set".
    if given == "same-as-the-key":
        given = "PlainKey123"
        monkeypatch.setenv("OPENAI_API_KEY", given)
    code = cli_main(["run", "--agent", "base", "--model", "m", "--base-url",
                     "http://127.0.0.1:9/v1", "--games", "tutorial", "--out",
                     str(tmp_path / "o"), "--no-cache", "--api-key-env", given])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert "--api-key-env takes the name of the environment variable" in err
    assert given not in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


async def test_a_base_url_without_v1_gets_a_hint() -> None:
    with FakeOpenAIServer() as server:
        root = f"http://127.0.0.1:{server.port}/api"
        with pytest.raises(ModelUnavailableError) as info:
            await fast_model([root]).complete(MESSAGES, SETTINGS)
        assert "HTTP 404" in str(info.value)
        assert f"try --base-url http://127.0.0.1:{server.port}/v1" in str(info.value)
        with pytest.raises(ModelUnavailableError) as info:  # a 404 under /v1: no such hint
            await fast_model([server.base_url.replace("/v1", "/v1/v1")]).complete(
                MESSAGES, SETTINGS
            )
        assert "try --base-url" not in str(info.value)


async def test_named_key_env_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVER_KEY", "the-right-key-123")
    with FakeOpenAIServer(require_api_key="the-right-key-123", answer="in") as server:
        model = fast_model([server.base_url], api_key_env="MY_SERVER_KEY")
        assert (await model.complete(MESSAGES, SETTINGS)).text == "in"
    monkeypatch.delenv("MY_SERVER_KEY")
    with pytest.raises(ValueError, match="MY_SERVER_KEY"):
        fast_model(["http://127.0.0.1:1/v1"], api_key_env="MY_SERVER_KEY")


async def test_no_key_uses_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAIServer(require_api_key="EMPTY", answer="local ok") as server:
        model = fast_model([server.base_url])
        assert not model.has_api_key
        assert (await model.complete(MESSAGES, SETTINGS)).text == "local ok"


async def test_round_robin_over_two_servers() -> None:
    with FakeOpenAIServer(answer="a") as first, FakeOpenAIServer(answer="b") as second:
        model = fast_model([first.base_url, second.base_url])
        texts = [(await model.complete(MESSAGES, SETTINGS)).text for _ in range(6)]
        assert first.request_count == 3
        assert second.request_count == 3
        assert texts == ["a", "b"] * 3


async def test_failover_to_live_replica() -> None:
    with FakeOpenAIServer(answer="alive") as alive:
        dead = FakeOpenAIServer().start()
        dead.stop()
        model = fast_model([dead.base_url, alive.base_url], backoff_base=5.0)
        started = time.monotonic()
        results = [await model.complete(MESSAGES, SETTINGS) for _ in range(4)]
        assert [r.text for r in results] == ["alive"] * 4
        assert alive.request_count == 4
        assert sorted(r.retries for r in results) == [0, 0, 1, 1]
        # Moving to an untried replica does not wait for the (here 5 s) backoff.
        assert time.monotonic() - started < 2.0


async def test_server_comes_back() -> None:
    server = FakeOpenAIServer(answer="back").start()
    model = fast_model([server.base_url], max_retries=8, backoff_base=0.1, backoff_cap=0.2)
    await model.complete(MESSAGES, SETTINGS)
    server.stop()

    async def revive() -> None:
        await asyncio.sleep(0.3)
        server.start()

    try:
        completion, _ = await asyncio.gather(model.complete(MESSAGES, SETTINGS), revive())
        assert completion.text == "back"
        assert completion.retries >= 1
    finally:
        server.stop()


async def test_in_flight_limit() -> None:
    with FakeOpenAIServer(latency_s=0.1) as server:
        model = fast_model([server.base_url], max_in_flight=2)
        await asyncio.gather(*(model.complete(MESSAGES, SETTINGS) for _ in range(6)))
        assert server.request_count == 6
        assert server.max_in_flight == 2


def test_works_across_event_loops() -> None:
    with FakeOpenAIServer(answer="again") as server:
        model = fast_model([server.base_url])
        for _ in range(2):
            completion: Completion = asyncio.run(model.complete(MESSAGES, SETTINGS))
            assert completion.text == "again"


def test_describe_has_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    model = OpenAIChatModel("m", ["http://user:pw@example.com:8000/v1?token=abc"])
    record = model.describe()
    assert FAKE_KEY not in repr(record)
    assert record["base_urls"] == ["http://example.com:8000/v1"]
    assert record["api_key_env"] == "OPENAI_API_KEY"


def test_helpers() -> None:
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    when = parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})
    assert when == 0.0  # a date in the past means "now"
    assert redact(f"Incorrect API key provided: {FAKE_KEY}.", [FAKE_KEY]) == (
        "Incorrect API key provided: ***."
    )
    assert "sk-" not in redact("key sk-proj-****************abcd is wrong")
    # A short key of one's own server is a secret too, where it stands as a word.
    assert redact("Incorrect API key provided: hunter2.", ["hunter2"]) == (
        "Incorrect API key provided: ***."
    )
    assert redact("hunter2s are not hunter2-ish", ["hunter2"]) == "hunter2s are not hunter2-ish"
    assert safe_url("https://u:p@host/v1?key=1") == "https://host/v1"


async def test_restarted_server_costs_no_retry() -> None:
    """Keep-alive connections that a restarted server has closed are replaced on the spot,
    not counted as failed attempts."""
    with FakeOpenAIServer(answer="same", latency_s=0.05) as server:
        model = fast_model([server.base_url], max_in_flight=4)
        first = await asyncio.gather(*(model.complete(MESSAGES, SETTINGS) for _ in range(8)))
        server.restart()
        await asyncio.sleep(0.2)
        again = await asyncio.gather(*(model.complete(MESSAGES, SETTINGS) for _ in range(8)))
        assert [r.retries for r in first + again] == [0] * 16
        assert server.request_count == 16


def test_connections_closed_when_the_loop_ends(caplog: pytest.LogCaptureFixture) -> None:
    """asyncio.run() ends with the connections closed, without aclose() and without
    complaints about unclosed sessions on stderr."""
    caplog.set_level(logging.DEBUG)
    with FakeOpenAIServer(answer="bye") as server, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = fast_model([server.base_url], max_in_flight=3)

        async def calls() -> list[Completion]:
            return await asyncio.gather(*(model.complete(MESSAGES, SETTINGS) for _ in range(3)))

        assert [c.text for c in asyncio.run(calls())] == ["bye"] * 3
        gc.collect()
        deadline = time.monotonic() + 2.0
        while server._open_sockets and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not server._open_sockets
    assert "nclosed" not in caplog.text
    assert not [w for w in caught if "nclosed" in str(w.message)]


def test_http_backend_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="http_backend"):
        OpenAIChatModel("m", ["http://127.0.0.1:1/v1"], http_backend="curl")
    monkeypatch.setattr(openai_client, "aiohttp_available", lambda: False)
    assert OpenAIChatModel("m", ["http://127.0.0.1:1/v1"]).http_backend == "httpx"
    with pytest.raises(ValueError, match="aiohttp"):
        OpenAIChatModel("m", ["http://127.0.0.1:1/v1"], http_backend="aiohttp")
    monkeypatch.setattr(openai_client, "aiohttp_available", lambda: True)
    assert OpenAIChatModel("m", ["http://127.0.0.1:1/v1"]).http_backend == "aiohttp"


async def test_deadline_covers_a_trickling_answer() -> None:
    """A server that sends its answer one byte at a time never trips a per-read timeout; the
    attempt still ends after ``timeout`` seconds."""

    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n")
        with contextlib.suppress(ConnectionError):
            for _ in range(100):
                writer.write(b" ")
                await writer.drain()
                await asyncio.sleep(0.1)
        writer.close()

    server = await asyncio.start_server(trickle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        model = fast_model([f"http://127.0.0.1:{port}/v1"], timeout=0.5, max_retries=0)
        started = time.monotonic()
        with pytest.raises(ModelUnavailableError, match="timed out after 0.5s"):
            await model.complete(MESSAGES, SETTINGS)
        assert time.monotonic() - started < 2.0
        await model.aclose()


class _RawChatServer:
    """A server on 127.0.0.1 that answers every chat request with the same raw JSON body."""

    def __init__(self, payload: bytes, status: int = 200) -> None:
        import http.server
        import threading

        body = payload

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.requests += 1
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

        owner = self
        self.requests = 0
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _chat_body(message_json: str, model: str = "fake-model") -> bytes:
    return (
        '{"id": "x", "object": "chat.completion", "model": ' + json.dumps(model)
        + ', "choices": [{"index": 0, "finish_reason": "tool_calls", "message": '
        + message_json + "}]}"
    ).encode()


_DEEP = "[" * 3000 + "]" * 3000


@pytest.mark.parametrize(
    ("tool_calls", "name"),
    [
        ('"move"', ""),  # not a list
        ('{"function": {"name": "click", "arguments": "{}"}}', "click"),  # one call, no list
        ("[1, null, \"x\"]", ""),  # entries that are not functions
        ('[{"type": "function"}]', ""),
        ('[{"function": {"name": "move", "arguments": ' + _DEEP + "}}]", "move"),
        ('[{"function": {"name": "input", "arguments": {"text": ' + "9" * 5000
         + ', "item": "door"}}}]', "input"),
    ],
    ids=["string", "object", "scalars", "no function", "deep arguments", "huge integer"],
)
async def test_any_tool_calls_shape_is_an_answer_not_a_retry(tool_calls: str, name: str) -> None:
    # Before: each of these was retried as a server fault (at temperature 0 the same answer
    # comes back, so a run crawled through its retries or stopped with "model unavailable"),
    # and a body nested 1,000 deep raised RecursionError out of the client.
    body = _chat_body('{"role": "assistant", "content": null, "tool_calls": ' + tool_calls + "}")
    with _RawChatServer(body) as url:
        completion = await fast_model([url], max_retries=2).complete(MESSAGES, SETTINGS)
    assert completion.retries == 0 and completion.text == ""
    assert completion.tool_calls and completion.tool_calls[0].name == name


_ENCODED_KEY = "".join(c if c.isalnum() else f"%{ord(c):02X}" for c in FAKE_KEY)


@pytest.mark.parametrize(
    "echo",
    [_ENCODED_KEY, _ENCODED_KEY.lower(), FAKE_KEY[5:17], "..." + FAKE_KEY[-9:]],
    ids=["url-encoded", "url-encoded lower case", "middle fragment", "last nine"],
)
async def test_a_key_echoed_encoded_or_in_fragments_is_in_no_warning_nor_message(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, echo: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    caplog.set_level(logging.DEBUG)
    body = json.dumps({"error": {"message": f"overloaded (key {echo})"}}).encode()
    with _RawChatServer(body, status=500) as url, pytest.raises(ModelUnavailableError) as info:
        await fast_model([url], max_retries=2).complete(MESSAGES, SETTINGS)
    assert "retrying" in caplog.text and "***)" in str(info.value)
    for seen in (caplog.text, str(info.value)):
        assert echo not in seen and FAKE_KEY[8:16] not in seen


async def test_a_served_model_name_that_echoes_the_key_is_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    body = _chat_body('{"role": "assistant", "content": "ok"}', model=f"proxy/{_ENCODED_KEY}")
    with _RawChatServer(body) as url:
        completion = await fast_model([url]).complete(MESSAGES, SETTINGS)
    assert completion.extra["served_model"] == "proxy/***"
