"""A result folder that stops being writable while a run plays (disk full, permission lost):
exit 4 with one line naming the file, no traceback, no zero-byte error.txt or temporary file
left behind, and the same command resumes to the same steps as a run without the fault."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from escapebench.bench import records
from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_STORAGE


def command(mini_game_file: Path, out: Path) -> list[str]:
    return ["run", "--agent", "random", "--seed", "3", "--games", str(mini_game_file),
            "--max-steps", "30", "--patience", "1000", "--concurrency", "2", "--quiet",
            "--out", str(out)]


def steps_of(folder: Path) -> dict[str, list[dict]]:
    out = {}
    for episode in sorted((folder / "episodes").iterdir()):
        lines = (episode / "steps.jsonl").read_text(encoding="utf-8").splitlines()
        out[episode.name] = [
            {k: v for k, v in json.loads(line).items() if k != "wall_s"} for line in lines
        ]
    return out


def leftovers(folder: Path) -> list[Path]:
    """Files a later resume would have to clean: error.txt, empty or temporary files (the
    folder's empty .lock is every run's)."""
    return [
        p for p in folder.rglob("*")
        if p.is_file() and p.name != ".lock"
        and (p.name == "error.txt" or p.suffix == ".tmp" or p.stat().st_size == 0)
    ]


def disk_full_after(writes: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write into a step log or journal after the first ``writes`` fails as on a full
    disk (ENOSPC from os.write, which names no file)."""
    real = records._write_all
    count = {"n": 0}

    def write_all(fd: int, data: bytes) -> None:
        count["n"] += 1
        if count["n"] > writes:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    monkeypatch.setattr(records, "_write_all", write_all)


def permission_lost_for_results(monkeypatch: pytest.MonkeyPatch) -> None:
    """Renaming a finished episode's result.json into place fails with EACCES."""
    real = os.replace

    def replace(src, dst, *args, **kwargs):  # noqa: ANN001, ANN202
        if Path(dst).name == "result.json":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(src))
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)


@pytest.mark.parametrize("fault", ["disk full", "permission lost"])
def test_a_storage_fault_during_play_is_exit_4_naming_the_file_and_resumes(
    fault: str, tmp_path: Path, mini_game_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    faulty, clean = tmp_path / "faulty", tmp_path / "clean"
    with pytest.MonkeyPatch.context() as patch:
        if fault == "disk full":
            disk_full_after(25, patch)
            named, problem = ("steps.jsonl", "checkpoint.jsonl"), "No space left on device"
        else:
            permission_lost_for_results(patch)
            named, problem = ("result.json",), "Permission denied"
        code = cli_main(command(mini_game_file, faulty))
    err = capsys.readouterr().err
    assert code == EXIT_STORAGE, err
    assert "Traceback" not in err
    (line,) = [x for x in err.splitlines() if x.startswith("escapebench run:")]
    assert problem in line and any(name in line for name in named), line
    assert str(faulty) in line  # the whole path of the file
    assert "failed" not in err  # no episode was blamed for the disk
    assert leftovers(faulty) == []
    finished_before = len(list(faulty.glob("episodes/*/result.json")))
    assert finished_before < 3, "every episode finished: the fault hit nothing"

    assert cli_main(command(mini_game_file, faulty)) == 0
    assert cli_main(command(mini_game_file, clean)) == 0
    capsys.readouterr()
    assert steps_of(faulty) == steps_of(clean)
    assert leftovers(faulty) == []


def test_run_help_lists_exit_4() -> None:
    from escapebench.bench.command_run import EPILOG

    assert f"  {EXIT_STORAGE}  the result folder could not be written after play started" in EPILOG
