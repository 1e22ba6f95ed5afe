"""Provides the guarded textual-serve server behind ``zett-browser serve``.

Loopback is no boundary against a browser: any page the user visits can ask for
``http://127.0.0.1:PORT/`` and open ``ws://127.0.0.1:PORT/ws``. So every request passes
:meth:`GuardedServer.guard` first:

- its Host header must be one of the served addresses (``--host``/``--port``, and
  ``--public-url``): a DNS-rebinding page's requests carry its own name and are refused
  (403);
- its path must start with the per-run secret token (``/TOKEN/``, compared with
  :func:`hmac.compare_digest`): without it nothing is served, not even the static files
  (404);
- an Origin header, when there is one, must be a served origin, and the websocket must
  carry one: a page from anywhere else cannot connect even when it knows the token (403).

The page, its script and its websocket all live under ``/TOKEN/``; textual-serve's
``/download`` route is not served (the served app delivers nothing). At most
``max_sessions`` app processes run at once: a further page is told so and gets none. The
terminal size a page asks for is clamped to :data:`MAX_WIDTH` x :data:`MAX_HEIGHT` before
it reaches the app. Each app process runs ``zett-browser`` (no shell) in its own process
group; when the server stops, by Ctrl+C, SIGTERM or SIGHUP, each is asked to quit, then
(if it has not within :data:`QUIT_SECONDS`: hung, or stopped) sent SIGTERM and SIGCONT
(the app closes its store, removing the ``-wal``/``-shm`` files it made), then SIGKILL,
and the server waits for every one before it exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import os
import re
import signal
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from aiohttp.web_runner import GracefulExit
from textual_serve.app_service import AppService
from textual_serve.server import Server

log = logging.getLogger("zett-browser.serve")

#: Largest terminal an app process is given, in cells (a page asking for 20000 x 20000
#: would otherwise make the app lay out and render a 400-million-cell screen).
MAX_WIDTH = 500
MAX_HEIGHT = 200
#: Largest websocket message a page may send (keys and resizes are a few bytes).
MAX_MESSAGE = 64 * 1024
#: Seconds an app process gets to quit when asked, then again after SIGTERM.
QUIT_SECONDS = 5.0
#: Signals that stop the server (each then stops every app process it started).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
#: textual-serve's page links a web font from a public host; the served page loads nothing
#: from elsewhere (the terminal falls back to the browser's monospace font).
FONT_LINK_PATTERN = re.compile(r"<link[^>]*fonts\.googleapis\.com[^>]*>\s*")
#: Headers on every page answer: never cached, never framed, no referrer sent anywhere.
PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "frame-ancestors 'none'",
}


def clamp(value: object, default: int, highest: int) -> int:
    """A terminal dimension from a page: a whole number from 1 to ``highest`` (else ``default``)."""
    if isinstance(value, bool):
        return default
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            return default
    if not isinstance(value, int):
        return default
    return max(1, min(highest, value))


class AppProcess(AppService):
    """One app process: ``argv`` run directly (no shell) in a process group of its own,
    stopped for sure (quit, then SIGTERM, then SIGKILL), never waited on forever."""

    def __init__(self, argv: list[str], **kwargs: Any) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.argv = argv
        self._stopping: asyncio.Task[None] | None = None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        environment = self._build_environment(width=width, height=height)
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            start_new_session=True,  # its own group: a stop reaches whatever it started
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    @property
    def running_pid(self) -> int | None:
        """The app process's id while it has not been waited for, else None."""
        process = self._process
        return process.pid if process is not None and process.returncode is None else None

    async def stop(self) -> None:
        """Quit the app, however it is stopped and however often (one stop runs)."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop())
        await asyncio.shield(self._stopping)

    async def _stop(self) -> None:
        process = self._process
        if process is None:
            return
        with contextlib.suppress(Exception):
            await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.send_meta({"type": "quit"}), 1)
        for number in (None, signal.SIGTERM, signal.SIGKILL):
            if number is not None:
                kill_group(process.pid, number)
                kill_group(process.pid, signal.SIGCONT)  # a stopped app takes its SIGTERM now
            try:
                await asyncio.wait_for(asyncio.shield(process.wait()), QUIT_SECONDS)
                break
            except TimeoutError:
                continue
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, QUIT_SECONDS)
            self._task = None
        kill_group(process.pid, signal.SIGKILL)  # anything the app itself started


def kill_group(pid: int, number: int) -> None:
    """Send ``number`` to the process group ``pid`` leads (gone already: nothing)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, number)


