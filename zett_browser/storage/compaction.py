"""Provides the compaction queries: version metadata pages, one summary, ledger facts, the curve.

A long compacted session has thousands of versions (100,000 messages compacted every 40
hold 2,500); listing them by decoding every summary cost most of opening the session.
Here the versions are listed as metadata in keyset pages on the ``(session_id, version)``
index, a summary is decoded only when asked for, the ledger's facts are read for the
versions on screen only, and the context curve is aggregated per plot column in SQL
(one row per column, whatever the session's length).
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.functions import char_length

from ..model.compaction import CurveColumn, LedgerFacts, RangeText, SnapshotMeta, UsageStep
from ..model.in_force import newest_dated_by
from ..model.messages import CompactedMessage
from ..model.records import SnapshotInfo
from .codec import decode_message_leniently
from .columns import SNAPSHOT_COLUMNS, raw_t, read_column, snapshots_t
from .reader import Reader
from .rows import snapshot_info_from_row
from .shaping import meta_from_row

#: Recorded steps after a boundary looked at to find the first one made after the
#: snapshot was written (rows after the boundary may predate it: the kept tail).
AFTER_LOOKAHEAD = 200
#: Bounds of a range's text read for the diff ("what compaction dropped").
RANGE_ROWS = 2_000
RANGE_ROW_CHARS = 20_000


def _step(row: Any) -> UsageStep | None:
    """A step's usage, or None when its input_tokens is not a whole number (a damaged row)."""
    started = row[3]
    if not isinstance(row[1], int) or isinstance(row[1], bool):
        return None
    return UsageStep(
        sequence=int(row[0]),
        input_tokens=int(row[1]),
        cache_read_tokens=int(row[2]) if isinstance(row[2], int) else None,
        started_at=started if hasattr(started, "tzinfo") else None,
    )


def _made_after(step: UsageStep, meta: SnapshotMeta) -> bool:
    """Whether a step was made after the snapshot was written (unknown times: yes)."""
    return meta.created_at is None or step.started_at is None or step.started_at >= meta.created_at


async def snapshot_versions(
    reader: Reader, session_id: str, *, after_version: int | None = None, limit: int = 1_000
) -> list[SnapshotMeta]:
    """Up to ``limit`` versions after ``after_version`` (from the first when None), by version.

    No summary is decoded: ``stored_chars`` is the stored envelope's length.
    """
    if limit < 1:
        raise ValueError("limit must be positive")
    statement = select(
        snapshots_t.c.id,
        snapshots_t.c.session_id,
        snapshots_t.c.version,
        snapshots_t.c.compacted_through_sequence,
        read_column(snapshots_t.c.created_at),
        char_length(snapshots_t.c.message_json).label("stored_chars"),
    ).where(snapshots_t.c.session_id == session_id)
    if after_version is not None:
        statement = statement.where(snapshots_t.c.version > after_version)
    statement = statement.order_by(snapshots_t.c.version).limit(limit)

    async def work(connection: AsyncConnection) -> list[SnapshotMeta]:
        return [meta_from_row(row) for row in (await connection.execute(statement)).mappings()]

    return await reader.run(work)


async def all_snapshot_versions(reader: Reader, session_id: str, *, page: int = 1_000) -> list[SnapshotMeta]:
    """Every version's metadata, read in keyset pages of ``page``."""
    versions: list[SnapshotMeta] = []
    after: int | None = None
    while True:
        chunk = await snapshot_versions(reader, session_id, after_version=after, limit=page)
        versions.extend(chunk)
        if len(chunk) < page:
            return versions
        after = chunk[-1].version


