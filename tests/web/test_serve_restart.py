"""``escapebench serve`` as a real server on 127.0.0.1, restarted in the middle of a game."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from escapebench.games.loading import load_games
from tests.support.serve_process import serve

pytestmark = pytest.mark.slow


def test_a_hint_pending_at_a_restart_is_played_after_it(tmp_path: Path) -> None:
    """Start a game, press hint, restart the server, post the hinted action: it is played,
    the hint counts once, and the game goes on to its end."""
    data = tmp_path / "data"
    defn = next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")
    with serve("--data", str(data)) as url, httpx.Client(base_url=url) as c:
        r = c.post("api/sessions", json={"setting": "tutorial", "player": "Hal"})
        assert r.status_code == 201, r.text
        sid = r.json()["id"]
        r = c.post(f"api/sessions/{sid}/hint", json={})
        assert r.status_code == 200, r.text
        hinted = r.json()["hint"]["action"]
    assert hinted == defn.reference[0].action
    with serve("--data", str(data)) as url, httpx.Client(base_url=url) as c:
        view = c.get(f"api/sessions/{sid}").json()
        assert view["hint"]["action"] == hinted and view["hints_used"] == 1
        for action in [ref.action for ref in defn.reference]:
            r = c.post(f"api/sessions/{sid}/actions", json={"action": action})
            assert r.status_code == 200, r.text
        view = r.json()
        assert view["escaped"] and view["hints_used"] == 1
    episode = data / "episodes" / "tutorial__human__none__r0"
    result = json.loads((episode / "result.json").read_text(encoding="utf-8"))
    assert [(h["action"], h["ended_step"], h["outcome"]) for h in result["hints"]] == [
        (hinted, 0, "completed")
    ]
