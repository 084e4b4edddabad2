"""Browser play on a full disk: the step is refused with a message that says so, the game
stays where its save on disk says, and no temporary file is left (the disk filled as
``tests/bench/test_run_storage_faults.py`` fills it: the write fails with ENOSPC)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from starlette.testclient import TestClient

from escapebench.web.server import ServeConfig, create_app


def fill_the_disk(monkeypatch, data: Path) -> None:
    """Every write of a save in ``data`` fails as on a full disk, after the file is made."""
    real = Path.write_text

    def write_text(self: Path, *args, **kwargs):
        if data in self.parents:
            self.open("w").close()  # the file exists, empty: what a full disk leaves
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)


def test_a_step_on_a_full_disk_is_refused_and_the_game_stays_as_saved(
    tmp_path: Path, monkeypatch
) -> None:
    data = tmp_path / "data"
    app = create_app(ServeConfig([], data))
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        sid = c.post("/api/sessions", json={"setting": "tutorial", "player": "Di"}).json()["id"]
        assert c.post(f"/api/sessions/{sid}/actions", json={"action": "click 1"}).status_code \
            == 200
        saved = (data / "sessions" / f"{sid}.json").read_bytes()
        fill_the_disk(monkeypatch, data)
        r = c.post(f"/api/sessions/{sid}/actions", json={"action": "click 4"})
        assert r.status_code == 507
        assert r.json()["error"].startswith("the disk is full: this step was not saved")
        r = c.post(f"/api/sessions/{sid}/hint", json={})
        assert r.status_code == 507
        assert list((data / "sessions").glob("*.tmp")) == []
        assert (data / "sessions" / f"{sid}.json").read_bytes() == saved
        view = c.get(f"/api/sessions/{sid}").json()
        assert view["step"] == 1 and view["hints_used"] == 0
        monkeypatch.undo()  # space freed: the same step is played and saved
        view = c.post(f"/api/sessions/{sid}/actions", json={"action": "click 4"}).json()
        assert view["step"] == 2
