"""Provides the notes file: where it lives, its schema, and its reads and writes.

One small SQLite file for every store, ``notes.sqlite3`` in the user's data directory
(``platformdirs.user_data_dir("zett-browser")``; ``$ZETT_BROWSER_NOTES`` or
``--notes-file`` name another). Unlike the side index it is not derived data: it holds
what a person wrote, so it lives in the data directory, not the cache, and an index
rebuild never touches it. It is never in or beside a store (:func:`check_place`), and
never opened through a link.

Three plain tables, readable by any SQLite tool, each row keyed by the store's identity
(the side index's: the store's resolved path, or its URL without secrets), the session
id and the message's sequence (NULL: the session itself)::

    pins   (store_identity, session_id, seq, created_at)
    labels (store_identity, session_id, seq, label, created_at)
    notes  (store_identity, session_id, seq, text, created_at, updated_at)

Times are ISO 8601 in UTC. A ``meta`` table holds the schema version.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from ..model.notes import Annotation
from ..safefiles import UnsafePath, create_private, is_store_directory, is_store_file, refuse_link

ENV_FILE = "ZETT_BROWSER_NOTES"
SCHEMA_VERSION = "1"
#: ``seq`` of a mark on the session itself, in the unique indexes (NULLs never collide there).
_NO_SEQ = "coalesce(seq, -9223372036854775808)"
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS pins (
    store_identity TEXT NOT NULL, session_id TEXT NOT NULL, seq INTEGER, created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS pins_key ON pins(store_identity, session_id, {_NO_SEQ});
CREATE TABLE IF NOT EXISTS labels (
    store_identity TEXT NOT NULL, session_id TEXT NOT NULL, seq INTEGER, label TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS labels_key ON labels(store_identity, session_id, {_NO_SEQ}, label);
CREATE TABLE IF NOT EXISTS notes (
    store_identity TEXT NOT NULL, session_id TEXT NOT NULL, seq INTEGER, text TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS notes_key ON notes(store_identity, session_id, {_NO_SEQ});
INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', '{SCHEMA_VERSION}');
"""
#: Longest note kept (characters); longer text is cut.
MAX_NOTE = 20_000
_SAME = "store_identity = ? AND session_id = ? AND seq IS ?"


def default_file() -> Path:
    """The notes file: ``$ZETT_BROWSER_NOTES`` or ``notes.sqlite3`` in the user data directory."""
    configured = os.environ.get(ENV_FILE)
    if configured:
        return Path(configured).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("zett-browser")) / "notes.sqlite3"


