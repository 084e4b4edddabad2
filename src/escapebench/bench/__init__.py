"""escapebench.bench: the benchmark harness.

* :mod:`.hints`: the hint system of the paper (:class:`~.hints.HintPolicy`), shared with
  human play;
* :mod:`.metrics`: per-episode metrics (:class:`~.metrics.EpisodeResult`), Table-3
  aggregation and the CSV / Markdown result files;
* :mod:`.episode`: one episode with its crash-safe step log and exact resume;
* :mod:`.runner`: a suite of episodes played concurrently into a result folder;
* :mod:`.display`: the live progress display;
* :mod:`.command_run`, :mod:`.command_merge`: ``escapebench run`` and ``escapebench merge``.

The names human play needs are re-exported below (importing the package loads the harness).
"""

# Re-exported for human play (escapebench.play), which imports them from the package; they
# point at today's modules.
from escapebench.bench.episode import DEFAULT_MAX_STEPS
from escapebench.bench.hints import (
    DEFAULT_HELP_STEPS,
    DEFAULT_PATIENCE,
    HintOptions,
    HintPolicy,
    ReferenceEffect,
)
from escapebench.bench.metrics import EpisodeMetrics, EpisodeResult, write_result_json
from escapebench.bench.records import (
    EPISODES_DIR,
    RESULT_FILE,
    STEPS_FILE,
    step_record,
    write_step_log,
)
from escapebench.bench.runner import (
    RunConfigError,
    RunPlan,
    RunSettings,
    collect_results,
    compatible,
    episode_id,
    folder_lock,
    game_record,
    protocol_record,
    read_run_json,
    run_fingerprint,
    write_run_json,
    write_tables,
)

__all__ = [
    "DEFAULT_HELP_STEPS",
    "DEFAULT_MAX_STEPS",
    "DEFAULT_PATIENCE",
    "EPISODES_DIR",
    "RESULT_FILE",
    "STEPS_FILE",
    "EpisodeMetrics",
    "EpisodeResult",
    "HintOptions",
    "HintPolicy",
    "ReferenceEffect",
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
    "step_record",
    "write_result_json",
    "write_run_json",
    "write_step_log",
    "write_tables",
]
