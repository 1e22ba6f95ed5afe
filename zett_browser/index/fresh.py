"""Provides the subcommands' fast path: is a SQLite store's side index up to date? (issue 29)

``search``, ``usage`` and ``context`` used to open the SQL storage (SQLAlchemy, aiosqlite,
pydantic: ~250 ms of imports) only to learn that nothing had changed since the last sync.
:func:`fresh_index` asks the same questions the sync asks (:meth:`.sync.SideIndex._distrust`
and its incremental pass) with the standard library only, on the same indexed columns,
and answers with the index file when every answer is "unchanged". Any other answer, any
doubt or any error gives None, and the caller takes the full path, which syncs, rebuilds
or reports the problem as before: the fast path can only skip a sync that would have
done nothing.

The store is opened as the start-up reader opens it (``mode=ro``, the same URI and busy
timeout) with its ``-wal``/``-shm`` guarded, so the check leaves no file behind.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ..storage.sidecars import SidecarGuard
from ..storage.sqlitefile import READER_BUSY_TIMEOUT_MS, browse_mode, check_sqlite_file, sqlite_uri
from ..storage.values import lenient_text, stored_time
from . import db as index_db
from .prices_version import table_version

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any

#: Sessions active this long before the high-water mark are looked at again (as the sync does).
MARGIN = timedelta(seconds=60)
#: More sessions active since the high-water mark than this: let the sync look at them.
MOST_ACTIVE = 5_000


def fresh_index(store: Path, directory: Path | None) -> Path | None:
    """The index file of the SQLite ``store`` when a sync would change nothing in it; else None."""
    try:
        identity = index_db.store_identity(store, None)
        path = index_db.index_file(identity, directory or index_db.default_dir())
        index = index_db.open_reader(path)
    except (OSError, ValueError):
        return None
    if index is None:
        return None
    try:
        return path if _unchanged(index, identity, store) else None
    except (sqlite3.Error, OSError, ValueError, TypeError, OverflowError):
        return None
    finally:
        index.close()


def _unchanged(index: sqlite3.Connection, identity: str, store: Path) -> bool:
    if index_db.current_state(index) != "complete":
        return False
    meta = index_db.read_meta(index)
    if meta.get("identity") != identity or "anchors" not in meta or meta.get("prices") != table_version():
        return False
    if meta.get("fingerprint") != index_db.store_fingerprint(store):
        return False
    counter = index_db.store_counter(store)
    recorded = json.loads(meta.get("counter") or "null")
    if counter is not None and isinstance(recorded, int) and counter < recorded:
        return False
    high_water = meta.get("high_water")
    since = datetime.fromisoformat(high_water).astimezone(UTC) - MARGIN if high_water else None
    anchors = sorted(tuple(map(str, item)) for item in json.loads(meta["anchors"]) or [] if isinstance(item, list))
    sessions = int(index.execute("SELECT count(*) FROM sessions").fetchone()[0])
    snapshots = index.execute("SELECT count(*), max(id) FROM snapshots").fetchone()
    guard = SidecarGuard.record(store)  # before SQLite first looks at the file (the header check)
    try:
        check_sqlite_file(store)
        connection = sqlite3.connect(
            sqlite_uri(store, browse_mode(store)), uri=True, timeout=READER_BUSY_TIMEOUT_MS / 1000
        )
        try:
            connection.text_factory = lenient_text
            connection.execute("PRAGMA query_only=ON")
            connection.execute("BEGIN")  # one snapshot of the store for every question
            return _store_matches(connection, index, anchors, sessions, snapshots, since)
        finally:
            connection.close()
    finally:
        guard.release()


def _store_matches(
    store: sqlite3.Connection,
    index: sqlite3.Connection,
    anchors: list[tuple[str, ...]],
    sessions: int,
    snapshots: tuple[Any, ...],
    since: datetime | None,
) -> bool:
    """The store holds what the index recorded: its anchor rows, as many sessions and
    snapshots, and no session active since the high-water mark has new rows or changes."""
    if not anchors or since is None:
        return False
    marks = ",".join("?" * len(anchors))
    found = store.execute(
        f"SELECT id, session_id, sequence FROM raw_messages WHERE id IN ({marks})",  # noqa: S608 - only marks
        [anchor[0] for anchor in anchors],
    ).fetchall()
    if sorted(tuple(map(str, row)) for row in found) != anchors:
        return False
    if int(store.execute("SELECT count(*) FROM agent_sessions").fetchone()[0]) != sessions:
        return False
    stored = store.execute("SELECT count(*), max(id) FROM session_snapshots").fetchone()
    if (int(stored[0]), stored[1]) != (int(snapshots[0]), snapshots[1]):
        return False
    active = store.execute(
        "SELECT id, updated_at, (SELECT coalesce(max(sequence), 0) FROM raw_messages"
        " WHERE raw_messages.session_id = agent_sessions.id) FROM agent_sessions"
        " WHERE updated_at >= ? ORDER BY updated_at, id LIMIT ?",
        (since.replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f"), MOST_ACTIVE + 1),
    ).fetchall()
    if len(active) > MOST_ACTIVE:
        return False
    known = index_db.indexed_sessions(index, [str(session_id) for session_id, _, _ in active])
    for session_id, updated_at, last_sequence in active:
        updated = stored_time(updated_at)
        epoch = updated.timestamp() if isinstance(updated, datetime) else None
        if known.get(str(session_id)) != (int(last_sequence), epoch):
            return False
    return True


__all__ = ["fresh_index"]
