"""``escapebench serve``: the report and the browser play page, as a Starlette app.

Routes:

* ``/`` a home page; ``/report/...`` the static report of the result folders plus the human
  games in the data folder, rebuilt when their results change;
* ``/play`` the play page; ``/static/...`` its scripts (``play.js`` of this package, ``dom.js``
  shared with the report) and styles (the report's);
* ``/api/games``, ``/api/sessions`` (list unfinished, start one), ``/api/sessions/<id>``,
  ``/api/sessions/<id>/actions`` and ``/api/sessions/<id>/hint``: the play API (JSON).

Everything a page sends is untrusted: games are looked up by name in the loaded list (never
opened by path), session ids must look like the ones the server makes, bodies are size-limited
JSON objects with a JSON content type (any body that cannot be read, deeply nested JSON
included, is a 400), state-changing requests from a browser must come from the server's own
origin, and every refusal is a 4xx JSON ``{"error": ...}``. Every response forbids framing
(clickjacking) and content-type sniffing. Unexpected failures are logged and answered with a
500 JSON body, never a traceback. The HTTP protocol (:class:`HeaderTimeoutProtocol`) closes
connections whose request head does not arrive within :data:`HEADER_TIMEOUT_S` (slowloris).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from escapebench.json_limits import JSONTooDeep, loads_bounded
from escapebench.play import MAX_PLAYER_LENGTH, PlayRequestError, PlayStore
from escapebench.play.browser_sessions import DEFAULT_MAX_SESSIONS
from escapebench.report.runs import (
    EPISODES_DIR,
    RESULT_FILE,
    STEPS_FILE,
    ReportInputError,
    episode_key,
    load_runs,
)
from escapebench.report.site import build_report, template_environment
from escapebench.serving import allowed_hosts

log = logging.getLogger("escapebench.serve")

PACKAGE_DIR = Path(__file__).parent
TEMPLATES_DIR = PACKAGE_DIR / "templates"  # the home and play pages
STATIC_DIR = PACKAGE_DIR / "static"  # the play page's script; the report's files are served too

MAX_BODY_BYTES = 16 * 1024
HEADER_TIMEOUT_S = 10.0  # a request head must arrive within this (slowloris)
BODY_TIMEOUT_S = 10.0  # and its body within this
SECURITY_HEADERS = (
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
_STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DIGITS = re.compile(r"[0-9]{1,12}")
BROWSER_COOKIE = "escapebench_browser"
"""A random token naming a browser: the unfinished games listed to it are the ones it started."""
BROWSER_COOKIE_AGE_S = 365 * 24 * 3600


@dataclass
class ServeConfig:
    """What ``escapebench serve`` serves."""

    run_dirs: list[Path]
    data_dir: Path
    game_specs: list[str] = field(default_factory=list)
    host: str = "127.0.0.1"
    max_body_bytes: int = MAX_BODY_BYTES
    protocol: str | None = None  # for the --games (None: original for a checkout's games)
    original_source: Path | None = None
    max_sessions: int = DEFAULT_MAX_SESSIONS
    """Play sessions kept in memory; past that the oldest idle one is closed (it is saved)."""
    show_all_sessions: bool = False
    """List every unfinished game to every browser (by default each browser sees its own)."""


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class ReportCache:
    """The report of the served folders, rebuilt into a fresh folder when results change.

    A rebuild writes a new folder and then switches to it, so a page being loaded never sees a
    half-written report; the previous folder is removed at the next switch.
    """

    def __init__(self, sources: list[Path], root: Path) -> None:
        self.sources = sources
        self.root = root
        self.current: Path | None = None
        self.signature: tuple[Any, ...] | None = None
        self._lock = threading.Lock()
        self._builds = 0

    def _signature(self) -> tuple[Any, ...]:
        """What the report depends on: every result and log file's size and time."""
        parts: list[Any] = []
        for src in self.sources:
            for name in ("results.csv", "run.json"):
                p = src / name
                if p.is_file():
                    st = p.stat()
                    parts.append((str(p), st.st_mtime_ns, st.st_size))
            episodes = src / EPISODES_DIR
            if episodes.is_dir():
                for folder in sorted(episodes.iterdir()):
                    for name in (RESULT_FILE, STEPS_FILE):
                        p = folder / name
                        if p.is_file():
                            st = p.stat()
                            parts.append((str(p), st.st_mtime_ns, st.st_size))
        return tuple(parts)

    def folder(self) -> Path:
        """The up-to-date report folder (built now if the results changed)."""
        with self._lock:
            sig = self._signature()
            if self.current is not None and sig == self.signature:
                return self.current
            self._builds += 1
            target = self.root / f"build-{self._builds}"
            build_report(load_runs(self.sources), target, links={"Play": "../play", "Home": "../"},
                         cache_dir=self.root / "cache")
            old, self.current, self.signature = self.current, target, sig
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            return target


