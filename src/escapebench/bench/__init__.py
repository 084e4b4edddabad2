"""escapebench.bench: the benchmark harness.

The harness plays agents on games and writes what they did into a result folder that reports
and human play share. ``escapebench run`` reads as a pipeline, one module per job:

* :mod:`.settings`: what a run can be told (:class:`RunSettings`) and its validation
  (:class:`RunConfigError`, exit status 2);
* :mod:`.plan`: the suite of episodes a run plays, its fingerprint (:func:`run_fingerprint`,
  the ``run.json`` keys that decide results) and :func:`compatible`;
* :mod:`.build`: the run's chat model and each episode's agent;
* :mod:`.suite`: the worker loop (:func:`run_suite`), episodes played concurrently and
  resumably;
* :mod:`.folders`: the result folder on disk: ``run.json``, the tables, the folder lock;
* :mod:`.episode`: one episode with its crash-safe step log and exact resume;
* :mod:`.loop`: the turn loop every player drives (:class:`EscapeEnv`: a :class:`Turn` in, a
  :class:`StepRecord` out; the hint system, step limit, log and metrics as wrappers);
* :mod:`.records`: the step record, the step log and checkpoints, the result-folder file names;
* :mod:`.hints`: the hint system of the paper (:class:`HintPolicy`), shared with human play;
* :mod:`.metrics`: per-episode metrics (:class:`EpisodeResult`) and ``result.json``;
* :mod:`.summaries`: Table-3 aggregation (:func:`aggregate`, the one place numbers are
  averaged), bootstrap intervals and paired comparisons;
* :mod:`.result_tables`: the Table-3 table in text and Markdown, and the CSV / Markdown result
  files;
* :mod:`.display`: the live progress display;
* :mod:`.command_run`, :mod:`.command_merge`: ``escapebench run`` and ``escapebench merge``.

Start reading at :func:`run_suite` for how a run goes, at :class:`~.episode.Episode` for one
episode, and at :mod:`.metrics` and :mod:`.summaries` for the numbers. The names below are the
harness's public API; the command modules are loaded only by the CLI.
"""

from escapebench.bench.build import (
    agent_factory,
    agent_options,
    build_model,
    make_episode_agent,
    sampling_for,
    server_identity,
)
from escapebench.bench.costs import Prices, add_price_arguments, format_cost, prices_from_args
from escapebench.bench.display import LiveDisplay
from escapebench.bench.episode import (
    DEFAULT_MAX_STEPS,
    Episode,
    EpisodeSpec,
    ProgressCallback,
    StepProgress,
    play_episode,
)
from escapebench.bench.folders import (
    LOCK_FILE,
    RESULT_FOLDER_ENTRIES,
    RUN_FORMAT,
    check_server_change,
    collect_results,
    folder_lock,
    is_storage_fault,
    read_run_json,
    refuse_foreign_folder,
    storage_problem,
    write_run_json,
    write_tables,
)
from escapebench.bench.hints import (
    DEFAULT_HELP_STEPS,
    DEFAULT_PATIENCE,
    HintOptions,
    HintPolicy,
    HintUpdate,
    ReferenceEffect,
    reference_effects,
)
from escapebench.bench.loop import (
    AgentNotes,
    CountMetrics,
    EscapeEnv,
    HintSystem,
    KeepRecords,
    LogSteps,
    StepLimit,
    Turn,
    TurnLoop,
    Wrapper,
    episode_loop,
)
from escapebench.bench.metrics import (
    ACCOUNTING_COLUMNS,
    KEY_STEP_VERBS,
    RESULT_COLUMNS,
    RESULT_VERSION,
    EpisodeMetrics,
    EpisodeResult,
    HintRecord,
    ResultFileError,
    atomic_write_text,
    read_result_json,
    write_result_json,
)
from escapebench.bench.plan import (
    FINGERPRINT_DEFAULTS,
    FINGERPRINT_KEYS,
    RunPlan,
    compatible,
    default_out_dir,
    episode_id,
    game_record,
    plan_run,
    prompt_version,
    protocol_for,
    protocol_record,
    refuse_broken_games,
    run_fingerprint,
    slug,
)
from escapebench.bench.records import (
    CHECKPOINT_FILE,
    EPISODES_DIR,
    ERROR_FILE,
    RESULT_FILE,
    RESULTS_FILE,
    RUN_FILE,
    STEPS_FILE,
    SUMMARY_CSV,
    SUMMARY_MD,
    Checkpoint,
    EpisodeLog,
    EpisodeLogError,
    StepHint,
    StepRecord,
    encode_agent_state,
    read_checkpoints,
    read_episode_steps,
    read_step_log,
    read_step_records,
    step_record,
    write_step_log,
)
from escapebench.bench.result_tables import (
    format_markdown,
    format_table,
    format_usage,
    short_count,
    table_cells,
    write_results_csv,
    write_summary_csv,
    write_summary_md,
)
from escapebench.bench.settings import (
    BUILTIN_AGENTS,
    DEFAULT_MEMORY,
    MODEL_AGENTS,
    NO_MODEL,
    RunConfigError,
    RunSettings,
    default_cache_path,
    parse_shard,
    url_problem,
)
from escapebench.bench.suite import RunOutcome, run_suite
from escapebench.bench.summaries import (
    ALL,
    SUMMARY_COLUMNS,
    Coverage,
    PairedDifference,
    Summary,
    aggregate,
    bootstrap_ci,
    coverage_of,
    paired_compare,
    rules_of,
    sign_flip_p_value,
)

