"""Provides the system rows a request appended: the system prompt the model had at a step.

zett-agent 0.2.1 appends the system prompt (and the tool guidelines, MCP servers,
filesystem environment rows) at the start of every request, ``include_in_messages``
false: ``load()`` never gives them back, but they are exactly what that request sent.
One statement on the ``request_id`` index, bounded by :data:`LIMIT` rows.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.records import RawMessageRecord
from .columns import RAW_COLUMNS, raw_t
from .reader import Reader
from .rows import record_from_row

#: System rows read for one request (zett-agent writes two to four).
LIMIT = 16
_SYSTEM = 1


async def request_system_rows(
    reader: Reader, session_id: str, request_id: str, *, before_sequence: int | None = None
) -> list[RawMessageRecord]:
    """The system rows of one request (before ``before_sequence``), in sequence order."""

    async def work(connection: AsyncConnection) -> list[RawMessageRecord]:
        return await request_system_rows_on(connection, session_id, request_id, before_sequence=before_sequence)

    return await reader.run(work)


async def request_system_rows_on(
    connection: AsyncConnection, session_id: str, request_id: str, *, before_sequence: int | None = None
) -> list[RawMessageRecord]:
    """:func:`request_system_rows` on an open connection."""
    statement = select(*RAW_COLUMNS).where(
        raw_t.c.session_id == session_id, raw_t.c.request_id == request_id, raw_t.c.role == _SYSTEM
    )
    if before_sequence is not None:
        statement = statement.where(raw_t.c.sequence < before_sequence)
    statement = statement.order_by(raw_t.c.sequence).limit(LIMIT)
    return [record_from_row(row) for row in (await connection.execute(statement)).mappings()]


__all__ = ["LIMIT", "request_system_rows", "request_system_rows_on"]
