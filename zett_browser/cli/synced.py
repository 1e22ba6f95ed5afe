"""Provides a store's side index brought up to date for a subcommand (``search``, ``usage``).

:func:`synced_index` reads an unchanged SQLite store's index straight away
(:func:`~zett_browser.index.fresh.fresh_index`: no SQL storage loaded) and syncs any
other, with a progress line (:func:`sync_with_progress`). It lives apart from
:mod:`.index` so ``usage`` loads no part of search (the query language, the hit reader).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..index.fresh import fresh_index
from ..startup.lifecycle import run_async
from ..storage.sqlitefile import sqlite_path

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from ..index.sync import Progress, SideIndex, SyncReport

#: Rows per batch of the sync (``index.sync.BATCH``; that module loads the SQL storage).
BATCH = 2000


def _progress_line(progress: Progress) -> str:
    eta = f", {progress.eta:.0f} s left" if progress.eta is not None else ""
    return f"\rindexing {progress.done:,}/{progress.total:,} rows ({progress.rate:,.0f}/s{eta})   "


async def sync_with_progress(index: SideIndex, *, rebuild: bool, show: bool) -> SyncReport:
    """Sync with a progress line on a terminal (``show``: also every 20,000 rows elsewhere)."""
    from ..index.sync import SyncReport

    report = SyncReport()
    shown = False
    try:
        async for progress in index.steps(rebuild=rebuild):
            if progress.report is not None:
                report = progress.report
            elif sys.stderr.isatty() or show and progress.done and progress.done % 20_000 < BATCH:
                print(_progress_line(progress), end="", file=sys.stderr, flush=True)
                shown = True
    finally:
        if shown:
            print(file=sys.stderr)  # ends the progress line, also when a signal stopped the sync
        await index.storage.close()
    return report


def synced_index(store: str | None, directory: Path | None, *, show: bool = False) -> tuple[Path, bool]:
    """The index file of ``store``, brought up to date first, and whether another process
    was updating it (the sync was skipped: it may be incomplete).

    A SQLite store whose index a sync would leave as it is (:func:`~..index.fresh.fresh_index`)
    is read straight away, with no SQL storage loaded; any other store is opened and synced
    (``show``: with a progress line, see :func:`sync_with_progress`).

    Raises:
        StoreError: the store cannot be browsed. OSError, sqlite3.Error: the index cannot be written.
    """
    local = sqlite_path(store)
    if local is not None and (path := fresh_index(local, directory)) is not None:
        return path, False
    from ..index.sync import SideIndex
    from ..storage import SQLSessionStorage

    index = SideIndex(SQLSessionStorage.open_for_browsing(store), directory)
    report = run_async(sync_with_progress(index, rebuild=False, show=show))
    return index.path, report.skipped


__all__ = ["BATCH", "sync_with_progress", "synced_index"]
