"""Provides which reads place time travel at message N, composed once for every store.

``locate`` (:mod:`zett_browser.views.time_travel`) needs the session's last row, row N,
the version in force at N's step, that version's summary and the system rows of N's
request. :func:`compose_point` states the reads over anything that answers the five calls
(:class:`PointParts`): the storage on one connection (:mod:`.point`), the stdlib context
reader (:mod:`.quickcontext`), the in-memory stores of the tests. No SQLAlchemy here: the
stdlib path imports this module.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Protocol

from ..model.context import PointRows
from ..model.records import RawMessageRecord, SnapshotInfo

#: The largest sequence a store holds (SQL's 64-bit integers).
LARGEST = 2**63 - 1


class VersionReads(Protocol):
    """Choosing the version in force, then reading it (:class:`BrowsingStore` calls)."""

    async def version_in_force(
        self, session_id: str, when: datetime | None, *, before_sequence: int | None = None
    ) -> tuple[int | None, int]: ...

    async def snapshot_version(self, session_id: str, version: int | None = None) -> SnapshotInfo | None: ...


class PageReads(Protocol):
    """The last row, and one row after a sequence (:class:`BrowsingStore` calls)."""

    async def raw_page_before(self, session_id: str, *, limit: int = 50) -> list[RawMessageRecord]: ...

    async def raw_page(self, session_id: str, *, after_sequence: int, limit: int) -> list[RawMessageRecord]: ...


class PointParts(Protocol):
    """The three reads :func:`compose_point` makes."""

    async def edge_rows(
        self, session_id: str, after_sequence: int | None
    ) -> tuple[RawMessageRecord | None, RawMessageRecord | None]:
        """The session's last row, and the first row after ``after_sequence`` (None: not
        asked); :func:`edge_rows_by_pages` as two calls."""
        ...

    async def snapshot_in_force(
        self, session_id: str, when: datetime | None, *, before_sequence: int | None = None
    ) -> tuple[SnapshotInfo | None, int]:
        """The snapshot in force decoded, and the undated versions left out
        (:func:`.compaction.snapshot_in_force_on`; :func:`snapshot_by_version` elsewhere)."""
        ...

    async def request_system_rows(
        self, session_id: str, request_id: str, *, before_sequence: int | None = None
    ) -> list[RawMessageRecord]: ...


async def compose_point(
    parts: PointParts, session_id: str, at: int | None, *, declines: tuple[type[Exception], ...] = ()
) -> PointRows:
    """The rows of message ``at`` (None: one past the last), read through ``parts``.

    The last row, not the session's bounds (their count walks every row); outside
    1 … last + 1 nothing more is read. Only the snapshot in force is decoded. The request's system rows
    that cannot be read leave ``system`` None (the messages stay); an error of ``declines``
    (the stdlib reader's :class:`~.quickread.Declined`: take the full path) ends the whole read.
    """
    # Row N is read with the last row only for an N a store can hold: an integer beyond
    # SQLite's (an MCP argument) is outside 1 … last + 1 whatever the session holds.
    last, row = await parts.edge_rows(session_id, at - 1 if at is not None and 1 <= at <= LARGEST else None)
    last_sequence = last.sequence if last is not None else 0
    n = last_sequence + 1 if at is None else at
    if not 1 <= n <= last_sequence + 1:
        return PointRows(n, last)
    if n > last_sequence:
        row = None
    # Row N, or the first row after a gap: either began later than N's step.
    when = row.started_at if row is not None else None
    snapshot, undated = await parts.snapshot_in_force(session_id, when, before_sequence=n)
    point = PointRows(n, last, row, snapshot, undated)
    step = point.step
    if step is None:
        return point
    try:
        system = await parts.request_system_rows(
            session_id, step.request_id, before_sequence=None if n > last_sequence else step.sequence
        )
    except declines:
        raise
    except Exception:  # noqa: BLE001 - what was offered is shown when it can be read; messages stay
        return PointRows(n, last, row, snapshot, undated, None)
    return PointRows(n, last, row, snapshot, undated, tuple(system))


async def edge_rows_by_pages(
    reads: PageReads, session_id: str, after_sequence: int | None
) -> tuple[RawMessageRecord | None, RawMessageRecord | None]:
    """:meth:`PointParts.edge_rows` as two calls (the second only before the last row)."""
    tail = await reads.raw_page_before(session_id, limit=1)
    last = tail[-1] if tail else None
    if last is None or after_sequence is None or not after_sequence < last.sequence:
        return last, None
    rows = await reads.raw_page(session_id, after_sequence=after_sequence, limit=1)
    return last, rows[0] if rows else None


async def snapshot_by_version(
    reads: VersionReads, session_id: str, when: datetime | None, *, before_sequence: int | None = None
) -> tuple[SnapshotInfo | None, int]:
    """:meth:`PointParts.snapshot_in_force` as two calls: the version chosen, then it read."""
    version, undated = await reads.version_in_force(session_id, when, before_sequence=before_sequence)
    return (None if version is None else await reads.snapshot_version(session_id, version)), undated


class SeparateReads(PageReads, VersionReads, Protocol):
    """A store whose point is composed from its separate calls (:class:`PointFromCalls`)."""

    async def request_system_rows(
        self, session_id: str, request_id: str, *, before_sequence: int | None = None
    ) -> list[RawMessageRecord]: ...


class _Composed(SeparateReads, PointParts, Protocol):
    DECLINES: ClassVar[tuple[type[Exception], ...]]


class PointFromCalls:
    """``point_rows`` and its parts from a store's separate calls (the stdlib context reader,
    the tests' stores); ``DECLINES``: the errors that end the whole read (:func:`compose_point`)."""

    DECLINES: ClassVar[tuple[type[Exception], ...]] = ()

    async def point_rows(self: _Composed, session_id: str, at: int | None) -> PointRows:
        """As :func:`.point.point_rows`: the same composition over this store's calls."""
        return await compose_point(self, session_id, at, declines=self.DECLINES)

    async def edge_rows(
        self: SeparateReads, session_id: str, after_sequence: int | None
    ) -> tuple[RawMessageRecord | None, RawMessageRecord | None]:
        """The last row and row N: the two reads (:func:`edge_rows_by_pages`)."""
        return await edge_rows_by_pages(self, session_id, after_sequence)

    async def snapshot_in_force(
        self: SeparateReads, session_id: str, when: datetime | None, *, before_sequence: int | None = None
    ) -> tuple[SnapshotInfo | None, int]:
        """The version chosen, then it read (:func:`snapshot_by_version`)."""
        return await snapshot_by_version(self, session_id, when, before_sequence=before_sequence)


__all__ = [
    "PageReads",
    "PointFromCalls",
    "SeparateReads",
    "PointParts",
    "VersionReads",
    "compose_point",
    "edge_rows_by_pages",
    "snapshot_by_version",
]
