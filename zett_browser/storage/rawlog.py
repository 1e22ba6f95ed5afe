"""Provides the browser's Raw Log queries: keyset pages, bounds, totals, snapshots.

Every query is bounded by one session and served by the ``(session_id, sequence)``
index; none decodes more rows than it returns. Rows come back as records with
``problems`` when a value cannot be read (:mod:`.rows`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import char_length

from ..model.records import RawLogBounds, RawMessageRecord, SessionTotals, SnapshotInfo
from .core import RAW_COLUMNS, SNAPSHOT_COLUMNS, SessionStorageCore, raw_t, sessions_t, snapshots_t
from .rows import StoredDateTime, record_from_row, snapshot_info_from_row


@compiles(char_length, "sqlite")
def _sqlite_char_length(element: char_length, compiler: SQLCompiler, **kw: Any) -> str:
    """SQLite's length() counts characters; it has no char_length()."""
    return f"length({compiler.process(element.clauses, **kw)})"


class RawLogQueries(SessionStorageCore):
    """Queries over one session's Raw Log and snapshots, plus the store's change token."""

    async def list_snapshots(self, session_id: str) -> list[SnapshotInfo]:
        """Every snapshot version of a session, oldest first; unreadable ones say why."""
        statement = (
            select(*SNAPSHOT_COLUMNS).where(snapshots_t.c.session_id == session_id).order_by(snapshots_t.c.version)
        )

        async def work(connection: AsyncConnection) -> list[SnapshotInfo]:
            return [snapshot_info_from_row(row) for row in (await connection.execute(statement)).mappings()]

        return await self._read(work)

    async def raw_page(self, session_id: str, *, after_sequence: int = 0, limit: int = 50) -> list[RawMessageRecord]:
        """Up to ``limit`` Raw Log records with sequence > ``after_sequence`` (keyset)."""
        if limit < 1:
            raise ValueError("limit must be positive")
        statement = (
            select(*RAW_COLUMNS)
            .where(raw_t.c.session_id == session_id, raw_t.c.sequence > after_sequence)
            .order_by(raw_t.c.sequence)
            .limit(limit)
        )

        async def work(connection: AsyncConnection) -> list[RawMessageRecord]:
            return [record_from_row(row) for row in (await connection.execute(statement)).mappings()]

        return await self._read(work)

    async def raw_page_before(
        self, session_id: str, *, before_sequence: int | None = None, limit: int = 50
    ) -> list[RawMessageRecord]:
        """Up to ``limit`` records just before ``before_sequence`` (the last page when None), ascending."""
        if limit < 1:
            raise ValueError("limit must be positive")
        statement = select(*RAW_COLUMNS).where(raw_t.c.session_id == session_id)
        if before_sequence is not None:
            statement = statement.where(raw_t.c.sequence < before_sequence)
        statement = statement.order_by(raw_t.c.sequence.desc()).limit(limit)

        async def work(connection: AsyncConnection) -> list[RawMessageRecord]:
            records = [record_from_row(row) for row in (await connection.execute(statement)).mappings()]
            records.reverse()
            return records

        return await self._read(work)

    async def raw_bounds(self, session_id: str) -> RawLogBounds:
        """First and last sequence and the number of Raw Log rows of a session."""
        statement = select(func.min(raw_t.c.sequence), func.max(raw_t.c.sequence), func.count()).where(
            raw_t.c.session_id == session_id
        )

        async def work(connection: AsyncConnection) -> RawLogBounds:
            first, last, count = (await connection.execute(statement)).one()
            return RawLogBounds(first_sequence=first, last_sequence=last, count=int(count or 0))

        return await self._read(work)

    async def session_totals(self, session_id: str) -> SessionTotals:
        """Messages by kind, summed token counters and durations of one session."""

        def total(column: Any) -> Any:
            return func.coalesce(func.sum(column), 0)

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
            func.min(raw_t.c.started_at),
            func.max(raw_t.c.completed_at),
        ).where(raw_t.c.session_id == session_id)
        kinds = select(raw_t.c.role, func.count()).where(raw_t.c.session_id == session_id).group_by(raw_t.c.role)

        async def work(connection: AsyncConnection) -> SessionTotals:
            row = (await connection.execute(sums)).one()
            by_kind = {int(role): int(count) for role, count in (await connection.execute(kinds)).all()}
            reader = StoredDateTime()
            first = reader.process_result_value(row[9], None)
            last = reader.process_result_value(row[10], None)
            return SessionTotals(
                messages=int(row[0]),
                by_kind=by_kind,
                input_tokens=int(row[1]),
                output_tokens=int(row[2]),
                cache_read_tokens=int(row[3]),
                cache_write_tokens=int(row[4]),
                reasoning_tokens=int(row[5]),
                duration_ns=int(row[6]),
                reasoning_duration_ns=int(row[7]),
                content_duration_ns=int(row[8]),
                first_started_at=first if not isinstance(first, str) else None,
                last_completed_at=last if not isinstance(last, str) else None,
            )

        return await self._read(work, consistent=True)

    async def text_size(self, session_id: str, *, through_sequence: int | None = None) -> int:
        """Characters of plain text (the ``content`` column) in a Raw Log prefix.

        The inspector estimates the tokens a snapshot saves from it (about 4 characters a
        token); it reads the text copy column, never decodes messages.
        """
        statement = select(func.coalesce(func.sum(char_length(raw_t.c.content)), 0)).where(
            raw_t.c.session_id == session_id
        )
        if through_sequence is not None:
            statement = statement.where(raw_t.c.sequence <= through_sequence)

        async def work(connection: AsyncConnection) -> int:
            return int((await connection.execute(statement)).scalar() or 0)

        return await self._read(work)

    async def change_token(self) -> tuple[object, ...]:
        """A cheap value that changes whenever a session, message or snapshot is committed.

        Appends and session updates move the newest ``updated_at`` (read from the activity
        index); a new snapshot moves the largest snapshot id (UUIDv7, time-ordered, read
        from the primary key). Two index look-ups, whatever the store's size, on any
        dialect; compare tokens to decide whether anything needs re-reading.
        """
        statement = select(
            select(func.max(sessions_t.c.updated_at)).scalar_subquery(),
            select(func.max(snapshots_t.c.id)).scalar_subquery(),
        )

        async def work(connection: AsyncConnection) -> tuple[object, ...]:
            return tuple((await connection.execute(statement)).one())

        return await self._read(work)


__all__ = ["RawLogQueries"]
