"""``escapebench generate`` writes its folder whole or not at all (a temporary folder renamed,
``generated.json`` last), never mixes its games with files it did not write, and a generated
folder is played as its ``generated.json`` lists it."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from escapebench.cli import main as cli


def generate(out: Path, count: int, *more: str) -> int:
    return cli(["generate", "--tier", "1", "--count", str(count), "--seed", "5", "--out",
                str(out), *more])


def yaml_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.yaml"))


def listed(folder: Path) -> list[str]:
    data = json.loads((folder / "generated.json").read_text(encoding="utf-8"))
    return sorted(g["file"] for g in data["games"])


def test_a_smaller_count_into_its_own_folder_leaves_only_the_new_games(tmp_path) -> None:
    out = tmp_path / "gen"
    assert generate(out, 4) == 0
    assert generate(out, 2) == 0
    assert yaml_files(out) == listed(out) and len(listed(out)) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gen"]  # nothing left beside it


def test_a_folder_of_other_files_is_refused(tmp_path, capsys) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.yaml").write_text("mine: true\n")
    assert generate(out, 1) == 2
    err = capsys.readouterr().err
    assert "holds files generate did not write as they are (notes.yaml)" in err
    assert sorted(p.name for p in out.iterdir()) == ["notes.yaml"]


def test_a_full_disk_is_one_line_and_leaves_nothing(tmp_path, capsys, monkeypatch) -> None:
    real = Path.write_text
    written = {"n": 0}

    def write_text(self: Path, *args, **kwargs):  # the disk fills after two files
        if tmp_path in self.parents:
            written["n"] += 1
            if written["n"] > 2:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)
    out = tmp_path / "gen"
    assert generate(out, 3) == 4
    err = capsys.readouterr().err.strip()
    assert "No space left on device" in err and f"{out} is as it was" in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


KILL = """
import os, sys
import escapebench.generate.graph as graph
from escapebench.cli import main
calls = []
def draw(*args, **kwargs):
    calls.append(1)
    if len(calls) == 2:
        os._exit(9)  # killed while the second game is written
graph.draw_design = draw
main(["generate", "--tier", "1", "--count", "3", "--graph", "--out", sys.argv[1]])
"""


@pytest.mark.slow
def test_a_kill_while_writing_leaves_no_folder_of_some_games(tmp_path, capsys) -> None:
    out = tmp_path / "gen"
    done = subprocess.run([sys.executable, "-c", KILL, str(out)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 9, done.stderr
    assert not out.exists()
    capsys.readouterr()
    assert cli(["run", "--games", str(out), "--out", str(tmp_path / "run")]) == 2
    assert generate(out, 1) == 0  # the next one writes it, and clears what the kill left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gen"]


@pytest.mark.parametrize("change", ["added", "removed"])
def test_a_generated_folder_whose_files_and_list_differ_is_refused(
    change: str, tmp_path, capsys
) -> None:
    out = tmp_path / "gen"
    assert generate(out, 2) == 0
    first = out / listed(out)[0]
    if change == "added":
        (out / "extra.yaml").write_text(first.read_text(encoding="utf-8").replace(
            "gen-t1-s5-000", "extra-game"), encoding="utf-8")
    else:
        first.unlink()
    capsys.readouterr()
    code = cli(["run", "--games", str(out), "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and "generated.json lists 2 games but the folder holds" in err
    assert ("not listed: extra.yaml" if change == "added" else f"missing: {first.name}") in err
    assert not (tmp_path / "run").exists()
