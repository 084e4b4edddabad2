"""Half a suite never looks whole: a partial merge is refused unless asked for, and a run does
not write into a folder that is not a result folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escapebench.cli import main as cli
from escapebench.exit_codes import EXIT_USAGE


def _shard(out: Path, game: Path, shard: str) -> Path:
    assert cli(["run", "--agent", "explorer", "--games", str(game), "--repeats", "2",
                "--shard", shard, "--out", str(out), "--quiet", "--no-fsync"]) == 0
    return out


def test_a_merge_of_one_shard_names_what_is_missing_and_is_refused(
    tmp_path: Path, mini_game_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _shard(tmp_path / "s1", mini_game_file, "1/2")
    capsys.readouterr()
    assert cli(["merge", str(one), "--out", str(tmp_path / "m"), "--quiet"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "shard 2/2 missing" in err and "planned episodes missing" in err
    assert "--partial" in err
    assert not (tmp_path / "m").exists()
    # asked for, the partial merge is done and says so, in its output and in run.json
    assert cli(["merge", str(one), "--out", str(tmp_path / "m"), "--quiet", "--partial"]) == 0
    assert "a partial suite: shard 2/2 missing" in capsys.readouterr().err
    run = json.loads((tmp_path / "m" / "run.json").read_text(encoding="utf-8"))
    assert run["partial"]["missing_shards"] == ["2/2"] and run["finished"] is None
    # both shards together are whole
    two = _shard(tmp_path / "s2", mini_game_file, "2/2")
    assert cli(["merge", str(one), str(two), "--out", str(tmp_path / "all"), "--quiet"]) == 0
    run = json.loads((tmp_path / "all" / "run.json").read_text(encoding="utf-8"))
    assert run["partial"] is None and run["finished"]


def test_run_refuses_a_non_empty_folder_that_is_not_a_result_folder(
    tmp_path: Path, mini_game_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "thesis"
    folder.mkdir()
    (folder / "chapter1.tex").write_text("precious", encoding="utf-8")
    code = cli(["run", "--agent", "explorer", "--games", str(mini_game_file),
                "--out", str(folder), "--quiet", "--no-fsync"])
    assert code == EXIT_USAGE
    err = capsys.readouterr().err
    assert "not a result folder" in err and "chapter1.tex" in err
    assert sorted(p.name for p in folder.iterdir()) == ["chapter1.tex"]  # nothing written
    # an empty folder, and a result folder (resuming), are fine
    empty = tmp_path / "empty"
    empty.mkdir()
    args = ["run", "--agent", "explorer", "--games", str(mini_game_file), "--out", str(empty),
            "--quiet", "--no-fsync"]
    assert cli(args) == 0
    assert cli(args) == 0