async def version_in_force(
    reader: Reader, session_id: str, when: datetime | None, *, before_sequence: int | None = None
) -> tuple[int | None, int]:
    """The version ``load()`` returned at ``when`` (None: now) and how many undated versions
    newer than it were left out (:mod:`zett_browser.model.in_force` states the rule).

    Now: the newest version alone, on the ``(session_id, version)`` index. A past ``when``
    (the step of message ``before_sequence``): the candidates (boundary before that message)
    newest first on the same index, the newest alone first: in a store zett-agent wrote it
    is the one (two columns of one row; a compacted session's 2,500 summaries make every
    creation time costly to reach). Only when it is undated or made later are the others
    read. No summary is decoded (:func:`all_snapshot_versions` measures every one).
    """

    async def work(connection: AsyncConnection) -> tuple[int | None, int]:
        return await version_in_force_on(connection, session_id, when, before_sequence=before_sequence)

    return await reader.run(work)


async def version_in_force_on(
    connection: AsyncConnection, session_id: str, when: datetime | None, *, before_sequence: int | None = None
) -> tuple[int | None, int]:
    """:func:`version_in_force` on an open connection (one read of several, as ``locate`` makes)."""
    if when is None:
        newest = (
            select(snapshots_t.c.version)
            .where(snapshots_t.c.session_id == session_id)
            .order_by(snapshots_t.c.version.desc())
            .limit(1)
        )
        version = (await connection.execute(newest)).scalar()
        if version is None or type(version) is int:
            return version, 0
        return await _chosen_among_all(connection, session_id, None, None)
    head = await _candidates(connection, session_id, before_sequence, 1)
    chosen, undated = newest_dated_by(head, when)
    if chosen is None and head:  # undated, or made after the step began: look further
        return await _chosen_among_all(connection, session_id, when, before_sequence)
    return chosen, undated


async def _chosen_among_all(
    connection: AsyncConnection, session_id: str, when: datetime | None, before_sequence: int | None
) -> tuple[int | None, int]:
    """The version in force read from every candidate, when the newest did not decide. A
    version that is not an integer (a damaged row) names no snapshot that could be read
    back: it is passed over, now as at a past step."""
    if when is None:
        candidates = await _candidates(connection, session_id, None, None)
        return next((version for version, _ in candidates if type(version) is int), None), 0
    chosen, undated = newest_dated_by(await _candidates(connection, session_id, before_sequence, None), when)
    return chosen, undated


async def snapshot_in_force_on(
    connection: AsyncConnection, session_id: str, when: datetime | None, *, before_sequence: int | None = None
) -> tuple[SnapshotInfo | None, int]:
    """The snapshot :func:`version_in_force` names, decoded, and the undated versions left out.

    The newest candidate is read whole, in one statement on the ``(session_id, version)``
    index: in a store zett-agent wrote it is the one (now: the newest version; at a past
    step: the newest that summarises only rows before it, made by then). Only when it does
    not decide (undated, made later, a version that is not an integer) are the others read,
    as :func:`version_in_force_on` reads them, and the chosen version with them.
    """
    statement = select(*SNAPSHOT_COLUMNS).where(snapshots_t.c.session_id == session_id)
    if when is not None and before_sequence is not None:
        statement = statement.where(snapshots_t.c.compacted_through_sequence < before_sequence)
    head = (await connection.execute(statement.order_by(snapshots_t.c.version.desc()).limit(1))).mappings().first()
    if head is None:
        return None, 0
    created = head["created_at"]
    if type(head["version"]) is int and (when is None or (isinstance(created, datetime) and created <= when)):
        return snapshot_info_from_row(head), 0
    chosen, undated = await _chosen_among_all(connection, session_id, when, before_sequence)
    return (None if chosen is None else await snapshot_version_on(connection, session_id, chosen)), undated


async def version_candidates(
    reader: Reader, session_id: str, *, before_sequence: int | None, limit: int | None = None
) -> list[tuple[Any, Any]]:
    """``(version, created_at)`` of the versions that may have been in force at the step of
    message ``before_sequence`` (None: any), newest first, on the ``(session_id, version)``
    index (the first ``limit``; None: all)."""

    async def work(connection: AsyncConnection) -> list[tuple[Any, Any]]:
        return await _candidates(connection, session_id, before_sequence, limit)

    return await reader.run(work)


