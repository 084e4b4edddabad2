"""``escapebench serve [RUN_DIR...]``: the report and the browser play page on a local server."""

from __future__ import annotations

import argparse
import errno
import socket
import sys
from pathlib import Path
from typing import Any

from escapebench.exit_codes import EXIT_OK, EXIT_USAGE
from escapebench.serving import is_loopback, run_announced

DEFAULT_DATA_DIR = "human-results"
DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``escapebench serve``."""
    parser.add_argument("run_dirs", nargs="*", metavar="RUN_DIR",
                        help="result folders whose report to serve")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--data", default=DEFAULT_DATA_DIR, metavar="DIR",
                        help="result folder for human games played in the browser "
                        f"(default ./{DEFAULT_DATA_DIR})")
    parser.add_argument("--games", action="append", default=[], metavar="PATH",
                        help="extra game files, folders, globs or gen: specs to offer "
                        "(repeatable or comma-separated)")
    from escapebench.play.browser_sessions import DEFAULT_MAX_SESSIONS

    parser.add_argument("--max-sessions", type=_positive, default=DEFAULT_MAX_SESSIONS,
                        metavar="N",
                        help="browser games kept in memory; past that the oldest idle one is "
                        f"closed, its save kept on disk (default {DEFAULT_MAX_SESSIONS})")
    parser.add_argument("--show-all-sessions", action="store_true",
                        help="list every unfinished game to every browser (by default a "
                        "browser sees the games it started)")
    from escapebench.games import add_protocol_arguments

    add_protocol_arguments(parser)  # (for the --games; built-in games are always ours)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def listen_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host:port`` (None if it can), found by binding a
    socket the way uvicorn will: a clear message instead of uvicorn's log line."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"--host {host} is not an address of this machine ({exc.strerror})"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        try:
            sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (f"port {port} on {host} is in use (another escapebench serve?); "
                        "try another --port (0 picks a free one)")
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def _server_class() -> type:
    import uvicorn

    class Server(uvicorn.Server):  # type: ignore[misc]
        """uvicorn's server, where a second SIGTERM stops at once as a second Ctrl-C does
        (uvicorn forces only on SIGINT: a second kill waited for every open connection)."""

        def handle_exit(self, sig: int, frame: Any) -> None:
            if self.should_exit:
                self.force_exit = True
            super().handle_exit(sig, frame)

    return Server


def main(args: argparse.Namespace) -> int:
    """Start the server; bad folders or game files are clear errors before it starts."""
    import uvicorn

    from escapebench.games import BrokenGamesError, UnplayableGamesError
    from escapebench.games.loading import GameFileError
    from escapebench.play import DataFolderError
    from escapebench.report.runs import ReportInputError, load_runs
    from escapebench.web.server import ServeConfig, create_app, header_timeout_protocol

    run_dirs = [Path(d) for d in args.run_dirs]
    try:
        load_runs(run_dirs)  # fail now, not on the first page view
    except ReportInputError as exc:
        print(f"escapebench serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    data_dir = Path(args.data)
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"escapebench serve: cannot use --data {data_dir}: {exc.strerror or exc}",
              file=sys.stderr)
        return EXIT_USAGE
    if not 0 <= args.port <= 65535:
        print(f"escapebench serve: --port {args.port} is not a port number", file=sys.stderr)
        return EXIT_USAGE
    try:
        app = create_app(ServeConfig(
            run_dirs, data_dir, list(args.games), host=args.host,
            protocol=getattr(args, "protocol", None),
            original_source=getattr(args, "original_source", None),
            max_sessions=args.max_sessions, show_all_sessions=args.show_all_sessions,
        ))
    except (
        GameFileError, BrokenGamesError, UnplayableGamesError, DataFolderError, ValueError
    ) as exc:
        print(f"escapebench serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # Checked last: the folders and games above are the user's to fix first.
    problem = listen_problem(args.host, args.port)
    if problem is not None:
        print(f"escapebench serve: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if not is_loopback(args.host):
        print(f"escapebench serve: listening on {args.host}: anyone who can reach this machine "
              "can read the reports and play (and write human results)", file=sys.stderr)
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning",
                            access_log=False, http=header_timeout_protocol())
    server = _server_class()(config)
    listening = run_announced(
        server, "serve",
        lambda _url: f"report at /report/, play at /play; human results in {data_dir}",
        args.host, args.port,
    )
    if not listening:
        return EXIT_USAGE
    return EXIT_OK
