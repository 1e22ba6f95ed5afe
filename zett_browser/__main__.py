"""Provides the command line: ``zett-browser [STORE] [--session ID] [--seq N] [--page-size N]``."""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .storage import StoreError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zett-browser",
        description="Browse the conversation history a zett-agent store keeps. The store is opened read-only.",
    )
    parser.add_argument(
        "store",
        nargs="?",
        default=None,
        help="SQLite store path (default: zett-agent's ~/.zett-agent/sessions.sqlite3)",
    )
    parser.add_argument("--session", metavar="ID", help="open this session")
    parser.add_argument("--seq", metavar="N", type=int, help="open the page holding sequence N")
    parser.add_argument("--page-size", metavar="N", type=int, default=50, help="messages per page (default 50)")
    parser.add_argument("--version", action="version", version=f"zett-browser {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the app; a store that cannot be browsed is one line on stderr and exit status 2."""
    args = build_parser().parse_args(argv)
    if args.page_size < 1:
        print("zett-browser: --page-size must be a positive number", file=sys.stderr)
        return 2
    from .app import make_app

    try:
        app = make_app(args.store, session=args.session, seq=args.seq, page_size=args.page_size)
    except StoreError as error:
        print(f"zett-browser: {error}", file=sys.stderr)
        return 2
    app.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
