"""``escapebench merge`` takes any set of shards that covers the suite exactly once, whatever
their shard counts, and treats a change of server as ``run`` does: refused unless
``--allow-server-change``, then recorded in ``server_changes``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escapebench.cli import main as cli
from tests.bench.answers import pick_answer, stuck_answer
from tests.bench.conftest import MINI_GAME
from tests.support.fake_openai_server import FakeOpenAIServer


def shard(out: Path, which: str, *model: str) -> None:
    agent = ["--agent", "base", "--model", "default", *model] if model else ["--agent",
                                                                              "explorer"]
    assert cli(["run", *agent, "--games", str(MINI_GAME), "--max-steps", "6", "--shard", which,
                "--out", str(out), "--quiet", "--no-fsync", "--no-cache"]) == 0


def merged(out: Path) -> dict:
    return json.loads((out / "run.json").read_text(encoding="utf-8"))


def test_shards_of_different_counts_that_cover_the_suite_merge(tmp_path, capsys) -> None:
    # the three settings sorted: 1/2 plays the first and the third, 2/3 the second
    shard(tmp_path / "a", "1/2")
    shard(tmp_path / "b", "2/3")
    capsys.readouterr()
    assert cli(["merge", str(tmp_path / "a"), str(tmp_path / "b"), "--out",
                str(tmp_path / "m"), "--quiet"]) == 0
    assert "merged 3 episodes" in capsys.readouterr().err
    assert merged(tmp_path / "m")["partial"] is None


def test_one_folder_run_as_both_shards_merges_whole(tmp_path, capsys) -> None:
    shard(tmp_path / "a", "1/2")
    shard(tmp_path / "a", "2/2")
    capsys.readouterr()
    assert cli(["merge", str(tmp_path / "a"), "--out", str(tmp_path / "m"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "merged 3 episodes" in err and "partial" not in err


def test_a_missing_episode_is_still_refused(tmp_path, capsys) -> None:
    shard(tmp_path / "a", "1/2")
    capsys.readouterr()
    assert cli(["merge", str(tmp_path / "a"), "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert "shard 2/2 missing; 1 planned episode missing: mini-hard__explorer__none__r0" in err


@pytest.mark.slow
def test_shards_of_two_servers_are_refused_unless_allowed_then_recorded(
    tmp_path, capsys
) -> None:
    with FakeOpenAIServer(answer=pick_answer, model_name="default") as a, \
            FakeOpenAIServer(answer=stuck_answer, model_name="default") as b:
        shard(tmp_path / "a", "1/2", "--base-url", a.base_url)
        shard(tmp_path / "b", "2/2", "--base-url", b.base_url)
    a_url, b_url = merged(tmp_path / "a")["server"], merged(tmp_path / "b")["server"]
    capsys.readouterr()
    args = ["merge", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "m"),
            "--quiet"]
    assert cli(args) == 2
    err = capsys.readouterr().err
    assert f"was played against {a_url} and {tmp_path / 'b'} against {b_url}" in err
    assert "--allow-server-change" in err and not (tmp_path / "m").exists()
    assert cli([*args, "--allow-server-change"]) == 0
    run = merged(tmp_path / "m")
    assert run["server"] == b_url
    [change] = run["server_changes"]
    assert (change["from"], change["to"]) == (a_url, b_url)
