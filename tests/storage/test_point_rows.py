"""Time travel's point read: one storage read gives exactly what its parts give read one by one.

``locate`` used to make five storage calls (the last row, row N, the version in force, its
summary, the request's system rows); ``point_rows`` makes them on one connection in three
statements (issue 29). Here it is compared with the same composition over the separate
calls, at every N of every session, on every backend and on damaged SQLite stores.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event

from tests.backends import Backend
from tests.support import AGENT_RUN_ROOT
from zett_browser.model import RawMessageRecord, SnapshotInfo
from zett_browser.storage import SQLSessionStorage, open_store
from zett_browser.storage.pointparts import compose_point, edge_rows_by_pages, snapshot_by_version

#: The compacted session of the agent_run fixture (three versions, three requests' system rows).
COMPACTED = AGENT_RUN_ROOT


class Separately:
    """The point's reads as the separate storage calls ``locate`` made before ``point_rows``."""

    def __init__(self, storage: SQLSessionStorage) -> None:
        self.storage = storage

    async def edge_rows(
        self, session_id: str, after_sequence: int | None
    ) -> tuple[RawMessageRecord | None, RawMessageRecord | None]:
        return await edge_rows_by_pages(self.storage, session_id, after_sequence)

    async def snapshot_in_force(
        self, session_id: str, when: datetime | None, *, before_sequence: int | None = None
    ) -> tuple[SnapshotInfo | None, int]:
        return await snapshot_by_version(self.storage, session_id, when, before_sequence=before_sequence)

    async def request_system_rows(
        self, session_id: str, request_id: str, *, before_sequence: int | None = None
    ) -> list[RawMessageRecord]:
        return await self.storage.request_system_rows(session_id, request_id, before_sequence=before_sequence)


async def _same_at_every_step(storage: SQLSessionStorage, session_id: str) -> int:
    """Compare at N = None, -1, 0, 1 … last + 2; the number of points compared."""
    tail = await storage.raw_page_before(session_id, limit=1)
    last = tail[-1].sequence if tail and isinstance(tail[-1].sequence, int) else 0
    compared = 0
    for at in [None, -1, 0, *range(1, max(last, 0) + 3)]:
        one = await storage.point_rows(session_id, at)
        parts = await compose_point(Separately(storage), session_id, at)
        assert one == parts, f"{session_id} at {at}"
        compared += 1
    return compared


async def test_one_read_equals_the_separate_reads_at_every_step_on_every_backend(backend: Backend) -> None:
    for fixture in ("agent_run", "storage_api"):
        storage = backend.load_fixture(fixture)
        try:
            sessions = [node.session_id for node in await storage.list_sessions(limit=1_000)]
            assert sessions
            for session_id in [*sessions, "no such session"]:
                await _same_at_every_step(storage, session_id)
            if fixture == "agent_run":
                point = await storage.point_rows(COMPACTED, 19)
                assert point.snapshot is not None and point.system, "the compacted session: a summary, a prompt"
        finally:
            await storage.close()


async def test_one_read_is_three_statements_on_one_connection(backend: Backend) -> None:
    """The last row and row N in one statement, the snapshot in force whole in one, the
    request's system rows in one (before: six statements in five checkouts). At #21 the
    newest candidate (v3) decides; at #19 it was written after the step began (the real
    runtime compacts after the step), so the other versions are read: two more."""
    storage = backend.load_fixture("agent_run")
    statements: list[str] = []
    checkouts: list[object] = []
    try:
        await storage.point_rows(COMPACTED, 21)  # connected, schema checked
        engine = storage.reader.engine().sync_engine
        event.listen(engine, "after_cursor_execute", lambda _c, _cur, statement, *_a: statements.append(statement))
        event.listen(engine.pool, "checkout", lambda *_a: checkouts.append(object()))
        point = await storage.point_rows(COMPACTED, 21)
        assert point.row is not None and point.row.sequence == 21
        assert point.snapshot is not None and point.snapshot.version == 3 and point.system
        assert len(statements) == 3 and len(checkouts) == 1, statements
        assert "UNION ALL" in statements[0].upper()
        newest, step = point.snapshot, (await storage.raw_page(COMPACTED, after_sequence=18, limit=1))[0]
        statements.clear()
        checkouts.clear()
        point = await storage.point_rows(COMPACTED, 19)
        assert newest.created_at is not None and step.started_at is not None
        if newest.created_at > step.started_at:  # MySQL keeps whole seconds: there, the same second
            assert point.snapshot is not None and point.snapshot.version == 2
            assert len(statements) == 5 and len(checkouts) == 1, statements
        else:
            assert point.snapshot == newest and len(statements) == 3
    finally:
        await storage.close()


