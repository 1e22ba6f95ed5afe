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

The index never lands on the store: :func:`check_place` refuses a directory that is the
store's own (or that is not a directory), and an index file, its ``-wal``/``-shm``/
``-journal`` or its ``.lock`` that is a symbolic link, a hard link, the store itself or
anything but a regular file. SQLite opens by path, so the files are checked with
``lstat`` right before each open and created by this module with ``O_CREAT | O_EXCL |
O_NOFOLLOW``; after the open the inode is compared again.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import sqlite3
import stat
from pathlib import Path
from urllib.parse import quote

try:  # CPython's own SHA-256: what hashlib's OpenSSL one computes, ~4 ms less to import per subcommand
    from _sha256 import sha256 as _sha256  # type: ignore[import-not-found]
except ImportError:  # another Python (3.12 names it _sha2)
    from hashlib import sha256 as _sha256

from ..safefiles import UnsafePath, create_private, is_store_directory, is_store_file, refuse_link

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

#: 2: usage totals (index/totals.py); 3: tool outcomes and flags (issue 24: index/facts.py);
#: 4: usage per day and model over all sessions (``usage_models``, issue 29).
#: Another version in a file's meta makes :func:`open_checked` rebuild it; readers of a file
#: of another version see no hits (:func:`current_state`), never columns it does not have.
SCHEMA_VERSION = "4"
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
    reasoning INTEGER, image INTEGER, meta TEXT, tags TEXT, problem TEXT, outcome TEXT, flags TEXT
);
CREATE INDEX IF NOT EXISTS docs_session ON docs(session_id, sequence);
CREATE INDEX IF NOT EXISTS docs_error ON docs(session_id) WHERE error = 1;
CREATE TABLE IF NOT EXISTS snapshots (id TEXT PRIMARY KEY, session_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS snapshots_session ON snapshots(session_id);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(body, tokenize='unicode61 remove_diacritics 2', prefix='2 3');
"""


#: FTS5's write settings in an index, written by its full build and kept: a level's segments
#: are merged once 16 of them wait (SQLite's default is 4), and at once only at 64 (default
#: 16); pending terms are flushed at 16 MB (default 1 MB), which a full build's transactions
#: of :data:`~.pipeline.COMMIT_ROWS` rows reach. With the defaults every text was rewritten
#: about log4(n) times: merges took most of a 5M-message build. Inserting the 1M store's
#: texts 5 times over, 2,000 a batch: 428 s with the defaults, 332 s with the larger hash and
#: commits, 272 s with the merge settings alone, 239 s with all three (1M: 57 / 56 / 43 /
#: 45 s; issue 29). Queries see a few more segments (three queries at 5M: 37 / 38 ms).
FTS_SETTINGS = (("automerge", 16), ("crisismerge", 64), ("hashsize", 16 << 20))


def tune_fts(db: sqlite3.Connection) -> None:
    """Write :data:`FTS_SETTINGS` into the index's FTS table (its own transaction)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.executemany("INSERT INTO fts(fts, rank) VALUES (?, ?)", FTS_SETTINGS)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


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
    digest = _sha256(identity.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return directory / f"{prefix}-{digest}.sqlite3"


#: The files of one index (``.lock`` last: it outlives a rebuild).
FILE_SUFFIXES = ("", "-wal", "-shm", "-journal", ".lock")


def check_place(path: Path, store: Path | None) -> None:
    """Refuse an index at ``path`` that could write onto ``store`` or beside it.

    Raises:
        UnsafePath: the directory is a file or the store's own directory, or one of the
            index's files is a link, the store, or not a regular file; one line saying
            what to do.
    """
    directory = path.parent
    try:
        found = directory.stat()
    except FileNotFoundError:
        found = None
    except NotADirectoryError:
        raise UnsafePath(f"the index directory {directory} is inside a file: give a directory") from None
    except OSError as error:
        problem = error.strerror or "unusable"
        raise UnsafePath(f"the index directory {directory} cannot be used ({problem}): give a directory") from None
    if found is not None and not directory.is_dir():
        raise UnsafePath(
            f"the index directory {directory} is a file, not a directory: give a directory (--index-dir or ${ENV_DIR})"
        )
    if is_store_directory(directory, store):
        raise UnsafePath(
            f"the index directory {directory} is the store's own directory: the index is kept apart from the "
            f"store; give another directory (--index-dir or ${ENV_DIR})"
        )
    for suffix in FILE_SUFFIXES:
        check_file(Path(f"{path}{suffix}"), store)


def check_file(path: Path, store: Path | None) -> os.stat_result | None:
    """``lstat`` one index file right before it is opened; None when it does not exist.

    Raises:
        UnsafePath: it is a link (symbolic or hard), the store or one of its files, or not
            a regular file.
    """
    found = refuse_link(path, "the index file")
    if is_store_file(path, store):
        raise UnsafePath(f"the index file {path} is the store: remove it and try again")
    if found is not None and found.st_nlink > 1:
        raise UnsafePath(f"the index file {path} has other names (a hard link): remove it and try again")
    return found


def store_counter(path: Path | None) -> int | None:
    """The SQLite header's file change counter (bytes 24-27) of the store, or None.

    It only grows (a write in rollback mode, a change of journal mode) but WAL commits do
    not move it: a smaller value means an older copy was put in place of the store; an
    equal one proves nothing.
    """
    if path is None:
        return None
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        header = os.pread(handle, 100, 0)
    except OSError:
        return None
    finally:
        os.close(handle)
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        return None
    return int.from_bytes(header[24:28], "big")


def store_fingerprint(path: Path | None) -> str:
    """What tells a replaced store file apart: device and inode (servers: their identity only)."""
    if path is None:
        return "server"
    try:
        stat = path.stat()
    except OSError:
        return "missing"
    return f"{stat.st_dev}:{stat.st_ino}"


def connect(path: Path, store: Path | None = None) -> sqlite3.Connection:
    """Open (creating) an index file in WAL mode, with the schema; never through a link.

    Raises:
        UnsafePath: see :func:`check_file`, or the file changed under the open.
    """
    for suffix in FILE_SUFFIXES[1:4]:
        check_file(Path(f"{path}{suffix}"), store)
    if check_file(path, store) is None:
        create_private(path)
    checked = check_file(path, store)
    db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    try:
        after = check_file(path, store)
        if checked is None or after is None or (after.st_dev, after.st_ino) != (checked.st_dev, checked.st_ino):
            raise UnsafePath(f"the index file {path} changed while it was opened: try again")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        from .totals import SCHEMA as TOTALS_SCHEMA  # here: readers (search, usage) never create tables

        db.executescript(SCHEMA + TOTALS_SCHEMA)
    except (sqlite3.Error, UnsafePath):
        db.close()
        raise
    return db


def open_reader(path: Path, timeout: float = 5) -> sqlite3.Connection | None:
    """A connection to read an existing index file; None when there is none, or when it
    or its ``-wal``/``-shm`` is a link or not a regular file (a sync refuses those).

    Opened read-write (our own cache file) so that WAL works even when no writer has the
    ``-shm`` open; nothing is written through it. ``mode=rw`` never creates the file (a
    rebuild may have removed it since the check).
    """
    for suffix in ("", "-wal", "-shm"):
        try:
            found = os.lstat(f"{path}{suffix}")
        except FileNotFoundError:
            if suffix:
                continue
            return None
        except OSError:
            return None
        if not stat.S_ISREG(found.st_mode) or found.st_nlink > 1:
            return None
    uri = f"file:{quote(str(path), safe='/')}?mode=rw"
    try:
        return sqlite3.connect(uri, uri=True, timeout=timeout, check_same_thread=False)
    except sqlite3.OperationalError:
        return None


def remove(path: Path) -> None:
    """Delete an index file and its WAL companions."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            Path(f"{path}{suffix}").unlink()
        except FileNotFoundError:
            pass


def current_state(db: sqlite3.Connection) -> str | None:
    """The build state (``building``, ``complete``) of an index of this schema version; None
    for a file of another version or none yet: a reader shows nothing of it (its columns may
    differ) until a sync rebuilds it.

    Raises:
        sqlite3.Error: not an index, or damaged.
    """
    found = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('schema', 'state')").fetchall())
    if found.get("schema") != SCHEMA_VERSION:
        return None
    return str(found.get("state") or "building")


def read_meta(db: sqlite3.Connection) -> dict[str, str]:
    """Every meta value (empty on a new file)."""
    return {str(key): str(value) for key, value in db.execute("SELECT key, value FROM meta")}


def indexed_sessions(db: sqlite3.Connection, session_ids: list[str]) -> dict[str, tuple[int, float | None]]:
    """Indexed last sequence and activity of the given sessions."""
    found: dict[str, tuple[int, float | None]] = {}
    for start in range(0, len(session_ids), 500):
        chunk = session_ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = db.execute(f"SELECT id, last_seq, updated FROM sessions WHERE id IN ({marks})", chunk)
        found.update((session_id, (last, updated)) for session_id, last, updated in rows)
    return found


def open_checked(path: Path, identity: str, store: Path | None = None) -> sqlite3.Connection:
    """Open the index, rebuilding a file that is corrupt, of another version or store."""
    check_place(path, store)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = connect(path, store)
        meta = read_meta(db)
        db.execute("SELECT count(*) FROM fts WHERE fts MATCH 'x'").fetchone()
    except sqlite3.Error:
        with contextlib.suppress(NameError, sqlite3.Error):
            db.close()  # before the files go: a late close would delete the new build's -wal
        remove(path)
        db = connect(path, store)
        meta = {}
    if meta and (meta.get("schema") != SCHEMA_VERSION or meta.get("identity") != identity):
        if meta.get("identity") != identity:
            reason = "the index was another store's"
        else:
            reason = f"the index format changed: version {meta.get('schema', '?')[:20]}, now {SCHEMA_VERSION}"
        db.close()
        remove(path)
        db = connect(path, store)
        db.execute("INSERT INTO meta(key, value) VALUES ('reason', ?)", (reason,))  # said by the sync
    return db


class SyncLock:
    """An exclusive, non-blocking lock on ``<index>.lock``: one syncing process at a time."""

    def __init__(self, path: Path, store: Path | None = None) -> None:
        self.path = Path(f"{path}.lock")
        self.store = store
        self._file: int | None = None

    def acquire(self) -> bool:
        """Take the lock; False when another process holds it.

        Raises:
            UnsafePath: the lock file is a link, the store, or not a regular file.
        """
        check_file(self.path, self.store)
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
        try:
            handle = os.open(self.path, flags, 0o600)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise UnsafePath(f"the index file {self.path} is a symbolic link: remove it and try again") from None
            raise
        try:
            opened = os.fstat(handle)
            if not stat.S_ISREG(opened.st_mode) or opened.st_nlink > 1 or is_store_file(self.path, self.store):
                raise UnsafePath(f"the index file {self.path} is not a file the browser made: remove it and try again")
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            return False
        except BaseException:
            os.close(handle)
            raise
        self._file = handle
        return True

    def release(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            os.close(self._file)
            self._file = None
