"""A still copy of one real-runtime session for the structured-tool UI tests and snapshots.

The real stores (``tests/realstore``) carry wall-clock times, measured durations and random
request ids; a snapshot needs none of that to move. :func:`still_copy` copies the store the
real runtime wrote, keeps one session, and sets those columns to fixed values; every message
stays byte for byte what the runtime wrote.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from tests.ui.helpers import SNAP_DIR

ASK = "0193a5c0-0000-7000-8000-0000000e0004"
PLAN = "0193a5c0-0000-7000-8000-0000000e0005"


def still_copy(store: Path, session: str, name: str) -> Path:
    """``store`` with only ``session``, its times, durations and ids fixed, at ``SNAP_DIR/name.sqlite3``."""
    SNAP_DIR.mkdir(parents=True, exist_ok=True)
    target = SNAP_DIR / f"{name}.sqlite3"
    for leftover in SNAP_DIR.glob(f"{name}.sqlite3*"):
        leftover.unlink()
    with closing(sqlite3.connect(store)) as source, closing(sqlite3.connect(target)) as copy:
        source.backup(copy)
    with closing(sqlite3.connect(target)) as copy, copy:
        for table, column in (("raw_messages", "session_id"), ("session_snapshots", "session_id")):
            copy.execute(f"DELETE FROM {table} WHERE {column} != ?", (session,))
        copy.execute("DELETE FROM agent_sessions WHERE id != ?", (session,))
        at = "'2026-12-03 11:' || printf('%02d', sequence) || ':00.000000'"
        copy.execute(
            f"UPDATE raw_messages SET started_at = {at}, completed_at = {at}, created_at = {at}, updated_at = {at},"
            " duration_ns = CASE WHEN duration_ns > 0 THEN 2000000 ELSE 0 END,"
            f" reasoning_started_at = CASE WHEN reasoning_started_at IS NULL THEN NULL ELSE {at} END,"
            f" reasoning_completed_at = CASE WHEN reasoning_completed_at IS NULL THEN NULL ELSE {at} END,"
            " reasoning_duration_ns = CASE WHEN reasoning_duration_ns IS NULL THEN NULL ELSE 1000000 END,"
            f" content_started_at = CASE WHEN content_started_at IS NULL THEN NULL ELSE {at} END,"
            f" content_completed_at = CASE WHEN content_completed_at IS NULL THEN NULL ELSE {at} END,"
            " content_duration_ns = CASE WHEN content_duration_ns IS NULL THEN NULL ELSE 1000000 END"
        )
        requests = [
            row[0] for row in copy.execute("SELECT request_id FROM raw_messages GROUP BY 1 ORDER BY min(sequence)")
        ]
        for index, request in enumerate(requests, 1):
            copy.execute("UPDATE raw_messages SET request_id = ? WHERE request_id = ?", (f"request-{index}", request))
        copy.execute("UPDATE raw_messages SET id = 'message-' || sequence")
        copy.execute("UPDATE agent_sessions SET created_at = '2026-12-03 11:00:00', updated_at = '2026-12-03 11:30:00'")
    with closing(sqlite3.connect(target)) as copy:
        copy.execute("PRAGMA journal_mode=DELETE")
    return target
