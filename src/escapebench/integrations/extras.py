"""What the optional extras need of each other: the one known clash, said in one line.

verifiers 0.4.0 pins ``openai<3``, and Inspect's OpenAI-compatible models need
``openai>=3.4`` (the ``inspect`` extra asks for it), so the ``inspect`` and ``verifiers`` extras
cannot share an environment: installed together, pip refuses the pair; installed one after
the other, the second changes openai under the first. :func:`openai_clash` finds that state
from the installed distributions (nothing is imported), and :func:`warn_openai_clash` prints
it once, when either adapter is imported.
"""

from __future__ import annotations

import re
import sys
from importlib.metadata import PackageNotFoundError, version

__all__ = ["INSPECT_OPENAI", "openai_clash", "warn_openai_clash"]

INSPECT_OPENAI = (3, 4)
"""The oldest openai Inspect's OpenAI-compatible providers accept."""
_warned = False


def _installed(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text.split("+")[0])[:3])


def openai_clash() -> str | None:
    """One line saying why this environment cannot run both Inspect and verifiers, or None."""
    openai, inspect = _installed("openai"), _installed("inspect-ai")
    verifiers = _installed("verifiers")
    if openai is None or inspect is None or verifiers is None:
        return None
    if _release(openai) >= INSPECT_OPENAI:
        return None
    return (
        f"escapebench: openai {openai} is installed for verifiers {verifiers} (it needs "
        f"openai<3), but inspect-ai {inspect} needs openai>=3.4 for OpenAI-compatible models: "
        "install the 'inspect' and 'verifiers' extras in separate environments (docs/rl.md)"
    )


def warn_openai_clash() -> None:
    """Print :func:`openai_clash`'s line to stderr, once per process."""
    global _warned
    line = openai_clash()
    if line and not _warned:
        _warned = True
        print(line, file=sys.stderr)
