"""escapebench.web: the HTTP server of ``escapebench serve``.

One Starlette app serves the report of result folders (built by :mod:`escapebench.report`) and
the browser play page with its JSON API (games and sessions of :mod:`escapebench.play`).

* :mod:`.server`: :func:`create_app` for a :class:`ServeConfig`, the routes, the request checks
  and :func:`header_timeout_protocol` (slow request heads are cut off);
* :mod:`.command_serve`: ``escapebench serve``;
* ``templates/`` (the home and play pages) and ``static/`` (``play.js``); the styles and the
  shared ``dom.js`` are the report's.

The names below are imported when first used: the server loads Starlette, and the report
Jinja2 and matplotlib.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "ServeConfig": "escapebench.web.server",
    "create_app": "escapebench.web.server",
    "header_timeout_protocol": "escapebench.web.server",
}

__all__ = ["ServeConfig", "create_app", "header_timeout_protocol"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
