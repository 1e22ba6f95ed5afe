"""Provides the browser queries and the public storage classes.

The queries themselves live by concern in :mod:`.tree`, :mod:`.rawlog` and their
neighbours (see :mod:`.facade`). Each costs
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

from ..model.records import SessionNode
from .documented import DocumentedAPI
from .facade import BrowserQueries
from .sidecars import SidecarGuard
from .tree import MAX_DEPTH


class SQLSessionStorage(
    BrowserQueries,
    DocumentedAPI,
):
    """zett-agent's storage API plus the queries a history browser needs.

    The tree, Raw Log, context, compaction, timing and label reads live in query modules
    that take the store's :class:`~.reader.Reader`, called from :mod:`.facade`; the
    documented API in :mod:`.documented` (its bodies in :mod:`.api` and :mod:`.writes`);
    the connections in :mod:`.reader`, the life cycle in :mod:`.core`.
    """

    async def warm_up(self, *, page_size: int = 50, children_page: int = 200) -> None:
        """Run once each query that a first key press makes, for a session no store holds.

        SQLAlchemy compiles a statement the first time it runs (5-10 ms each, on the event
        loop) and reuses it after: without this, the first page turn, expand or session
        opened paid for compiling its statements (30 ms of a first expand's 90 ms). Each
        read here is an index look-up that finds nothing; nothing is written.
        """
        absent = WARM_UP_SESSION
        nodes = [
            SessionNode(
                session_id=f"{absent}:{index}",
                parent_session_id=absent,
                session_type=0,
                title=None,
                agent_name=None,
                created_at=datetime(2000, 1, 1),
                updated_at=datetime(2000, 1, 1),
                message_count=0,
                child_count=0,
                snapshot_count=0,
            )
            for index in range(children_page)
        ]
        await self.raw_page(absent, after_sequence=None, limit=page_size)  # first page, g
        await self.raw_page(absent, after_sequence=1, after_id=absent, limit=page_size)  # n
        await self.raw_page_before(absent, before_sequence=1, before_id=absent, limit=page_size)  # p
        await self.raw_page_before(absent, limit=page_size)  # G
        await self.list_children(absent, limit=children_page)  # expand
        # (The label queries name each untitled child: one statement per page length.)
        await self.child_labels(absent, nodes)
        await self.get_node(absent)  # open a session
        await self.raw_bounds(absent)
        await self.all_snapshot_versions(absent)
        await self.snapshot_version(absent)
        await self.ancestors(absent)


#: A session id no zett-agent store holds (zett-agent's are UUIDs): :meth:`warm_up` reads it.
WARM_UP_SESSION = "zett-browser:warm-up"


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
