"""``escapebench serve --games gen:...`` as a real server on 127.0.0.1 (a subprocess): generated
games are offered, played to the end through the play API, recorded with their spec, generator
version and hash, drawn on the report's game page, and resumed after a restart."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from escapebench.catalog import load_games
from escapebench.generate import GENERATOR_VERSION, generate_games
from tests.support.reference_walk import typed_reference
from tests.support.serve_process import serve

GEN = "gen:tier=2,count=1,seed=41"
SETTING = "gen-t2-s41-000"


def normal() -> object:
    return next(d for d in load_games([GEN]) if d.difficulty == "normal")


def act(client: httpx.Client, sid: str, command: str) -> dict:
    r = client.post(f"api/sessions/{sid}/actions", json={"action": command})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_generated_game_is_offered_played_recorded_and_drawn(tmp_path: Path) -> None:
    data = tmp_path / "data"
    defn = normal()
    with serve("--data", str(data), "--games", GEN) as url, httpx.Client(base_url=url) as c:
        games = {g["setting"]: g for g in c.get("api/games").json()["games"]}
        assert {SETTING, f"{SETTING}-easy", f"{SETTING}-hard"} <= set(games)
        assert games[SETTING]["title"] == defn.title
        r = c.post("api/sessions", json={"setting": SETTING, "player": "Gen"})
        assert r.status_code == 201, r.text
        view = r.json()
        for kind, what in typed_reference(defn):
            view = act(c, view["id"], f"move({what})" if kind == "move" else what)
        assert view["ended"] and view["escaped"] and view["hints_used"] == 0
        assert view["step"] == len(typed_reference(defn))
        # the report of the human results has the game's page, with its picture
        # the first report request builds the report (figures, the game regenerated to draw
        # it): seconds on a loaded machine, beyond httpx's 5-second default
        page = c.get(f"report/games/{SETTING}.html", timeout=120)
        assert page.status_code == 200, page.text
        src = re.search(r'<img id="graph-picture" src="\.\./([^"]+)"', page.text)
        assert src, page.text
        png = c.get("report/" + src.group(1))
        assert png.status_code == 200 and png.content[:4] == b"\x89PNG"
        assert GEN in page.text
    run = json.loads((data / "run.json").read_text(encoding="utf-8"))
    [rec] = [g for g in run["games"] if g["setting"] == SETTING]
    assert rec["generated"] == {"spec": GEN, "generator_version": GENERATOR_VERSION}
    assert rec["sha256"] == generate_games(2, 1, 41)[0].sha256
    result = json.loads((data / "episodes" / f"{SETTING}__human__none__r0" / "result.json")
                        .read_text(encoding="utf-8"))
    assert result["escaped"] and result["player"] == "Gen"


def test_an_unfinished_generated_game_resumes_after_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan = typed_reference(normal())[:3]
    with serve("--data", str(data), "--games", GEN) as url, httpx.Client(base_url=url) as c:
        view = c.post("api/sessions", json={"setting": SETTING, "player": "Rae"}).json()
        for kind, what in plan:
            view = act(c, view["id"], f"move({what})" if kind == "move" else what)
        sid, bag = view["id"], [t["name"] for t in view["bag"]]
        cookies = c.cookies  # the same browser comes back
    with serve("--data", str(data), "--games", GEN) as url, \
            httpx.Client(base_url=url, cookies=cookies) as c:
        listed = c.get("api/sessions").json()["sessions"]
        assert [(s["id"], s["setting"], s["steps"]) for s in listed] == [(sid, SETTING, 3)]
        view = c.get(f"api/sessions/{sid}").json()
        assert view["step"] == 3 and [t["name"] for t in view["bag"]] == bag
