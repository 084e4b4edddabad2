"""The old home of the run's settings, plan, folders and worker loop, kept only for
``escapebench.agents.human`` until human play moves to ``escapebench.play`` (issue 16); it
imports what it used from here. New code imports from :mod:`escapebench.bench` (or its
:mod:`.settings`, :mod:`.plan`, :mod:`.folders`, :mod:`.suite` modules). Delete this module
once nothing imports it.
"""

from escapebench.bench.folders import (
    collect_results,
    folder_lock,
    read_run_json,
    write_run_json,
    write_tables,
)
from escapebench.bench.plan import (
    RunPlan,
    compatible,
    episode_id,
    game_record,
    protocol_record,
    run_fingerprint,
)
from escapebench.bench.settings import RunConfigError, RunSettings

__all__ = [
    "RunConfigError",
    "RunPlan",
    "RunSettings",
    "collect_results",
    "compatible",
    "episode_id",
    "folder_lock",
    "game_record",
    "protocol_record",
    "read_run_json",
    "run_fingerprint",
    "write_run_json",
    "write_tables",
]
