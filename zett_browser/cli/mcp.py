"""Provides ``zett-browser mcp``: a read-only MCP server over one or more stores, on stdio.

``mcp [STORE…] [--index-dir DIR]`` opens each store read-only (none given: zett-agent's
``~/.zett-agent/sessions.sqlite3``) and speaks the Model Context Protocol on stdin and
stdout until the client closes stdin (:mod:`zett_browser.mcpserver`). A store that cannot
be browsed is one line on stderr and exit status 2, before any protocol starts.
SIGINT, SIGTERM and SIGHUP end it cleanly (the stores closed, nothing left beside them).
"""

from __future__ import annotations

import sqlite3
import sys

from ..storage.errors import StoreError
from ..text import one_line
from .args import STORE_HELP, OneLineParser, add_index_dir


def main_mcp(argv: list[str]) -> int:
    """Serve the stores read-only to an MCP client (Claude Desktop, zett-agent's McpExtension…) over stdio."""
    parser = OneLineParser(prog="zett-browser mcp", description=main_mcp.__doc__)
    parser.add_argument("stores", nargs="*", metavar="STORE", help=STORE_HELP + "; several may be given")
    add_index_dir(parser)
    args = parser.parse_args(argv)
    from ..mcpserver.stores import Stores
    from ..startup.lifecycle import run_async

    targets: list[str | None] = list(args.stores) or [None]
    try:
        stores = Stores.open(targets, args.index_dir)
    except (StoreError, OSError, sqlite3.Error, ValueError) as error:
        print(f"zett-browser: {one_line(error, 300)}", file=sys.stderr)
        return 2

    async def run() -> int:
        try:
            for store in stores.items:  # each store checked before the protocol starts
                await store.storage.list_roots(limit=1)
        except (StoreError, OSError, sqlite3.Error) as error:
            await stores.close()
            print(f"zett-browser: {one_line(error, 300)}", file=sys.stderr)
            return 2
        from ..mcpserver.server import serve_stdio

        await serve_stdio(stores)
        return 0

    return run_async(run())