async def _candidates(
    connection: AsyncConnection, session_id: str, before_sequence: int | None, limit: int | None
) -> list[tuple[Any, Any]]:
    statement = select(snapshots_t.c.version, read_column(snapshots_t.c.created_at)).where(
        snapshots_t.c.session_id == session_id
    )
    if before_sequence is not None:
        statement = statement.where(snapshots_t.c.compacted_through_sequence < before_sequence)
    statement = statement.order_by(snapshots_t.c.version.desc())
    if limit is not None:
        statement = statement.limit(limit)
    return [(version, created) for version, created in (await connection.execute(statement)).all()]


async def snapshot_version(reader: Reader, session_id: str, version: int | None = None) -> SnapshotInfo | None:
    """One version with its summary decoded (None: the latest), or None when there is none.

    An unreadable summary comes back with ``problems`` saying why.
    """

    async def work(connection: AsyncConnection) -> SnapshotInfo | None:
        return await snapshot_version_on(connection, session_id, version)

    return await reader.run(work)


async def snapshot_version_on(
    connection: AsyncConnection, session_id: str, version: int | None = None
) -> SnapshotInfo | None:
    """:func:`snapshot_version` on an open connection."""
    statement = select(*SNAPSHOT_COLUMNS).where(snapshots_t.c.session_id == session_id)
    if version is None:
        statement = statement.order_by(snapshots_t.c.version.desc()).limit(1)
    else:
        statement = statement.where(snapshots_t.c.version == version)
    row = (await connection.execute(statement)).mappings().first()
    return snapshot_info_from_row(row) if row is not None else None


async def ledger_facts(
    reader: Reader, session_id: str, versions: Sequence[SnapshotMeta], *, previous_boundary: int = 0
) -> list[LedgerFacts]:
    """The ledger's facts for ``versions`` (consecutive, oldest first).

    ``previous_boundary`` is the boundary of the version before the first one (0 for
    the session's first version). A few index look-ups per version: call it for the
    rows on screen, not for every version of a long session.
    """

    async def work(connection: AsyncConnection) -> list[LedgerFacts]:
        facts = []
        previous = previous_boundary
        for meta in versions:
            facts.append(await _facts(connection, session_id, meta, previous))
            previous = meta.compacted_through_sequence
        return facts

    return await reader.run(work, consistent=True)


async def _facts(connection: AsyncConnection, session_id: str, meta: SnapshotMeta, previous: int) -> LedgerFacts:
    boundary = meta.compacted_through_sequence
    in_session = raw_t.c.session_id == session_id
    covered = (
        await connection.execute(
            select(func.count(), func.coalesce(func.sum(char_length(raw_t.c.content)), 0)).where(
                in_session, raw_t.c.sequence > previous, raw_t.c.sequence <= boundary
            )
        )
    ).one()
    stored = await connection.scalar(
        select(snapshots_t.c.message_json).where(
            snapshots_t.c.session_id == session_id, snapshots_t.c.version == meta.version
        )
    )
    message = decode_message_leniently(stored) if isinstance(stored, str) else None
    summary_chars = len(message.text) if isinstance(message, CompactedMessage) else None
    step = [raw_t.c.sequence, raw_t.c.input_tokens, raw_t.c.cache_read_tokens, read_column(raw_t.c.started_at)]
    recorded = raw_t.c.input_tokens.is_not(None)
    after = None
    seen = boundary
    for limit in (4, AFTER_LOOKAHEAD):
        candidates = (
            await connection.execute(
                select(*step)
                .where(in_session, recorded, raw_t.c.sequence > seen)
                .order_by(raw_t.c.sequence)
                .limit(limit)
            )
        ).all()
        after = next((c for c in map(_step, candidates) if c is not None and _made_after(c, meta)), None)
        if after is not None or len(candidates) < limit:
            break
        seen = int(candidates[-1][0])
    before = None
    if after is not None:
        row = (
            await connection.execute(
                select(*step)
                .where(in_session, recorded, raw_t.c.sequence < after.sequence)
                .order_by(raw_t.c.sequence.desc())
                .limit(1)
            )
        ).first()
        before = _step(row) if row is not None else None
    return LedgerFacts(
        version=meta.version,
        covered_rows=int(covered[0] or 0),
        covered_chars=int(covered[1] or 0),
        summary_chars=summary_chars,
        after=after,
        before=before,
    )


