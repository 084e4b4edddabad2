"""``escapebench run``: benchmark an agent on a set of games.

Without options it plays the explorer agent (no model needed) on every built-in game in all
three difficulties. Re-running the same command resumes into the same folder.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import threading
from pathlib import Path

from escapebench.bench.costs import add_price_arguments, prices_from_args
from escapebench.bench.episode import DEFAULT_MAX_STEPS
from escapebench.bench.hints import DEFAULT_HELP_STEPS, DEFAULT_PATIENCE
from escapebench.bench.result_tables import format_usage, print_table
from escapebench.bench.settings import (
    BUILTIN_AGENTS,
    DEFAULT_MEMORY,
    RunConfigError,
    RunSettings,
    default_cache_path,
    parse_shard,
)
from escapebench.bench.suite import RunOutcome, run_suite
from escapebench.engine.model import DIFFICULTIES
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
    a = parser.add_argument_group("agent and model")
    a.add_argument(
        "--agent", default="explorer", metavar="NAME",
        help=f"one of {', '.join(BUILTIN_AGENTS)}, or a Python factory module:function",
    )
    a.add_argument("--no-reflection", action="store_true",
                   help="EscapeAgent without its Reflection module")
    a.add_argument("--no-foresight", action="store_true",
                   help="EscapeAgent without its Foresight module")
    a.add_argument("--model", default=None,
                   help="served model name (with --base-url), 'local' (bundled SmolLM2) or "
                   "gguf:PATH; required for base and escape")
    a.add_argument("--base-url", action="append", default=[], metavar="URL",
                   help="OpenAI-compatible server (.../v1); repeat for replicas of one model")
    a.add_argument("--api-key-env", default=None, metavar="VAR",
                   help="environment variable holding the API key (default OPENAI_API_KEY)")
    a.add_argument("--memory", type=int, default=DEFAULT_MEMORY,
                   help="steps of working memory in each prompt")
    a.add_argument("--temperature", type=float, default=0.0,
                   help="sampling temperature; 0 is greedy, as in the paper")
    a.add_argument("--max-tokens", type=int, default=1024, help="answer length limit")
    a.add_argument("--seed", type=int, default=None,
                   help="sampling seed (repeat r uses seed + r); random agent seed")
    a.add_argument("--action-format", choices=("text", "tools"), default="text",
                   help="how the model acts: 'text' writes the action in its answer (the "
                   "paper's protocol), 'tools' calls one of five functions (native tool "
                   "calling; a separate result label, never ranked with text)")
    a.add_argument("--timeout", type=float, default=120.0, help="seconds per model request")
    a.add_argument("--max-retries", type=int, default=6,
                   help="retries of a failed model request before the run stops")
    g = parser.add_argument_group("games and episodes")
    g.add_argument("--games", action="append", default=None, metavar="SPEC",
                   help="built-in game or setting name, 'builtin', a game file, a folder in the "
                   "original layout, a glob or a gen: spec; repeatable or comma-separated "
                   "(default: builtin)")
    g.add_argument("--difficulty", action="append", default=None, choices=DIFFICULTIES,
                   help="only these difficulties; repeatable (default: all three)")
    g.add_argument("--repeats", type=int, default=1, help="episodes per setting")
    g.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS,
                   help="an episode not escaped by then ends unescaped")
    g.add_argument("--patience", type=int, default=DEFAULT_PATIENCE,
                   help="steps without progress before a hint")
    g.add_argument("--help-steps", type=int, default=DEFAULT_HELP_STEPS,
                   help="steps in help before the hinted action is played for the agent")
    g.add_argument("--protocol", default=None, choices=("original", "escapebench"),
                   help="what the model reads: the original harness's texts (read from the "
                   "original checkout) or ours (default: original for games of an original "
                   "checkout, escapebench otherwise)")
    g.add_argument("--original-source", type=Path, default=None, metavar="DIR",
                   help="the original EscapeBench checkout (or its src folder) for "
                   "--protocol original (default: found from the games folder CHECKOUT/data)")
    g.add_argument("--skip-unplayable", action="store_true",
                   help="play the settings that can be played and skip the others (files that "
                   "do not load, settings with check errors), recorded in run.json; without "
                   "it, such a setting stops the run before it starts")
    g.add_argument("--shard", default=None, metavar="I/N",
                   help="play only the I-th of N deterministic slices of the episodes")
    r = parser.add_argument_group("running")
    r.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="result folder (default: runs/<agent>__<model>__<settings hash>)")
    r.add_argument("--concurrency", type=int, default=4,
                   help="episodes played at once (also the bound on in-flight model requests)")
    r.add_argument("--cache", type=Path, default=None, metavar="PATH",
                   help=f"response cache file (default: {default_cache_path()})")
    r.add_argument("--no-cache", action="store_true", help="do not cache model answers")
    r.add_argument("--allow-server-change", action="store_true",
                   help="resume a run against another server than it started with (recorded "
                   "in run.json); refused without it")
    r.add_argument("--no-fsync", action="store_true",
                   help="flush step logs without fsync (still safe against kill -9, not "
                   "against power loss)")
    r.add_argument("--quiet", action="store_true", help="no live progress, only the table")
    add_price_arguments(parser.add_argument_group(
        "cost (USD per million tokens; no prices are built in, recorded in run.json)"))


def settings_from_args(args: argparse.Namespace) -> RunSettings:
    """The run settings an ``escapebench run`` command line asks for."""
    from escapebench.catalog import split_specs

    return RunSettings(
        agent=args.agent,
        no_reflection=args.no_reflection,
        no_foresight=args.no_foresight,
        model=args.model,
        base_urls=list(args.base_url),
        api_key_env=args.api_key_env,
        games=split_specs(args.games or ["builtin"]),
        difficulties=list(args.difficulty) if args.difficulty else None,
        out=args.out,
        concurrency=args.concurrency,
        max_steps=args.max_steps,
        repeats=args.repeats,
        patience=args.patience,
        help_steps=args.help_steps,
        memory=args.memory,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        seed=args.seed,
        action_format=args.action_format,
        shard=parse_shard(args.shard) if args.shard else None,
        cache=args.cache,
        no_cache=args.no_cache,
        allow_server_change=args.allow_server_change,
        timeout=args.timeout,
        max_retries=args.max_retries,
        fsync=not args.no_fsync,
        quiet=args.quiet,
        skip_unplayable=args.skip_unplayable,
        command_line=["escapebench", *sys.argv[1:]],
        protocol=args.protocol,
        original_source=args.original_source,
        prices=prices_from_args(args),
    )


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
    return outcome.exit_code
