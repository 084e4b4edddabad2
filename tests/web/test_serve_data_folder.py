"""``escapebench serve --data DIR`` where DIR cannot take human results (a model run's folder):
refused when the server starts, not after a person has played a whole game; and a result that
cannot be written at a game's end does not lose the game's last step."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from escapebench.cli import main as cli_main
from escapebench.play import PlayRequestError, PlayStore
from tests.web.test_serve_api import TUTORIAL_CLICKS


def test_serve_refuses_a_data_folder_of_other_settings(
    harness_runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    shutil.copytree(harness_runs["explorer"], data)
    before = (data / "run.json").read_text()
    code = cli_main(["serve", "--data", str(data), "--port", "0"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert f"escapebench serve: --data {data} holds results of other settings" in err
    assert "agent: 'explorer' in the folder, 'human' now" in err
    assert (data / "run.json").read_text() == before


def test_a_result_that_cannot_be_written_keeps_the_last_step(
    harness_runs: dict[str, Path], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    store = PlayStore(data)
    sid = store.start("tutorial", "ann")["id"]
    for click in TUTORIAL_CLICKS[:-1]:
        store.act(sid, click)
    # Meanwhile the folder was made a model run's folder: the result cannot go there.
    shutil.copy(harness_runs["explorer"] / "run.json", data / "run.json")
    with pytest.raises(PlayRequestError, match="the result cannot be saved"):
        store.act(sid, TUTORIAL_CLICKS[-1])
    saved = json.loads((data / "sessions" / f"{sid}.json").read_text())
    assert saved["save"]["step"] == len(TUTORIAL_CLICKS) and saved["save"]["ended"]
