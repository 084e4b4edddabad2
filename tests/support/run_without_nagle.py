"""Run a Python HTTP server script unmodified, with Nagle's algorithm off on its connections.

``python run_without_nagle.py SCRIPT ARGS...`` runs SCRIPT as ``__main__`` after setting
``socketserver.StreamRequestHandler.disable_nagle_algorithm``, so every connection the script's
``http.server`` handlers accept gets TCP_NODELAY. A handler that writes its headers and its body
in two writes otherwise waits for the client's delayed ACK (about 40 ms) on every response.
"""

from __future__ import annotations

import runpy
import socketserver
import sys

if __name__ == "__main__":
    socketserver.StreamRequestHandler.disable_nagle_algorithm = True
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")
