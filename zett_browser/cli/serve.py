"""Provides ``zett-browser serve``: the same app, in a web page, through textual-serve.

``zett-browser serve [STORE] [--host 127.0.0.1] [--port 8000] [--public-url URL]
[--max-sessions N] [--session ID] [--page-size N] [--no-index] [--index-dir DIR]``

The store is checked here first, exactly as the main command checks it (:func:`open_store`
and :func:`preflight`; a problem is one line and exit status 2). textual-serve then starts
one app process per browser tab; each is ``zett-browser`` itself, run with the same
arguments plus ``--served`` (it writes no file anywhere), so the store is opened the same
read-only way and every guarantee of the terminal app holds in the page.

Loopback is no boundary against a browser (any page the user visits can reach it), so the
server is guarded (:mod:`zett_browser.cli.serve_server`): a per-run secret token in the URL
printed here (nothing is served without it), the Host and Origin headers checked against
the served address, a cap on open pages and on the terminal size, and every app process
stopped when ``serve`` stops, by any of SIGINT, SIGTERM and SIGHUP (and sent SIGTERM by
Linux when ``serve`` is killed outright: :func:`end_with_server`).

The child's arguments travel in an environment variable, not on its command line: a
server URL's password would otherwise show in ``ps``. Serving on anything but loopback
prints a warning: the page is plain HTTP, so whoever sees its traffic sees the token.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import re
import secrets
import sys
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..storage import StoreError, open_store
from ..storage.target import scrub
from .args import (
    PROG,
    OneLineParser,
    add_index_dir,
    add_page_size,
    add_store,
    bounded,
    one_line,
    preflight,
    report,
    secrets_of,
)
from .sessions import SessionChoiceError, is_full_id, resolve_at

if TYPE_CHECKING:  # textual-serve is an optional extra, imported when serving
    from .serve_server import GuardedServer

#: The child's ``zett-browser`` arguments (JSON list), read by :func:`zett_browser.startup.served_app.run_served`.
ARGV_VARIABLE = "ZETT_BROWSER_SERVED_ARGV"
#: The process id of the ``serve`` that started the app (see :func:`end_with_server`).
SERVER_PID_VARIABLE = "ZETT_BROWSER_SERVE_PID"
DEFAULT_PORT = 8000
DEFAULT_MAX_SESSIONS = 4
URL = re.compile(r"https?://[A-Za-z0-9.\-_~:\[\]%@/]+")
DEFAULT_PORTS = {"http": 80, "https": 443}


def build_serve_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=f"{PROG} serve",
        description="Serve the browser to a web page (textual-serve). The store is opened read-only, "
        "as by the terminal app, and the page writes no file. The printed URL holds a secret token: "
        "without it nothing is served.",
    )
    add_store(parser)
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; any other prints a warning: plain HTTP shows the token "
        "to whoever sees the traffic; 0.0.0.0 or :: needs --public-url)",
    )
    parser.add_argument("--port", type=bounded(1, 65535), default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument(
        "--public-url",
        metavar="URL",
        type=public_url,
        help="the address browsers use to reach the page (default http://HOST:PORT; set it when "
        "listening on 0.0.0.0 or behind a proxy)",
    )
    parser.add_argument(
        "--max-sessions",
        metavar="N",
        type=bounded(1, 64),
        default=DEFAULT_MAX_SESSIONS,
        help=f"most pages open at once, each its own app process (default {DEFAULT_MAX_SESSIONS})",
    )
    parser.add_argument("--session", metavar="ID", help="open this session in each page")
    add_page_size(parser)
    parser.add_argument("--no-index", action="store_true", help="browse without the side index (no search)")
    add_index_dir(parser)
    return parser


def public_url(text: str) -> str:
    """An argparse type: an ``http(s)://`` URL with nothing an HTML attribute would end at
    (textual-serve writes it into the page unescaped)."""
    if not URL.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected http://HOST[:PORT] or https://..., got {text[:60]!r}")
    return text.rstrip("/")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def page_url(host: str, port: int) -> str:
    """``http://HOST:PORT`` with an IPv6 address in brackets."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}"