def now() -> str:
    """The current time as the file stores it."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def check_place(path: Path, store: Path | None) -> None:
    """Refuse a notes file that is, or sits beside, the store (or is a link, a directory…).

    Raises:
        UnsafePath: one line saying what to do.
    """
    if store is not None and is_store_directory(path.parent, store):
        raise UnsafePath(
            f"the notes file {path} is in the store's own directory: notes are kept apart from the store; "
            f"give another file (--notes-file or ${ENV_FILE})"
        )
    for suffix in ("", "-journal", "-wal", "-shm"):
        candidate = Path(f"{path}{suffix}")
        if is_store_file(candidate, store):
            raise UnsafePath(f"the notes file {path} is the store: give another file (--notes-file or ${ENV_FILE})")
        refuse_link(candidate, "the notes file")


def open_file(path: Path, store: Path | None, *, create: bool) -> sqlite3.Connection | None:
    """Open the notes file (creating it and its directory when ``create``); None when it is
    missing and not to be created.

    Raises:
        UnsafePath: see :func:`check_place`.
        sqlite3.Error: the file is not a database.
    """
    check_place(path, store)
    if not path.exists():
        if not create:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        create_private(path)
    db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    try:
        db.execute("PRAGMA foreign_keys=OFF")
        if create:
            db.executescript(SCHEMA)
        elif db.execute("SELECT 1 FROM sqlite_master WHERE name = 'notes'").fetchone() is None:
            db.close()
            return None
    except sqlite3.Error:
        db.close()
        raise
    return db


class _Found:
    """What the rows of one session or message say, while they are read."""

    def __init__(self) -> None:
        self.pinned = False
        self.labels: list[str] = []
        self.note: str | None = None
        self.updated = ""

    def seen(self, moment: object) -> None:
        self.updated = max(self.updated, str(moment))


def _annotations(db: sqlite3.Connection, where: str, params: Sequence[object]) -> list[Annotation]:
    """Every annotation whose rows match ``where`` (over ``store_identity``, ``session_id``, ``seq``)."""
    found: dict[tuple[str, int | None], _Found] = {}

    def entry(session_id: object, seq: object) -> _Found:
        return found.setdefault((str(session_id), None if seq is None else int(str(seq))), _Found())

    for session_id, seq, created in db.execute(f"SELECT session_id, seq, created_at FROM pins WHERE {where}", params):
        item = entry(session_id, seq)
        item.pinned = True
        item.seen(created)
    query = f"SELECT session_id, seq, label, created_at FROM labels WHERE {where} ORDER BY rowid"
    for session_id, seq, label, created in db.execute(query, params):
        item = entry(session_id, seq)
        item.labels.append(str(label))
        item.seen(created)
    query = f"SELECT session_id, seq, text, updated_at FROM notes WHERE {where}"
    for session_id, seq, text, updated in db.execute(query, params):
        item = entry(session_id, seq)
        item.note = str(text)
        item.seen(updated)
    return [
        Annotation(session_id, seq, item.pinned, tuple(item.labels), item.note, item.updated)
        for (session_id, seq), item in sorted(found.items(), key=_order)
    ]


def _order(entry: tuple[tuple[str, int | None], object]) -> tuple[str, int, int]:
    (session_id, seq), _ = entry
    return session_id, 0 if seq is None else 1, seq or 0


def every(db: sqlite3.Connection, identity: str) -> list[Annotation]:
    """Everything written on one store."""
    return _annotations(db, "store_identity = ?", (identity,))


def of_session(db: sqlite3.Connection, identity: str, session_id: str) -> list[Annotation]:
    """What is written on one session and its messages."""
    return _annotations(db, "store_identity = ? AND session_id = ?", (identity, session_id))


def of_sessions(db: sqlite3.Connection, identity: str, session_ids: Iterable[str]) -> list[Annotation]:
    """What is written on these sessions themselves (not their messages)."""
    ids = list(dict.fromkeys(session_ids))
    found: list[Annotation] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        where = f"store_identity = ? AND seq IS NULL AND session_id IN ({','.join('?' * len(chunk))})"
        found.extend(_annotations(db, where, (identity, *chunk)))
    return found


def one(db: sqlite3.Connection, identity: str, session_id: str, seq: int | None) -> Annotation:
    """What is written on one session or message (an empty annotation when nothing is)."""
    found = _annotations(db, _SAME, (identity, session_id, seq))
    return found[0] if found else Annotation(session_id, seq)


def toggle_pin(db: sqlite3.Connection, identity: str, session_id: str, seq: int | None) -> None:
    """Pin, or unpin, a session or a message (one transaction)."""
    key = (identity, session_id, seq)
    with _transaction(db):
        if db.execute(f"DELETE FROM pins WHERE {_SAME}", key).rowcount == 0:
            db.execute("INSERT INTO pins VALUES (?, ?, ?, ?)", (*key, now()))


def set_labels(db: sqlite3.Connection, identity: str, session_id: str, seq: int | None, labels: Sequence[str]) -> None:
    """Replace the labels of a session or a message (one transaction); labels kept keep their time."""
    key = (identity, session_id, seq)
    with _transaction(db):
        kept = dict(db.execute(f"SELECT label, created_at FROM labels WHERE {_SAME}", key).fetchall())
        db.execute(f"DELETE FROM labels WHERE {_SAME}", key)
        for label in labels:
            db.execute("INSERT OR IGNORE INTO labels VALUES (?, ?, ?, ?, ?)", (*key, label, kept.get(label, now())))


def set_note(db: sqlite3.Connection, identity: str, session_id: str, seq: int | None, text: str) -> None:
    """Replace (blank: remove) the note of a session or a message (one transaction)."""
    key = (identity, session_id, seq)
    text = text[:MAX_NOTE]
    with _transaction(db):
        if not text.strip():
            db.execute(f"DELETE FROM notes WHERE {_SAME}", key)
            return
        moment = now()
        if db.execute(f"UPDATE notes SET text = ?, updated_at = ? WHERE {_SAME}", (text, moment, *key)).rowcount == 0:
            db.execute("INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?)", (*key, text, moment, moment))


class _transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on an error): another process's write waits."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self._db.execute("COMMIT" if kind is None else "ROLLBACK")


__all__ = ["ENV_FILE", "UnsafePath", "check_place", "default_file", "every", "of_session", "of_sessions", "one"]
