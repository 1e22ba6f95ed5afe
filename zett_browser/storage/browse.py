"""Provides the browser queries and the public storage classes.

Each query costs O(page), not O(store): pages are cut by keyset cursors on indexed
columns, and per-session counts are correlated subqueries evaluated for the page's
rows only (never a GROUP BY over every message, as zett-agent's ``list_sessions``
does).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import aliased
from sqlalchemy.sql import Select
from sqlalchemy.sql.elements import ColumnElement

from ..model.records import (
    Page,
    SessionCursor,
    SessionNode,
)
from .api import DocumentedReads
from .core import raw_t, sessions_t, snapshots_t
from .rawlog import RawLogQueries
from .rows import node_from_row
from .writes import DocumentedWrites

#: Deepest ancestor chain followed for a breadcrumb (guards against parent cycles).
MAX_DEPTH = 256


def _naive(cursor: SessionCursor) -> Any:
    return cursor.at.astimezone(UTC).replace(tzinfo=None)


class SQLSessionStorage(RawLogQueries, DocumentedReads, DocumentedWrites):
    """zett-agent's storage API plus the queries a history browser needs.

    The tree queries live here; the Raw Log queries in :class:`.rawlog.RawLogQueries`,
    the documented API in :mod:`.api` and :mod:`.writes`, the plumbing in :mod:`.core`.
    """

    def _node_columns(self) -> list[ColumnElement[Any]]:
        children = aliased(sessions_t, name="child")
        child_count = (
            select(func.count())
            .select_from(children)
            .where(children.c.parent_session_id == sessions_t.c.id)
            .correlate(sessions_t)
            .scalar_subquery()
        )
        snapshot_count = (
            select(func.count())
            .where(snapshots_t.c.session_id == sessions_t.c.id)
            .correlate(sessions_t)
            .scalar_subquery()
        )
        # The last sequence, read from the unique (session_id, sequence) index in O(log n).
        # zett-agent assigns sequences 1, 2, 3 ... and never deletes single rows, so it
        # equals the row count, without counting 100,000 index entries of a long session.
        last_sequence = (
            select(func.coalesce(func.max(raw_t.c.sequence), 0))
            .where(raw_t.c.session_id == sessions_t.c.id)
            .correlate(sessions_t)
            .scalar_subquery()
        )
        return [
            *self._session_columns(),
            last_sequence.label("message_count"),
            child_count.label("child_count"),
            snapshot_count.label("snapshot_count"),
        ]

    async def _node_page(self, ids: Select[Any], limit: int, *, newest_first: bool, key: str) -> Page[SessionNode]:
        """Fetch ``limit + 1`` ids by keyset, then the page's nodes with their counts."""
        if limit < 1:
            raise ValueError("limit must be positive")
        page_sq = ids.limit(limit + 1).subquery("page")
        order_column = sessions_t.c[key]
        ordering = (
            (order_column.desc(), sessions_t.c.id.desc())
            if newest_first
            else (order_column.asc(), sessions_t.c.id.asc())
        )

        async def work(connection: AsyncConnection) -> Page[SessionNode]:
            statement = (
                select(*self._node_columns())
                .join_from(sessions_t, page_sq, page_sq.c.id == sessions_t.c.id)
                .order_by(*ordering)
            )
            rows = (await connection.execute(statement)).mappings().all()
            nodes = [node_from_row(row) for row in rows[:limit]]
            more = len(rows) > limit and nodes
            cursor = None
            if more:
                last = nodes[-1]
                cursor = SessionCursor(
                    at=last.updated_at if key == "updated_at" else last.created_at, session_id=last.session_id
                )
            return Page(items=nodes, next_cursor=cursor)

        return await self._read(work)

    @staticmethod
    def _after(cursor: SessionCursor | None, key: str, *, newest_first: bool) -> list[ColumnElement[bool]]:
        if cursor is None:
            return []
        column = sessions_t.c[key]
        at = _naive(cursor)
        if newest_first:
            return [or_(column < at, and_(column == at, sessions_t.c.id < cursor.session_id))]
        return [or_(column > at, and_(column == at, sessions_t.c.id > cursor.session_id))]

    async def list_roots(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        """Root sessions (no parent), newest activity first, one keyset page."""
        ids = (
            select(sessions_t.c.id)
            # Written so no index on parent_session_id can serve it: the planner then walks
            # the activity index newest first and stops after a page, instead of sorting
            # every root of the store (2.5 ms vs 0.05 ms on 10,000 sessions).
            .where(
                func.coalesce(sessions_t.c.parent_session_id, "") == "",
                *self._after(cursor, "updated_at", newest_first=True),
            )
            .order_by(sessions_t.c.updated_at.desc(), sessions_t.c.id.desc())
        )
        return await self._node_page(ids, limit, newest_first=True, key="updated_at")

    async def list_children(
        self, session_id: str, *, limit: int = 100, cursor: SessionCursor | None = None
    ) -> Page[SessionNode]:
        """Sessions delegated by ``session_id``, in the order they were created."""
        ids = (
            select(sessions_t.c.id)
            .where(sessions_t.c.parent_session_id == session_id, *self._after(cursor, "created_at", newest_first=False))
            .order_by(sessions_t.c.created_at.asc(), sessions_t.c.id.asc())
        )
        return await self._node_page(ids, limit, newest_first=False, key="created_at")

    async def list_orphans(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        """Delegated sessions whose parent row is missing, newest activity first.

        This walks delegated sessions by activity until a page of orphans is found, so
        it costs O(delegated sessions) in the worst case (it never touches messages).
        """
        parents = aliased(sessions_t, name="parent")
        parent_exists = select(parents.c.id).where(parents.c.id == sessions_t.c.parent_session_id).exists()
        ids = (
            select(sessions_t.c.id)
            .where(
                sessions_t.c.parent_session_id.is_not(None),
                ~parent_exists,
                *self._after(cursor, "updated_at", newest_first=True),
            )
            .order_by(sessions_t.c.updated_at.desc(), sessions_t.c.id.desc())
        )
        return await self._node_page(ids, limit, newest_first=True, key="updated_at")

    async def get_node(self, session_id: str) -> SessionNode | None:
        """One session as a tree node, or None."""

        async def work(connection: AsyncConnection) -> SessionNode | None:
            statement = select(*self._node_columns()).where(sessions_t.c.id == session_id)
            row = (await connection.execute(statement)).mappings().first()
            return node_from_row(row) if row is not None else None

        return await self._read(work)

    async def ancestors(self, session_id: str) -> list[SessionNode]:
        """The chain of parents of a session, root first (present rows only)."""

        async def work(connection: AsyncConnection) -> list[SessionNode]:
            chain: list[SessionNode] = []
            seen = {session_id}
            parent = (
                await connection.execute(select(sessions_t.c.parent_session_id).where(sessions_t.c.id == session_id))
            ).scalar()
            while parent is not None and parent not in seen and len(chain) < MAX_DEPTH:
                seen.add(parent)
                row = (
                    (await connection.execute(select(*self._node_columns()).where(sessions_t.c.id == parent)))
                    .mappings()
                    .first()
                )
                if row is None:
                    break
                node = node_from_row(row)
                chain.append(node)
                parent = node.parent_session_id
            chain.reverse()
            return chain

        return await self._read(work, consistent=True)


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
    ) -> None:
        if isinstance(path, str) and "://" in path:
            raise ValueError("SQLiteSessionStorage takes a file path; use SQLSessionStorage for a URL")
        super().__init__(Path(path) if path is not None else None, read_only=read_only, clock=clock)


def open_store(target: str | os.PathLike[str] | URL | None) -> SQLSessionStorage:
    """Open a store for browsing: read-only, checked, never created or changed."""
    return SQLSessionStorage(target, read_only=True)
