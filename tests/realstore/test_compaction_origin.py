"""When and by what a snapshot was made (issue 24, "Compaction"), on what the real runtime wrote.

Session ``…e0003``: the ``CompactionExtension`` compacted inside three requests (v1–v3), then
``Agent.compact()`` (v4) wrote a pass of system rows only (#27–#28) and compacted.
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.realstore.stores import RealStores
from tests.ui.helpers import settle
from zett_browser.app import make_app
from zett_browser.model.origins import Origin, OriginKind, OriginRow, origin
from zett_browser.storage import open_store
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.versions import VersionList, version_label

SESSION = "0193a5c0-0000-7000-8000-0000000e0003"


async def origins(path: Path) -> dict[int, Origin]:
    store = open_store(path)
    try:
        return await store.snapshot_origins(SESSION, await store.all_snapshot_versions(SESSION))
    finally:
        await store.close()


async def test_in_request_and_by_compact(real_stores: RealStores) -> None:
    found = await origins(real_stores.main)
    assert {version: (made.kind, made.after_sequence) for version, made in found.items()} == {
        1: (OriginKind.IN_REQUEST, 9),  # between the user row #9 and the answer #10 of one request
        2: (OriginKind.IN_REQUEST, 13),
        3: (OriginKind.IN_REQUEST, 17),
        4: (OriginKind.COMPACT_CALL, 28),  # after the system-only pass #27–#28
    }


async def test_times_that_do_not_tell_give_unknown(real_stores: RealStores, tmp_path: Path) -> None:
    """A snapshot dated before its own boundary row (clocks disagree): no guess."""
    path = tmp_path / "skewed.sqlite3"
    shutil.copy(real_stores.main, path)
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(
            "UPDATE session_snapshots SET created_at = '2001-01-01 00:00:00.000000'"
            " WHERE session_id = ? AND version = 4",
            (SESSION,),
        )
    found = await origins(path)
    assert found[4].kind is OriginKind.UNKNOWN
    assert found[1].kind is OriginKind.IN_REQUEST


def test_rule_between_requests_and_an_unfinished_window() -> None:
    start = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)

    def row(sequence: int, role: int, request: str) -> OriginRow:
        return OriginRow(sequence, role, request, start + timedelta(seconds=sequence))

    rows = [row(5, 3, "a"), row(6, 1, "b"), row(7, 2, "b"), row(8, 3, "b"), row(9, 1, "c")]
    made = start + timedelta(seconds=8.5)
    # After a request that had input, before the next one: something else compacted.
    assert origin(made, rows, complete=True) == Origin(OriginKind.BETWEEN, 8, "b")
    # Past the last row read of a session that goes on: not known.
    assert origin(start + timedelta(seconds=20), rows, complete=False).kind is OriginKind.UNKNOWN
    # A pass of system rows only after the boundary: compact().
    assert origin(start + timedelta(seconds=20), rows, complete=True) == Origin(OriginKind.COMPACT_CALL, 9, "c")
    # Before the boundary row itself: clocks disagree.
    assert origin(start, rows, complete=True).kind is OriginKind.UNKNOWN
    # At the very instant a row was written (a clock without fractions of a second): no guess.
    assert origin(start + timedelta(seconds=8), rows, complete=True).kind is OriginKind.UNKNOWN


async def test_inspector_says_which(real_stores: RealStores) -> None:
    app = make_app(str(real_stores.main), session=SESSION, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        versions = app.screen.query_one(VersionList)
        lines = [str(version_label(meta, versions.origins.get(meta.version))) for meta in versions.versions]
        assert [line.split("  ")[2] for line in lines] == ["auto", "auto", "auto", "compact()"]
        summary = str(app.screen.query_one("#inspector-summary").render())
        assert "\nby Agent.compact() (after #28)" in summary
        versions.focus()
        await pilot.press("up")
        await settle(pilot)
        summary = str(app.screen.query_one(Inspector).query_one("#inspector-summary").render())
        assert "auto, in a request (after #17)" in summary
