"""Provides the side-index file: where it lives, its schema, and safe opening.

The index is derived data in the user's cache directory, never in or beside the store:
one SQLite file per store, named from the store's identity (its resolved path, or its
URL without password) as ``<readable prefix>-<sha256 prefix>.sqlite3``. Deleting it
loses nothing. A file that is corrupt, of another schema version, or built from another
store is deleted and rebuilt, never a crash.

Tables: ``meta`` (key/value: schema version, store identity and fingerprint, activity
high-water mark, build state), ``sessions`` (one row per store session, with the last
indexed sequence; the usage totals of :mod:`.totals` join it by ``id``),
``docs`` (one row per message, snapshot and session, with the qualifier facts),
``snapshots`` (ids already indexed) and ``fts`` (FTS5 over ``docs.body``, same rowid).
Writers take ``BEGIN IMMEDIATE`` in WAL mode; a lock file next to the index lets one
process sync at a time while others keep searching.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import sqlite3
from pathlib import Path
from typing import IO

from sqlalchemy.engine import URL

from .totals import SCHEMA as TOTALS_SCHEMA

SCHEMA_VERSION = "2"  # 2: usage totals (index/totals.py)
ENV_DIR = "ZETT_BROWSER_INDEX_DIR"
#: URL query keys left out of a store's identity (it is stored in the index and hashed).
_SECRET = re.compile(r"pass|secret|token|key|cred", re.IGNORECASE)
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, parent_id TEXT, session_type INTEGER, title TEXT, agent TEXT,
    created REAL, updated REAL, last_seq INTEGER NOT NULL DEFAULT 0, session_doc INTEGER
);
CREATE INDEX IF NOT EXISTS sessions_parent ON sessions(parent_id);
CREATE TABLE IF NOT EXISTS docs (
    id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, sequence INTEGER NOT NULL, kind TEXT NOT NULL,
    time REAL, model TEXT, tools TEXT, tokens INTEGER, duration REAL, error INTEGER, stop TEXT,
    reasoning INTEGER, image INTEGER, meta TEXT, tags TEXT, problem TEXT
);
CREATE INDEX IF NOT EXISTS docs_session ON docs(session_id, sequence);
CREATE INDEX IF NOT EXISTS docs_error ON docs(session_id) WHERE error = 1;
CREATE TABLE IF NOT EXISTS snapshots (id TEXT PRIMARY KEY, session_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS snapshots_session ON snapshots(session_id);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(body, tokenize='unicode61 remove_diacritics 2', prefix='2 3');
"""


def default_dir() -> Path:
    """The index directory: ``$ZETT_BROWSER_INDEX_DIR`` or the user cache directory."""
    configured = os.environ.get(ENV_DIR)
    if configured:
        return Path(configured).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("zett-browser")) / "index"


def store_identity(path: Path | None, url: URL | None) -> str:
    """A stable name of the store without secrets: resolved path, or URL without password."""
    if path is not None:
        return str(path.expanduser().resolve())
    assert url is not None
    query = {key: value for key, value in url.query.items() if not _SECRET.search(key)}
    return url.set(password=None, query=query).render_as_string(hide_password=True)


def index_file(identity: str, directory: Path) -> Path:
    """The index file for a store identity: readable prefix plus a hash of the identity."""
    tail = identity.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or "store"
    prefix = re.sub(r"[^A-Za-z0-9_.-]+", "-", tail)[:40].strip(".-") or "store"
    digest = hashlib.sha256(identity.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return directory / f"{prefix}-{digest}.sqlite3"


def store_fingerprint(path: Path | None) -> str:
    """What tells a replaced store file apart: device and inode (servers: their identity only)."""
    if path is None:
        return "server"
    try:
        stat = path.stat()
    except OSError:
        return "missing"
    return f"{stat.st_dev}:{stat.st_ino}"


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating) an index file in WAL mode, with the schema."""
    db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(SCHEMA + TOTALS_SCHEMA)
    except sqlite3.Error:
        db.close()
        raise
    return db


def remove(path: Path) -> None:
    """Delete an index file and its WAL companions."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            Path(f"{path}{suffix}").unlink()
        except FileNotFoundError:
            pass


def read_meta(db: sqlite3.Connection) -> dict[str, str]:
    """Every meta value (empty on a new file)."""
    return {str(key): str(value) for key, value in db.execute("SELECT key, value FROM meta")}


def open_checked(path: Path, identity: str) -> sqlite3.Connection:
    """Open the index, rebuilding a file that is corrupt, of another version or store."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = connect(path)
        meta = read_meta(db)
        db.execute("SELECT count(*) FROM fts WHERE fts MATCH 'x'").fetchone()
    except sqlite3.Error:
        with contextlib.suppress(NameError, sqlite3.Error):
            db.close()  # before the files go: a late close would delete the new build's -wal
        remove(path)
        db = connect(path)
        meta = {}
    if meta and (meta.get("schema") != SCHEMA_VERSION or meta.get("identity") != identity):
        db.close()
        remove(path)
        db = connect(path)
    return db


class SyncLock:
    """An exclusive, non-blocking lock on ``<index>.lock``: one syncing process at a time."""

    def __init__(self, path: Path) -> None:
        self.path = Path(f"{path}.lock")
        self._file: IO[bytes] | None = None

    def acquire(self) -> bool:
        """Take the lock; False when another process holds it."""
        handle = open(self.path, "ab")  # noqa: SIM115 - held until release()
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        self._file = handle
        return True

    def release(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
            self._file.close()
            self._file = None
