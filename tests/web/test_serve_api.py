"""``escapebench serve``'s app through Starlette's TestClient: play API, report, refusals."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from escapebench.web.server import ServeConfig, create_app
from tests.support.report_runs import CLOSET, report_tables

# The tutorial's solution as the play page sends it: things, exits and bag tools by number.
TUTORIAL_CLICKS = [
    "click 1",  # desk drawer
    "click 4",  # the battery now lying in the room
    "move 1",  # to the shelf
    "click 2",  # flashlight
    "craft(1, 2)",  # battery into flashlight
    "move 1",  # back to the room
    "apply(1, 2)",  # flashlight on the dark cupboard
    "input(427, 3)",  # the code on the door
    "click 3",  # open the door
]


def make_client(run_dirs: list[Path], data: Path) -> TestClient:
    app = create_app(ServeConfig(run_dirs, data, [str(CLOSET)]))
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


@pytest.fixture()
def fresh_client(harness_runs: dict[str, Path], tmp_path: Path) -> Iterator[TestClient]:
    """A server with an empty data folder of its own."""
    with make_client([harness_runs["explorer"]], tmp_path / "data") as c:
        yield c


@pytest.fixture(scope="module")
def client(
    harness_runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    """One server shared by the tests that only start their own sessions."""
    with make_client([harness_runs["explorer"]], tmp_path_factory.mktemp("data")) as c:
        yield c


def start(client: TestClient, setting: str = "tutorial", player: str = "Ada") -> dict:
    r = client.post("/api/sessions", json={"setting": setting, "player": player})
    assert r.status_code == 201, r.text
    return r.json()


def act(client: TestClient, sid: str, command: str) -> dict:
    r = client.post(f"/api/sessions/{sid}/actions", json={"action": command})
    assert r.status_code == 200, r.text
    return r.json()


def test_games_include_builtin_and_given_files(client: TestClient) -> None:
    games = {g["setting"]: g for g in client.get("/api/games").json()["games"]}
    assert games["tutorial"]["builtin"] is True
    assert games["closet-hard"]["builtin"] is False
    assert games["closet"]["title"] == "The Broom Closet"


def test_playing_to_the_end_writes_a_human_result(fresh_client: TestClient, tmp_path: Path) -> None:
    client = fresh_client
    view = start(client)
    assert view["scene"] == "practice room" and view["step"] == 0
    for command in TUTORIAL_CLICKS:
        view = act(client, view["id"], command)
    assert view["ended"] and view["escaped"] and view["step"] == len(TUTORIAL_CLICKS)
    assert "Tutorial complete" in view["log"][-1]["feedback"]
    data = tmp_path / "data"
    rows = (data / "results.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 2
    assert ",human,none,Ada,0,True,0,9," in rows[1]
    result = json.loads(
        (data / "episodes" / "tutorial__human__none__r0" / "result.json").read_text()
    )
    assert result["agent"] == "human" and result["player"] == "Ada"
    # the report now has the human row, and the page links to the episode in it
    page = client.get("/report/")
    assert page.status_code == 200
    human = {r[0]: r[1:] for r in report_tables(page.text)["Human players"]}
    assert human["Average Human"][:3] == ["1/1", "0.00", "9.00"]
    assert view["report_key"] == "1-tutorial__human__none__r0"
    assert client.get(f"/report/data/episodes/{view['report_key']}.js").status_code == 200
    # a finished game takes no more actions
    r = client.post(f"/api/sessions/{view['id']}/actions", json={"action": "click 1"})
    assert r.status_code == 409 and "over" in r.json()["error"]


def test_hint_button_counts_one_hint(client: TestClient) -> None:
    view = start(client)
    r = client.post(f"/api/sessions/{view['id']}/hint", json={})
    hinted = r.json()
    assert hinted["hint"]["action"] == "click(desk drawer)"
    assert hinted["hints_used"] == 1
    again = client.post(f"/api/sessions/{view['id']}/hint", json={}).json()
    assert again["hints_used"] == 1  # asking again repeats the hint in force
    after = act(client, view["id"], "click 1")
    assert after["hint"] is None and after["hints_used"] == 1


def test_unreadable_command_costs_no_step(client: TestClient) -> None:
    view = start(client)
    r = client.post(f"/api/sessions/{view['id']}/actions", json={"action": "click 99"})
    assert r.status_code == 422
    assert "99" in r.json()["error"]
    assert client.get(f"/api/sessions/{view['id']}").json()["step"] == 0


def test_unfinished_game_resumes_after_restart(
    harness_runs: dict[str, Path], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    with make_client([], data) as first:
        view = start(first, "closet", "Bo")
        for command in ("click 1", "input(417, 2)"):
            view = act(first, view["id"], command)
        sid = view["id"]
        cookies = first.cookies  # the same browser comes back
    with make_client([], data) as second:  # a new server process on the same folder
        second.cookies = cookies
        listed = second.get("/api/sessions").json()["sessions"]
        assert [(s["id"], s["setting"], s["player"], s["steps"]) for s in listed] == [
            (sid, "closet", "Bo", 2)
        ]
        view = second.get(f"/api/sessions/{sid}").json()
        assert view["step"] == 2 and view["progress"] == pytest.approx(2 / 8)
        assert [e["label"] for e in view["exits"]] == ["north door"]  # the keypad opened it
        view = act(second, sid, "click 4")  # the string
        assert view["step"] == 3 and view["bag"][0]["name"] == "string"
        assert second.get("/api/sessions").json()["sessions"][0]["steps"] == 3


@pytest.mark.parametrize(
    "method, path, body, headers, status, message",
    [
        ("POST", "/api/sessions", {"setting": "nope", "player": "a"}, None, 404, "no game"),
        ("POST", "/api/sessions", {"setting": "../../etc/passwd", "player": "a"}, None, 404,
         "no game"),
        ("POST", "/api/sessions", {"setting": "tutorial", "player": "../../x"}, None, 400,
         "player name"),
        ("POST", "/api/sessions", {"setting": "tutorial", "player": "x" * 41}, None, 400,
         "longer than"),
        ("POST", "/api/sessions", {"setting": "tutorial"}, None, 400, "'player'"),
        ("POST", "/api/sessions", {"setting": 3, "player": "a"}, None, 400, "'setting'"),
        ("POST", "/api/sessions", ["tutorial"], None, 400, "JSON object"),
        ("POST", "/api/sessions", b"{not json", {"content-type": "application/json"}, 400,
         "not valid JSON"),
        ("POST", "/api/sessions", b"\xff\xfe", {"content-type": "application/json"}, 400,
         "not valid JSON"),
        ("POST", "/api/sessions", b"setting=tutorial", {"content-type": "text/plain"}, 415,
         "application/json"),
        ("POST", "/api/sessions", b"{" + b" " * 20000 + b"}",
         {"content-type": "application/json"}, 413, "larger than"),
        ("GET", "/api/sessions/..%2F..%2Fetc%2Fpasswd", None, None, 404, ""),
        ("GET", "/api/sessions/../../etc/passwd", None, None, 404, ""),
        ("GET", "/api/sessions/0123456789abcdef0123456789abcdef", None, None, 404,
         "no such game session"),
        ("GET", "/api/sessions/%2e%2e", None, None, 404, ""),
        ("POST", "/api/sessions/ZZZ/actions", {"action": "click 1"}, None, 404,
         "no such game session"),
        ("GET", "/report/..%2F..%2F..%2Fetc%2Fpasswd", None, None, 404, ""),
        ("GET", "/static/..%2F..%2Fserver.py", None, None, 404, ""),
        ("GET", "/nowhere", None, None, 404, ""),
        ("DELETE", "/api/sessions", None, None, 405, ""),
    ],
)
def test_bad_requests_get_a_clear_4xx(
    client: TestClient, method: str, path: str, body, headers, status: int, message: str
) -> None:
    kwargs: dict = {"headers": headers or {}}
    if isinstance(body, bytes):
        kwargs["content"] = body
    elif body is not None:
        kwargs["json"] = body
    r = client.request(method, path, **kwargs)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert message in r.json()["error"]
    assert "Traceback" not in r.text and "root:" not in r.text


def test_oversized_action_and_bad_session_action(client: TestClient) -> None:
    view = start(client)
    r = client.post(f"/api/sessions/{view['id']}/actions", json={"action": "x" * 600})
    assert r.status_code == 400 and "longer than" in r.json()["error"]
    r = client.post(f"/api/sessions/{view['id']}/actions", json={"action": ""})
    assert r.status_code == 400


def test_other_hosts_are_refused(client: TestClient) -> None:
    # a page on another site that resolves its name to 127.0.0.1 (DNS rebinding) is refused
    r = client.get("/api/games", headers={"host": "evil.example"})
    assert r.status_code == 400


def test_pages_render(client: TestClient) -> None:
    home = client.get("/")
    assert home.status_code == 200 and "Tutorial" in home.text
    play = client.get("/play")
    assert play.status_code == 200
    # the shared DOM helper comes first: play.js uses it as soon as it runs
    dom_at = play.text.index('src="/static/dom.js"')
    assert dom_at < play.text.index('src="/static/play.js"')
    for script in ("dom.js", "play.js"):
        served = client.get(f"/static/{script}")
        assert served.status_code == 200 and "javascript" in served.headers["content-type"]
    assert "window.EB_DOM" in client.get("/static/dom.js").text
    assert client.get("/report").status_code in (200, 307)


@pytest.mark.parametrize("kind", ["run-dir", "games", "port"])
def test_serve_cli_refuses_bad_options_before_starting(kind, tmp_path, capsys) -> None:
    from escapebench.cli import main as cli_main

    args = ["serve", "--data", str(tmp_path / "data")]
    if kind == "run-dir":
        args += [str(tmp_path / "missing")]
        expected = "no such result folder"
    elif kind == "games":
        bad = tmp_path / "bad.yaml"
        bad.write_text("escapebench: 1\nid: x\nscenes: 3\n")
        args += ["--games", str(bad)]
        expected = "bad.yaml"
    else:
        args += ["--port", "70000"]
        expected = "not a port number"
    assert cli_main(args) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err
