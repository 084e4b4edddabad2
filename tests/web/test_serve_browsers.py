"""Who may talk to ``escapebench serve``: the allowed ``Host`` names come from the address the
server binds, however it is written (DNS rebinding through another spelling of loopback), and
each browser sees the unfinished games it started (a cookie) unless --show-all-sessions."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from escapebench.web.command_serve import is_loopback
from escapebench.web.server import ServeConfig, create_app

START = {"setting": "tutorial", "player": "Ada"}


def client(data: Path, host: str = "127.0.0.1", base: str = "http://127.0.0.1",
           **config: object) -> TestClient:
    app = create_app(ServeConfig([], data, host=host, **config))  # type: ignore[arg-type]
    return TestClient(app, base_url=base, raise_server_exceptions=False)


@pytest.mark.parametrize("host", ["127.1", "127.0.0.2", "::ffff:127.0.0.1", "localhost"])
def test_another_spelling_of_loopback_still_refuses_other_host_names(
    host: str, tmp_path: Path
) -> None:
    with client(tmp_path / "data", host, base="http://evil.example") as evil:
        assert evil.get("/api/sessions").status_code == 400
        r = evil.post("/api/sessions", json=START, headers={"origin": "http://evil.example"})
        assert r.status_code == 400
    with client(tmp_path / "data", host) as own:
        assert own.get("/api/sessions").status_code == 200
    assert is_loopback(host)  # so no warning that anyone can connect


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.7"])
def test_an_address_others_reach_is_not_loopback(host: str) -> None:
    assert not is_loopback(host)


def test_a_browser_lists_only_the_games_it_started(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with client(data) as ada, client(data) as bo:
        sid = ada.post("/api/sessions", json=START).json()["id"]
        assert [s["id"] for s in ada.get("/api/sessions").json()["sessions"]] == [sid]
        assert bo.get("/api/sessions").json()["sessions"] == []  # another browser
        assert bo.get(f"/api/sessions/{sid}").status_code == 200  # its id is still its key
    with client(data, show_all_sessions=True) as anyone:
        listed = anyone.get("/api/sessions").json()["sessions"]
        assert [(s["id"], s["player"]) for s in listed] == [(sid, "Ada")]
