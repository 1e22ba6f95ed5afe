"""Provides the incremental read queries the side index is built from.

Every query is keyset-paged on an index zett-agent creates: sessions by activity
(``ix_agent_sessions_activity``), Raw Log rows by ``(session_id, sequence)``
(``ux_raw_session_sequence``), snapshots by session. They only read; they return plain
mappings (values as stored, timestamps through the lenient reader) because the index
code converts each row itself and counts what it cannot read.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, select, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection

from .columns import raw_t, read_column, sessions_t, snapshots_t
from .reader import Reader

#: Rows converted between two yields to the event loop (see :func:`_dicts`).
_SLICE = 500
#: Raw Log columns the index reads (``content`` is left out: ``message_json`` has it all).
SCAN_COLUMNS = [
    raw_t.c.session_id,
    raw_t.c.sequence,
    raw_t.c.role,
    raw_t.c.tool_name,
    raw_t.c.message_json,
    raw_t.c.metadata_json,
    raw_t.c.tags_json,
    read_column(raw_t.c.started_at),
    raw_t.c.duration_ns,
    raw_t.c.input_tokens,
    raw_t.c.output_tokens,
    # Usage totals (issue 12): end time and the other token counts.
    read_column(raw_t.c.completed_at),
    raw_t.c.cache_read_tokens,
    raw_t.c.cache_write_tokens,
    raw_t.c.reasoning_tokens,
]


async def _dicts(connection: AsyncConnection, statement: Select[Any]) -> list[Mapping[str, Any]]:
    """The rows of ``statement`` as dicts.

    This runs on the event loop: rows are converted in slices with a yield between them
    (all 10,000 sessions of a big store at once held the loop for 100+ ms), and zipping
    plain tuples with the keys once costs about half of building a mapping per row.
    """
    result = await connection.execute(statement)
    keys = list(result.keys())
    out: list[Mapping[str, Any]] = []
    for rows in result.partitions(_SLICE):
        out.extend(dict(zip(keys, row, strict=True)) for row in rows)
        await asyncio.sleep(0)
    return out


@dataclass(frozen=True)
class Census:
    """How many sessions the store holds and its latest activity (cheap, indexed)."""

    sessions: int
    latest: datetime | None


async def census(reader: Reader) -> Census:
    """Count sessions and read the latest ``updated_at`` (two index lookups)."""

    async def work(connection: AsyncConnection) -> Census:
        count = (await connection.execute(select(func.count()).select_from(sessions_t))).scalar_one()
        latest = (
            await connection.execute(
                select(read_column(sessions_t.c.updated_at)).order_by(sessions_t.c.updated_at.desc()).limit(1)
            )
        ).scalar()
        return Census(int(count), latest if isinstance(latest, datetime) else None)

    return await reader.run(work, consistent=True)


async def active_sessions(reader: Reader, since: datetime | None) -> list[Mapping[str, Any]]:
    """Sessions whose activity is at or after ``since`` (all when None), with their last sequence."""
    last_sequence = (
        select(func.coalesce(func.max(raw_t.c.sequence), 0))
        .where(raw_t.c.session_id == sessions_t.c.id)
        .correlate(sessions_t)
        .scalar_subquery()
    )

    async def work(connection: AsyncConnection) -> list[Mapping[str, Any]]:
        # Built here, after the schema check: a store older than session_type reads it as 0.
        statement = select(*reader.session_columns(), last_sequence.label("last_sequence")).order_by(
            sessions_t.c.updated_at, sessions_t.c.id
        )
        if since is not None:
            statement = statement.where(sessions_t.c.updated_at >= since.replace(tzinfo=None))
        return await _dicts(connection, statement)

    return await reader.run(work)


async def raw_after(reader: Reader, session_id: str, after_sequence: int, limit: int) -> list[Mapping[str, Any]]:
    """Up to ``limit`` Raw Log rows of one session after ``after_sequence``, in order."""
    statement = (
        select(*SCAN_COLUMNS)
        .where(raw_t.c.session_id == session_id, raw_t.c.sequence > after_sequence)
        .order_by(raw_t.c.sequence)
        .limit(limit)
    )

    return await reader.run(lambda connection: _dicts(connection, statement))


async def raw_scan(reader: Reader, after: tuple[str, int] | None, limit: int) -> list[Mapping[str, Any]]:
    """Up to ``limit`` Raw Log rows of the whole store after ``(session_id, sequence)``.

    Ordered by the unique ``(session_id, sequence)`` index, so a full build is one
    keyset walk over the store, whatever its number of sessions.
    """
    statement = select(*SCAN_COLUMNS).order_by(raw_t.c.session_id, raw_t.c.sequence).limit(limit)
    if after is not None:
        statement = statement.where(tuple_(raw_t.c.session_id, raw_t.c.sequence) > tuple_(*after))

    return await reader.run(lambda connection: _dicts(connection, statement))


async def all_snapshot_count(reader: Reader) -> int:
    """How many snapshots the store holds (for a full build's progress total)."""

    async def work(connection: AsyncConnection) -> int:
        return int((await connection.execute(select(func.count()).select_from(snapshots_t))).scalar_one())

    return await reader.run(work)


async def snapshot_scan(reader: Reader, after: str | None, limit: int) -> list[Mapping[str, Any]]:
    """Up to ``limit`` snapshots of the whole store after id ``after``, by id."""
    statement = (
        select(
            snapshots_t.c.id,
            snapshots_t.c.session_id,
            snapshots_t.c.compacted_through_sequence,
            snapshots_t.c.message_json,
            read_column(snapshots_t.c.created_at),
        )
        .order_by(snapshots_t.c.id)
        .limit(limit)
    )
    if after is not None:
        statement = statement.where(snapshots_t.c.id > after)

    return await reader.run(lambda connection: _dicts(connection, statement))


def _anchor(row: Any) -> tuple[str, str, str]:
    return (str(row[0]), str(row[1]), str(row[2]))


async def raw_anchors(reader: Reader) -> list[tuple[str, str, str]]:
    """The Raw Log rows with the lowest and the highest id, as ``(id, session_id, sequence)``.

    Two lookups on the primary key. The Raw Log only grows, so a row once seen stays; the
    side index keeps these to tell a store replaced in place (an older copy restored over
    it, another store copied onto it) from one that grew.
    """
    columns = (raw_t.c.id, raw_t.c.session_id, raw_t.c.sequence)

    async def work(connection: AsyncConnection) -> list[tuple[str, str, str]]:
        found: list[tuple[str, str, str]] = []
        for order in (raw_t.c.id.asc(), raw_t.c.id.desc()):
            row = (await connection.execute(select(*columns).order_by(order).limit(1))).first()
            if row is not None and isinstance(row[0], str):  # a damaged id could not be looked up again
                found.append(_anchor(row))
        return found

    return await reader.run(work, consistent=True)


async def raw_rows_by_id(reader: Reader, ids: list[str]) -> list[tuple[str, str, str]]:
    """The Raw Log rows with these ids, as ``(id, session_id, sequence)`` (those that exist)."""
    statement = select(raw_t.c.id, raw_t.c.session_id, raw_t.c.sequence).where(raw_t.c.id.in_(ids))

    async def work(connection: AsyncConnection) -> list[tuple[str, str, str]]:
        return [_anchor(row) for row in (await connection.execute(statement)).all()]

    return await reader.run(work)
