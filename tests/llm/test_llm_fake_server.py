"""The fake OpenAI server itself: other suites rely on its behaviour."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from tests.support.fake_openai_server import FAULT_KINDS, FakeOpenAIServer


def _post(server: FakeOpenAIServer, body: dict[str, object]) -> tuple[int, bytes]:
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


BODY = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}


def test_answers_with_usage_and_counts_requests() -> None:
    with FakeOpenAIServer(answer="open door") as server:
        status, raw = _post(server, BODY)
        data = json.loads(raw)
        assert status == 200
        assert data["choices"][0]["message"]["content"] == "open door"
        assert data["usage"]["prompt_tokens"] > 0
        assert data["usage"]["completion_tokens"] > 0
        assert server.request_count == 1
        assert server.requests[0]["messages"][0]["content"] == "hello"


def test_models_endpoint() -> None:
    with FakeOpenAIServer(model_name="tiny") as server:
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=5) as response:
            data = json.loads(response.read())
        assert data["data"][0]["id"] == "tiny"
        assert server.models_requests == 1
        assert server.request_count == 0


def test_answer_list_and_function() -> None:
    with FakeOpenAIServer(answer=["a", "b"]) as server:
        texts = [json.loads(_post(server, BODY)[1])["choices"][0]["message"]["content"]]
        texts += [json.loads(_post(server, BODY)[1])["choices"][0]["message"]["content"]]
        texts += [json.loads(_post(server, BODY)[1])["choices"][0]["message"]["content"]]
        assert texts == ["a", "b", "b"]
    with FakeOpenAIServer(answer=lambda req: req["messages"][-1]["content"].upper()) as server:
        assert json.loads(_post(server, BODY)[1])["choices"][0]["message"]["content"] == "HELLO"


def test_fault_schedule() -> None:
    with FakeOpenAIServer(faults=["429", "500", "503", "malformed", "empty_choices"]) as server:
        status, _ = _post(server, BODY)
        assert status == 429
        assert _post(server, BODY)[0] == 500
        assert _post(server, BODY)[0] == 503
        status, raw = _post(server, BODY)
        assert status == 200
        with pytest.raises(ValueError):
            json.loads(raw)
        assert json.loads(_post(server, BODY)[1])["choices"] == []
        assert _post(server, BODY)[0] == 200  # the schedule is over
        assert server.faults_injected == ["429", "500", "503", "malformed", "empty_choices"]


def test_random_faults_are_reproducible() -> None:
    def run(seed: int) -> list[str]:
        kinds = [k for k in FAULT_KINDS if k not in ("slow", "disconnect")]
        with FakeOpenAIServer(fault_rate=0.5, fault_kinds=kinds, seed=seed) as server:
            for _ in range(20):
                _post(server, BODY)
            return list(server.faults_injected)

    first = run(7)
    assert first, "a 50% fault rate over 20 requests should inject something"
    assert run(7) == first


def test_stop_and_restart_on_same_port() -> None:
    server = FakeOpenAIServer().start()
    try:
        port = server.port
        assert _post(server, BODY)[0] == 200
        server.stop()
        assert not server.running
        with pytest.raises(urllib.error.URLError):
            _post(server, BODY)
        server.start()
        assert server.port == port
        assert _post(server, BODY)[0] == 200
        server.restart()
        assert server.port == port
        assert _post(server, BODY)[0] == 200
    finally:
        server.stop()


def test_require_api_key() -> None:
    with FakeOpenAIServer(require_api_key="secret-123456") as server:
        assert _post(server, BODY)[0] == 401


def test_unknown_fault_kind_rejected() -> None:
    with pytest.raises(ValueError):
        FakeOpenAIServer(faults=["boom"])


def test_streams_server_sent_events_when_asked() -> None:
    import openai

    with FakeOpenAIServer(answer="open door") as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="k")
        chunks = list(client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True,
            stream_options={"include_usage": True},
        ))
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert text == "open door"
        assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
        assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 0
