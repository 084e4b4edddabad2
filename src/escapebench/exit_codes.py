"""The exit statuses of ``escapebench`` commands, one place for all verbs.

Scripts and CI jobs branch on these, so they are part of the command-line contract.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_EPISODE_ERRORS = 1
"""``run``: some episode failed (the others finished and are saved)."""
EXIT_NOTHING_TO_COMPARE = 1
"""``compare``: the two runs share no comparable episodes."""
EXIT_PROBLEMS_FOUND = 1
"""``check``, ``games``, ``replay``: a setting has errors, a file does not load, or a trace
does not replay as it was logged."""
EXIT_NOT_SAVED = 1
"""``play``: the game could not be saved (and is lost)."""
EXIT_USAGE = 2
"""Bad arguments or input files: nothing was played."""
EXIT_MODEL_UNAVAILABLE = 3
"""The model server could not be reached or refused the run."""
EXIT_STORAGE = 4
"""The result folder could not be written after play started (disk full...), or the response
cache went bad during play."""
EXIT_INTERRUPTED = 130
"""128 + SIGINT, what a shell reports for a command stopped by Ctrl-C."""
EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE: the reader of the output went away (``escapebench check --json | head``)."""
