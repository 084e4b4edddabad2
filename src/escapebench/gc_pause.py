"""``collections_paused``: no cyclic garbage collection inside a block.

A leaf module (it imports nothing of ours), so that the checks of ``games`` and the generator
of ``generate`` share it without one importing the other for it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["collections_paused"]


@contextlib.contextmanager
def collections_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: the checks of a large file (and the build and
    proof of a generated game) make many small objects next to a big composed YAML tree, and
    each automatic collection walks that tree again (about half the time of a 1 MiB file).
    Reference counting still frees what is dropped; what is cyclic waits for the next
    collection after the block."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
