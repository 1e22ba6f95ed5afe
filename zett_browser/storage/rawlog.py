"""Provides the browser's Raw Log queries: keyset pages, bounds, totals, snapshots.

Every query is bounded by one session and served by the ``(session_id, sequence)``
index; none decodes more rows than it returns. Rows come back as records with
``problems`` when a value cannot be read (:mod:`.rows`).
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from datetime import datetime
from typing import Any

from sqlalchemy import func, literal_column, select, type_coerce
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import GenericFunction, char_length

from ..model.records import RawLogBounds, RawMessageRecord, SessionTotals, SnapshotInfo
from .columns import RAW_COLUMNS, SNAPSHOT_COLUMNS, raw_t, sessions_t, snapshots_t
from .keyset import bind
from .rawpages import raw_keyset, raw_position
from .reader import Reader
from .rows import RawValue, StoredDateTime, record_from_row, snapshot_info_from_row
from .shaping import as_int, bounds_from_row


@compiles(char_length, "sqlite")
def _sqlite_char_length(element: char_length, compiler: SQLCompiler, **kw: Any) -> str:
    """SQLite's length() counts characters; it has no char_length()."""
    return f"length({compiler.process(element.clauses, **kw)})"


class safe_sum(GenericFunction[Any]):  # noqa: N801 - named like SQLAlchemy's functions
    """``sum()`` that cannot fail: SQLite's integer ``sum()`` raises "integer overflow" past 2**63-1.

    On SQLite it is ``total()`` (a float sum, exact below 2**53; two damaged counts of 2**62
    no longer fail a session's totals); other databases widen their sums (NUMERIC, DECIMAL).
    """

    name = "sum"
    _register = False  # not func.sum: that stays SQLAlchemy's
    inherit_cache = True


@compiles(safe_sum, "sqlite")
def _sqlite_safe_sum(element: safe_sum, compiler: SQLCompiler, **kw: Any) -> str:
    return f"total({compiler.process(element.clauses, **kw)})"


#: Largest stored integer: ``sequence <= _LARGEST`` keeps numbers only (SQLite sorts
#: text and blobs above every number).
_LARGEST = 2**63 - 1


async def list_snapshots(reader: Reader, session_id: str) -> list[SnapshotInfo]:
    """Every snapshot version of a session, oldest first; unreadable ones say why."""
    statement = select(*SNAPSHOT_COLUMNS).where(snapshots_t.c.session_id == session_id).order_by(snapshots_t.c.version)

    async def work(connection: AsyncConnection) -> list[SnapshotInfo]:
        return [snapshot_info_from_row(row) for row in (await connection.execute(statement)).mappings()]

    return await reader.run(work)


async def snapshot_mark(reader: Reader, session_id: str) -> tuple[int, str | None]:
    """How many snapshot versions a session has and the newest id: a cheap change check.

    A poll compares it before re-reading :meth:`list_snapshots`, which decodes every
    version (2,500 summaries on a long compacted session).
    """
    statement = select(func.count(), func.max(snapshots_t.c.id)).where(snapshots_t.c.session_id == session_id)

    async def work(connection: AsyncConnection) -> tuple[int, str | None]:
        count, newest = (await connection.execute(statement)).one()
        return int(count or 0), None if newest is None else str(newest)

    return await reader.run(work)


async def raw_page(
    reader: Reader,
    session_id: str,
    *,
    after_sequence: int | None = 0,
    after_id: str | None = None,
    limit: int = 50,
) -> list[RawMessageRecord]:
    """Up to ``limit`` Raw Log records after a position, in (sequence, id) order.

    ``after_sequence=None`` starts at the very first row (sequences <= 0 and NULL
    included); a number alone keeps rows with a greater sequence. With ``after_id``
    (the last record's id) the page continues after that exact row, so duplicate
    sequences at a page edge are never skipped and a text sequence never repeats
    a page.
    """
    if limit < 1:
        raise ValueError("limit must be positive")

    async def work(connection: AsyncConnection) -> list[RawMessageRecord]:
        return await raw_page_on(reader, connection, session_id, after_sequence, after_id, limit)

    return await reader.run(work)


async def raw_page_on(
    reader: Reader,
    connection: AsyncConnection,
    session_id: str,
    after_sequence: int | None,
    after_id: str | None,
    limit: int,
) -> list[RawMessageRecord]:
    """:func:`raw_page` on an open connection."""
    after = await raw_position(connection, session_id, after_sequence, after_id)
    rows = await raw_keyset(reader, connection, RAW_COLUMNS, session_id, after, descending=False, limit=limit)
    return [record_from_row(row) for row in rows]


async def raw_page_before(
    reader: Reader,
    session_id: str,
    *,
    before_sequence: int | None = None,
    before_id: str | None = None,
    limit: int = 50,
) -> list[RawMessageRecord]:
    """Up to ``limit`` records just before a position, ascending; None: the last page.

    The mirror of :meth:`raw_page`: with ``before_id`` the page ends just before that
    exact row.
    """
    if limit < 1:
        raise ValueError("limit must be positive")

    async def work(connection: AsyncConnection) -> list[RawMessageRecord]:
        return await raw_page_before_on(reader, connection, session_id, before_sequence, before_id, limit)

    return await reader.run(work)


async def raw_page_before_on(
    reader: Reader,
    connection: AsyncConnection,
    session_id: str,
    before_sequence: int | None,
    before_id: str | None,
    limit: int,
) -> list[RawMessageRecord]:
    """:func:`raw_page_before` on an open connection."""
    before = None
    if before_sequence is not None or before_id is not None:
        before = await raw_position(connection, session_id, before_sequence, before_id)
    rows = await raw_keyset(reader, connection, RAW_COLUMNS, session_id, before, descending=True, limit=limit)
    records = [record_from_row(row) for row in rows]
    records.reverse()
    return records


