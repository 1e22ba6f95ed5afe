"""Provides the storage's read that places time travel at message N: one trip, one connection.

:func:`point_rows` runs :func:`.pointparts.compose_point` (the last row, row N, the version
in force, its summary, the request's system rows) on one pooled connection: one trip
through the async driver instead of five, and the newest candidate
snapshot read whole (:func:`.compaction.snapshot_in_force_on`) instead of its version first
(issue 29: each trip cost 1–2 ms, each statement ~0.7 ms, more than the SQL itself).
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

import functools
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, CompoundSelect, String, bindparam, literal, select, union_all
from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.context import PointRows
from ..model.records import RawMessageRecord, SnapshotInfo
from .columns import RAW_COLUMNS
from .compaction import snapshot_in_force_on
from .keyset import Position
from .pointparts import compose_point, edge_rows_by_pages
from .prompts import request_system_rows_on
from .rawlog import raw_page_before_on, raw_page_on
from .rawpages import raw_band_statement
from .reader import Reader
from .rows import record_from_row

#: The column that tells the last row (0) from row N (1) in the joined statement.
_PART = "zett_part"
#: The bound parameters of the prepared joined statement.
_SESSION, _AFTER = "zett_point_session", "zett_point_after"


class _OnConnection:
    """The reads on one open connection (what :func:`point_rows` composes)."""

    def __init__(self, reader: Reader, connection: AsyncConnection) -> None:
        self._reader = reader
        self._connection = connection

    async def raw_page_before(self, session_id: str, *, limit: int = 50) -> list[RawMessageRecord]:
        return await raw_page_before_on(self._reader, self._connection, session_id, None, None, limit)

    async def raw_page(self, session_id: str, *, after_sequence: int, limit: int) -> list[RawMessageRecord]:
        return await raw_page_on(self._reader, self._connection, session_id, after_sequence, None, limit)

    async def edge_rows(
        self, session_id: str, after_sequence: int | None
    ) -> tuple[RawMessageRecord | None, RawMessageRecord | None]:
        """The last row and the row after ``after_sequence`` in one statement: the two keyset
        reads' own statements, joined by ``UNION ALL`` (a store whose ``sequence`` may be
        NULL pages it in bands: there, the two reads)."""
        if after_sequence is None or self._reader.may_be_null("raw_messages", "sequence"):
            return await edge_rows_by_pages(self, session_id, after_sequence)
        if type(session_id) is str and type(after_sequence) is int:
            # Built once: building it (two subqueries of the keyset's statements) cost more
            # than running it (issue 29: ~1 ms of a 4.5 ms time-travel step).
            result = await self._connection.execute(_edge_statement(), {_SESSION: session_id, _AFTER: after_sequence})
        else:  # text that was not UTF-8 is bound from its bytes (keyset.bind): built for it
            result = await self._connection.execute(_edges(session_id, after_sequence))
        found: list[RawMessageRecord | None] = [None, None]
        for row in result.mappings():
            found[row[_PART]] = record_from_row(row)
        return found[0], found[1]

    async def snapshot_in_force(
        self, session_id: str, when: datetime | None, *, before_sequence: int | None = None
    ) -> tuple[SnapshotInfo | None, int]:
        return await snapshot_in_force_on(self._connection, session_id, when, before_sequence=before_sequence)

    async def request_system_rows(
        self, session_id: str, request_id: str, *, before_sequence: int | None = None
    ) -> list[RawMessageRecord]:
        return await request_system_rows_on(self._connection, session_id, request_id, before_sequence=before_sequence)


def _edges(session_id: Any, after_sequence: Any) -> CompoundSelect[Any]:
    """The last row and the first row after ``after_sequence``: the two keyset reads' own
    statements, each tagged with its part, joined by ``UNION ALL``."""
    after = Position(key=after_sequence, null_key=False)
    edges = [
        raw_band_statement(RAW_COLUMNS, session_id, edge, descending=descending, limit=1)
        .add_columns(literal(part).label(_PART))
        .subquery()
        for part, (edge, descending) in enumerate(((None, True), (after, False)))
    ]
    return union_all(*(select(edge) for edge in edges))


@functools.cache
def _edge_statement() -> CompoundSelect[Any]:
    """:func:`_edges` with the session and the sequence as bound parameters (built once)."""
    return _edges(bindparam(_SESSION, type_=String()), bindparam(_AFTER, type_=BigInteger()))


async def point_rows(reader: Reader, session_id: str, at: int | None) -> PointRows:
    """:func:`compose_point` on one pooled connection.

    Three statements (the last row and row N in one, the snapshot in force whole, the
    request's system rows), not one transaction (a ``BEGIN`` costs a trip of its own): as
    the five separate reads before, each sees the latest commit.
    """

    async def work(connection: AsyncConnection) -> PointRows:
        return await compose_point(_OnConnection(reader, connection), session_id, at)

    return await reader.run(work)


__all__ = ["point_rows"]
