"""Provides the documented reading half of zett-agent 0.2.1's storage API.

``list_sessions``, ``get_session``, ``count_messages``, ``list_raw_messages`` and
``load`` keep zett-agent's names, arguments and records. A row that cannot be read
comes back as a record with ``problems`` (see :mod:`.rows`), never as a failed call.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.records import RawMessageRecord
from .columns import RAW_COLUMNS, SNAPSHOT_COLUMNS, raw_t, sessions_t, snapshots_t
from .reader import Reader
from .rows import record_from_row, summary_from_row
from .sessions import context_snapshot, message_count, session_row, summary
from .validation import session_type_code

if TYPE_CHECKING:  # pydantic: loaded by the calls that build these
    from ..model.documented import SessionSummary, SessionView


async def list_raw_messages(
    reader: Reader,
    session_id: str,
    *,
    after_sequence: int = 0,
    through_sequence: int | None = None,
    limit: int = 10_000,
    offset: int = 0,
) -> list[RawMessageRecord]:
    """The body of :meth:`.documented.DocumentedAPI.list_raw_messages` (its docstring is the one source)."""
    if after_sequence < 0:
        raise ValueError("after_sequence cannot be negative")
    if through_sequence is not None and through_sequence < 1:
        raise ValueError("through_sequence must be positive")
    if limit < 1:
        raise ValueError("limit must be positive")
    if offset < 0:
        raise ValueError("offset cannot be negative")
    statement = select(*RAW_COLUMNS).where(raw_t.c.session_id == session_id, raw_t.c.sequence > after_sequence)
    if through_sequence is not None:
        statement = statement.where(raw_t.c.sequence <= through_sequence)
    statement = statement.order_by(raw_t.c.sequence).offset(offset).limit(limit)

    async def work(connection: AsyncConnection) -> list[RawMessageRecord]:
        result = await connection.execute(statement)
        return [record_from_row(row) for row in result.mappings()]

    return await reader.run(work)


async def list_sessions(
    reader: Reader,
    *,
    session_types: Sequence[int] | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[SessionSummary]:
    """The body of :meth:`.documented.DocumentedAPI.list_sessions` (its docstring is the one source)."""
    if limit < 1:
        raise ValueError("limit must be positive")
    if offset < 0:
        raise ValueError("offset cannot be negative")
    codes = tuple(session_type_code(value) for value in session_types) if session_types else None

    async def work(connection: AsyncConnection) -> list[SessionSummary]:
        # Built here, after the schema check: old stores lack session_type.
        page = select(sessions_t.c.id, sessions_t.c.updated_at)
        if codes is not None:
            page = page.where(reader.session_type.in_(codes))
        page_sq = (
            page.order_by(sessions_t.c.updated_at.desc(), sessions_t.c.id.desc()).offset(offset).limit(limit)
        ).subquery("page")
        statement = (
            select(*reader.session_columns(), message_count().label("message_count"))
            .join_from(sessions_t, page_sq, page_sq.c.id == sessions_t.c.id)
            .order_by(sessions_t.c.updated_at.desc(), sessions_t.c.id.desc())
        )
        result = await connection.execute(statement)
        return [summary_from_row(row) for row in result.mappings()]

    return await reader.run(work)


async def count_messages(reader: Reader, session_id: str) -> int:
    """The body of :meth:`.documented.DocumentedAPI.count_messages` (its docstring is the one source)."""

    async def work(connection: AsyncConnection) -> int:
        value = await connection.scalar(select(func.count()).where(raw_t.c.session_id == session_id))
        return int(value or 0)

    return await reader.run(work)


async def get_session(reader: Reader, session_id: str) -> SessionSummary | None:
    """The body of :meth:`.documented.DocumentedAPI.get_session` (its docstring is the one source)."""
    return await reader.run(lambda connection: summary(reader, connection, session_id))


async def load(reader: Reader, session_id: str) -> SessionView:
    """The body of :meth:`.documented.DocumentedAPI.load` (its docstring is the one source)."""

    async def work(connection: AsyncConnection) -> SessionView:
        stored = await session_row(reader, connection, session_id)
        snapshot_row = (
            (
                await connection.execute(
                    select(*SNAPSHOT_COLUMNS)
                    .where(snapshots_t.c.session_id == session_id)
                    .order_by(snapshots_t.c.version.desc())
                    .limit(1)
                )
            )
            .mappings()
            .first()
        )
        snapshot = context_snapshot(snapshot_row) if snapshot_row is not None else None
        boundary = snapshot.compacted_through_sequence if snapshot is not None else 0
        rows = await connection.execute(
            select(*RAW_COLUMNS)
            .where(raw_t.c.session_id == session_id, raw_t.c.sequence > boundary)
            .order_by(raw_t.c.sequence)
        )
        values: dict[str, Any] = {
            "parent_session_id": stored["parent_session_id"] if stored else None,
            "session_type": stored["session_type"] if stored else 0,
            "title": stored["title"] if stored else None,
            "agent_name": stored["agent_name"] if stored else None,
            "snapshot": snapshot,
            "raw_tail": [record_from_row(row) for row in rows.mappings()],
        }
        from ..model.documented import SessionView

        try:
            return SessionView.model_validate(values)
        except ValueError:
            return SessionView.model_construct(**values)

    return await reader.run(work, consistent=True)


__all__ = ["count_messages", "get_session", "list_raw_messages", "list_sessions", "load"]
