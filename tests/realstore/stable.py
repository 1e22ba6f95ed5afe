"""A copy of the real runtime's main store with its clock and random ids made fixed, for snapshots.

The runtime writes wall-clock timestamps, measured durations, random request ids and random
child session ids; an SVG snapshot of the store would change from run to run. The copy (never
the generated file) gets fixed timestamps (one second per sequence), fixed durations, request
ids numbered in order, and only the 15 case sessions (the goal evaluators' random ids are
dropped). Everything else is what the runtime wrote.
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from tests.realstore.stores import RealStores

CASE_PREFIX = "0193a5c0-0000-7000-8000-0000000e00"


def stable_copy(real_stores: RealStores, directory: Path) -> Path:
    """``directory/main.sqlite3``: the main store with fixed times and ids (see the module)."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "main.sqlite3"
    for leftover in directory.glob("main.sqlite3*"):
        leftover.unlink()
    shutil.copy(real_stores.main, target)
    with closing(sqlite3.connect(target)) as connection, connection:
        keep = f"{CASE_PREFIX}%"
        connection.execute("DELETE FROM raw_messages WHERE session_id NOT LIKE ?", (keep,))
        connection.execute("DELETE FROM session_snapshots WHERE session_id NOT LIKE ?", (keep,))
        connection.execute("DELETE FROM agent_sessions WHERE id NOT LIKE ?", (keep,))
        moment = "strftime('%Y-%m-%d %H:%M:%f', '2026-12-03 11:00:00', '+' || sequence || ' seconds')"
        connection.execute(
            f"UPDATE raw_messages SET started_at = {moment}, completed_at = {moment}, created_at = {moment},"
            f" updated_at = {moment}, duration_ns = CASE WHEN duration_ns > 0 THEN 120000000 ELSE 0 END,"
            " reasoning_started_at = CASE WHEN reasoning_started_at IS NULL THEN NULL ELSE "
            f"{moment} END, reasoning_completed_at = CASE WHEN reasoning_completed_at IS NULL THEN NULL ELSE "
            f"{moment} END, reasoning_duration_ns = CASE WHEN reasoning_duration_ns IS NULL THEN NULL ELSE "
            "20000000 END, content_started_at = CASE WHEN content_started_at IS NULL THEN NULL ELSE "
            f"{moment} END, content_completed_at = CASE WHEN content_completed_at IS NULL THEN NULL ELSE "
            f"{moment} END, content_duration_ns = CASE WHEN content_duration_ns IS NULL THEN NULL ELSE "
            "40000000 END"
        )
        requests = connection.execute(
            "SELECT request_id FROM raw_messages GROUP BY request_id ORDER BY min(session_id), min(sequence)"
        ).fetchall()
        for number, (request_id,) in enumerate(requests, start=1):
            connection.execute(
                "UPDATE raw_messages SET request_id = ? WHERE request_id = ?",
                (f"0193a5c0-0000-7000-9000-{number:012d}", request_id),
            )
        connection.execute(
            "UPDATE session_snapshots SET created_at = '2026-12-03 11:30:00.000000',"
            " updated_at = '2026-12-03 11:30:00.000000'"
        )
        connection.execute(
            "UPDATE agent_sessions SET created_at = '2026-12-03 11:00:00.000000',"
            " updated_at = strftime('%Y-%m-%d %H:%M:%f', '2026-12-03 11:00:00', '+' || substr(id, -2) || ' minutes')"
        )
    return target
