"""``escapebench run``: benchmark an agent on a set of games.

Without options it plays the explorer agent (no model needed) on every built-in game in all
three difficulties. Re-running the same command resumes into the same folder.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import signal
import sys
import threading

from escapebench.bench.costs import add_price_arguments, prices_from_args
from escapebench.bench.result_tables import format_usage, print_table
from escapebench.bench.settings import RunConfigError, RunSettings, add_run_options, settings_from
from escapebench.bench.suite import InterruptedBeforePlay, RunOutcome, run_suite
from escapebench.exit_codes import (
    EXIT_INTERRUPTED,
    EXIT_MODEL_UNAVAILABLE,
    EXIT_STORAGE,
    EXIT_USAGE,
)

EPILOG = f"""\
exit status:
  0  every planned episode finished
  1  some episodes failed (an agent or log error; see their error.txt); the others finished
  {EXIT_USAGE}  a user error: a bad option, a game file with errors, a result folder of other
     settings or one that cannot be created; nothing was played
  {EXIT_MODEL_UNAVAILABLE}  the model is unavailable: a server that stays down, or a local model
     file that is missing or cannot be loaded; finished steps are kept, re-run to resume
  {EXIT_STORAGE}  the result folder could not be written after play started (disk full,
     permission lost; the file is named); finished steps are kept, re-run to resume
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C or kill); finished steps are kept, re-run to resume"""


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Shows an option's default once, and only when there is one worth showing.

    argparse's ``ArgumentDefaultsHelpFormatter`` appends "(default: ...)" to every option,
    also after a help text that already names its default and for None and flags.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (
            "default" in text
            or action.default is None
            or action.default is False  # a flag; `in` would also match a default of 0
            or action.default == []
            or action.default == argparse.SUPPRESS
            or not action.option_strings
        ):
            return text
        return f"{text} (default: %(default)s)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``escapebench run``."""
    parser.formatter_class = _HelpFormatter
    parser.epilog = EPILOG
    add_run_options(parser)  # from the fields of RunSettings, with their help
    add_price_arguments(parser.add_argument_group(
        "cost (USD per million tokens; no prices are built in, recorded in run.json)"))


def settings_from_args(args: argparse.Namespace) -> RunSettings:
    """The run settings an ``escapebench run`` command line asks for."""
    return settings_from(args, command_line=["escapebench", *sys.argv[1:]],
                         prices=prices_from_args(args))


def _play_until_stopped(settings: RunSettings) -> RunOutcome:
    """``asyncio.run(run_suite(settings))``, where ``kill`` (SIGTERM, what process managers
    and CI runners send) stops the run as Ctrl-C does: every episode at a step boundary, the
    tables written, then :class:`KeyboardInterrupt`. A second kill stops at once.

    The kill cancels the run's task itself, as asyncio does for Ctrl-C, rather than being
    turned into a SIGINT: a run started in the background by a shell script ignores SIGINT,
    and the kill was swallowed (the run played on to its end).
    """
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(run_suite(settings))  # signal handlers only in the main thread
    killed = False

    async def play() -> RunOutcome:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def on_kill(signum: int, frame: object) -> None:
            nonlocal killed
            if killed:
                raise KeyboardInterrupt  # the second kill: stop now
            killed = True
            loop.call_soon_threadsafe(task.cancel)

        previous = signal.signal(signal.SIGTERM, on_kill)
        try:
            return await run_suite(settings)
        finally:
            signal.signal(signal.SIGTERM, previous)

    try:
        outcome = asyncio.run(play())
    except asyncio.CancelledError:
        if killed:
            raise KeyboardInterrupt from None
        raise
    if killed:
        raise KeyboardInterrupt
    return outcome


def main(args: argparse.Namespace) -> int:
    """Run the suite, print the table; user errors are messages, not tracebacks."""
    from escapebench.games.loading import GameFileError
    from escapebench.llm.base import ModelUnavailableError

    try:
        settings = settings_from_args(args)
        outcome = _play_until_stopped(settings)
    except (RunConfigError, GameFileError) as exc:
        print(f"escapebench run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except InterruptedBeforePlay:
        print("escapebench run: interrupted before any episode started; nothing was played "
              "or written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        # The episodes stopped at a step boundary and the tables were written (run_suite).
        print("escapebench run: interrupted; finished steps are kept: run the same command "
              "again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    except ModelUnavailableError as exc:  # e.g. a local model file that is missing
        print(f"escapebench run: the model is unavailable: {exc}", file=sys.stderr)
        return EXIT_MODEL_UNAVAILABLE
    except OSError as exc:  # a file or folder named on the command line
        where = f" {exc.filename}" if exc.filename else ""
        print(f"escapebench run: cannot use{where}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    if outcome.model_not_reached:
        # A wrong --base-url: one line (the server, the error, what to check), no retries.
        print(f"escapebench run: {outcome.model_error}", file=sys.stderr)
        return outcome.exit_code
    if outcome.summaries:
        print_table(outcome.summaries)
        usage = format_usage(outcome.summaries, settings.prices or outcome.prices)
        if usage:
            print(usage)
    print(f"\nresults: {outcome.out}  ({outcome.finished} of {outcome.planned} episodes "
          f"finished, {outcome.wall_s:.1f}s)", file=sys.stderr)
    if outcome.skipped:
        listed = "\n  ".join(f"{u['setting']}: {u['reason']}" for u in outcome.skipped)
        print(f"skipped {len(outcome.skipped)} unplayable setting(s) (--skip-unplayable; "
              f"recorded in run.json):\n  {listed}", file=sys.stderr)
    for episode_id, message in sorted(outcome.failed.items()):
        print(f"episode {episode_id} failed: {message} (details in its error.txt)",
              file=sys.stderr)
    if outcome.storage_error:
        print(
            f"escapebench run: cannot write {outcome.storage_error}; the run stopped. Finished "
            f"steps are kept; free space (or restore permissions) and run the same command "
            f"again to resume.",
            file=sys.stderr,
        )
    elif outcome.cache_error:
        print(f"escapebench run: {outcome.cache_error}. Finished steps are kept in "
              f"{outcome.out}.", file=sys.stderr)
    elif outcome.model_error:
        from escapebench.llm.factory import runs_in_process

        if "model server (llama_cpp.server" in outcome.model_error:
            # The local model's child process died: its message already says it all.
            print(f"escapebench run: {outcome.model_error}", file=sys.stderr)
            return outcome.exit_code
        what, when = (
            ("model", "it can be loaded") if runs_in_process(args.model or "")
            else ("model server", "the server is back")
        )
        print(
            f"escapebench run: the {what} is unavailable, the run stopped.\n"
            f"  {outcome.model_error}\n"
            f"  Finished steps are kept in {outcome.out}; run the same command again to "
            f"resume once {when}.",
            file=sys.stderr,
        )
    if outcome.finished == outcome.planned and outcome.exit_code == 0:
        print(_next_commands(outcome), file=sys.stderr)
    return outcome.exit_code


def _next_commands(outcome: RunOutcome) -> str:
    """What to try next with a finished run: its report, a comparison with another run."""
    run = shlex.quote(str(outcome.out))
    return (
        f"next: escapebench report {run} --out report/   (tables, figures, trajectory viewer)\n"
        f"      escapebench compare {run} OTHER_RUN   (paired differences to another run)"
    )
