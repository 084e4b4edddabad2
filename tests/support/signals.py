"""Children that take Ctrl-C as they would at a terminal.

A test suite started in the background by a script (``bash -c "... &"``, a CI job) inherits
SIGINT ignored, and a child keeps ignoring it across ``exec``: a test that presses Ctrl-C on a
child would then see it ignored, which no person at a terminal sees.
"""

from __future__ import annotations

import signal


def ctrl_c_as_at_a_terminal() -> None:
    """A ``preexec_fn``: SIGINT with its default action in the child."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