__all__ = [
    # costs
    "Prices",
    "add_price_arguments",
    "format_cost",
    "prices_from_args",
    # settings
    "BUILTIN_AGENTS",
    "DEFAULT_MEMORY",
    "MODEL_AGENTS",
    "NO_MODEL",
    "RunConfigError",
    "RunSettings",
    "default_cache_path",
    "parse_shard",
    "url_problem",
    # plan
    "FINGERPRINT_DEFAULTS",
    "FINGERPRINT_KEYS",
    "RunPlan",
    "compatible",
    "default_out_dir",
    "episode_id",
    "game_record",
    "plan_run",
    "prompt_version",
    "protocol_for",
    "protocol_record",
    "refuse_broken_games",
    "run_fingerprint",
    "slug",
    # build
    "agent_factory",
    "agent_options",
    "build_model",
    "make_episode_agent",
    "sampling_for",
    "server_identity",
    # suite
    "RunOutcome",
    "run_suite",
    # folders
    "LOCK_FILE",
    "RESULT_FOLDER_ENTRIES",
    "RUN_FORMAT",
    "check_server_change",
    "collect_results",
    "folder_lock",
    "is_storage_fault",
    "read_run_json",
    "refuse_foreign_folder",
    "storage_problem",
    "write_run_json",
    "write_tables",
    # episode
    "DEFAULT_MAX_STEPS",
    "Episode",
    "EpisodeSpec",
    "ProgressCallback",
    "StepProgress",
    "play_episode",
    # the turn loop
    "AgentNotes",
    "CountMetrics",
    "EscapeEnv",
    "HintSystem",
    "KeepRecords",
    "LogSteps",
    "StepLimit",
    "Turn",
    "TurnLoop",
    "Wrapper",
    "episode_loop",
    # records
    "CHECKPOINT_FILE",
    "EPISODES_DIR",
    "ERROR_FILE",
    "RESULTS_FILE",
    "RESULT_FILE",
    "RUN_FILE",
    "STEPS_FILE",
    "SUMMARY_CSV",
    "SUMMARY_MD",
    "Checkpoint",
    "EpisodeLog",
    "EpisodeLogError",
    "StepHint",
    "StepRecord",
    "encode_agent_state",
    "read_checkpoints",
    "read_episode_steps",
    "read_step_log",
    "read_step_records",
    "step_record",
    "write_step_log",
    # hints
    "DEFAULT_HELP_STEPS",
    "DEFAULT_PATIENCE",
    "HintOptions",
    "HintUpdate",
    "HintPolicy",
    "ReferenceEffect",
    "reference_effects",
    # metrics
    "ACCOUNTING_COLUMNS",
    "KEY_STEP_VERBS",
    "RESULT_COLUMNS",
    "RESULT_VERSION",
    "EpisodeMetrics",
    "EpisodeResult",
    "HintRecord",
    "ResultFileError",
    "atomic_write_text",
    "read_result_json",
    "write_result_json",
    # summaries
    "ALL",
    "SUMMARY_COLUMNS",
    "Coverage",
    "PairedDifference",
    "Summary",
    "aggregate",
    "bootstrap_ci",
    "coverage_of",
    "paired_compare",
    "rules_of",
    "sign_flip_p_value",
    # result tables
    "format_markdown",
    "format_table",
    "format_usage",
    "short_count",
    "table_cells",
    "write_results_csv",
    "write_summary_csv",
    "write_summary_md",
    # display
    "LiveDisplay",
]


def __getattr__(name: str) -> object:
    if name == "HintOutcome":  # the name until 0.2, easily read as a step's outcome
        import warnings

        warnings.warn("escapebench.bench.HintOutcome is now HintUpdate (what a step did to the "
                      "hint system)", DeprecationWarning, stacklevel=2)
        return HintUpdate
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
