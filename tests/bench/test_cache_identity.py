"""The response cache never answers for another server: two real fake servers on 127.0.0.1
that serve different "models" under the same model name, as llama.cpp and Ollama servers do
("default", "local")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escapebench.cli import main as cli
from escapebench.exit_codes import EXIT_USAGE
from tests.bench.answers import pick_answer, stuck_answer
from tests.bench.conftest import MINI_GAME
from tests.support.fake_openai_server import FakeOpenAIServer


def run(out: Path, cache: Path, *urls: str, extra: tuple[str, ...] = ()) -> int:
    flags = [x for url in urls for x in ("--base-url", url)]
    return cli([
        "run", "--agent", "base", "--model", "default", *flags, "--games", str(MINI_GAME),
        "--max-steps", "6", "--out", str(out), "--cache", str(cache), "--quiet", "--no-fsync",
        *extra,
    ])


def actions(out: Path) -> list[str]:
    out_actions = []
    for folder in sorted((out / "episodes").iterdir()):
        lines = (folder / "steps.jsonl").read_text(encoding="utf-8").splitlines()
        out_actions += [json.loads(line)["action"] for line in lines if line.strip()]
    return out_actions


@pytest.fixture
def servers():
    with FakeOpenAIServer(answer=pick_answer, model_name="default") as a, \
            FakeOpenAIServer(answer=stuck_answer, model_name="default") as b:
        yield a, b


def test_another_server_under_the_same_model_name_is_asked_not_answered_from_cache(
    servers, tmp_path: Path
) -> None:
    a, b = servers
    cache = tmp_path / "responses.sqlite"
    assert run(tmp_path / "on-a", cache, a.base_url) == 0
    assert a.request_count > 0
    assert run(tmp_path / "on-b", cache, b.base_url) == 0
    # B was asked for every answer: none of A's came back from the cache
    assert b.request_count == a.request_count
    assert set(actions(tmp_path / "on-b")) == {"click(note)"}  # B's only answer
    assert actions(tmp_path / "on-a") != actions(tmp_path / "on-b")
    # and run.json names the server that really answered
    run_json = json.loads((tmp_path / "on-b" / "run.json").read_text(encoding="utf-8"))
    assert run_json["server"] == b.base_url.rstrip("/")
    # the same run again against A costs A nothing: its own entries are still there
    asked = a.request_count
    assert run(tmp_path / "on-a-again", cache, a.base_url) == 0
    assert a.request_count == asked


def test_replicas_given_together_share_their_entries(servers, tmp_path: Path) -> None:
    a, _ = servers
    with FakeOpenAIServer(answer=pick_answer, model_name="default") as replica:
        cache = tmp_path / "responses.sqlite"
        assert run(tmp_path / "first", cache, a.base_url, replica.base_url) == 0
        asked = a.request_count + replica.request_count
        assert asked > 0
        # the same replicas, given in the other order: every answer from the cache
        assert run(tmp_path / "second", cache, replica.base_url, a.base_url) == 0
        assert a.request_count + replica.request_count == asked
    assert actions(tmp_path / "first") == actions(tmp_path / "second")


def test_resuming_against_another_server_is_refused_unless_allowed(
    servers, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = servers
    out, cache = tmp_path / "run", tmp_path / "responses.sqlite"
    assert run(out, cache, a.base_url) == 0
    before = (out / "run.json").read_text(encoding="utf-8")
    capsys.readouterr()
    assert run(out, cache, b.base_url) == EXIT_USAGE
    err = capsys.readouterr().err
    assert f"was played against {a.base_url.rstrip('/')}" in err
    assert "--allow-server-change" in err
    assert (out / "run.json").read_text(encoding="utf-8") == before  # nothing rewritten
    assert run(out, cache, b.base_url, extra=("--allow-server-change",)) == 0
    data = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert data["server"] == b.base_url.rstrip("/")
    (change,) = data["server_changes"]
    assert (change["from"], change["to"]) == (a.base_url.rstrip("/"), b.base_url.rstrip("/"))
