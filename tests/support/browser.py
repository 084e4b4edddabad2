"""Headless Chromium for the browser tests: Debian's chromium driven by Playwright.

Import the fixtures into a test module (``from tests.support.browser import browser, page,
shots``) after skipping it where Playwright or chromium is missing
(:func:`skip_without_browser`). ``ESCAPEBENCH_SCREENSHOTS=1`` sends screenshots to ``docs/``;
otherwise they go to the test's temporary folder.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def skip_without_browser() -> Any:
    """Playwright's sync API, or skip the calling module (no Playwright, no chromium)."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright for Python is missing"
    )
    if not Path(CHROMIUM).exists():
        pytest.skip(f"chromium not installed ({CHROMIUM})", allow_module_level=True)
    return sync_api


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One headless Chromium per test module."""
    sync_api = skip_without_browser()
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser: object) -> Iterator[object]:
    """A fresh 1280x900 page; the test fails on any JavaScript error the page raised."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert not errors, errors  # no JavaScript errors on any page


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: docs/ with ESCAPEBENCH_SCREENSHOTS set, else a temporary folder."""
    if os.environ.get("ESCAPEBENCH_SCREENSHOTS"):
        DOCS.mkdir(exist_ok=True)
        return DOCS
    return tmp_path_factory.mktemp("shots")