async def read_json_body(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object, or an HTTPException (413, 415, 400) saying what is wrong."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise HTTPException(415, "send JSON with Content-Type: application/json")
    declared = request.headers.get("content-length")
    if declared is not None:
        if not _DIGITS.fullmatch(declared.strip()):  # ("²".isdigit() is True; int() refuses)
            raise HTTPException(400, "Content-Length is not a number")
        if int(declared) > limit:
            raise HTTPException(413, f"request body larger than {limit} bytes")
    body = bytearray()

    async def read() -> None:
        async for chunk in request.stream():
            body.extend(chunk)
            if len(body) > limit:
                raise HTTPException(413, f"request body larger than {limit} bytes")

    try:
        await asyncio.wait_for(read(), BODY_TIMEOUT_S)
    except ClientDisconnect:  # gone before its body was whole: nobody reads the answer
        raise HTTPException(400, "the client went away before sending its body") from None
    except asyncio.TimeoutError:
        raise HTTPException(408, f"request body not sent within {BODY_TIMEOUT_S:g} s") from None
    try:
        data = loads_bounded(bytes(body))
    except JSONTooDeep:  # e.g. [[[[...]]]] in a few kilobytes
        raise HTTPException(400, "request body is JSON nested too deeply") from None
    except ValueError:  # not UTF-8, or not JSON
        raise HTTPException(400, "request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise HTTPException(400, "request body must be a JSON object")
    return data


def _text_field(data: dict[str, Any], name: str, limit: int) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value.strip():
        raise HTTPException(400, f"'{name}' must be a non-empty string")
    if len(value) > limit:
        raise HTTPException(400, f"'{name}' is longer than {limit} characters")
    return value.strip()


def create_app(config: ServeConfig) -> Starlette:
    """The serve app for ``config`` (games are loaded now; a bad game file raises here)."""
    config.data_dir.mkdir(parents=True, exist_ok=True)
    sources: list[Path] = []
    for folder in [*config.run_dirs, config.data_dir]:
        if folder.resolve() not in {s.resolve() for s in sources}:
            sources.append(folder)
    data_index = [s.resolve() for s in sources].index(config.data_dir.resolve())
    store = PlayStore(
        config.data_dir, config.game_specs,
        report_key=lambda episode: episode_key(data_index, episode),
        protocol=config.protocol, original_source=config.original_source,
        max_sessions=config.max_sessions,
    )
    work = Path(tempfile.mkdtemp(prefix="escapebench-serve-"))
    reports = ReportCache(sources, work)
    env = template_environment(TEMPLATES_DIR)
    report_files = _ReportFiles(reports)

    def page(name: str, **context: Any) -> HTMLResponse:
        return HTMLResponse(env.get_template(name).render(base="/", **context))

    async def home(request: Request) -> Response:
        return page(
            "home.html.j2", games=store.games(), run_dirs=[str(d) for d in config.run_dirs],
            data_dir=str(config.data_dir),
        )

    async def play(request: Request) -> Response:
        token, new = _browser(request)
        return _remember(page("play.html.j2", patience=store.hint_options.patience,
                              max_player=MAX_PLAYER_LENGTH), token, new)

    async def report_redirect(request: Request) -> Response:
        return RedirectResponse("/report/", status_code=307)

    async def api_games(request: Request) -> Response:
        return JSONResponse({"games": store.games()})

    async def api_sessions(request: Request) -> Response:
        token, new = _browser(request)
        if request.method == "GET":
            browser = None if config.show_all_sessions else token
            listed = await run_in_threadpool(store.unfinished, browser)
            return _remember(JSONResponse({"sessions": listed}), token, new)
        data = await read_json_body(request, config.max_body_bytes)
        setting = _text_field(data, "setting", 200)
        player = _text_field(data, "player", MAX_PLAYER_LENGTH)
        view = await run_in_threadpool(store.start, setting, player, token)
        return _remember(JSONResponse(view, status_code=201), token, new)

    async def api_session(request: Request) -> Response:
        sid = request.path_params["sid"]
        return JSONResponse(await run_in_threadpool(store.view, sid))

    async def api_action(request: Request) -> Response:
        sid = request.path_params["sid"]
        data = await read_json_body(request, config.max_body_bytes)
        action = _text_field(data, "action", 500)
        return JSONResponse(await run_in_threadpool(store.act, sid, action))

    async def api_hint(request: Request) -> Response:
        sid = request.path_params["sid"]
        await read_json_body(request, config.max_body_bytes)
        return JSONResponse(await run_in_threadpool(store.hint, sid))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if request.url.path.startswith("/api/") or exc.status_code >= 400:
            return _error(exc.status_code, str(exc.detail))
        return Response(status_code=exc.status_code)

    async def play_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, PlayRequestError)
        return _error(exc.status, exc.message)

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("error while serving %s", request.url.path)
        return _error(500, "internal error (see the server's log)")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            shutil.rmtree(work, ignore_errors=True)

    async def favicon(request: Request) -> Response:
        """The site's icon, for browsers that ask /favicon.ico whatever the page links."""
        return FileResponse(STATIC_DIR / "favicon.svg", media_type="image/svg+xml")

    hosts = allowed_hosts(config.host)
    routes = [
        Route("/", home),
        Route("/favicon.ico", favicon),
        Route("/play", play),
        Route("/report", report_redirect),
        Mount("/report", app=report_files),
        # /static/: the play page's files, then the report's (dom.js and style.css are shared)
        Mount("/static", app=StaticFiles(
            directory=str(STATIC_DIR), packages=[("escapebench.report", "static")],
        ), name="static"),
        Route("/api/games", api_games),
        Route("/api/sessions", api_sessions, methods=["GET", "POST"]),
        Route("/api/sessions/{sid}", api_session),
        Route("/api/sessions/{sid}/actions", api_action, methods=["POST"]),
        Route("/api/sessions/{sid}/hint", api_hint, methods=["POST"]),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(SecurityHeadersMiddleware),
            Middleware(TrustedHostMiddleware, allowed_hosts=hosts),
            Middleware(SameOriginMiddleware),
        ],
        exception_handlers={
            HTTPException: http_error,
            PlayRequestError: play_error,
            Exception: server_error,
        },
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.reports = reports
    return app


def _browser(request: Request) -> tuple[str, bool]:
    """The browser's token from its cookie, or a new one (True: to be set)."""
    token = request.cookies.get(BROWSER_COOKIE, "")
    if re.fullmatch(r"[0-9a-f]{32}", token):
        return token, False
    return secrets.token_hex(16), True


def _remember(response: Response, token: str, new: bool) -> Response:
    """``response``, setting the browser's cookie when it had none."""
    if new:
        response.set_cookie(BROWSER_COOKIE, token, max_age=BROWSER_COOKIE_AGE_S, path="/",
                            httponly=True, samesite="strict")
    return response


class _ReportFiles:
    """ASGI app serving the current report folder (rebuilt on a request for the page)."""

    def __init__(self, reports: ReportCache) -> None:
        self.reports = reports

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        # The page itself triggers a rebuild check; its figures and data then come from the
        # same build.
        if self.reports.current is None or path.rstrip("/").endswith(("/report", "index.html")):
            try:
                await run_in_threadpool(self.reports.folder)
            except ReportInputError as exc:
                # A result folder went away or holds a damaged file: say which, keep serving.
                log.warning("report not rebuilt: %s", exc)
                if self.reports.current is None:
                    response = _error(500, f"the report cannot be built: {exc}")
                    await response(scope, receive, send)
                    return
        folder = self.reports.current
        assert folder is not None
        static = StaticFiles(directory=str(folder), html=True)
        await static(scope, receive, send)


class SecurityHeadersMiddleware:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every response: no page of this
    server may be framed by another site (clickjacking), nothing is sniffed into another type."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def cross_origin_problem(method: str, headers: Any, host: str) -> str | None:
    """Why a state-changing request did not come from this server's own pages (None: it did,
    or it came from a program that is not a browser and sends no ``Origin``)."""
    if method not in _STATE_CHANGING:
        return None
    if headers.get("sec-fetch-site", "") in ("cross-site", "same-site"):
        return "cross-site requests may not change anything"
    origin = headers.get("origin")
    if origin is None:
        return None  # curl, scripts: not a page another site could make a visitor send
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(origin)
        netloc = parts.netloc.lower()
    except ValueError:
        netloc = ""
    if origin == "null" or not netloc or netloc != host.lower():
        return "requests from another site's pages may not change anything"
    return None


class SameOriginMiddleware:
    """ASGI middleware refusing (403) a POST a page of another site made the browser send: the
    ``Origin`` must be this server's own address, as its play page's requests are."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                       for k, v in scope.get("headers", [])}
            problem = cross_origin_problem(scope["method"], headers, headers.get("host", ""))
            if problem is not None:
                await _error(403, problem)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def header_timeout_protocol() -> type:
    """uvicorn's h11 protocol with a time limit on request heads.

    uvicorn waits for ever for the rest of a request head that a client sends slowly (or not
    at all), so a few such connections (slowloris) hold the server. This one closes a
    connection whose next request head has not arrived :data:`HEADER_TIMEOUT_S` after the
    connection opened or after its previous response.
    """
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderTimeoutProtocol(H11Protocol):  # type: ignore[misc]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm_head_timer()

        def _arm_head_timer(self) -> None:
            waiting_after = self.cycle  # a new request head makes a new cycle
            self._head_timer = self.loop.call_later(
                HEADER_TIMEOUT_S, self._head_timeout, waiting_after
            )

        def _head_timeout(self, waiting_after: Any) -> None:
            if self.cycle is waiting_after and not self.transport.is_closing():
                log.info("closing a connection whose request head did not arrive in time")
                self.transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._head_timer.cancel()
            if not self.transport.is_closing():
                self._arm_head_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._head_timer.cancel()
            super().connection_lost(exc)

    return HeaderTimeoutProtocol
