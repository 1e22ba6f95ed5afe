"""Provides the rows after each snapshot's boundary, for when and by what it was made (:mod:`..model.origins`).

For up to :data:`VERSIONS` versions: a range of at most :data:`WINDOW` rows from each
boundary (the small columns only: sequence, role, request id, created time), each range
served by the ``(session_id, sequence)`` index; windows close together are read as one range.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from sqlalchemy import bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.compaction import SnapshotMeta
from ..model.origins import Origin, OriginRow, origin
from .columns import raw_t, read_column
from .reader import Reader

#: Rows read from a boundary on: the snapshot is looked for among them.
WINDOW = 64
#: Newest versions whose origin is read (older ones stay unknown: a long session has thousands).
VERSIONS = 200
#: Rows between two versions' windows read rather than asked for apart (a statement costs ~1 ms).
GAP = 4 * WINDOW


def _spans(starts: list[int]) -> list[tuple[int, int]]:
    """The ranges to read for sorted boundaries: each boundary's window, and windows no more
    than :data:`GAP` rows apart read as one range (a session compacted every 40 messages: its
    200 newest versions are one range of ~8,000 small rows)."""
    spans: list[tuple[int, int]] = []
    for start in starts:
        if spans and start - spans[-1][1] <= GAP:
            spans[-1] = (spans[-1][0], max(spans[-1][1], start + WINDOW))
        else:
            spans.append((start, start + WINDOW))
    return spans


async def snapshot_origins(reader: Reader, session_id: str, versions: Sequence[SnapshotMeta]) -> dict[int, Origin]:
    """What made each of the newest :data:`VERSIONS` ``versions`` (version number -> origin)."""
    chosen = [meta for meta in versions if meta.created_at is not None][-VERSIONS:]
    if not chosen:
        return {}
    created = read_column(raw_t.c.created_at)
    # Ranges on the (session_id, sequence) index, the statement built once: an OR of 200
    # BETWEENs in one statement scanned the whole session (100,000 rows: ~330 ms CPU).
    statement = (
        select(raw_t.c.sequence, raw_t.c.role, raw_t.c.request_id, created)
        .where(raw_t.c.session_id == session_id, raw_t.c.sequence.between(bindparam("start"), bindparam("stop")))
        .order_by(raw_t.c.sequence)
    )

    async def work(connection: AsyncConnection) -> dict[int, Origin]:
        rows: list[OriginRow] = []
        for first, stop in _spans(sorted(meta.compacted_through_sequence for meta in chosen)):
            result = await connection.execute(statement, {"start": first, "stop": stop})
            rows.extend(
                OriginRow(int(sequence), int(role), str(request_id), made if hasattr(made, "tzinfo") else None)
                for sequence, role, request_id, made in result.all()
                if isinstance(sequence, int) and isinstance(role, int)
            )
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
