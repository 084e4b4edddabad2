"""The single command-line entry point: ``escapebench <verb>``.

Each verb lives in the module of the area it belongs to and exposes two functions,
``add_arguments(parser)`` and ``main(args) -> int``. Modules are imported only when their
verb runs, so ``escapebench check`` does not pay for the HTTP client or matplotlib.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading

from escapebench.exit_codes import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_USAGE

# verb -> (module, one-line help)
VERBS: dict[str, tuple[str, str]] = {
    "run": ("escapebench.bench.command_run", "benchmark an agent on a set of games"),
    "estimate": ("escapebench.bench.command_estimate",
                 "what a run would cost (calls, tokens, USD range), without calling a model"),
    "games": ("escapebench.catalog.command_games", "list built-in and discovered games"),
    "check": ("escapebench.catalog.command_check", "validate game files and their solutions"),
    "generate": ("escapebench.generate.command_generate",
                 "write fresh, proven games of a difficulty tier"),
    "replay": ("escapebench.catalog.command_replay", "replay a JSON Lines trace of actions"),
    "play": ("escapebench.play.command_play", "play a game yourself in the terminal"),
    "merge": ("escapebench.bench.command_merge", "combine result folders of sharded runs"),
    "verify": ("escapebench.bench.command_verify",
               "replay result folders' logs through the engine and check every step and metric"),
    "report": ("escapebench.report.command_report", "write a static HTML report of runs"),
    "serve": ("escapebench.web.command_serve", "serve reports and the browser play page"),
    "compare": ("escapebench.report.command_compare",
                "paired comparison of two runs (A B), or BaseAgent vs EscapeAgent (Table 5)"),
    "openenv": ("escapebench.integrations.command_openenv",
                "serve the games as an OpenEnv environment on 127.0.0.1 (extra openenv)"),
    "fake-server": ("escapebench.llm.command_fake_server",
                    "serve a deterministic offline OpenAI-compatible model on 127.0.0.1"),
}


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """Build the parser; only ``verb``'s module is imported to add its options."""
    return _build_parsers(verb)[0]


def _build_parsers(
    verb: str | None,
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each verb's own parser."""
    from escapebench import __version__

    parser = argparse.ArgumentParser(
        prog="escapebench",
        description="Benchmark language-model agents on room-escape games (EscapeBench). "
        "Without a verb, 'escapebench' is 'escapebench run': the explorer on every built-in game.",
    )
    parser.add_argument("--version", action="version", version=f"escapebench {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    verbs: dict[str, argparse.ArgumentParser] = {}
    for name, (module_name, help_text) in VERBS.items():
        p = verbs[name] = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module_name)
        # Sub-parsers need their options before parsing, so the verb's module is imported
        # only for the verb actually named on the command line.
        if name == verb:
            importlib.import_module(module_name).add_arguments(p)
            if name in _LARGE_VERBS:
                p.add_argument("--allow-large", action="store_true",
                               help="let a gen: spec (or generate --count) ask for more than "
                               "10,000 games")
    return parser, verbs


_TOP_LEVEL_OPTIONS = ("--help", "--version")
# Verbs that take game specs (a gen: spec may ask for many games) or make games.
_LARGE_VERBS = frozenset({"run", "estimate", "games", "check", "replay", "play", "serve",
                          "generate"})


def _with_verb(argv: list[str]) -> list[str]:
    """``argv`` with ``run`` in front when it names no verb: ``escapebench`` alone and
    ``escapebench --agent base ...`` (options only) are ``escapebench run ...``, as the help
    says. ``-h``, ``--help`` and ``--version`` (or a prefix argparse accepts) stay top-level."""
    if not argv:
        return ["run"]  # the offline default: explorer on every built-in game
    first = argv[0].partition("=")[0]
    if first in VERBS or not first.startswith("-") or first == "-h":
        return argv
    if len(first) > 2 and any(o.startswith(first) for o in _TOP_LEVEL_OPTIONS):
        return argv
    return ["run", *argv]


def main(argv: list[str] | None = None) -> int:
    """Run ``escapebench`` with ``argv`` (default: the process arguments).

    Ctrl-C at any moment (while the verb's modules are imported, during the verb, or after
    it, while the process winds down) is one line, "interrupted", and exit status 130.
    """
    entry = argv is None  # the process's own command, not a call from Python code
    try:
        code = _main(argv)
    except KeyboardInterrupt:  # while parsing or importing: no traceback
        print("interrupted", file=sys.stderr)
        code = EXIT_INTERRUPTED
    if entry and threading.current_thread() is threading.main_thread():
        # A Ctrl-C after the verb is done (threads and exit handlers still winding down)
        # would otherwise end the process by the signal (status -2), with a traceback.
        signal.signal(signal.SIGINT, _interrupted_at_exit)
    return code


def _interrupted_at_exit(signum: int, frame: object) -> None:
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    os._exit(EXIT_INTERRUPTED)


def _main(argv: list[str] | None) -> int:
    argv = _with_verb(list(sys.argv[1:] if argv is None else argv))
    parser, verbs = _build_parsers(argv[0] if argv[0] in VERBS else None)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # The verb's own usage and error (argparse would print the top-level usage).
        (verbs.get(args.verb or "") or parser).error(
            f"unrecognized arguments: {' '.join(unknown)}")
    if args.verb is None:
        parser.print_help()
        return EXIT_USAGE
    module = importlib.import_module(args._module)
    if getattr(args, "allow_large", False):
        from escapebench.generate.knobs import allow_large

        allow_large()
    try:
        return int(module.main(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`escapebench check --json | head`): stop quietly, as Unix tools
        # do. Point stdout at /dev/null so the final flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
