"""``escapebench openenv``: serve the games as an OpenEnv environment (extra ``openenv``).

OpenEnv's server (FastAPI: the ``/ws`` WebSocket sessions its clients use, ``/reset``,
``/step``, ``/state``, ``/health``, ``/metadata``, ``/schema``) on 127.0.0.1, answering only
requests whose Host header names this machine. See :mod:`escapebench.integrations.openenv`.
"""

from __future__ import annotations

import argparse
import sys

from escapebench.exit_codes import EXIT_OK, EXIT_USAGE
from escapebench.serving import is_loopback, run_announced

DEFAULT_PORT = 8000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from escapebench.bench.episode import DEFAULT_MAX_STEPS
    from escapebench.bench.hints import HintOptions
    from escapebench.engine.model import DIFFICULTIES
    from escapebench.protocols.options import add_protocol_arguments

    parser.add_argument("--games", action="append", default=[], metavar="SPEC",
                        help="what to serve, as run --games takes it: a built-in game or "
                        "setting, 'builtin', a game file, an original data folder, gen:... "
                        "(repeatable; default tutorial); reset(setting=...) picks one")
    parser.add_argument("--difficulty", action="append", choices=DIFFICULTIES, default=None,
                        help="keep only these versions (repeatable; default all)")
    add_protocol_arguments(parser)
    defaults = HintOptions()
    parser.add_argument("--hints", action="store_true",
                        help="the paper's hint system (off by default, as in the Gym env)")
    parser.add_argument("--patience", type=int, default=defaults.patience,
                        help=f"steps without progress before a hint (default {defaults.patience})")
    parser.add_argument("--help-steps", type=int, default=defaults.help_steps,
                        help="steps in help before the hinted action is played "
                        f"(default {defaults.help_steps})")
    parser.add_argument("--reward", choices=("progress", "sparse"), default="progress",
                        help="+1 per key step and tool collected (default), or +1 on escaping")
    parser.add_argument("--step-cost", type=float, default=0.0,
                        help="taken off every step's reward (default 0)")
    parser.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS,
                        help=f"an episode is done after this many steps (default "
                        f"{DEFAULT_MAX_STEPS})")
    parser.add_argument("--max-sessions", type=int, default=8,
                        help="concurrent WebSocket sessions (each its own game; default 8)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")


def main(args: argparse.Namespace) -> int:
    from escapebench.catalog import load_games
    from escapebench.games.loading import GameFileError
    from escapebench.protocols import OriginalSourceError, make_protocol

    for name in ("patience", "help_steps", "max_steps", "max_sessions"):
        if getattr(args, name) < 1:
            print(f"escapebench openenv: --{name.replace('_', '-')} must be at least 1",
                  file=sys.stderr)
            return EXIT_USAGE
    if not 0 <= args.port <= 65535:
        print(f"escapebench openenv: --port {args.port} is not a port number", file=sys.stderr)
        return EXIT_USAGE
    games = list(args.games or ["tutorial"])
    try:  # the user's input first: OpenEnv takes seconds to import
        if not load_games(games, args.difficulty):
            raise ValueError("no game settings match --games and --difficulty")
        make_protocol(args.protocol, games, args.original_source)
    except (GameFileError, OriginalSourceError, ValueError) as exc:
        print(f"escapebench openenv: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        from escapebench.integrations.openenv import OpenEnvConfig, create_app
    except ImportError as exc:
        print(f"escapebench openenv: {exc}", file=sys.stderr)
        return EXIT_USAGE

    config = OpenEnvConfig(
        games=tuple(games), difficulties=args.difficulty,
        protocol=args.protocol, original_source=args.original_source, hints=args.hints,
        patience=args.patience, help_steps=args.help_steps, reward=args.reward,
        step_cost=args.step_cost, max_steps=args.max_steps, max_sessions=args.max_sessions,
        host=args.host,
    )
    try:
        config = config.loaded()
        app = create_app(config)
    except (GameFileError, OriginalSourceError, ValueError) as exc:
        print(f"escapebench openenv: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not is_loopback(args.host):
        print(f"escapebench openenv: listening on {args.host}: anyone who can reach this "
              "machine can play (any Host header is answered)", file=sys.stderr)
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port,
                                           log_level="warning", access_log=False))
    settings = ", ".join(d.setting for d in config.settings[:6])
    if len(config.settings) > 6:
        settings += f" and {len(config.settings) - 6} more"
    listening = run_announced(
        server, "openenv",
        lambda _url: f"OpenEnv; settings: {settings}; hints {'on' if config.hints else 'off'}",
        args.host, args.port,
    )
    if not listening:
        return EXIT_USAGE
    return EXIT_OK
