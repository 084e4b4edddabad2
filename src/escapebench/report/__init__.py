"""escapebench.report: tables, figures and the static HTML report of result folders.

* :mod:`.runs`: reading result folders (:func:`load_runs`, :class:`RunFolder`, :class:`Episode`);
* :mod:`.tables`: the paper's tables and leaderboards; :mod:`.figures`: the figures (matplotlib);
* :mod:`.trajectory`: the step-by-step viewer's data; :mod:`.games`: a page per game with its
  dependency graph (drawn by :mod:`escapebench.generate.graph`); :mod:`.site`:
  :func:`build_report`, the folder that works opened from disk (templates and static files
  beside it), written through :mod:`.out_folder` (only a new folder or one a report wrote
  before; a lock; the build moved into place when whole);
* :mod:`.command_report`, :mod:`.command_compare`: ``escapebench report`` and ``compare``.

The server of ``escapebench serve`` is :mod:`escapebench.web`. The names below are imported when
first used: the report loads Jinja2 and matplotlib.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "Episode": "escapebench.report.runs",
    "GamePage": "escapebench.report.games",
    "game_pages": "escapebench.report.games",
    "ReportInputError": "escapebench.report.runs",
    "RunFolder": "escapebench.report.runs",
    "all_results": "escapebench.report.runs",
    "episode_key": "escapebench.report.runs",
    "load_runs": "escapebench.report.runs",
    "ReportResult": "escapebench.report.site",
    "build_report": "escapebench.report.site",
    "template_environment": "escapebench.report.site",
    "Table": "escapebench.report.tables",
    "all_tables": "escapebench.report.tables",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
