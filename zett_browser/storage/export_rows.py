"""Provides the rows an export reads, as stored: every column, no conversion that could fail.

An export in JSON must hold the session rows and zett-agent's message envelopes unchanged
(so writing them back reproduces the store), and an export in Markdown or HTML renders the
same rows as records. Both read the Raw Log here, a keyset page at a time on the
``(session_id, sequence)`` index with the row id as tie-break (:mod:`.keyset`), so a
100,000-message session costs one page of memory, and a duplicate, NULL or text sequence is
still read exactly once.

Values come back as the driver gives them (SQLite: timestamps as their stored text);
:func:`record_of` turns one into a :class:`RawMessageRecord` through the same lenient
converter the Raw Log uses.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select, type_coerce
from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.records import RawMessageRecord, SnapshotInfo
from .columns import raw_t, sessions_t, snapshots_t
from .keyset import Position, bind
from .labels import result_link
from .rawpages import raw_keyset
from .reader import Reader
from .rows import RawValue, StoredDateTime, record_from_row, snapshot_info_from_row

#: Raw Log columns in the table's order, each read as stored.
_RAW = [type_coerce(column, RawValue()).label(column.name) for column in raw_t.columns]
_SNAPSHOTS = [type_coerce(column, RawValue()).label(column.name) for column in snapshots_t.columns]
_TIMES = (
    "started_at",
    "completed_at",
    "reasoning_started_at",
    "reasoning_completed_at",
    "content_started_at",
    "content_completed_at",
    "created_at",
    "updated_at",
)
_READER = StoredDateTime()


def record_of(row: Mapping[str, Any]) -> RawMessageRecord:
    """The record the Raw Log shows for a stored row (problems noted, never raising)."""
    converted = dict(row)
    for name in _TIMES:
        converted[name] = _READER.process_result_value(row[name], None)
    return record_from_row(converted)


def snapshot_of(row: Mapping[str, Any]) -> SnapshotInfo:
    """The snapshot version a stored ``session_snapshots`` row holds (summary decoded, never raising)."""
    converted = dict(row)
    for name in ("created_at", "updated_at"):
        converted[name] = _READER.process_result_value(row.get(name), None)
    return snapshot_info_from_row(converted)


def _dicts(rows: Sequence[Mapping[Any, Any]]) -> list[dict[str, Any]]:
    """Rows as dicts: names zipped with each row's values (``dict(mapping)`` looks each name
    up again: three times slower, a third of a JSON export's read)."""
    if not rows:
        return []
    names = list(rows[0].keys())
    return [dict(zip(names, row.values(), strict=True)) for row in rows]


def after_row(row: Mapping[str, Any]) -> Position:
    """The keyset position just after ``row``."""
    return Position(key=row["sequence"], null_key=row["sequence"] is None, id=row["id"])


async def stored_session(reader: Reader, session_id: str) -> dict[str, Any] | None:
    """The ``agent_sessions`` row as stored (``session_type`` 0 in a store older than it)."""

    async def work(connection: AsyncConnection) -> dict[str, Any] | None:
        # Built here: whether the store has ``session_type`` is known once it is opened.
        columns = [
            type_coerce(sessions_t.c.id, RawValue()).label("id"),
            type_coerce(sessions_t.c.parent_session_id, RawValue()).label("parent_session_id"),
            reader.session_type.label("session_type"),
            type_coerce(sessions_t.c.title, RawValue()).label("title"),
            type_coerce(sessions_t.c.agent_name, RawValue()).label("agent_name"),
            type_coerce(sessions_t.c.created_at, RawValue()).label("created_at"),
            type_coerce(sessions_t.c.updated_at, RawValue()).label("updated_at"),
        ]
        statement = select(*columns).where(sessions_t.c.id == bind(session_id))
        row = (await connection.execute(statement)).mappings().first()
        return dict(row) if row is not None else None

    return await reader.run(work)


async def stored_snapshots(reader: Reader, session_id: str) -> list[dict[str, Any]]:
    """Every ``session_snapshots`` row of a session as stored, by version."""
    statement = (
        select(*_SNAPSHOTS)
        .where(snapshots_t.c.session_id == bind(session_id))
        .order_by(snapshots_t.c.version, snapshots_t.c.id)
    )

    async def work(connection: AsyncConnection) -> list[dict[str, Any]]:
        return [dict(row) for row in (await connection.execute(statement)).mappings()]

    return await reader.run(work)


async def stored_raw_page(reader: Reader, session_id: str, after: Position | None, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` ``raw_messages`` rows after ``after`` (None: the first), in (sequence, id) order."""

    async def work(connection: AsyncConnection) -> list[dict[str, Any]]:
        rows = await raw_keyset(reader, connection, _RAW, session_id, after, descending=False, limit=limit)
        return _dicts(rows)

    return await reader.run(work)


async def task_links(reader: Reader, parent_id: str) -> dict[str, str]:
    """``tool_call_id`` -> delegated session id, from the parent's ``task`` and ``task_start`` results.

    zett-agent's ``task`` tool answers with a JSON object naming the child's
    ``session_id``; the rows are filtered in SQL (role, tool name) on the session index,
    and only those results are decoded. Unreadable results link nothing.
    """
    statement = (
        select(raw_t.c.message_json)
        .where(raw_t.c.session_id == bind(parent_id), raw_t.c.role == 4, raw_t.c.tool_name.in_(("task", "task_start")))
        .order_by(raw_t.c.sequence)
    )

    async def work(connection: AsyncConnection) -> dict[str, str]:
        links: dict[str, str] = {}
        for (message_json,) in (await connection.execute(statement)).all():
            link = result_link(message_json)
            if link is not None:
                links.setdefault(link[0], link[1])
        return links

    return await reader.run(work)


__all__ = [
    "after_row",
    "record_of",
    "snapshot_of",
    "stored_raw_page",
    "stored_session",
    "stored_snapshots",
    "task_links",
]
