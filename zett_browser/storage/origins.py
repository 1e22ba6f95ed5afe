"""Provides the rows after each snapshot's boundary, for when and by what it was made (:mod:`..model.origins`).

One statement for up to :data:`VERSIONS` versions: a range of at most :data:`WINDOW` rows
from each boundary (the small columns only: sequence, role, request id, created time),
each range served by the ``(session_id, sequence)`` index.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from sqlalchemy import and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.compaction import SnapshotMeta
from ..model.origins import Origin, OriginRow, origin
from .columns import raw_t, read_column
from .reader import Reader

#: Rows read from a boundary on: the snapshot is looked for among them.
WINDOW = 64
#: Newest versions whose origin is read (older ones stay unknown: a long session has thousands).
VERSIONS = 200


async def snapshot_origins(reader: Reader, session_id: str, versions: Sequence[SnapshotMeta]) -> dict[int, Origin]:
    """What made each of the newest :data:`VERSIONS` ``versions`` (version number -> origin)."""
    chosen = [meta for meta in versions if meta.created_at is not None][-VERSIONS:]
    if not chosen:
        return {}
    created = read_column(raw_t.c.created_at)

    async def work(connection: AsyncConnection) -> dict[int, Origin]:
        ranges = [
            raw_t.c.sequence.between(meta.compacted_through_sequence, meta.compacted_through_sequence + WINDOW)
            for meta in chosen
        ]
        statement = (
            select(raw_t.c.sequence, raw_t.c.role, raw_t.c.request_id, created)
            .where(raw_t.c.session_id == session_id, or_(*ranges) if len(ranges) > 1 else and_(*ranges))
            .order_by(raw_t.c.sequence)
        )
        rows = [
            OriginRow(int(sequence), int(role), str(request_id), made if hasattr(made, "tzinfo") else None)
            for sequence, role, request_id, made in (await connection.execute(statement)).all()
            if isinstance(sequence, int) and isinstance(role, int)
        ]
        last = (
            await connection.execute(select(func.max(raw_t.c.sequence)).where(raw_t.c.session_id == session_id))
        ).scalar()
        sequences = [row.sequence for row in rows]
        found: dict[int, Origin] = {}
        for meta in chosen:
            start = meta.compacted_through_sequence
            mine = rows[bisect_left(sequences, start) : bisect_right(sequences, start + WINDOW)]
            complete = isinstance(last, int) and last <= start + WINDOW
            found[meta.version] = origin(meta.created_at, mine, complete=complete)
        return found

    return await reader.run(work)


__all__ = ["VERSIONS", "WINDOW", "snapshot_origins"]
