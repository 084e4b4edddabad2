"""Options that could only fail later (in every episode, after the run started) are refused up
front: exit 2, one line, nothing created, and never a password or key in the message."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from escapebench.bench.settings import RunConfigError, RunSettings
from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_USAGE

SECRET = "s3cr3t-Pa55"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli_main(["run", *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.err + captured.out


MODEL = ["--agent", "base", "--model", "m", "--games", "tutorial", "--no-cache"]


@pytest.mark.parametrize(
    "url",
    [
        f"http://bob:{SECRET}@127.0.0.1:8000/v1",
        f"http://{SECRET}@127.0.0.1:8000/v1",
        f"https://bob:{SECRET}@example.org/v1",
        f"http://127.0.0.1:8000/v1?api_key={SECRET}",
        f"http://127.0.0.1:8000/v1#{SECRET}",
    ],
    ids=["user and password", "user only", "https", "query", "fragment"],
)
def test_a_base_url_with_credentials_is_refused_without_echoing_them(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, err = run_cli([*MODEL, "--base-url", url, "--out", str(out)], capsys)
    assert code == EXIT_USAGE
    assert err.strip().count("\n") == 0, err
    assert SECRET not in err
    assert "--base-url" in err
    assert not out.exists()


def test_openai_base_url_with_credentials_is_refused_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://u:{SECRET}@127.0.0.1:8000/v1")
    code, err = run_cli([*MODEL, "--out", str(tmp_path / "out")], capsys)
    assert code == EXIT_USAGE and SECRET not in err and "$OPENAI_BASE_URL" in err
    assert "user name or password" in err


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--memory", str(10**30), "--memory must be at most"),
        ("--max-tokens", str(10**30), "--max-tokens must be at most"),
        ("--seed", str(2**70), "--seed must fit a 64-bit integer"),
    ],
)
def test_numbers_that_would_overflow_later_are_refused(
    option: str, value: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, err = run_cli(
        [*MODEL, "--base-url", "http://127.0.0.1:9/v1", option, value, "--out", str(out)],
        capsys,
    )
    assert code == EXIT_USAGE and says in err and err.strip().count("\n") == 0
    assert not out.exists()


def test_an_api_key_no_http_header_can_carry_is_refused_without_showing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOSTILE_KEY", f"{SECRET}\r\nX-Injected: 1")
    code, err = run_cli(
        [*MODEL, "--base-url", "http://127.0.0.1:9/v1", "--api-key-env", "HOSTILE_KEY",
         "--out", str(tmp_path / "out")],
        capsys,
    )
    assert code == EXIT_USAGE and "HOSTILE_KEY" in err and SECRET not in err
    assert err.strip().count("\n") == 0


_JUNK = st.sampled_from(
    ["http://", "https://", "ftp://", "", "u:", "p@", "@", "127.0.0.1", "[::1]", ":80", ":x",
     "/v1", "?", "#", "%40", " ", "\n", "é", "[", "]"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_JUNK, max_size=8).map("".join))
def test_any_base_url_is_usable_or_one_clear_line(url: str) -> None:
    """Property: validate() accepts a URL with a scheme, a host and nothing secret-bearing, or
    raises RunConfigError with one line; nothing else."""
    run = RunSettings(agent="base", model="m", base_urls=[url], no_cache=True)
    try:
        run.validate()
    except RunConfigError as exc:
        assert "\n" not in str(exc).strip()
        return
    from urllib.parse import urlsplit

    parts = urlsplit(url.strip())
    assert parts.scheme in ("http", "https") and parts.hostname
    assert parts.username is None and parts.password is None
    assert not parts.query and not parts.fragment


_SECRET_URLS = st.builds(
    lambda scheme, user, host, path, query, fragment: (
        f"{scheme}{user}{host}{path}{query}{fragment}"
    ),
    st.sampled_from(["http://", "https://", "ftp://", ""]),
    st.sampled_from(["", f"u:{SECRET}@", f"{SECRET}@", f":{SECRET}@", f"{SECRET}:x@"]),
    st.sampled_from(["127.0.0.1", "127.0.0.1:8000", "[::1]:1", "", "h:x"]),
    st.sampled_from(["", "/v1", "/a b"]),
    st.sampled_from(["", f"?key={SECRET}", "?"]),
    st.sampled_from(["", f"#{SECRET}"]),
)


@settings(max_examples=300, deadline=None)
@given(_SECRET_URLS)
def test_a_refused_url_never_shows_its_user_info_query_or_fragment(url: str) -> None:
    run = RunSettings(agent="base", model="m", base_urls=[url], no_cache=True)
    try:
        run.validate()
    except RunConfigError as exc:
        assert SECRET not in str(exc)
        return
    assert SECRET not in url  # accepted: then it held no secret
