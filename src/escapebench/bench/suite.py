"""Run a suite of episodes concurrently into a result folder, resumably.

:func:`run_suite` plans a run (:func:`~escapebench.bench.plan.plan_run`) and plays its episodes
with ``concurrency`` episodes at once on one asyncio loop, writing the shared result-folder
layout (:mod:`escapebench.bench.folders`)::

    RUN_DIR/run.json, results.csv, summary.csv, summary.md
    RUN_DIR/episodes/<episode_id>/steps.jsonl, result.json (checkpoint.jsonl while unfinished)

Running the same settings into the same folder again resumes: finished episodes (those with a
``result.json``) are skipped and unfinished ones continue from their step log. A folder whose
``run.json`` records different result-affecting settings is refused
(:class:`~escapebench.bench.settings.RunConfigError`). A model server that stays down
(:class:`~escapebench.llm.base.ModelUnavailableError`) stops the run; every finished step stays
on disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from escapebench.bench.build import (
    build_model,
    make_episode_agent,
    played_agent_name,
    server_identity,
)
from escapebench.bench.costs import Prices
from escapebench.bench.display import LiveDisplay
from escapebench.bench.episode import Episode, EpisodeSpec
from escapebench.bench.folders import (
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
from escapebench.bench.metrics import atomic_write_text
from escapebench.bench.plan import RunPlan, compatible, normalized, plan_run
from escapebench.bench.records import EPISODES_DIR, ERROR_FILE, RESULT_FILE
from escapebench.bench.settings import NO_MODEL, RunConfigError, RunSettings
from escapebench.bench.summaries import Summary
from escapebench.exit_codes import (
    EXIT_EPISODE_ERRORS,
    EXIT_MODEL_UNAVAILABLE,
    EXIT_OK,
    EXIT_STORAGE,
)
from escapebench.llm.base import ChatModel, ModelUnavailableError, ServerNotReachedError
from escapebench.llm.cache import ResponseCacheError


class InterruptedBeforePlay(KeyboardInterrupt):
    """Ctrl-C while the run was still being planned (its games loaded or generated): no
    episode had started and nothing was written."""


@dataclass
class RunOutcome:
    """What a run did."""

    out: Path
    planned: int
    finished: int  # episodes finished in the folder's plan (this run or before)
    played: int  # episodes played (or finished) by this run
    failed: dict[str, str] = field(default_factory=dict)  # episode id -> error
    model_error: str | None = None
    model_not_reached: bool = False  # model_error: the server never answered (a wrong URL)
    storage_error: str | None = None  # "<file>: <problem>" of a write that failed during play
    cache_error: str | None = None  # the response cache went bad during play (one line)
    summaries: list[Summary] = field(default_factory=list)
    wall_s: float = 0.0
    episode_wall_s: dict[str, float] = field(default_factory=dict)
    skipped: list[dict[str, Any]] = field(default_factory=list)  # see RunPlan.skipped
    prices: Prices | None = None  # the prices of the cost columns (given, or from run.json)

    @property
    def exit_code(self) -> int:
        if self.storage_error or self.cache_error:
            return EXIT_STORAGE
        if self.model_error:
            return EXIT_MODEL_UNAVAILABLE
        return EXIT_EPISODE_ERRORS if self.failed else EXIT_OK


async def run_suite(
    settings: RunSettings,
    *,
    model: ChatModel | None = None,
    stream: IO[str] | None = None,
    live: bool | None = None,
) -> RunOutcome:
    """Plan and play a run; return its outcome (the result files are written).

    ``model`` overrides the one ``settings`` would build (tests and benchmarks pass their
    own). ``stream`` receives the live display (default: stderr); ``live`` forces the
    redrawing display on or off (default: when ``stream`` is a terminal).
    """
    stream = stream if stream is not None else sys.stderr
    started = time.perf_counter()
    settings.validate()
    _played, note = played_agent_name(settings)  # (refuses an agent of another protocol)
    if note is not None and not settings.quiet:
        print(f"note: {note}", file=stream)
    if model is None and settings.needs_model:
        model = build_model(settings)
    model_name = model.name if model is not None else NO_MODEL
    sample_agent = make_episode_agent(settings, model, 0)
    agent_settings = normalized(sample_agent.settings())
    try:
        # The agent's own name labels its results ("escape-no-foresight" for that ablation).
        plan = plan_run(settings, model_name, agent_settings, sample_agent.name)
    except KeyboardInterrupt:  # while making the games of a gen: spec: nothing was played
        raise InterruptedBeforePlay from None
    if read_run_json(plan.out) is None:
        refuse_foreign_folder(plan.out)  # before the lock file is made in it
    with folder_lock(plan.out):
        return await _run_plan(plan, model, started, stream, live)


async def _run_plan(
    plan: RunPlan,
    model: ChatModel | None,
    started: float,
    stream: IO[str],
    live: bool | None,
) -> RunOutcome:
    settings = plan.settings
    existing = read_run_json(plan.out)
    server = server_identity(model)
    if existing is not None:
        problems = compatible(existing, plan.fingerprint, plan.games)
        if problems:
            raise RunConfigError(
                f"{plan.out} holds results of different settings; use another --out, or the "
                "original settings to resume:\n  " + "\n  ".join(problems)
            )
        check_server_change(existing, server, plan.out, allow=settings.allow_server_change)
    # The tables are rebuilt from every result at the end: a damaged one stops the run now,
    # before anything is played or written, and not after hours of play.
    collect_results(plan.out)
    model_record = None
    if model is not None:
        from escapebench.llm.factory import model_settings_record

        model_record = model_settings_record(model)
    write_run_json(plan, model_record, existing, finished=False, server=server)

    outcome = RunOutcome(plan.out, planned=len(plan.specs), finished=0, played=0,
                         skipped=list(plan.skipped))
    todo = [s for s in plan.specs if not (plan.out / EPISODES_DIR / s.episode_id / RESULT_FILE)
            .exists()]
    outcome.finished = len(plan.specs) - len(todo)
    display = LiveDisplay(
        total=len(plan.specs), already_done=outcome.finished, stream=stream,
        live=live, quiet=settings.quiet, prices=settings.prices,
    )
    queue: asyncio.Queue[EpisodeSpec] = asyncio.Queue()
    for spec in todo:
        queue.put_nowait(spec)
    stop = asyncio.Event()

    async def worker() -> None:
        while not stop.is_set():
            try:
                spec = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            folder = plan.out / EPISODES_DIR / spec.episode_id
            display.started(spec)
            t0 = time.perf_counter()
            try:
                agent = make_episode_agent(settings, model, spec.repeat)
                episode = Episode(
                    spec, agent, folder, effects=plan.effects[spec.defn.setting],
                    protocol=plan.protocol,
                    on_step=display.update, fsync=settings.fsync,
                )
                result = await episode.run()
            except ResponseCacheError as exc:  # every episode would fail the same way
                outcome.cache_error = outcome.cache_error or str(exc)
                display.stopped(spec, "the response cache cannot be used")
                stop.set()
                return
            except ModelUnavailableError as exc:
                outcome.model_error = str(exc)
                if isinstance(exc, ServerNotReachedError):
                    # Nothing was played: the run ends with one line saying why.
                    outcome.model_not_reached = True
                else:
                    display.stopped(spec, "model unavailable")
                stop.set()
                return
            except asyncio.CancelledError:
                if not outcome.model_not_reached:
                    display.stopped(spec, "stopped")
                raise
            except Exception as exc:  # an agent or log problem: this episode only
                if is_storage_fault(exc, plan.out):  # the disk, not the episode: all stop
                    outcome.storage_error = outcome.storage_error or storage_problem(exc)
                    display.stopped(spec, "cannot write its results")
                    stop.set()
                    return
                message = f"{type(exc).__name__}: {exc}"
                try:
                    folder.mkdir(parents=True, exist_ok=True)
                    atomic_write_text(folder / ERROR_FILE, traceback.format_exc())
                except OSError as write_error:  # never a half-written error.txt
                    outcome.storage_error = outcome.storage_error or storage_problem(write_error)
                    display.stopped(spec, "cannot write its results")
                    stop.set()
                    return
                outcome.failed[spec.episode_id] = message
                display.stopped(spec, message)
                continue
            with contextlib.suppress(OSError):  # an error of an earlier try, now resumed
                (folder / ERROR_FILE).unlink(missing_ok=True)
            outcome.played += 1
            outcome.finished += 1
            outcome.episode_wall_s[spec.episode_id] = time.perf_counter() - t0
            display.finished(spec, result)

    tasks = [asyncio.create_task(worker()) for _ in range(min(settings.concurrency, len(todo)))]
    all_done = asyncio.gather(*tasks) if tasks else None
    try:
        if all_done is not None:
            stop_wait = asyncio.create_task(stop.wait())
            try:
                await asyncio.wait({stop_wait, all_done}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stop_wait.cancel()
            if stop.is_set():
                # The model is gone (or the disk is full): stop the other episodes where they
                # are. Their current step was not logged yet, so resuming plays it again from
                # the same state.
                for t in tasks:
                    t.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await all_done
    finally:
        if all_done is not None and not all_done.done():
            # Interrupted (Ctrl-C cancels this task): stop every episode at a step boundary
            # and wait for it, so that each log ends with a whole step and no task is left
            # running (or with an error nobody reads) when the loop closes.
            for t in tasks:
                t.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await all_done
        display.close()
        aclose = getattr(getattr(model, "inner", model), "aclose", None)
        if callable(aclose):
            with contextlib.suppress(Exception):
                await aclose()
        try:
            results = collect_results(plan.out)
            outcome.prices = plan.settings.prices or Prices.from_record(
                (read_run_json(plan.out) or {}).get("prices"))
            outcome.summaries = write_tables(plan.out, results, outcome.prices)
            complete = outcome.finished == outcome.planned
            write_run_json(plan, model_record, read_run_json(plan.out), finished=complete,
                           server=server)
        except OSError as exc:  # the tables are rebuilt from the results by the next run
            outcome.storage_error = outcome.storage_error or storage_problem(exc)
        outcome.wall_s = time.perf_counter() - started
    return outcome
