"""Provides the reads the time-travel context needs: Raw Log rows with their stored
envelopes, and one snapshot version's stored envelope.

Both are bounded: a page of rows cut by the ``(session_id, sequence)`` index, or one
snapshot found by its unique ``(session_id, version)`` index. Nothing here decodes more
rows than it returns or writes anything.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.context import ContextRow
from .columns import RAW_COLUMNS, snapshots_t
from .keyset import bind
from .rawpages import raw_keyset, raw_position
from .reader import Reader
from .rows import record_from_row


def _text(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return None


async def context_page(
    reader: Reader,
    session_id: str,
    *,
    after_sequence: int,
    before_sequence: int,
    after_id: str | None = None,
    limit: int = 200,
) -> list[ContextRow]:
    """Up to ``limit`` rows with ``after_sequence < sequence < before_sequence``, in
    (sequence, id) order, each with its stored envelope; ``after_id`` continues after
    that exact row (duplicate sequences in a damaged store are neither lost nor repeated)."""
    if limit < 1:
        raise ValueError("limit must be positive")

    async def work(connection: AsyncConnection) -> list[ContextRow]:
        after = await raw_position(connection, session_id, after_sequence, after_id)
        rows = await raw_keyset(reader, connection, RAW_COLUMNS, session_id, after, descending=False, limit=limit)
        page = []
        for row in rows:
            record = record_from_row(row)
            if record.sequence >= before_sequence:
                break
            page.append(ContextRow(record=record, envelope=_text(row["message_json"])))
        return page

    return await reader.run(work)


async def snapshot_envelope(reader: Reader, session_id: str, version: int) -> str | None:
    """The stored ``message_json`` of one snapshot version, or None when absent."""
    statement = select(snapshots_t.c.message_json).where(
        snapshots_t.c.session_id == bind(session_id), snapshots_t.c.version == version
    )

    async def work(connection: AsyncConnection) -> str | None:
        return _text((await connection.execute(statement)).scalar())

    return await reader.run(work)


__all__ = ["context_page", "snapshot_envelope"]
