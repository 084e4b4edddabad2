"""``escapebench serve`` against hostile clients: unreadable bodies are a 400 (never a 500 or
a traceback in the log), other sites' pages cannot change anything, nothing can be framed or
sniffed, a slow request head is cut off (slowloris), and a second SIGTERM stops at once."""

from __future__ import annotations

import json
import logging
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from escapebench.web import server as serve_module
from escapebench.web.server import ServeConfig, create_app, header_timeout_protocol

START = {"setting": "tutorial", "player": "Ada"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(ServeConfig([], tmp_path_factory.mktemp("data")))
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


def post_raw(client: TestClient, body: bytes, **headers: str):  # noqa: ANN201
    return client.post("/api/sessions", content=body,
                       headers={"content-type": "application/json", **headers})


@pytest.mark.parametrize(
    "body",
    [b"[" * 5000 + b"]" * 5000, b'{"a":' * 2000 + b"1" + b"}" * 2000, b"[" * 16000],
    ids=["nested lists", "nested objects", "unclosed"],
)
def test_deeply_nested_json_is_a_400_with_nothing_in_the_log(
    client: TestClient, body: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        r = post_raw(client, body)
    assert r.status_code == 400, r.text
    assert "JSON" in r.json()["error"]
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR]
    assert "RecursionError" not in caplog.text


def test_deep_json_is_a_400_under_a_raised_recursion_limit(client: TestClient) -> None:
    """OpenEnv's dependencies raise the recursion limit to 3000 on import: the body's depth is
    checked by the server itself, not left to it."""
    import sys

    before = sys.getrecursionlimit()
    sys.setrecursionlimit(3000)
    try:
        r = post_raw(client, b'{"a":' * 2000 + b"1" + b"}" * 2000)
    finally:
        sys.setrecursionlimit(before)
    assert r.status_code == 400, r.text
    assert "nested too deeply" in r.json()["error"]


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.one_of(
        st.binary(max_size=2000),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=20),
            lambda inner: (
                st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner)
            ),
            max_leaves=40,
        ).map(lambda v: json.dumps(v).encode()),
        st.integers(1, 12000).map(lambda n: b"[" * n + b"]" * n),
    )
)
def test_no_body_gets_a_500(client: TestClient, body: bytes) -> None:
    """Property: whatever the body of a play request, the answer is 2xx or 4xx JSON."""
    for path in ("/api/sessions", "/api/sessions/0123456789abcdef0123456789abcdef/actions"):
        r = client.post(path, content=body, headers={"content-type": "application/json"})
        assert r.status_code < 500, (path, body[:80], r.text)
        assert r.headers["content-type"].startswith("application/json")


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 201),  # not a browser: curl, a script
        ({"origin": "http://127.0.0.1"}, 201),  # the play page itself
        ({"origin": "http://evil.example"}, 403),
        ({"origin": "http://127.0.0.1:9999"}, 403),  # another server on this machine
        ({"origin": "null"}, 403),  # a sandboxed frame, a file:// page
        ({"origin": "http://127.0.0.1", "sec-fetch-site": "cross-site"}, 403),
        ({"sec-fetch-site": "same-site"}, 403),
    ],
    ids=["no origin", "same origin", "other site", "other port", "null", "cross-site fetch",
         "same-site fetch"],
)
def test_only_the_servers_own_pages_may_change_state(
    client: TestClient, headers: dict[str, str], status: int
) -> None:
    r = client.post("/api/sessions", json=START, headers=headers)
    assert r.status_code == status, r.text
    if status == 403:
        assert "may not change anything" in r.json()["error"]


def test_reads_from_other_origins_are_not_refused(client: TestClient) -> None:
    assert client.get("/api/games", headers={"origin": "http://evil.example"}).status_code == 200


@pytest.mark.parametrize("path", ["/", "/play", "/api/games", "/static/play.js", "/nowhere"])
def test_every_response_forbids_framing_and_sniffing(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"


def test_refusals_carry_the_headers_too(client: TestClient) -> None:
    r = client.post("/api/sessions", json=START, headers={"origin": "http://evil.example"})
    assert r.status_code == 403 and r.headers["x-frame-options"] == "DENY"


# ------------------------------------------------------------------ a real server
@pytest.fixture()
def live_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """The app under uvicorn with the header-timeout protocol, in a thread; its port."""
    import uvicorn

    monkeypatch.setattr(serve_module, "HEADER_TIMEOUT_S", 0.5)
    app = create_app(ServeConfig([], tmp_path / "data"))
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                            http=header_timeout_protocol())
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield port
    server.should_exit = True
    thread.join(timeout=10)


def _get(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return s.recv(100)


@pytest.mark.parametrize("sent", [b"", b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"],
                         ids=["nothing", "half a head"])
def test_a_request_head_that_never_completes_is_cut_off(live_server: int, sent: bytes) -> None:
    with socket.create_connection(("127.0.0.1", live_server), timeout=20) as slow:
        slow.sendall(sent)
        assert slow.recv(100) == b""  # closed by the server (a hang would time out instead)
    assert _get(live_server).startswith(b"HTTP/1.1 200")  # others are served as before


def test_a_keep_alive_connection_is_cut_off_when_its_next_head_stalls(live_server: int) -> None:
    with socket.create_connection(("127.0.0.1", live_server), timeout=20) as s:
        s.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        first = s.recv(65536)
        assert first.startswith(b"HTTP/1.1 200")
        s.sendall(b"GET /api/ga")  # the next request, never finished
        rest = b""
        while chunk := s.recv(65536):
            rest += chunk
        assert b"HTTP/1.1" not in rest  # no answer to half a head, then closed


def test_a_second_sigterm_stops_serve_at_once_without_a_traceback(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "escapebench.cli", "serve", "--data", str(tmp_path / "d"),
         "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        # a request whose body never comes: a first SIGTERM waits for it (graceful)
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(b"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
            time.sleep(0.3)
            proc.send_signal(signal.SIGTERM)
            time.sleep(0.3)
            assert proc.poll() is None  # still waiting for the open request
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=30)
            # stopped by the signal, not by the body timeout (which answers 408 first)
            s.settimeout(5)
            assert b"408" not in s.recv(100)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in err, err
    assert proc.returncode in (0, -signal.SIGTERM)


def test_live_play_sessions_are_capped_and_a_closed_one_resumes(tmp_path: Path) -> None:
    # Before: every start stayed in memory (2,000 starts: +80 MB, p99 3.9 s).
    app = create_app(ServeConfig([], tmp_path / "data", max_sessions=3))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        sids = []
        for _ in range(6):
            r = c.post("/api/sessions", json=START)
            assert r.status_code == 201, r.text
            sids.append(r.json()["id"])
        assert app.state.store.live_sessions == 3
        first = c.post(f"/api/sessions/{sids[0]}/actions", json={"action": "click 1"})
        assert first.status_code == 200, first.text  # closed in memory, resumed from its save
        assert first.json()["id"] == sids[0] and app.state.store.live_sessions == 3


def test_serve_refuses_a_max_sessions_below_one(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "serve", "--max-sessions", "0",
         "--data", str(tmp_path / "d"), "--port", "0"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2 and "--max-sessions" in proc.stderr
