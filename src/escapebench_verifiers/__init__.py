"""The verifiers taskset id ``escapebench-verifiers`` (``vf-eval escapebench-verifiers``).

verifiers imports a taskset by its id as a top-level module; this one re-exports
:mod:`escapebench.integrations.verifiers` (optional extra ``verifiers``).
"""

from escapebench.integrations.verifiers import (
    EscapeBenchData,
    EscapeBenchEnv,
    EscapeBenchEnvConfig,
    EscapeBenchHarness,
    EscapeBenchTask,
    EscapeBenchTaskset,
    EscapeBenchTasksetConfig,
    load_environment,
)

__all__ = [
    "EscapeBenchData",
    "EscapeBenchEnv",
    "EscapeBenchEnvConfig",
    "EscapeBenchHarness",
    "EscapeBenchTask",
    "EscapeBenchTaskset",
    "EscapeBenchTasksetConfig",
    "load_environment",
]
