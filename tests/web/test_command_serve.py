"""`escapebench serve` refuses an address it cannot listen on with one clear line."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from escapebench.cli import main
from escapebench.web.command_serve import is_loopback


def test_a_port_in_use_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", "--data", str(tmp_path / "data"), "--port", str(port)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"port {port} on 127.0.0.1 is in use" in err and "--port" in err
    assert "ERROR" not in err and "Traceback" not in err  # no uvicorn log line, no trace


def test_an_unknown_host_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = main(["serve", "--data", str(tmp_path / "data"), "--host", "no-such-host.invalid"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--host no-such-host.invalid is not an address of this machine" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("localhost", True), ("::1", True), ("[::1]", True),
     ("127.0.0.2", True), ("0.0.0.0", False), ("192.168.1.5", False), ("example.org", False)],
)
def test_only_non_loopback_hosts_get_the_exposure_warning(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