async def input_curve(reader: Reader, session_id: str, *, columns: int, first: int, last: int) -> list[CurveColumn]:
    """Recorded ``input_tokens`` of the steps in ``first..last``, aggregated into ``columns`` columns.

    Column ``c`` holds the steps with ``(sequence - first) * columns // span == c``;
    one row per non-empty column comes back, so a 100,000-message session costs one
    indexed scan and ``columns`` rows.
    """
    if columns < 1 or last < first:
        return []
    span = last - first + 1
    column = ((raw_t.c.sequence - first) * columns // span).label("col")

    async def work(connection: AsyncConnection) -> list[CurveColumn]:
        recorded: Any = raw_t.c.input_tokens.is_not(None)
        if connection.dialect.name == "sqlite":
            # SQLite keeps any value in an INTEGER column: a text or real one would win
            # max() and spoil its column's figures, so only whole numbers count.
            recorded = func.typeof(raw_t.c.input_tokens) == "integer"
        statement = (
            select(
                column,
                func.min(raw_t.c.sequence),
                func.max(raw_t.c.sequence),
                func.count(),
                func.max(raw_t.c.input_tokens),
                func.min(raw_t.c.input_tokens),
            )
            .where(
                raw_t.c.session_id == session_id,
                and_(raw_t.c.sequence >= first, raw_t.c.sequence <= last),
                recorded,
            )
            .group_by(column)
            .order_by(column)
        )
        return [
            CurveColumn(int(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4]), int(r[5]))
            for r in (await connection.execute(statement)).all()
        ]

    return await reader.run(work)


async def range_text(reader: Reader, session_id: str, *, after_sequence: int, through_sequence: int) -> RangeText:
    """The plain text of the rows in ``(after_sequence, through_sequence]``, bounded.

    At most :data:`RANGE_ROWS` rows and :data:`RANGE_ROW_CHARS` characters of each are
    read (``truncated`` says when more existed).
    """
    statement = (
        select(raw_t.c.sequence, func.substr(raw_t.c.content, 1, RANGE_ROW_CHARS), char_length(raw_t.c.content))
        .where(
            raw_t.c.session_id == session_id,
            raw_t.c.sequence > after_sequence,
            raw_t.c.sequence <= through_sequence,
        )
        .order_by(raw_t.c.sequence)
        .limit(RANGE_ROWS + 1)
    )

    async def work(connection: AsyncConnection) -> RangeText:
        rows = (await connection.execute(statement)).all()
        truncated = len(rows) > RANGE_ROWS
        rows = rows[:RANGE_ROWS]
        truncated = truncated or any((r[2] or 0) > RANGE_ROW_CHARS for r in rows)
        text = "\n".join(str(r[1] or "") for r in rows)
        return RangeText(after_sequence, through_sequence, len(rows), text, truncated)

    return await reader.run(work)


__all__ = [
    "AFTER_LOOKAHEAD",
    "all_snapshot_versions",
    "version_candidates",
    "version_in_force",
    "input_curve",
    "ledger_facts",
    "range_text",
    "snapshot_version",
    "snapshot_in_force_on",
    "snapshot_version_on",
    "snapshot_versions",
    "version_in_force_on",
]