def is_wildcard(host: str) -> bool:
    """True for ``0.0.0.0`` and ``::``: every address, none of which a browser names."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def _netlocs(scheme: str, host: str, port: int) -> set[str]:
    """How a browser writes ``host:port`` in a Host header (the port left out when default)."""
    host = host.lower().strip("[]")
    shown = f"[{host}]" if ":" in host else host
    forms = {f"{shown}:{port}"}
    if DEFAULT_PORTS.get(scheme) == port:
        forms.add(shown)
    return forms


def served_addresses(host: str, port: int, public: str | None) -> tuple[frozenset[str], frozenset[str]]:
    """The Host headers and the Origins a served request may carry.

    The listening address (and, on loopback, ``localhost``, ``127.0.0.1`` and ``[::1]`` at
    that port), and ``--public-url``'s. A DNS-rebinding page reaches the server under its
    own name: that name is in neither set.
    """
    origins: set[str] = set()
    hosts: set[str] = set()
    bound = {host} | ({"localhost", "127.0.0.1", "::1"} if is_loopback(host) else set())
    for name in bound:
        if is_wildcard(name):
            continue
        forms = _netlocs("http", name, port)
        hosts |= forms
        origins |= {f"http://{form}" for form in forms}
    if public is not None:
        parts = urlsplit(public)
        scheme = parts.scheme.lower()
        public_port = parts.port or DEFAULT_PORTS[scheme]
        forms = _netlocs(scheme, parts.hostname or "", public_port)
        hosts |= forms
        origins |= {f"{scheme}://{form}" for form in forms}
    return frozenset(hosts), frozenset(origins)


def child_argv(args: argparse.Namespace) -> list[str]:
    """The ``zett-browser`` arguments each served app runs with."""
    argv = [] if args.store is None else [args.store]
    if args.session is not None:
        argv += ["--session", args.session]
    argv += ["--page-size", str(args.page_size)]
    if args.no_index:
        argv.append("--no-index")
    if args.index_dir is not None:
        argv += ["--index-dir", str(args.index_dir)]
    return argv


def main_serve(argv: list[str]) -> int:
    """Check the store, warn off loopback, then serve until stopped."""
    args = build_serve_parser().parse_args(argv)
    if is_wildcard(args.host) and args.public_url is None:
        print(
            f"{PROG} serve: --host {one_line(args.host)} needs --public-url, the address browsers use "
            "(a request naming any other address is refused)",
            file=sys.stderr,
        )
        return 2
    secrets_ = secrets_of(args.store)
    try:
        if args.session is not None and not is_full_id(args.session):
            args.session = resolve_at(args.store, args.session)
        storage = open_store(args.store)
        problem = asyncio.run(preflight(storage, args.session))
    except StoreError as error:
        return report(error, debug=False, secrets=secrets_)
    except SessionChoiceError as error:
        print(f"{PROG}: {one_line(str(error))}", file=sys.stderr)
        return 2
    if problem is not None:
        print(f"{PROG}: {one_line(scrub(problem, secrets_))}", file=sys.stderr)
        return 2
    store_name = one_line(scrub(storage.display_name, secrets_))
    url = args.public_url or page_url(args.host, args.port)
    hosts, origins = served_addresses(args.host, args.port, args.public_url)
    try:
        server = _server(args, url, hosts, origins, store_name)
    except ImportError:
        print(f"{PROG} serve: needs textual-serve: pip install 'zett-browser[serve]'", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        print(
            f"{PROG} serve: WARNING: listening on {one_line(args.host)}, not loopback: the page is plain HTTP, "
            "so anyone who can see its traffic gets the token in its URL and can read the whole history in "
            "this store",
            file=sys.stderr,
        )
    os.environ[ARGV_VARIABLE] = json.dumps(child_argv(args))
    os.environ[SERVER_PID_VARIABLE] = str(os.getpid())
    try:
        server.serve()
    except OSError as error:
        print(f"{PROG} serve: cannot listen on {one_line(args.host)}:{args.port}: {one_line(error)}", file=sys.stderr)
        return 2
    return 0


def _server(
    args: argparse.Namespace, url: str, hosts: frozenset[str], origins: frozenset[str], store_name: str
) -> GuardedServer:
    from .serve_server import GuardedServer

    def announce(page: str) -> None:
        print(f"{PROG}: serving {store_name} read-only on {page} (Ctrl+C stops)", flush=True)

    return GuardedServer(
        [sys.executable, "-m", "zett_browser.startup.served_app"],
        host=args.host,
        port=args.port,
        public_url=url,
        token=secrets.token_urlsafe(24),
        hosts=hosts,
        origins=origins,
        max_sessions=args.max_sessions,
        announce=announce,
    )


def end_with_server() -> None:
    """Ask Linux for SIGTERM when ``serve`` is gone, even by SIGKILL (which it cannot
    handle): the app then closes its store as on any SIGTERM. Elsewhere nothing is done."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if str(os.getppid()) != os.environ.get(SERVER_PID_VARIABLE):  # serve died before the request took effect
        os.kill(os.getpid(), signal.SIGTERM)


#: Linux's prctl option: the signal sent to this process when its parent ends.
PR_SET_PDEATHSIG = 1
