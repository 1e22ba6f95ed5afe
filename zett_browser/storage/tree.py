"""Provides the session-tree queries: roots, children, orphans, one node, ancestors.

Every session is reachable exactly once from roots, children and orphans, also in a
damaged store:

- A session whose parent row is missing is an orphan. A parent of ``''`` counts as no
  parent (a root), never as a missing one.
- Sessions in a parent cycle (A → B → A, or a self-parent) reach no root. Each cycle is
  listed once among the orphans through its smallest id (its *representative*, marked
  "parent cycle"); the others hang below it as children, and the representative is
  left out of its parent's children, so expanding never loops.

Costs: roots and children are O(page) keyset walks (:mod:`.keyset`). ``list_children``
adds one recursive look-up up the parent's own chain (O(depth), a few index probes) to
notice a cycle. ``list_orphans`` walks delegated sessions by activity until a page is
found, as before (O(delegated sessions) at worst, never messages), plus one pass over
the session ids to find cycle representatives (see :meth:`SessionTree._cycle_representatives`);
start-up asks it for one orphan only.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from sqlalchemy import Integer, String, and_, bindparam, func, literal, or_, select, type_coerce
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import Select
from sqlalchemy.sql.elements import ColumnElement

from ..model.records import Page, SessionCursor, SessionNode
from .columns import raw_t, sessions_t, snapshots_t
from .convert import BadText, node_from_row
from .keyset import Position, bind, first_page_rows, first_page_statements, keyset_rows
from .nodebatch import nodes_by_id
from .reader import Reader
from .rows import RawValue
from .shaping import CYCLE_PROBLEM, MAX_DEPTH, node_page, walk_ancestors, with_problem


def _position(cursor: SessionCursor | None, key: str) -> Position | None:
    """The keyset position of a cursor; one without a stored key compares its time."""
    if cursor is None:
        return None
    if cursor.key is not None or cursor.null_key:
        return Position(key=cursor.key, null_key=cursor.null_key, id=cursor.session_id)
    naive = cursor.at.astimezone(UTC).replace(tzinfo=None)
    return Position(key=literal(naive, sessions_t.c[key].type), null_key=False, id=cursor.session_id)


class SessionTree:
    """The queries that build the session tree, over one store's reader.

    It keeps the statements it builds once per schema shape (the node columns, the first
    children page and the cycle check): the storage facade holds one per store.
    """

    def __init__(self, reader: Reader) -> None:
        self.reader = reader

    def _node_columns(self) -> list[ColumnElement[Any]]:
        """The node's columns and per-node counts (correlated to ``sessions_t``).

        Built once per schema shape and reused: constructing the three correlated subqueries
        was most of a tree refresh's time on the event loop (a poll with 100 expanded nodes
        built them 100 times).
        """
        shape = self.reader.has_session_type
        cached = self.__dict__.get("_node_columns_cache")
        if cached is not None and cached[0] == shape:
            return list(cached[1])
        columns = self._build_node_columns()
        self.__dict__["_node_columns_cache"] = (shape, tuple(columns))
        return columns

    def _build_node_columns(self) -> list[ColumnElement[Any]]:
        children = sessions_t.alias("child")
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
            *self.reader.session_columns(),
            last_sequence.label("message_count"),
            child_count.label("child_count"),
            snapshot_count.label("snapshot_count"),
        ]

    def _with_counts(self, page: Select[Any], ordering: tuple[ColumnElement[Any], ...]) -> Select[Any]:
        """Join a keyset page's ids to the node columns (counts only for the page's rows)."""
        ids = page.subquery("page")
        return (
            select(*self._node_columns(), ids.c.sort_key)
            .join_from(sessions_t, ids, ids.c.id == sessions_t.c.id)
            .order_by(*ordering)
        )

    async def _node_page(
        self,
        connection: AsyncConnection,
        where: list[ColumnElement[bool]],
        limit: int,
        *,
        cursor: SessionCursor | None,
        newest_first: bool,
        key: str,
    ) -> tuple[list[SessionNode], SessionCursor | None]:
        """One keyset page of nodes (``limit + 1`` rows read to know if more follow).

        The keyset picks the page's ids in a subquery; only those rows get the correlated
        counts (never every candidate row).
        """
        sort_key = type_coerce(sessions_t.c[key], RawValue())
        base = select(sessions_t.c.id, sort_key.label("sort_key")).where(*where)
        rows = await keyset_rows(
            connection,
            base,
            key=sort_key,
            row_id=sessions_t.c.id,
            after=_position(cursor, key),
            descending=newest_first,
            nulls_low=self.reader.nulls_low,
            limit=limit + 1,
            nullable=self.reader.may_be_null("agent_sessions", key),
            wrap=self._with_counts,
        )
        return node_page(rows, limit, key)

    def _prepared(self) -> _Prepared:
        """The first-children-page and cycle statements, built once per schema shape.

        A live tree's poll re-reads the first page of every expanded node's children:
        building their statements anew for each node was most of a poll's time on the
        event loop (and its garbage set off full collections).
        """
        shape = (
            self.reader.has_session_type,
            self.reader.may_be_null("agent_sessions", "created_at"),
            self.reader.nulls_low,
        )
        cached: _Prepared | None = self.__dict__.get("_prepared_cache")
        if cached is not None and cached.shape == shape:
            return cached
        sort_key = type_coerce(sessions_t.c.created_at, RawValue())
        parent = bindparam(PARENT_PARAMETER, type_=String())
        base = select(sessions_t.c.id, sort_key.label("sort_key")).where(sessions_t.c.parent_session_id == parent)
        children = first_page_statements(
            base,
            key=sort_key,
            row_id=sessions_t.c.id,
            descending=False,
            nulls_low=self.reader.nulls_low,
            nullable=shape[1],
            wrap=self._with_counts,
        )
        prepared = _Prepared(shape, tuple(children), _cycle_statement(bindparam(PARENT_PARAMETER, type_=String())))
        self.__dict__["_prepared_cache"] = prepared
        return prepared

    async def list_roots(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        """Root sessions (no parent), newest activity first, one keyset page."""
        if limit < 1:
            raise ValueError("limit must be positive")
        # Written so no index on parent_session_id can serve it: the planner then walks
        # the activity index newest first and stops after a page, instead of sorting
        # every root of the store (2.5 ms vs 0.05 ms on 10,000 sessions).
        where = [func.coalesce(sessions_t.c.parent_session_id, "") == ""]

        async def work(connection: AsyncConnection) -> Page[SessionNode]:
            nodes, after = await self._node_page(
                connection, where, limit, cursor=cursor, newest_first=True, key="updated_at"
            )
            return Page(items=nodes, next_cursor=after)

        return await self.reader.run(work)

    async def list_children(
        self, session_id: str, *, limit: int = 100, cursor: SessionCursor | None = None
    ) -> Page[SessionNode]:
        """Sessions delegated by ``session_id``, in the order they were created.

        In a parent cycle the cycle's representative (listed among the orphans) is left
        out, and members are marked, so expanding the cycle ends.
        """
        if limit < 1:
            raise ValueError("limit must be positive")

        async def work(connection: AsyncConnection) -> Page[SessionNode]:
            return await self._children_page(connection, session_id, limit, cursor)

        return await self.reader.run(work)

    async def _children_page(
        self, connection: AsyncConnection, session_id: str, limit: int, cursor: SessionCursor | None
    ) -> Page[SessionNode]:
        members = await self._cycle_of(connection, session_id)
        if cursor is None and not members and not isinstance(session_id, BadText):
            # The common case (a first page, no cycle): the prepared statements.
            parameters = {PARENT_PARAMETER: session_id}
            rows = await first_page_rows(connection, self._prepared().children, parameters, limit + 1)
            nodes, after = node_page(rows, limit, "created_at")
            return Page(items=nodes, next_cursor=after)
        where: list[ColumnElement[bool]] = [sessions_t.c.parent_session_id == bind(session_id)]
        if members:
            representative = await connection.scalar(
                select(func.min(sessions_t.c.id)).where(sessions_t.c.id.in_([bind(m) for m in members]))
            )
            where.append(sessions_t.c.id != bind(representative))
        nodes, after = await self._node_page(
            connection, where, limit, cursor=cursor, newest_first=False, key="created_at"
        )
        marked = [with_problem(n, CYCLE_PROBLEM) if n.session_id in members else n for n in nodes]
        return Page(items=marked, next_cursor=after)

    async def tree_refresh(
        self, session_ids: Sequence[str], *, roots_limit: int = 100, children_limit: int = 100
    ) -> tuple[Page[SessionNode], dict[str, Page[SessionNode]]]:
        """The first page of roots and of each session's children, in one pooled read.

        A live tree's change poll re-reads every expanded node: one connection for all of
        them instead of a read (a checkout, a round of awaits) per node. Not one transaction:
        on a store without WAL a long read would hold the writer off.
        """
        if roots_limit < 1 or children_limit < 1:
            raise ValueError("limit must be positive")
        where = [func.coalesce(sessions_t.c.parent_session_id, "") == ""]

        async def work(connection: AsyncConnection) -> tuple[Page[SessionNode], dict[str, Page[SessionNode]]]:
            nodes, after = await self._node_page(
                connection, where, roots_limit, cursor=None, newest_first=True, key="updated_at"
            )
            children = {
                session_id: await self._children_page(connection, session_id, children_limit, None)
                for session_id in dict.fromkeys(session_ids)
            }
            return Page(items=nodes, next_cursor=after), children

        return await self.reader.run(work)

    async def _cycle_of(self, connection: AsyncConnection, session_id: str) -> list[Any]:
        """The members of the parent cycle ``session_id`` is in, or [] (one recursive query)."""
        if not isinstance(session_id, BadText):
            result = await connection.execute(self._prepared().cycle, {PARENT_PARAMETER: session_id})
        else:  # an id read back as undecodable text: bound from its bytes
            result = await connection.execute(_cycle_statement(bind(session_id)))
        chain = [row[0] for row in result]
        if session_id not in chain:
            return []
        return chain[: chain.index(session_id) + 1]

    def _cycle_representatives(self) -> Select[Any]:
        """Ids of the smallest member of each parent cycle.

        A representative's parent is another member, so its id sorts after the
        representative's own (or equals it: a self-parent). The walk therefore starts
        only at sessions whose parent id is not smaller than their own and whose parent
        is itself delegated. zett-agent's ids are UUIDv7 (time-ordered) and a parent is
        created before its children, so in a healthy store no walk starts at all: the
        cost is one pass over the sessions' ids.
        """
        parent = sessions_t.alias("p")
        up = sessions_t.alias("up")
        anchor = (
            select(
                sessions_t.c.id.label("start"),
                sessions_t.c.parent_session_id.label("cur"),
                literal(1, Integer).label("depth"),
            )
            .join_from(sessions_t, parent, parent.c.id == sessions_t.c.parent_session_id)
            .where(
                sessions_t.c.parent_session_id >= sessions_t.c.id,
                func.coalesce(parent.c.parent_session_id, "") != "",
            )
        )
        walk = anchor.cte("cycle_walk", recursive=True)
        step = (
            select(walk.c.start, up.c.parent_session_id, walk.c.depth + 1)
            .join_from(walk, up, up.c.id == walk.c.cur)
            .where(walk.c.cur != walk.c.start, walk.c.depth < MAX_DEPTH)
        )
        walk = walk.union_all(step)
        smaller = select(walk.c.start).where(walk.c.cur < walk.c.start)
        return select(walk.c.start).where(walk.c.cur == walk.c.start, walk.c.start.not_in(smaller))

    async def list_orphans(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        """Delegated sessions whose parent row is missing, and one member of each parent
        cycle (marked "parent cycle"), newest activity first.
        """
        if limit < 1:
            raise ValueError("limit must be positive")
        parents = sessions_t.alias("parent")
        parent_exists = select(parents.c.id).where(parents.c.id == sessions_t.c.parent_session_id).exists()
        missing_parent = and_(func.coalesce(sessions_t.c.parent_session_id, "") != "", ~parent_exists)
        where = [or_(missing_parent, sessions_t.c.id.in_(self._cycle_representatives()))]

        async def work(connection: AsyncConnection) -> Page[SessionNode]:
            nodes, after = await self._node_page(
                connection, where, limit, cursor=cursor, newest_first=True, key="updated_at"
            )
            parent_ids = [bind(n.parent_session_id) for n in nodes if n.parent_session_id]
            found = await connection.execute(select(sessions_t.c.id).where(sessions_t.c.id.in_(parent_ids)))
            present = set(found.scalars())
            marked = [with_problem(n, CYCLE_PROBLEM) if n.parent_session_id in present else n for n in nodes]
            return Page(items=marked, next_cursor=after)

        return await self.reader.run(work)

    async def get_node(self, session_id: str) -> SessionNode | None:
        """One session as a tree node, or None."""

        async def work(connection: AsyncConnection) -> SessionNode | None:
            statement = select(*self._node_columns()).where(sessions_t.c.id == bind(session_id))
            row = (await connection.execute(statement)).mappings().first()
            return node_from_row(row) if row is not None else None

        return await self.reader.run(work)

    async def get_nodes(self, session_ids: Sequence[str]) -> list[SessionNode]:
        """The sessions among ``session_ids`` that exist, as tree nodes, in the order given."""
        return await nodes_by_id(self.reader, self._node_columns(), session_ids)

    async def ancestors(self, session_id: str) -> list[SessionNode]:
        """The chain of parents of a session, root first (present rows only).

        Stops after :data:`MAX_DEPTH` parents or when the chain comes back to a session
        already in it; the topmost node then carries the "parent cycle" problem.
        """

        async def work(connection: AsyncConnection) -> list[SessionNode]:
            statement = select(sessions_t.c.parent_session_id).where(sessions_t.c.id == bind(session_id))
            walk = walk_ancestors(session_id, (await connection.execute(statement)).scalar())
            try:
                parent = next(walk)
                while True:
                    statement = select(*self._node_columns()).where(sessions_t.c.id == bind(parent))
                    parent = walk.send((await connection.execute(statement)).mappings().first())
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]

        return await self.reader.run(work, consistent=True)


#: The bound parameter of the prepared statements: the parent (or session) id.
PARENT_PARAMETER = "zett_parent"


@dataclass(frozen=True, slots=True)
class _Prepared:
    """Statements built once and run with :data:`PARENT_PARAMETER` (see ``_prepared``)."""

    shape: tuple[bool, bool, bool]
    children: tuple[Select[Any], ...]
    cycle: Select[Any]


def _cycle_statement(session: ColumnElement[Any]) -> Select[Any]:
    """The parent chain above ``session``, nearest first, up to where it comes back to it."""
    parents = sessions_t.alias("up")
    anchor = select(sessions_t.c.parent_session_id.label("cur"), literal(1, Integer).label("depth")).where(
        sessions_t.c.id == session
    )
    walk = anchor.cte("walk", recursive=True)
    step = (
        select(parents.c.parent_session_id, walk.c.depth + 1)
        .join_from(walk, parents, parents.c.id == walk.c.cur)
        .where(walk.c.cur != session, walk.c.depth < MAX_DEPTH)
    )
    walk = walk.union_all(step)
    return select(walk.c.cur).order_by(walk.c.depth)


__all__ = ["CYCLE_PROBLEM", "MAX_DEPTH", "PARENT_PARAMETER", "SessionTree"]
