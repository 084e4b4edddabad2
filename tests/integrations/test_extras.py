"""The clash of the 'inspect' and 'verifiers' extras is said in one line (openai 2.x, which
verifiers 0.4.0 needs, under Inspect, which needs openai>=3.4)."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from escapebench.integrations import extras

ROOT = Path(__file__).resolve().parents[2]


def installed(versions: dict[str, str | None]):
    return lambda name: versions.get(name)


@pytest.mark.parametrize(
    ("openai", "inspect", "verifiers", "clash"),
    [
        ("2.8.1", "0.3.210", "0.4.0", True),
        ("3.57.0", "0.3.210", "0.4.0", False),  # verifiers broken, but Inspect is fine
        ("2.8.1", None, "0.4.0", False),  # verifiers alone
        ("3.4.0", "0.3.210", None, False),  # Inspect alone
    ],
)
def test_the_clash_is_one_line_only_when_both_are_there(monkeypatch, capsys, openai, inspect,
                                                        verifiers, clash) -> None:
    monkeypatch.setattr(extras, "_installed", installed(
        {"openai": openai, "inspect-ai": inspect, "verifiers": verifiers}))
    monkeypatch.setattr(extras, "_warned", False)
    extras.warn_openai_clash()
    extras.warn_openai_clash()
    err = capsys.readouterr().err
    if clash:
        assert err.count("\n") == 1
        assert "openai 2.8.1" in err and "needs openai>=3.4" in err
        assert "separate environments" in err
    else:
        assert err == ""


def test_pip_refuses_the_pair_at_install() -> None:
    """The extras declare both pins, so `pip install '.[inspect,verifiers]'` cannot resolve."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extra = project["optional-dependencies"]
    assert "openai>=3.4" in extra["inspect"] and "verifiers==0.4.0" in extra["verifiers"]