class GuardedServer(Server):
    """textual-serve, guarded: token, Host and Origin checks, no downloads, capped sessions
    and terminal size, every app process stopped when the server stops."""

    def __init__(
        self,
        argv: list[str],
        *,
        host: str,
        port: int,
        public_url: str,
        token: str,
        hosts: frozenset[str],
        origins: frozenset[str],
        max_sessions: int,
        announce: Callable[[str], None],
    ) -> None:
        super().__init__(" ".join(argv), host=host, port=port, title="zett-browser", public_url=public_url)
        self.argv = argv
        self.token = token
        self.hosts = hosts
        self.origins = origins
        self.max_sessions = max_sessions
        self.announce = announce
        #: The running app processes, one per open page (one whose stop was cut short by
        #: the server's own shutdown stays here for the last check in :meth:`serve`).
        self.apps: set[AppProcess] = set()

    @property
    def page(self) -> str:
        """The page's URL, token included."""
        return f"{self.public_url}/{self.token}/"

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self.guard])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path), autoescape=True)
        prefix = f"/{self.token}"
        app.add_routes(
            [
                web.get(f"{prefix}/", self.handle_index, name="index"),
                web.get(f"{prefix}/ws", self.handle_websocket, name="websocket"),
                web.get(f"{prefix}/favicon.ico", self.handle_icon, name="icon"),
                web.static(f"{prefix}/static", self.statics_path, show_index=False, name="static"),
            ]
        )
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    def refusal(self, request: web.Request) -> web.HTTPException | None:
        """Why ``request`` is refused, as the answer to give; None when it may go on."""
        if (request.headers.get("Host") or "").lower() not in self.hosts:
            return web.HTTPForbidden(text="zett-browser serve: this address is not the served one\n")
        parts = request.rel_url.raw_path.split("/", 2)
        segment = parts[1] if len(parts) > 1 else ""
        if not hmac.compare_digest(segment.encode("utf-8", "replace"), self.token.encode()):
            return web.HTTPNotFound(text="Not found\n")
        origin = request.headers.get("Origin")
        websocket = request.headers.get("Upgrade", "").lower() == "websocket"
        if (origin is not None or websocket) and (origin or "").lower() not in self.origins:
            return web.HTTPForbidden(text="zett-browser serve: a page from another origin\n")
        return None

    @web.middleware
    async def guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        refused = self.refusal(request)
        if refused is not None:
            log.warning("refused %s: %s", request.method, refused.text.strip() if refused.text else refused.status)
            raise refused
        return await handler(request)

    async def on_startup(self, app: web.Application) -> None:
        self.announce(self.page)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        if len(self.apps) >= self.max_sessions:
            return web.Response(status=503, text=self.full_text(), headers=PAGE_HEADERS)
        response = await super().handle_index(request)
        if isinstance(response, web.Response) and response.text is not None:
            # The page asks no other host for anything (textual-serve's links a web font).
            text = FONT_LINK_PATTERN.sub("", response.text)
            # Under the token too: else the browser asks for /favicon.ico (refused).
            icon = f'<link rel="icon" href="{self.public_url}/{self.token}/favicon.ico" />'
            response.text = text.replace("<head>", f"<head>\n    {icon}", 1)
        response.headers.update(PAGE_HEADERS)
        return response

    async def handle_icon(self, request: web.Request) -> web.StreamResponse:
        return web.Response(status=204)

    def full_text(self) -> str:
        return (
            f"zett-browser serve: {len(self.apps)} pages are open already, the most this server allows "
            f"(--max-sessions {self.max_sessions}): close one, then reload this page\n"
        )

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        await websocket.prepare(request)
        if len(self.apps) >= self.max_sessions:
            await websocket.send_bytes(b"\r\n" + self.full_text().replace("\n", "\r\n").encode())
            await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"too many sessions")
            return websocket
        width = clamp(request.query.get("width"), 80, MAX_WIDTH)
        height = clamp(request.query.get("height"), 24, MAX_HEIGHT)
        service = AppProcess(
            self.argv,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
            debug=False,
        )
        self.apps.add(service)  # counted from now: no await since the check above
        try:
            await service.start(width, height)
            await self._process_messages(websocket, service)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await websocket.close()
        except Exception as error:  # noqa: BLE001 - one page's failure ends that page only
            log.warning("a page's session failed: %s", error)
        finally:
            await service.stop()
            self.apps.discard(service)
            with contextlib.suppress(Exception):
                await websocket.close()
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: AppService) -> None:
        """What a page sends: keys, sizes (clamped), pings, focus. Anything else is dropped."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except (ValueError, RecursionError):  # not JSON, or nested past Python's limit
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                await app_service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                width = clamp(data.get("width"), 80, MAX_WIDTH)
                height = clamp(data.get("height"), 24, MAX_HEIGHT)
                await app_service.set_terminal_size(width, height)
            elif kind == "ping" and isinstance(data, str | int | float):
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    async def on_shutdown(self, app: web.Application) -> None:
        """The server stops: stop every app process (they quit together) and wait for each."""
        await asyncio.gather(*(service.stop() for service in list(self.apps)), return_exceptions=True)

    def request_exit(self) -> None:
        raise GracefulExit()

    def serve(self, debug: bool = False) -> None:
        """Serve until SIGINT, SIGTERM or SIGHUP; then every app process started is gone."""
        self.debug = False
        self.initialize_logging()
        logging.getLogger("aiohttp.access").disabled = True  # its lines would hold the token
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for number in STOP_SIGNALS:
            loop.add_signal_handler(number, self.request_exit)
        sockets = listening_sockets(self.host, self.port)  # a taken port fails here, before "serving …"
        try:
            web.run_app(
                self._make_app(),
                sock=sockets,
                handle_signals=False,
                loop=loop,
                print=lambda *args: None,
                access_log=None,
                shutdown_timeout=QUIT_SECONDS,
            )
        finally:
            for service in self.apps:  # the last word: nothing of ours outlives the server
                if (pid := service.running_pid) is not None:
                    kill_group(pid, signal.SIGKILL)
            for number in STOP_SIGNALS:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(number)


def listening_sockets(host: str, port: int) -> list[socket.socket]:
    """Listening sockets on every address ``host`` names (``localhost``: 127.0.0.1 and ::1).

    Bound before the server starts, so a port in use (or an address not on this machine)
    is an error before the page is announced, not after "serving …" was printed. Raises
    :class:`OSError` with every socket of this call closed.
    """
    sockets: list[socket.socket] = []
    seen: set[tuple[int, Any]] = set()
    try:
        for family, _, _, _, address in socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        ):
            if (family, address) in seen:
                continue
            seen.add((family, address))
            sockets.append(socket.create_server(address[:2] if family == socket.AF_INET else address, family=family))
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets
