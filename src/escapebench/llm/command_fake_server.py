"""``escapebench fake-server``: the deterministic offline model of :mod:`.fake_server`."""

from __future__ import annotations

import argparse
import sys

from escapebench.exit_codes import EXIT_INTERRUPTED, EXIT_USAGE
from escapebench.llm.fake_server import DEFAULT_MODEL, DEFAULT_PORT, FakeModelServer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``fake-server``."""
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, this machine only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port (default: {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--model-name", default=DEFAULT_MODEL,
                        help=f"the model id /v1/models lists (default: {DEFAULT_MODEL})")


def main(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C."""
    server = FakeModelServer(args.host, args.port, args.model_name)
    try:
        server.start()
    except OSError as exc:
        print(f"escapebench fake-server: cannot listen on {args.host}:{args.port}: "
              f"{exc.strerror or exc}; pick another --port", file=sys.stderr)
        return EXIT_USAGE
    print(f"fake model {args.model_name!r} serving at {server.base_url} (Ctrl-C stops it); "
          f"try: escapebench run --agent base --model {args.model_name} "
          f"--base-url {server.base_url} --games tutorial", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return 0
