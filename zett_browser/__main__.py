"""Provides the command line.

``zett-browser [STORE] [--session ID] [--seq N] [--page-size N] [--search QUERY] [--no-index]
[--index-dir DIR]`` browses a store read-only (keeping its side index, in the user cache,
up to date in the background unless ``--no-index``);
``zett-browser demo [PATH] [--keep] [--live]`` writes the demo store and opens it; with
``--live`` a scripted conversation keeps being written and compacted while you watch.

Bad input is one line on stderr and exit status 2, with nothing created: argparse's own
errors too (:class:`OneLineParser`), and any argument holding bytes that are not UTF-8
(:func:`not_utf8`). SIGINT, SIGTERM and SIGHUP end a subcommand cleanly, with exit status
130, 143 or 129 (:func:`run_subcommand`, :mod:`zett_browser.startup.lifecycle`). The
start-up check runs before Textual is even imported and the app is built only when it
will run: for a SQLite file the start-up reader (:func:`zett_browser.startup.launch.begin`)
checks the store and goes on reading the first screen
while Textual loads; when it cannot vouch for the store, :func:`open_store` and
:func:`preflight` give the one-line error (SQLAlchemy is imported only then, or after the
first paint). Every value printed goes through :func:`zett_browser.text.clean`
(a store path or a title may hold ESC), and every secret of a URL is masked, also in
``--debug`` tracebacks.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .cli.args import (
    PROG,
    OneLineParser,
    add_index_dir,
    add_page_size,
    add_store,
    bounded,
    one_line,
    report,
    secrets_of,
)
from .cli.args import (
    preflight as preflight,  # also for tests and tools: the check the app runs
)
from .startup.launch import LazyStore, lazy_store, pause_collection, reader, resume_collection
from .startup.lifecycle import (
    CommandInterrupted,
    CommandSignals,
    StartupSignals,
    end_if_input_left_running,
    on_hangup_exit,
    run_async,
)
from .text import clean

if TYPE_CHECKING:
    from .startup.warmstart import Warm
    from .storage import SQLSessionStorage

#: What a served page (``zett-browser serve``) says instead of writing any file.
SERVED_NO_WRITES = "serve: writing files is disabled in a served page"
#: Sequences are SQLite/SQL INTEGERs: at most 2^63 - 1.
MAX_SEQUENCE = 2**63 - 1
#: Subcommands besides ``demo``: name -> (module, function taking argv, returning the exit
#: status). Each lives in its own module, imported only when it runs.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "index": (".cli.index", "main_index"),
    "search": (".cli.index", "main_search"),
    "export": (".cli.export", "main_export"),
    "context": (".cli.context", "main_context"),
    "usage": (".cli.usage", "main_usage"),
    "serve": (".cli.serve", "main_serve"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG,
        description="Browse the conversation history a zett-agent store keeps. The store is opened read-only.",
        epilog="Commands: `zett-browser demo` (a built-in demo store), `zett-browser index [STORE]` (build the "
        "search index), `zett-browser search [STORE] QUERY` (search from scripts), `zett-browser export [STORE] "
        "--session ID` (Markdown, HTML or JSON), `zett-browser serve [STORE]` (the app in a web page); "
        "each has --help.",
    )
    add_store(parser)
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
    parser.add_argument("--debug", action="store_true", help="show a traceback when the store cannot be opened")
    # Set by `zett-browser serve` for its app processes only: no file is written anywhere.
    parser.add_argument("--served", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--version", action="version", version=f"zett-browser {__version__}")
    return parser


def build_demo_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=f"{PROG} demo",
        description="Write a demo store (realistic agent history, through the storage API) and open it.",
    )
    parser.add_argument(
        "path", nargs="?", type=Path, help="where to write the store, a new file (default: a temporary directory)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary store after exit and print its path")
    parser.add_argument(
        "--live",
        action="store_true",
        help="play a conversation into the store while you watch, compacting it as zett-agent does "
        "(s pauses and resumes, + and - change the speed)",
    )
    add_page_size(parser)
    return parser


def run_demo(argv: list[str]) -> int:
    """Write the demo store, then browse it read-only like any other store."""
    from .demo.store import build_demo_store, demo_path_problem
    from .storage import StoreError, open_store

    args = build_demo_parser().parse_args(argv)
    if args.path is not None and (problem := demo_path_problem(args.path)) is not None:
        print(f"{PROG} demo: {one_line(problem)}", file=sys.stderr)
        return 2
    directory = None
    if args.path is None:
        directory = Path(tempfile.mkdtemp(prefix="zett-browser-demo-"))
        path = directory / "demo.sqlite3"
        if not args.keep:
            on_hangup_exit(partial_rmtree(directory))
    else:
        path = args.path
    from .demo.live import LiveDemo

    live = LiveDemo(str(path)) if args.live else None

    async def prepare() -> None:
        await build_demo_store(path)
        if live is not None:
            await live.step()  # the live session exists before the app opens it
            await live.close()

    try:
        # Until the app runs, a signal ends the demo cleanly: the store half written goes.
        signals = CommandSignals().install()
        try:
            run_async(prepare())
            storage = open_store(path)
        except (OSError, StoreError) as error:
            print(f"{PROG} demo: {one_line(error)}", file=sys.stderr)
            return 2
        except CommandInterrupted as interrupted:
            if directory is None:  # a path of the user's, new (demo_path_problem): ours to remove
                for name in (path, *(Path(f"{path}{suffix}") for suffix in ("-wal", "-shm", "-journal"))):
                    name.unlink(missing_ok=True)
            return interrupted.number + 128
        finally:
            signals.restore()
        session = live.session_id if live is not None else None
        # A temporary demo keeps its index beside it (removed with it), not in the cache.
        # The live demo (a writer in this very process, folded on exit) is browsed without.
        index_dir = directory / "index" if directory is not None else None
        try:
            return run_app(
                storage,
                session=session,
                seq=None,
                page_size=args.page_size,
                live=live,
                index=live is None,
                index_dir=index_dir,
            )
        finally:
            if live is not None:
                asyncio.run(fold_demo_wal(path))
    finally:
        if directory is not None and not args.keep:
            shutil.rmtree(directory, ignore_errors=True)
        elif directory is not None:
            print(f"{PROG}: the demo store is kept at {clean(path)}")


def partial_rmtree(directory: Path) -> Callable[[], None]:
    """Remove ``directory`` (a temporary demo store and its index), ignoring errors."""
    return functools.partial(shutil.rmtree, directory, ignore_errors=True)


async def fold_demo_wal(path: Path) -> None:
    """Checkpoint the live demo's WAL into the demo store, so no -wal/-shm stay beside it.

    The demo wrote while the app browsed read-only, so neither could fold the WAL in on
    close. The demo store is the demo's own file: one writing open and close folds it.
    """
    if not path.exists():
        return
    from .storage import SQLiteSessionStorage

    writer = SQLiteSessionStorage(path)
    try:
        await writer.list_sessions(limit=1)
    finally:
        await writer.close()


def run_app(
    storage: SQLSessionStorage | LazyStore,
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
) -> int:
    """Build the Textual app (imported only now) and run it until it exits."""
    from .app import make_app

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


def main(argv: list[str] | None = None) -> int:
    """Run the app; bad input or a store that cannot be browsed is one line and exit status 2."""
    code = run_command(argv)
    # Last, once every clean-up of the command ran (the live demo folds its WAL into its
    # store after the app returned): a process kept alive by Textual's input thread ends.
    end_if_input_left_running(code)
    return code


#: Options whose value is only a file name for the file system: any bytes do.
BYTES_OPTIONS = ("--output",)
BYTES_PREFIXES = tuple(f"{option}=" for option in BYTES_OPTIONS)


def not_utf8(arguments: list[str]) -> str | None:
    """Why an argument cannot be used, when one holds bytes that are not UTF-8; else None.

    Python hands such bytes over as lone surrogates (``surrogateescape``): no driver can
    bind them, no terminal can print them, and no zett-agent id, store path or query holds
    them. An export's ``--output`` file name is only ever given to the file system: it may.
    """
    for number, argument in enumerate(arguments, 1):
        if number > 1 and arguments[number - 2] in BYTES_OPTIONS or argument.startswith(BYTES_PREFIXES):
            continue
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError:
            shown = repr(os.fsencode(argument)[:60])
            return f"argument {number} is not valid UTF-8 ({shown}); give ids, paths and queries as UTF-8 text"
    return None


def run_subcommand(name: str, argv: list[str]) -> int:
    """Run one of :data:`SUBCOMMANDS`; a signal ends it cleanly with 128 + its number.

    SIGINT, SIGTERM and SIGHUP are handled from before its module is imported
    (:class:`CommandSignals`; on its event loop :func:`~zett_browser.startup.lifecycle.run_async`
    cancels the work instead). ``serve`` keeps its own handling.
    """
    module_name, function_name = SUBCOMMANDS[name]
    signals = CommandSignals().install() if name != "serve" else None
    try:
        module = importlib.import_module(module_name, __package__)
        command: Callable[[list[str]], int] = getattr(module, function_name)
        return command(argv)
    except CommandInterrupted as interrupted:
        return interrupted.number + 128
    finally:
        if signals is not None:
            signals.restore()


def run_command(argv: list[str] | None) -> int:
    """What :func:`main` runs: the browser, the demo or a subcommand."""
    arguments = sys.argv[1:] if argv is None else argv
    if (problem := not_utf8(arguments)) is not None:
        print(f"{PROG}: {problem}", file=sys.stderr)
        return 2
    if arguments[:1] == ["demo"]:
        return run_demo(arguments[1:])
    if arguments and arguments[0] in SUBCOMMANDS:
        return run_subcommand(arguments[0], arguments[1:])
    parser = build_parser()
    args = parser.parse_args(arguments)
    if args.seq is not None and args.session is None:
        parser.error("--seq needs --session ID: sequences number the messages of one session")
    if args.search is not None:
        if args.no_index:
            parser.error("--search needs the index: leave out --no-index")
        from .index import QueryError, parse

        try:
            parse(args.search)
        except QueryError as error:
            print(f"{PROG}: --search: {one_line(error)}", file=sys.stderr)
            return 2
    secrets = secrets_of(args.store)
    run = functools.partial(
        run_app,
        session=args.session,
        seq=args.seq,
        page_size=args.page_size,
        live=None,
        index=not args.no_index,
        index_dir=args.index_dir,
        search=args.search,
        no_writes=SERVED_NO_WRITES if args.served else None,
    )
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
    from .storage import StoreError, open_store
    from .storage.target import scrub

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


if __name__ == "__main__":
    raise SystemExit(main())