async def test_an_n_no_store_can_hold_is_outside_the_session_not_a_driver_error(backend: Backend) -> None:
    """Review case: an MCP client's ``at`` beyond 64-bit integers reached the driver
    ("Python int too large to convert to SQLite INTEGER"); it is an N outside 1 … last + 1."""
    from zett_browser.views.time_travel import ContextError, locate

    storage = backend.load_fixture("agent_run")
    try:
        # And N that 64 bits hold but 32 do not (PostgreSQL took the prepared statement's
        # integer parameter as int4: "value out of int32 range").
        for at in (2**63 + 5, 2**63, -(2**63) - 5, -(2**63), 2**70, 2**63 - 1, 2**40, 2**31, -(2**40)):
            point = await storage.point_rows(COMPACTED, at)
            assert (point.at, point.row, point.snapshot) == (at, None, None)
            assert point.last is not None and point.last.sequence == 21 and not point.in_range
            with pytest.raises(ContextError, match="from 1 to 22"):
                await locate(storage, COMPACTED, at)
    finally:
        await storage.close()


def _compare(path: Path) -> int:
    async def run() -> int:
        storage = open_store(path)
        try:
            return sum([await _same_at_every_step(storage, session_id) for session_id in (COMPACTED,)])
        finally:
            await storage.close()

    return asyncio.run(run())


_SEQUENCES = st.sampled_from(["text", -3, 0, 1, 7, 19, 2**40, b"\x00"])
_VERSIONS = st.sampled_from(["two", 0, 1, 3, 9, -1])
_TIMES = st.sampled_from([None, "yesterday-ish", 12345, "2000-01-01T00:00:00+00:00", "2999-01-01T00:00:00+00:00"])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sequences=st.lists(st.tuples(st.integers(min_value=1, max_value=21), _SEQUENCES), max_size=5),
    versions=st.lists(st.tuples(st.integers(min_value=1, max_value=3), _VERSIONS, _TIMES), max_size=3),
    nullable=st.booleans(),
)
def test_one_read_equals_the_separate_reads_on_damaged_stores(
    tmp_path_factory: Any,
    sequences: list[tuple[int, object]],
    versions: list[tuple[int, object, object]],
    nullable: bool,
) -> None:
    """Sequences that are text, negative, duplicated or huge, versions that are not integers,
    creation times that are not times; a schema whose ``sequence`` may be NULL (then the
    two rows are read as two pages)."""
    from tests.adversarial import damage as d

    path = d.copy_fixture("agent_run", tmp_path_factory.mktemp("point"))
    if nullable:
        d.drop_index(path, "ux_raw_session_sequence")
        d.drop_not_null(path, "raw_messages", ["sequence"])
        sequences = [*sequences, (5, None)]
    else:
        d.drop_index(path, "ux_raw_session_sequence")  # duplicates allowed; NOT NULL kept
    rows = [
        row[0] for row in d.query(path, "select id from raw_messages where session_id=? order by sequence", COMPACTED)
    ]
    for index, value in sequences:
        d.execute(path, "update raw_messages set sequence=? where id=?", value, rows[index - 1])
    snapshot_ids = [
        row[0]
        for row in d.query(path, "select id from session_snapshots where session_id=? order by version", COMPACTED)
    ]
    d.drop_index(path, "ux_snapshot_session_version")
    for index, version, created in versions:
        d.execute(
            path,
            "update session_snapshots set version=?, created_at=? where id=?",
            version,
            created,
            snapshot_ids[index - 1],
        )
    assert _compare(path) > 0