async def raw_bounds(reader: Reader, session_id: str) -> RawLogBounds:
    """First and last integer sequence and the number of Raw Log rows of a session.

    ``count`` counts every row, also those whose sequence is NULL or not a number
    (they are paged too, see :meth:`raw_page`); the bounds are integers or None.
    """
    where: list[Any] = [raw_t.c.session_id == bind(session_id)]
    numbers = list(where)
    if reader.dialect == "sqlite":  # only SQLite lets text into an INTEGER column
        numbers.append(raw_t.c.sequence <= _LARGEST)  # an index range: min/max stay O(log n)
    statement = select(
        select(func.min(raw_t.c.sequence)).where(*numbers).scalar_subquery(),
        select(func.max(raw_t.c.sequence)).where(*numbers).scalar_subquery(),
        select(func.count()).select_from(raw_t).where(*where).scalar_subquery(),
    )

    async def work(connection: AsyncConnection) -> RawLogBounds:
        return bounds_from_row((await connection.execute(statement)).one())

    return await reader.run(work)


async def session_totals(reader: Reader, session_id: str) -> SessionTotals:
    """Messages by kind, summed token counters and durations of one session."""

    def total(column: Any) -> Any:
        return func.coalesce(safe_sum(column), 0)

    sums = select(
        func.count(),
        total(raw_t.c.input_tokens),
        total(raw_t.c.output_tokens),
        total(raw_t.c.cache_read_tokens),
        total(raw_t.c.cache_write_tokens),
        total(raw_t.c.reasoning_tokens),
        total(raw_t.c.duration_ns),
        total(raw_t.c.reasoning_duration_ns),
        total(raw_t.c.content_duration_ns),
        # Read raw: a garbage timestamp must not fail the totals (it is reported as None).
        func.min(type_coerce(raw_t.c.started_at, RawValue())),
        func.max(type_coerce(raw_t.c.completed_at, RawValue())),
    ).where(raw_t.c.session_id == session_id)
    kinds = select(raw_t.c.role, func.count()).where(raw_t.c.session_id == session_id).group_by(raw_t.c.role)

    async def work(connection: AsyncConnection) -> SessionTotals:
        row = (await connection.execute(sums)).one()
        by_kind: dict[int, int] = {}
        for role, count in (await connection.execute(kinds)).all():
            code = as_int(role)  # a role that is no number counts as kind 0 (unknown)
            by_kind[code or 0] = by_kind.get(code or 0, 0) + int(count)
        reader = StoredDateTime()
        first = reader.process_result_value(row[9], None)
        last = reader.process_result_value(row[10], None)
        return SessionTotals(
            messages=int(row[0]),
            by_kind=by_kind,
            input_tokens=as_int(row[1]) or 0,
            output_tokens=as_int(row[2]) or 0,
            cache_read_tokens=as_int(row[3]) or 0,
            cache_write_tokens=as_int(row[4]) or 0,
            reasoning_tokens=as_int(row[5]) or 0,
            duration_ns=as_int(row[6]) or 0,
            reasoning_duration_ns=as_int(row[7]) or 0,
            content_duration_ns=as_int(row[8]) or 0,
            first_started_at=first if isinstance(first, datetime) else None,
            last_completed_at=last if isinstance(last, datetime) else None,
        )

    return await reader.run(work, consistent=True)


async def text_size(reader: Reader, session_id: str, *, through_sequence: int | None = None) -> int:
    """Characters of plain text (the ``content`` column) in a Raw Log prefix.

    The inspector estimates the tokens a snapshot saves from it (about 4 characters a
    token); it reads the text copy column, never decodes messages.
    """
    statement = select(func.coalesce(func.sum(char_length(raw_t.c.content)), 0)).where(raw_t.c.session_id == session_id)
    if through_sequence is not None:
        statement = statement.where(raw_t.c.sequence <= through_sequence)

    async def work(connection: AsyncConnection) -> int:
        return int((await connection.execute(statement)).scalar() or 0)

    return await reader.run(work)


async def change_token(reader: Reader) -> tuple[object, ...]:
    """A cheap value that changes whenever a session, message or snapshot is committed.

    Session creations and updates move the newest ``updated_at`` (read from the
    activity index); a new snapshot moves the largest snapshot id (UUIDv7,
    time-ordered, read from the primary key); an append moves the last Raw Log row
    (SQLite's rowid, which no stored value can mask; elsewhere the largest UUIDv7 id).
    Three index look-ups, whatever the store's size, on any dialect; compare tokens to
    decide whether anything needs re-reading. The newest ``updated_at`` is read raw:
    a garbage value there (which sorts above every timestamp) is still a token, and
    appends still move the last row.
    """
    last_row = literal_column("rowid") if reader.dialect == "sqlite" else raw_t.c.id
    statement = select(
        select(func.max(type_coerce(sessions_t.c.updated_at, RawValue()))).scalar_subquery(),
        select(func.max(snapshots_t.c.id)).scalar_subquery(),
        select(func.max(last_row)).select_from(raw_t).scalar_subquery(),
    )

    async def work(connection: AsyncConnection) -> tuple[object, ...]:
        return tuple((await connection.execute(statement)).one())

    return await reader.run(work)


__all__ = [
    "change_token",
    "list_snapshots",
    "raw_bounds",
    "raw_page",
    "raw_page_before",
    "raw_page_before_on",
    "raw_page_on",
    "safe_sum",
    "session_totals",
    "snapshot_mark",
    "text_size",
]
