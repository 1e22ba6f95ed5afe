"""Provides the browser itself, the command without a subcommand: its arguments and its run.

``zett-browser [STORE] [--session ID] [--seq N] [--page-size N] [--search QUERY] [--no-index]
[--index-dir DIR]`` browses a store read-only. For a SQLite file the start-up reader
(:func:`zett_browser.startup.launch.reader`) checks the store and goes on reading the first
screen while Textual loads; when it cannot vouch for the store, ``open_store`` and
:func:`~.args.preflight` give the one-line error (SQLAlchemy is imported only then, or after
the first paint). :func:`run_app` builds the Textual app (imported only then) and runs it; the
demo (:mod:`.demo`) runs it too.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..startup.launch import LazyStore, lazy_store, pause_collection, reader, resume_collection
from ..startup.lifecycle import StartupSignals
from .args import (
    PROG,
    OneLineParser,
    add_index_dir,
    add_notes_file,
    add_page_size,
    add_store,
    bounded,
    one_line,
    preflight,
    report,
    secrets_of,
)
from .sessions import SessionChoiceError, is_full_id, resolve_at

if TYPE_CHECKING:
    from ..multi.store import MultiStore
    from ..startup.warmstart import Warm
    from ..storage import SQLSessionStorage

#: What a served page (``zett-browser serve``) says instead of writing any file.
SERVED_NO_WRITES = "serve: writing files is disabled in a served page"
#: Sequences are SQLite/SQL INTEGERs: at most 2^63 - 1.
MAX_SEQUENCE = 2**63 - 1


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG,
        description="Browse the conversation history a zett-agent store keeps. The store is opened read-only.",
        epilog="Commands: `zett-browser demo` (a built-in demo store), `zett-browser index [STORE]` (build the "
        "search index), `zett-browser search [STORE] QUERY` (search from scripts), `zett-browser export [STORE] "
        "--session ID` (Markdown, HTML or JSON), `zett-browser context [STORE] --session ID [--at N]` (what "
        "the model saw at message N), `zett-browser usage [STORE]` (tokens, cost and time), `zett-browser "
        "compare [STORE] A B` (two sessions step by step), `zett-browser serve [STORE]` (the app in a web "
        "page), `zett-browser mcp [STORE...]` (a read-only MCP server on stdio); each has --help.",
    )
    add_store(parser)
    parser.add_argument(
        "more_stores",
        nargs="*",
        metavar="STORE",
        help="more stores, browsed with the first as one history (a child in another store shows under its parent)",
    )
    parser.add_argument("--session", metavar="ID", help="open this session")
    parser.add_argument(
        "--seq", metavar="N", type=bounded(1, MAX_SEQUENCE), help="open the page holding sequence N (needs --session)"
    )
    add_page_size(parser)
    parser.add_argument("--search", metavar="QUERY", help="open the search view on QUERY's hits")
    parser.add_argument(
        "--no-index", action="store_true", help="browse without the side index (no search, no index file written)"
    )
    add_index_dir(parser)
    add_notes_file(parser)
    parser.add_argument("--debug", action="store_true", help="show a traceback when the store cannot be opened")
    # Set by `zett-browser serve` for its app processes only: no file is written anywhere.
    parser.add_argument("--served", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--version", action="version", version=f"zett-browser {__version__}")
    return parser


def run_app(
    storage: SQLSessionStorage | LazyStore | MultiStore,
    *,
    session: str | None,
    seq: int | None,
    page_size: int,
    live: object,
    index: bool = True,
    index_dir: Path | None = None,
    search: str | None = None,
    warm: Warm | None = None,
    signals: StartupSignals | None = None,
    no_writes: str | None = None,
    notes_file: Path | None = None,
) -> int:
    """Build the Textual app (imported only now) and run it until it exits."""
    from ..app import make_app

    app = make_app(
        storage,
        session=session,
        seq=seq,
        page_size=page_size,
        live=live,  # type: ignore[arg-type]
        index=index,
        index_dir=index_dir,
        search=search,
        warm=warm,
        no_writes=no_writes,
        notes_file=notes_file,
    )
    try:
        if signals is not None:
            signals.app_running()
        app.run()
    finally:
        # The app closes its storage on unmount; closing again is harmless and makes
        # sure the -wal/-shm files a browse created are removed whatever stopped it.
        if warm is not None:
            warm.finish()  # its connections are released before the store closes
        asyncio.run(storage.close())
    return app.return_code or 0


def main_browse(arguments: list[str]) -> int:
    """Browse the store the arguments name; bad input or a store that cannot be browsed is
    one line and exit status 2."""
    parser = build_parser()
    args = parser.parse_args(arguments)
    if args.seq is not None and args.session is None:
        parser.error("--seq needs --session ID: sequences number the messages of one session")
    if args.search is not None:
        if args.no_index:
            parser.error("--search needs the index: leave out --no-index")
        from ..index import QueryError, parse

        try:
            parse(args.search)
        except QueryError as error:
            print(f"{PROG}: --search: {one_line(error)}", file=sys.stderr)
            return 2
    run = functools.partial(
        run_app,
        seq=args.seq,
        page_size=args.page_size,
        live=None,
        index=not args.no_index,
        index_dir=args.index_dir,
        search=args.search,
        no_writes=SERVED_NO_WRITES if args.served else None,
        notes_file=args.notes_file,
    )
    if args.more_stores:
        from .browse_many import main_browse_many

        return main_browse_many(args, run)
    secrets = secrets_of(args.store)
    if args.session is not None and not is_full_id(args.session):
        # A prefix (or another runtime's id): one indexed look-up names the session first.
        from ..storage import StoreError

        try:
            args.session = resolve_at(args.store, args.session)
        except SessionChoiceError as error:
            print(f"{PROG}: {one_line(str(error))}", file=sys.stderr)
            return 2
        except StoreError as error:
            return report(error, debug=args.debug, secrets=secrets)
    run = functools.partial(run, session=args.session)
    # A SQLite file: its first screen is read from now on, while Textual and the app load.
    # From the first open, SIGTERM/SIGHUP end the command through the finally below.
    signals = StartupSignals().install()
    pause_collection()  # until the first screen is up (the app ends the hold)
    quick = None
    try:
        quick = reader(args.store, session=args.session, seq=args.seq, page_size=args.page_size)
        if quick is not None and quick.start().preflight():
            return run(lazy_store(args.store, quick), warm=quick, signals=signals)
    finally:
        resume_collection()  # if the app did not end the hold (or never ran)
        signals.restore()
        if quick is not None:
            quick.finish()  # closed (also when it cannot vouch for the store: the storage says why)
            quick.guard.release()  # what it created goes, unless the storage is open (then it stays)
    from ..storage import StoreError, open_store
    from ..storage.target import scrub

    try:
        # The start-up reader's record of the -wal/-shm files: what it created is ours to remove.
        storage = open_store(args.store) if quick is None else open_store(args.store, sidecar_guard=quick.guard)
        problem = asyncio.run(preflight(storage, args.session, args.seq))
    except StoreError as error:
        return report(error, debug=args.debug, secrets=secrets)
    if problem is not None:
        print(f"{PROG}: {one_line(scrub(problem, secrets))}", file=sys.stderr)
        return 2
    return run(storage)
