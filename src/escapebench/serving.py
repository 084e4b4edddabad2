"""Serving on a network address: which addresses only this machine can reach, which ``Host``
headers a server answers, and running a uvicorn server that says where it listens.

Shared by ``escapebench serve`` (web/) and ``escapebench openenv`` (integrations/), so both
close the same DNS-rebinding door however a loopback address is written.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from collections.abc import Callable
from typing import Any

__all__ = [
    "allowed_hosts", "binds_loopback", "bound_address", "is_loopback", "run_announced",
]


def bound_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a server told to listen on ``host`` binds (the first address the name
    resolves to, as uvicorn binds it: ``127.1`` is 127.0.0.1), or None if it resolves to
    none."""
    try:
        infos = socket.getaddrinfo(host or None, 0, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
        address = ipaddress.ip_address(str(infos[0][4][0]).split("%")[0])
    except (socket.gaierror, UnicodeError, ValueError, IndexError, OSError):
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    return address


def binds_loopback(host: str) -> bool:
    """Whether a server listening on ``host`` can be reached from this machine only (any
    loopback address, however it is written: 127.1, 127.0.0.2, ::ffff:127.0.0.1, localhost)."""
    address = bound_address(host)
    return address is not None and address.is_loopback


def allowed_hosts(host: str) -> list[str]:
    """The ``Host`` headers a server listening on ``host`` answers: for a loopback address,
    the loopback names and the address itself (a page of another site that a name was made
    to point here, DNS rebinding, is refused); any for an address others can reach."""
    address = bound_address(host)
    if address is None or not address.is_loopback:
        return ["*"]
    shown = f"[{address}]" if address.version == 6 else str(address)
    return list(dict.fromkeys(["127.0.0.1", "localhost", "[::1]", "::1", shown]))


def is_loopback(host: str) -> bool:
    """``binds_loopback`` for a ``--host`` as a user writes it (``[::1]`` with brackets too)."""
    return binds_loopback(host.strip("[]") if host.startswith("[") else host)


def run_announced(server: Any, verb: str, describe: Callable[[str], str], host: str,
                  port: int) -> bool:
    """Run the uvicorn ``server``; once its socket is bound, print ``escapebench VERB: URL
    (describe(URL))`` (port 0 asks the system for a free port). False if it could not listen
    (uvicorn exits that way, e.g. port in use), after a line saying so on standard error."""
    original_startup = server.startup

    async def startup(sockets: object = None) -> None:
        await original_startup(sockets=sockets)
        for srv in getattr(server, "servers", []):
            for sock in srv.sockets:
                bound_host, bound_port = sock.getsockname()[:2]
                shown = f"[{bound_host}]" if ":" in bound_host else bound_host
                url = f"http://{shown}:{bound_port}/"
                print(f"escapebench {verb}: {url} ({describe(url)})", flush=True)
                return

    server.startup = startup
    try:
        server.run()
    except SystemExit:
        print(f"escapebench {verb}: cannot listen on {host}:{port}; try another --port "
              "(0 picks a free one)", file=sys.stderr)
        return False
    return True
