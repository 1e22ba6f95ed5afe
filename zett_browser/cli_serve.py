"""Provides ``zett-browser serve``: the same app, in a web page, through textual-serve.

``zett-browser serve [STORE] [--host 127.0.0.1] [--port 8000] [--public-url URL]
[--session ID] [--page-size N] [--no-index] [--index-dir DIR]``

The store is checked here first, exactly as the main command checks it (:func:`open_store`
and :func:`preflight`; a problem is one line and exit status 2). textual-serve then starts
one app process per browser tab; each is ``zett-browser`` itself, run with the same
arguments, so the store is opened the same read-only way and every guarantee of the
terminal app holds in the page.

The child's arguments travel in an environment variable, not on its command line:
textual-serve runs the command through a shell and prints it, and a server URL's password
would otherwise show in ``ps`` and the console. Serving on anything but loopback prints a
warning: the page has no login, so anyone who can reach the address reads the history.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import re
import shlex
import sys
from typing import TYPE_CHECKING

from .__main__ import (
    PROG,
    OneLineParser,
    add_page_size,
    bounded,
    index_dir,
    one_line,
    preflight,
    report,
    secrets_of,
)
from .storage import StoreError, open_store
from .storage.target import scrub

if TYPE_CHECKING:  # textual-serve is an optional extra, imported when serving
    from textual_serve.server import Server

#: The child's ``zett-browser`` arguments (JSON list), read by :func:`run_served`.
ARGV_VARIABLE = "ZETT_BROWSER_SERVED_ARGV"
DEFAULT_PORT = 8000
#: textual-serve's page loads a font from a public host; served history pages load nothing
#: from elsewhere (the terminal falls back to the browser's monospace font).
URL = re.compile(r"https?://[A-Za-z0-9.\-_~:\[\]%@/]+")
FONT_LINK = re.compile(r"<link[^>]*fonts\.googleapis\.com[^>]*>\s*")


def build_serve_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=f"{PROG} serve",
        description="Serve the browser to a web page (textual-serve). The store is opened read-only, "
        "as by the terminal app; the page has no login.",
    )
    parser.add_argument("store", nargs="?", default=None, help="SQLite store path or SQLAlchemy URL")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; any other prints a warning: the page has no login)",
    )
    parser.add_argument("--port", type=bounded(1, 65535), default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument(
        "--public-url",
        metavar="URL",
        type=public_url,
        help="the address browsers use to reach the page (default http://HOST:PORT; set it when "
        "listening on 0.0.0.0 or behind a proxy)",
    )
    parser.add_argument("--session", metavar="ID", help="open this session in each page")
    add_page_size(parser)
    parser.add_argument("--no-index", action="store_true", help="browse without the side index (no search)")
    parser.add_argument("--index-dir", metavar="DIR", type=index_dir, help="where index files live")
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
    """Check the store, warn off loopback, then serve until interrupted."""
    args = build_serve_parser().parse_args(argv)
    secrets = secrets_of(args.store)
    try:
        storage = open_store(args.store)
        problem = asyncio.run(preflight(storage, args.session))
    except StoreError as error:
        return report(error, debug=False, secrets=secrets)
    if problem is not None:
        print(f"{PROG}: {one_line(scrub(problem, secrets))}", file=sys.stderr)
        return 2
    try:
        server_class = _server_class(one_line(scrub(storage.display_name, secrets)))
    except ImportError:
        print(f"{PROG} serve: needs textual-serve: pip install 'zett-browser[serve]'", file=sys.stderr)
        return 2
    url = args.public_url or page_url(args.host, args.port)
    if not is_loopback(args.host):
        print(
            f"{PROG} serve: WARNING: listening on {one_line(args.host)}, not loopback: anyone who can reach "
            "this address can read the whole history in this store (the page has no login, no encryption)",
            file=sys.stderr,
        )
    os.environ[ARGV_VARIABLE] = json.dumps(child_argv(args))
    command = shlex.join([sys.executable, "-m", "zett_browser.cli_serve"])
    server = server_class(command, host=args.host, port=args.port, title="zett-browser", public_url=url)
    try:
        server.serve()
    except OSError as error:
        print(f"{PROG} serve: cannot listen on {one_line(args.host)}:{args.port}: {one_line(error)}", file=sys.stderr)
        return 2
    return 0


def _server_class(store_name: str) -> type[Server]:
    from aiohttp import web
    from textual_serve.server import Server

    class Quiet(Server):
        """textual-serve without its banner (it prints the command line) and without the
        page's web-font link: the page then asks no other host for anything."""

        async def on_startup(self, app: object) -> None:
            print(f"{PROG}: serving {store_name} read-only on {self.public_url} (Ctrl+C stops)", flush=True)

        async def handle_index(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
            response = await super().handle_index(request)
            if isinstance(response, web.Response) and response.text is not None:
                response.text = FONT_LINK.sub("", response.text)
            return response

    return Quiet


def run_served() -> int:
    """One served app: ``zett-browser`` with the arguments ``serve`` checked."""
    from .__main__ import main

    if ARGV_VARIABLE not in os.environ:
        print(f"{PROG}: this module is run by `{PROG} serve`, not by hand", file=sys.stderr)
        return 2
    return main(json.loads(os.environ[ARGV_VARIABLE]))


if __name__ == "__main__":
    raise SystemExit(run_served())
