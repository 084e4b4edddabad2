"""The one error of human play: :class:`PlayError`."""

from __future__ import annotations


class PlayError(ValueError):
    """A command that cannot be played, or a save that cannot be loaded; the message says why."""
