"""The human result: a finished play written as one episode of a result folder.

The layout is the harness's (``run.json``, ``episodes/<id>/steps.jsonl`` and ``result.json``,
``results.csv`` and summaries), with agent ``"human"`` and model ``"none"``, so that every
person pools into one "human" row of the report's tables. Each play is a new repeat (``r0``,
``r1``, ...), so people never overwrite each other; a folder holding results of other settings
is refused, and a folder in use by a run (its lock) is waited for, then refused.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from escapebench.bench import (
    EPISODES_DIR,
    RESULT_FILE,
    STEPS_FILE,
    EpisodeResult,
    HintPolicy,
    RunConfigError,
    RunPlan,
    RunSettings,
    StepRecord,
    collect_results,
    compatible,
    episode_id,
    folder_lock,
    game_record,
    protocol_record,
    read_run_json,
    run_fingerprint,
    write_result_json,
    write_run_json,
    write_step_log,
    write_tables,
)
from escapebench.engine.model import GameDefinition
from escapebench.play.errors import PlayError
from escapebench.protocols.base import PromptProtocol

HUMAN_AGENT = "human"
HUMAN_MODEL = "none"  # no model plays; all people pool into one "human" row of the tables
LOCK_WAIT_S = 5.0  # how long a result write waits for a result folder in use

# Result folders are written by several browser sessions of one server process at once.
_WRITE_LOCK = threading.Lock()


def human_run_plan(
    defn: GameDefinition, policy: HintPolicy, max_steps: int, protocol: PromptProtocol,
    out_dir: Path,
) -> RunPlan:
    """A one-game run plan describing human play, for ``run.json``."""
    options = policy.options
    settings = RunSettings(
        agent=HUMAN_AGENT,
        games=[defn.source or defn.setting],
        out=out_dir,
        concurrency=1,
        max_steps=max_steps,
        patience=options.patience,
        help_steps=options.help_steps,
        command_line=list(sys.argv),
    )
    # People read the observation, not a prompt, and no model samples anything.
    fingerprint = run_fingerprint(
        agent=HUMAN_AGENT,
        agent_settings={"agent": HUMAN_AGENT},
        model=HUMAN_MODEL,
        hints=options,
        max_steps=max_steps,
        protocol=protocol_record(protocol),
    )
    return RunPlan(
        settings, out_dir, [], {defn.setting: defn},
        {defn.setting: policy.effects}, HUMAN_MODEL, fingerprint,
        [game_record(defn)], protocol,
    )


def check_result_folder(out_dir: Path, plan: RunPlan) -> None:
    """Raise :class:`PlayError` if the human result of ``plan`` could not be written to
    ``out_dir`` (a file in the way, a folder holding results of other settings)."""
    refuse_file_in_path(out_dir)
    try:
        existing = read_run_json(out_dir)
    except ValueError as exc:
        raise PlayError(str(exc)) from None
    if existing is not None:
        problems = compatible(existing, plan.fingerprint, plan.games)
        if problems:
            raise PlayError(
                f"{out_dir} holds results of other settings: " + "; ".join(problems)
            )


def write_human_episode(
    out_dir: Path,
    plan: RunPlan,
    setting: str,
    records: list[StepRecord],
    result_of: Callable[[str, int], EpisodeResult],
) -> Path:
    """Write the steps ``records`` of a finished play of ``setting`` as a new repeat of
    ``out_dir``, with the result ``result_of(episode_id, repeat)``; return the episode folder."""
    refuse_file_in_path(out_dir)
    with _WRITE_LOCK, _folder_locked(out_dir):
        check_result_folder(out_dir, plan)
        existing = read_run_json(out_dir)
        repeat = 0
        while True:
            eid = episode_id(setting, HUMAN_AGENT, HUMAN_MODEL, repeat)
            folder = out_dir / EPISODES_DIR / eid
            try:
                folder.mkdir(parents=True, exist_ok=False)
                break
            except FileExistsError:
                repeat += 1
        write_step_log(folder / STEPS_FILE, records)
        write_result_json(folder / RESULT_FILE, result_of(eid, repeat))
        write_run_json(plan, None, existing, finished=True)
        write_tables(out_dir, collect_results(out_dir))
    return folder


def refuse_file_in_path(out_dir: Path) -> None:
    """Raise :class:`PlayError` if ``out_dir``, or the nearest of its parents that exists, is a
    file: a result folder cannot be made there (found before the person plays)."""
    for folder in (out_dir, *out_dir.parents):  # the nearest one that exists
        if folder.exists():
            if not folder.is_dir():
                raise PlayError(
                    f"{folder} is a file, so {out_dir} cannot be a result folder; "
                    "choose another --out"
                )
            return


@contextlib.contextmanager
def _folder_locked(folder: Path) -> Iterator[None]:
    """The runner's lock on a result folder, waiting up to :data:`LOCK_WAIT_S` if another
    writer holds it (another person's play finishing at the same moment)."""
    wait_s = 0.1
    attempts = max(1, round(LOCK_WAIT_S / wait_s))
    with contextlib.ExitStack() as stack:
        for attempt in range(attempts):
            try:
                stack.enter_context(folder_lock(folder))
                break
            except RunConfigError as exc:
                if attempt == attempts - 1:
                    raise PlayError(str(exc)) from None
                time.sleep(wait_s)
        yield
