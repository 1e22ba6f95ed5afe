"""Compaction reads: version metadata pages, one summary, ledger facts, the curve, a range's text.

Checked on a store written through the storage API with hand-set times (values computed
by hand from ``tests/ui/compaction_helpers.py``) and on the zett-agent-written agent run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support import AGENT_RUN_ROOT, FIXTURES
from tests.ui.compaction_helpers import LEDGER_SESSION, SUMMARY_V1, write_ledger_store
from zett_browser.storage import open_store
from zett_browser.views.ledger import ledger_rows


async def test_versions_page_by_keyset_without_decoding_and_one_decodes_on_demand(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    await write_ledger_store(path)
    storage = open_store(path)
    try:
        first = await storage.snapshot_versions(LEDGER_SESSION, limit=1)
        rest = await storage.snapshot_versions(LEDGER_SESSION, after_version=first[-1].version, limit=1)
        assert [m.version for m in first + rest] == [1, 2]
        assert [m.compacted_through_sequence for m in first + rest] == [4, 8]
        assert await storage.snapshot_versions(LEDGER_SESSION, after_version=2) == []
        assert await storage.all_snapshot_versions(LEDGER_SESSION, page=1) == first + rest
        one = await storage.snapshot_version(LEDGER_SESSION, 1)
        latest = await storage.snapshot_version(LEDGER_SESSION)
        assert one is not None and one.summary_text == SUMMARY_V1
        assert latest is not None and latest.version == 2
        assert await storage.snapshot_version(LEDGER_SESSION, 7) is None
    finally:
        await storage.close()


async def test_ledger_facts_and_curve_match_the_hand_computed_values(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    await write_ledger_store(path)
    storage = open_store(path)
    try:
        versions = await storage.all_snapshot_versions(LEDGER_SESSION)
        facts = await storage.ledger_facts(LEDGER_SESSION, versions)
        # v1 covers #1-4: 26 + 39 + 24 + 15 characters; v2 #5-8: 13 + 14 + 8 + 10.
        assert [(f.covered_rows, f.covered_chars, f.summary_chars) for f in facts] == [(4, 104, 72), (4, 45, 69)]
        # The step after each snapshot (written 30 s after #4 and #8) is #6 and #10; before them #4 and #8.
        assert [(f.after.sequence, f.after.input_tokens) for f in facts if f.after] == [(6, 700), (10, 800)]
        assert [(f.before.sequence, f.before.cache_read_tokens) for f in facts if f.before] == [(4, 900), (8, 650)]
        rows = ledger_rows(versions, facts)
        assert [(r.covered_tokens, r.summary_tokens, r.cache_drop) for r in rows] == [(26, 18, 900), (11, 17, 650)]
        assert rows[1].since_previous is not None and rows[1].since_previous.total_seconds() == 240
        # Only the second version, given the first one's boundary: the same facts.
        assert await storage.ledger_facts(LEDGER_SESSION, versions[1:], previous_boundary=4) == facts[1:]
        curve = await storage.input_curve(LEDGER_SESSION, columns=5, first=1, last=10)
        assert [(c.column, c.first_sequence, c.peak) for c in curve] == [
            (0, 2, 1000),
            (1, 4, 1500),
            (2, 6, 700),
            (3, 8, 1100),
            (4, 10, 800),
        ]
        wide = await storage.input_curve(LEDGER_SESSION, columns=2, first=1, last=10)
        assert [(c.column, c.steps, c.peak, c.low) for c in wide] == [(0, 2, 1500, 1000), (1, 3, 1100, 700)]
        text = await storage.range_text(LEDGER_SESSION, after_sequence=4, through_sequence=8)
        assert (text.rows, text.truncated) == (4, False)
        assert text.text == "Now the tests\nRunning pytest\n3 passed\nAll green."
    finally:
        await storage.close()


async def test_the_real_agent_runs_ledger(tmp_path: Path) -> None:
    """zett-agent 0.2.1 compacted this run three times (v1@9, v2@11, v3@17; see tests/fixtures/README.md)."""
    path = tmp_path / "agent_run.sqlite3"
    shutil.copy(FIXTURES / "agent_run.sqlite3", path)
    storage = open_store(path)
    try:
        versions = await storage.all_snapshot_versions(AGENT_RUN_ROOT)
        assert [(m.version, m.compacted_through_sequence) for m in versions] == [(1, 9), (2, 11), (3, 17)]
        facts = await storage.ledger_facts(AGENT_RUN_ROOT, versions)
        # Row lengths of the content column, read from the fixture by hand: #1-9, #10-11, #12-17.
        assert [(f.covered_rows, f.covered_chars) for f in facts] == [(9, 1207), (2, 70), (6, 838)]
        # v1 was written mid-request: #11's step is the first made after it; its cache grew (drop -180).
        steps = [(f.before.sequence, f.after.sequence, f.after.input_tokens) for f in facts if f.before and f.after]
        assert steps == [(9, 11, 820), (11, 15, 300), (17, 21, 350)]
        rows = ledger_rows(versions, facts)
        assert [r.cache_drop for r in rows] == [-180, 780, 300]
        curve = await storage.input_curve(AGENT_RUN_ROOT, columns=21, first=1, last=21)
        assert [(c.column + 1, c.peak) for c in curve] == [
            (4, 420),
            (7, 610),
            (9, 780),
            (11, 820),
            (15, 300),
            (17, 330),
            (21, 350),
        ]
    finally:
        await storage.close()


async def test_the_version_in_force_now_reads_the_newest_version_alone(tmp_path: Path) -> None:
    """Time travel to the next step asks for the version in force now: one row on the
    ``(session_id, version)`` index, not every version's time (issue 29: 2,500 of them)."""
    from sqlalchemy import event

    path = tmp_path / "ledger.sqlite3"
    await write_ledger_store(path)
    storage = open_store(path)
    fetched: list[int] = []
    try:
        assert await storage.version_in_force(LEDGER_SESSION, None) == (2, 0)  # connected, schema checked
        engine = storage.reader.engine().sync_engine

        def counted(_conn: object, cursor: object, statement: str, *_args: object) -> None:
            if "session_snapshots" in statement:
                fetched.append(statement.count("LIMIT"))

        event.listen(engine, "after_cursor_execute", counted)
        assert await storage.version_in_force(LEDGER_SESSION, None) == (2, 0)
        assert await storage.version_in_force("no such session", None) == (None, 0)
        assert fetched == [1, 1], "the newest version alone, by LIMIT"
        first = await storage.snapshot_version(LEDGER_SESSION, 1)
        assert first is not None and first.created_at is not None
        fetched.clear()
        assert await storage.version_in_force(LEDGER_SESSION, first.created_at) == (1, 0), "by time: v2 came later"
        assert fetched == [1, 0], "the newest candidate (v2, made later) did not decide: then all of them"
        fetched.clear()
        assert await storage.version_in_force(LEDGER_SESSION, first.created_at, before_sequence=10**6) == (1, 0)
        assert len(fetched) == 2
        second = await storage.snapshot_version(LEDGER_SESSION, 2)
        assert second is not None and second.created_at is not None
        fetched.clear()
        after = second.compacted_through_sequence + 1
        assert await storage.version_in_force(LEDGER_SESSION, second.created_at, before_sequence=after) == (2, 0)
        assert fetched == [1], "the newest candidate decides: one row"
        fetched.clear()
        assert await storage.version_in_force(LEDGER_SESSION, second.created_at, before_sequence=1) == (None, 0)
        assert fetched == [1], "no candidate summarises only rows before #1"
    finally:
        await storage.close()


async def test_a_version_that_is_not_an_integer_is_passed_over_in_time_travel(tmp_path: Path) -> None:
    """A damaged row (its version stored as text: SQLite keeps it, and it sorts first newest
    first) names no snapshot that can be read back: the next one is in force, no error."""
    import sqlite3

    path = tmp_path / "ledger.sqlite3"
    await write_ledger_store(path)
    storage = open_store(path)
    try:
        second = await storage.snapshot_version(LEDGER_SESSION, 2)
        assert second is not None and second.created_at is not None
        after = second.compacted_through_sequence + 1
        assert await storage.version_in_force(LEDGER_SESSION, second.created_at, before_sequence=after) == (2, 0)
    finally:
        await storage.close()
    with sqlite3.connect(path) as connection:
        damage = "UPDATE session_snapshots SET version = 'two' WHERE session_id = ? AND version = 2"
        connection.execute(damage, (LEDGER_SESSION,))
    connection.close()
    storage = open_store(path)
    try:
        assert await storage.version_in_force(LEDGER_SESSION, second.created_at, before_sequence=after) == (1, 0)
    finally:
        await storage.close()
