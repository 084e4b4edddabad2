"""Agent memory as plain data, fast: snapshots are taken at every step of every episode."""

from __future__ import annotations

from typing import Any


def as_plain(obj: Any) -> dict[str, Any]:
    """A dataclass of flat fields (text, numbers, None, lists of those) as a new dict.

    ``dataclasses.asdict`` deep-copies recursively and was most of an episode's run time; the
    agents' records are flat, so copying their lists is enough.
    """
    out: dict[str, Any] = {}
    for name in obj.__dataclass_fields__:
        value = getattr(obj, name)
        out[name] = list(value) if isinstance(value, (list, tuple)) else value
    return out
