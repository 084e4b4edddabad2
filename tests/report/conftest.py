"""Fixtures of the report tests: result folders made by the real harness with scripted models
(:mod:`tests.support.report_runs`)."""

from tests.support.report_runs import harness_runs, runs_copy  # noqa: F401 (fixtures)
