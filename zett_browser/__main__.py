"""Provides the command line.

``zett-browser [STORE] [--session ID] [--seq N] [--page-size N]`` browses a store read-only;
``zett-browser demo [PATH] [--keep] [--live]`` writes the demo store and opens it; with
``--live`` a scripted conversation keeps being written and compacted while you watch.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

from . import __version__
from .storage import SQLSessionStorage, StoreError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zett-browser",
        description="Browse the conversation history a zett-agent store keeps. The store is opened read-only.",
        epilog="Run `zett-browser demo` to try it on a built-in demo store.",
    )
    parser.add_argument(
        "store",
        nargs="?",
        default=None,
        help="SQLite store path or SQLAlchemy URL (default: zett-agent's ~/.zett-agent/sessions.sqlite3)",
    )
    parser.add_argument("--session", metavar="ID", help="open this session")
    parser.add_argument("--seq", metavar="N", type=int, help="open the page holding sequence N")
    parser.add_argument("--page-size", metavar="N", type=int, default=50, help="messages per page (default 50)")
    parser.add_argument("--debug", action="store_true", help="show a traceback when the store cannot be opened")
    parser.add_argument("--version", action="version", version=f"zett-browser {__version__}")
    return parser


async def preflight(storage: SQLSessionStorage, session: str | None) -> str | None:
    """Check the store (and the session) before the UI starts; return an error line or None."""
    try:
        if session is not None:
            if await storage.get_node(session) is None:
                return f"no session {session!r} in {storage.display_name}"
        else:
            await storage.list_roots(limit=1)
    finally:
        await storage.close()
    return None


def build_demo_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zett-browser demo",
        description="Write a demo store (realistic agent history, through the storage API) and open it.",
    )
    parser.add_argument("path", nargs="?", type=Path, help="where to write the store (default: a temporary directory)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary store after exit and print its path")
    parser.add_argument(
        "--live",
        action="store_true",
        help="play a conversation into the store while you watch, compacting it as zett-agent does "
        "(s pauses and resumes, + and - change the speed)",
    )
    parser.add_argument("--page-size", metavar="N", type=int, default=50, help="messages per page (default 50)")
    return parser


def run_demo(argv: list[str]) -> int:
    """Write the demo store, then browse it read-only like any other store."""
    from .app import make_app
    from .demo import build_demo_store
    from .live_demo import LiveDemo

    args = build_demo_parser().parse_args(argv)
    directory = None
    if args.path is None:
        directory = Path(tempfile.mkdtemp(prefix="zett-browser-demo-"))
        path = directory / "demo.sqlite3"
    else:
        path = args.path
    live = LiveDemo(str(path)) if args.live else None

    async def prepare() -> None:
        await build_demo_store(path)
        if live is not None:
            await live.step()  # the live session exists before the app opens it
            await live.close()

    try:
        asyncio.run(prepare())
    except FileExistsError as error:
        print(f"zett-browser: {error}", file=sys.stderr)
        return 2
    try:
        session = live.session_id if live is not None else None
        make_app(str(path), page_size=args.page_size, live=live, session=session).run()
    finally:
        if directory is not None and not args.keep:
            shutil.rmtree(directory, ignore_errors=True)
        elif directory is not None:
            print(f"zett-browser: the demo store is kept at {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the app; a store that cannot be browsed is one line on stderr and exit status 2."""
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["demo"]:
        return run_demo(arguments[1:])
    if arguments[:1] in (["index"], ["search"]):
        from .cli_index import main_index, main_search

        return (main_index if arguments[0] == "index" else main_search)(arguments[1:])
    args = build_parser().parse_args(arguments)
    if args.page_size < 1:
        print("zett-browser: --page-size must be a positive number", file=sys.stderr)
        return 2
    from .app import make_app

    try:
        app = make_app(args.store, session=args.session, seq=args.seq, page_size=args.page_size)
        problem = asyncio.run(preflight(app.storage, args.session))
    except StoreError as error:
        if args.debug:
            traceback.print_exc()
        print(f"zett-browser: {error}", file=sys.stderr)
        return 2
    if problem is not None:
        print(f"zett-browser: {problem}", file=sys.stderr)
        return 2
    app.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
