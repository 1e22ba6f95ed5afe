"""Still copies of the real runtime's two stores, for snapshots of the joined tree.

The runtime writes wall-clock times, random request ids and random (UUIDv7) child ids; a
snapshot needs none of them to move. :func:`still_pair` copies ``main.sqlite3`` and
``children.sqlite3``, gives every session and message fixed times, requests fixed ids and
each child a fixed id (also where its parent's messages name it); every message stays
otherwise what the runtime wrote.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from tests.realstore.stores import RealStores


def _children(paths: tuple[Path, ...]) -> dict[str, str]:
    """Each generated (random) session id -> a fixed one, in the order of what each was asked
    (parallel subagents start in any order; their briefs are fixed)."""
    found: list[tuple[str, str, str]] = []
    for path in paths:
        with closing(sqlite3.connect(path)) as db:
            rows = db.execute(
                "SELECT s.id, coalesce(s.parent_session_id, ''), coalesce((SELECT group_concat(r.content, '|')"
                " FROM raw_messages r WHERE r.session_id = s.id AND r.role = 2), '') FROM agent_sessions s"
            )
            found += [(str(parent), str(asked), str(sid)) for sid, parent, asked in rows]
    random = sorted(item for item in found if not item[2].startswith("0193a5c0-"))
    return {sid: f"0193a5c0-0000-7000-8000-0000000c{index:04d}" for index, (_p, _a, sid) in enumerate(random, 1)}


def still_pair(real: RealStores, directory: Path) -> tuple[Path, Path]:
    """Still copies of both stores in ``directory`` (see the module docstring)."""
    directory.mkdir(parents=True, exist_ok=True)
    targets = (directory / "main.sqlite3", directory / "children.sqlite3")
    for source_path, target in zip((real.main, real.children), targets, strict=True):
        for leftover in directory.glob(target.name + "*"):
            leftover.unlink()
        with closing(sqlite3.connect(source_path)) as source, closing(sqlite3.connect(target)) as copy:
            source.backup(copy)
    ids = _children(targets)
    for store, target in enumerate(targets):
        with closing(sqlite3.connect(target)) as db, db:
            for old, new in ids.items():
                db.execute("UPDATE agent_sessions SET id = ? WHERE id = ?", (new, old))
                db.execute("UPDATE raw_messages SET session_id = ? WHERE session_id = ?", (new, old))
                db.execute("UPDATE session_snapshots SET session_id = ? WHERE session_id = ?", (new, old))
                db.execute("UPDATE raw_messages SET message_json = replace(message_json, ?, ?)", (old, new))
            at = "'2026-12-03 11:' || printf('%02d', sequence % 60) || ':00.000000'"
            db.execute(
                f"UPDATE raw_messages SET started_at = {at}, completed_at = {at}, created_at = {at}, updated_at = {at},"
                " duration_ns = CASE WHEN duration_ns > 0 THEN 2000000 ELSE 0 END,"
                " reasoning_started_at = NULL, reasoning_completed_at = NULL, reasoning_duration_ns = NULL,"
                " content_started_at = NULL, content_completed_at = NULL, content_duration_ns = NULL"
            )
            requests = [row[0] for row in db.execute("SELECT DISTINCT request_id FROM raw_messages ORDER BY 1")]
            for index, request in enumerate(requests, 1):
                db.execute(
                    "UPDATE raw_messages SET request_id = ? WHERE request_id = ?", (f"request-{store}-{index}", request)
                )
            db.execute("UPDATE raw_messages SET id = session_id || '-' || sequence")
            db.execute(
                "UPDATE agent_sessions SET created_at = '2026-12-03 10:' || printf('%02d', n % 60) || ':00',"
                " updated_at = '2026-12-03 11:' || printf('%02d', n % 60) || ':00'"
                " FROM (SELECT id AS fixed, row_number() OVER (ORDER BY id) AS n FROM agent_sessions)"
                " WHERE agent_sessions.id = fixed"
            )
            db.execute("UPDATE session_snapshots SET created_at = '2026-12-03 11:59:00'")
        with closing(sqlite3.connect(target)) as db:
            db.execute("PRAGMA journal_mode=DELETE")
    return targets
