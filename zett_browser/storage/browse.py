"""Provides the browser queries and the public storage classes.

The queries themselves live by concern in :mod:`.tree` and :mod:`.rawlog`. Each costs
O(page), not O(store): pages are cut by keyset cursors on indexed columns
(:mod:`.keyset`), and per-session counts are correlated subqueries evaluated for the
page's rows only (never a GROUP BY over every message, as zett-agent's
``list_sessions`` does).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from sqlalchemy.engine import URL

from .api import DocumentedReads
from .compaction import CompactionQueries
from .context import ContextQueries
from .labels import ChildLabelQueries
from .rawlog import RawLogQueries
from .sidecars import SidecarGuard
from .timing import TimingQueries
from .tree import MAX_DEPTH, TreeQueries
from .writes import DocumentedWrites


class SQLSessionStorage(
    CompactionQueries,
    ChildLabelQueries,
    TimingQueries,
    TreeQueries,
    ContextQueries,
    RawLogQueries,
    DocumentedReads,
    DocumentedWrites,
):
    """zett-agent's storage API plus the queries a history browser needs.

    The tree queries live in :mod:`.tree`, the Raw Log queries in :mod:`.rawlog`, the
    documented API in :mod:`.api` and :mod:`.writes`, the plumbing in :mod:`.core`.
    """


class SQLiteSessionStorage(SQLSessionStorage):
    """SQLite file storage, zett-agent's documented ``SQLiteSessionStorage``.

    Args:
        path: The SQLite file; None uses ``~/.zett-agent/sessions.sqlite3``. Opened for
            writing, parent directories are created during construction and tables by
            the first awaited call, as zett-agent does.
        read_only: Browse without changing anything (see
            :meth:`SQLSessionStorage.open_for_browsing`).

    Example:
        Use a temporary database in tests::

            with TemporaryDirectory() as directory:
                storage = SQLiteSessionStorage(Path(directory) / "sessions.sqlite3")
                try:
                    session = await storage.create_session(title="Documentation review")
                    assert await storage.get_session(session.session_id) == session
                finally:
                    await storage.close()
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        read_only: bool = False,
        clock: Callable[[], datetime] | None = None,
        sidecar_guard: SidecarGuard | None = None,
    ) -> None:
        if isinstance(path, str) and "://" in path:
            raise ValueError("SQLiteSessionStorage takes a file path; use SQLSessionStorage for a URL")
        target = Path(path) if path is not None else None
        super().__init__(target, read_only=read_only, clock=clock, sidecar_guard=sidecar_guard)


def open_store(
    target: str | os.PathLike[str] | URL | None, *, sidecar_guard: SidecarGuard | None = None
) -> SQLSessionStorage:
    """Open a store for browsing: read-only, checked, never created or changed.

    ``sidecar_guard``: the guard the start-up reader recorded before it opened the same file.
    """
    return SQLSessionStorage(target, read_only=True, sidecar_guard=sidecar_guard)


__all__ = ["MAX_DEPTH", "SQLSessionStorage", "SQLiteSessionStorage", "open_store"]
