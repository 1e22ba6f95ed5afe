"""Provides ``zett-browser demo [PATH] [--keep] [--live]``: write the demo store and browse it.

With ``--live`` a scripted conversation keeps being written and compacted while you watch.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..startup.lifecycle import CommandInterrupted, CommandSignals, on_hangup_exit, run_async
from ..text import clean
from .args import PROG, OneLineParser, add_page_size, one_line
from .browse import run_app


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


def main_demo(argv: list[str]) -> int:
    """Write the demo store, then browse it read-only like any other store."""
    from ..demo.store import build_demo_store, demo_path_problem
    from ..storage import StoreError, open_store

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
    from ..demo.live import LiveDemo

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
    from ..storage import SQLiteSessionStorage

    writer = SQLiteSessionStorage(path)
    try:
        await writer.list_sessions(limit=1)
    finally:
        await writer.close()
