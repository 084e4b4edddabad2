"""Fixtures of the web server tests: result folders made by the real harness with scripted models
(:mod:`tests.support.report_runs`), and headless Chromium (:mod:`tests.support.browser`)."""

from tests.support.browser import browser, page, shots  # noqa: F401 (fixtures)
from tests.support.report_runs import harness_runs, runs_copy  # noqa: F401 (fixtures)
