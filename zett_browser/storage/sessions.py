"""Provides the session reads the documented API shares: one row, a summary, the last sequence.

Each takes the :class:`~.reader.Reader` (for its schema facts) and a connection the
caller's read or write already holds.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from ..model.messages import CompactedMessage
from .columns import raw_t, sessions_t
from .reader import Reader
from .rows import StoreDataError, snapshot_info_from_row, summary_from_row

if TYPE_CHECKING:  # pydantic: loaded by the calls that build these
    from ..model.documented import ContextSnapshot, SessionSummary


def message_count() -> ColumnElement[int]:
    """A session's Raw Log row count, correlated to ``sessions_t``."""
    return select(func.count()).where(raw_t.c.session_id == sessions_t.c.id).correlate(sessions_t).scalar_subquery()


async def session_row(reader: Reader, connection: AsyncConnection, session_id: str) -> Any:
    """The session's stored columns as a mapping, or None."""
    result = await connection.execute(select(*reader.session_columns()).where(sessions_t.c.id == session_id))
    return result.mappings().first()


async def summary(reader: Reader, connection: AsyncConnection, session_id: str) -> SessionSummary | None:
    """The session's summary (with its message count), or None."""
    statement = select(*reader.session_columns(), message_count().label("message_count")).where(
        sessions_t.c.id == session_id
    )
    row = (await connection.execute(statement)).mappings().first()
    return summary_from_row(row) if row is not None else None


async def last_sequence(connection: AsyncConnection, session_id: str) -> int:
    """The session's largest Raw Log sequence (0 without rows)."""
    value = await connection.scalar(select(func.max(raw_t.c.sequence)).where(raw_t.c.session_id == session_id))
    return int(value or 0)


def context_snapshot(row: Mapping[Any, Any]) -> ContextSnapshot:
    """A snapshot row as zett-agent's ``ContextSnapshot``.

    Raises:
        StoreDataError: It does not hold exactly one CompactedMessage (a ``ValueError``
            too, as zett-agent raises).
    """
    info = snapshot_info_from_row(row)
    if info.problems or not isinstance(info.message, CompactedMessage):
        # A StoreError for the browser, still the ValueError zett-agent raises here.
        why = "; ".join(info.problems) or "not a CompactedMessage"
        raise StoreDataError(
            f"Context snapshot must contain exactly one CompactedMessage (version {info.version}: {why:.200})"
        )
    assert info.created_at is not None and info.updated_at is not None
    from ..model.documented import ContextSnapshot

    return ContextSnapshot(
        id=info.id,
        session_id=info.session_id,
        version=info.version,
        compacted_message=info.message,
        compacted_through_sequence=info.compacted_through_sequence,
        created_at=info.created_at,
        updated_at=info.updated_at,
    )


__all__ = ["context_snapshot", "last_sequence", "message_count", "session_row", "summary"]
