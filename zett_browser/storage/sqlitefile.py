"""Provides the stdlib-only checks and settings for opening a SQLite store file.

Split from :mod:`.engine` so the start-up reader (:mod:`.quickstart`), which must not
import SQLAlchemy, opens a store exactly as the storage does: the same ``stat`` and header
checks (only a regular file is read; a FIFO would block the header read forever; the
header is read by SQLite, never through a descriptor of ours, which would drop the
process's locks on the store when closed), the
same ``file:`` URI built from the quoted path (``?``, ``#`` or ``%`` in a path cannot
change its meaning), always ``mode=ro``, and the same busy timeouts. :mod:`.engine`
re-exports every name, so callers keep importing them from there.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from ..text import clean
from .errors import (
    DEFAULT_STORE_HINT,
    NotAFileError,
    NotSQLiteError,
    StoreError,
    StoreIsDirectoryError,
    StoreNotFoundError,
    StorePermissionError,
)

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any

    from .sidecars import SidecarGuard

#: zett-agent's default store.
DEFAULT_PATH = Path("~/.zett-agent/sessions.sqlite3")
SQLITE_HEADER = b"SQLite format 3\x00"
#: Busy wait of a writable connection, as zett-agent sets it.
WRITER_BUSY_TIMEOUT_MS = 5000
#: Busy wait of a browsing connection; the storage retries a few times on top of it.
READER_BUSY_TIMEOUT_MS = 1000


def sqlite_path(store: str | os.PathLike[str] | None) -> Path | None:
    """The SQLite file a STORE argument names, as the storage resolves it; None for a URL."""
    if store is None:
        return DEFAULT_PATH.expanduser()
    text = os.fspath(store)
    if "://" in text:
        return None  # a server (or sqlite://) URL: the storage parses it
    return Path(text).expanduser().absolute()


def check_sqlite_file(path: Path) -> None:
    """Check, without creating or changing anything, that ``path`` can be browsed.

    The path is ``stat``-ed before anything opens it: only a regular file is read (a
    FIFO would block the read of its header forever; a device or socket is no store).
    SQLite then reads the header (see :func:`_sqlite_header_ok` for why never we).

    Raises:
        StoreNotFoundError, StoreIsDirectoryError, StorePermissionError, NotSQLiteError,
        NotAFileError
    """
    shown = clean(path.resolve())
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise StoreNotFoundError(f"No store at {shown}: the file does not exist ({DEFAULT_STORE_HINT})") from None
    except PermissionError:
        raise StorePermissionError(f"Cannot read {shown}: permission denied") from None
    except OSError as error:
        raise StoreError(f"Cannot read {shown}: {clean(error.strerror or error)}") from None
    if stat.S_ISDIR(mode):
        raise StoreIsDirectoryError(f"{shown} is a directory, not a zett-agent store")
    if not stat.S_ISREG(mode):
        raise NotAFileError(f"{shown} is a {_file_kind(mode)}, not a zett-agent store file; nothing was opened")
    if not os.access(path, os.R_OK):
        raise StorePermissionError(f"Cannot read {shown}: permission denied")
    if not _sqlite_header_ok(path):
        raise NotSQLiteError(f"{shown} is not a SQLite database")


def _sqlite_header_ok(path: Path) -> bool:
    """Whether SQLite takes ``path`` for a database (an empty file counts: SQLite's own
    answer, as before); any other failure is left for the real connection to report.

    The header is read by SQLite itself, never through a descriptor of our own. POSIX
    locks belong to the process: closing *any* descriptor of a file drops every lock the
    process holds on it, also the shared lock each open SQLite connection keeps on the
    store. A writer that then closes its own connection finds itself the last one,
    checkpoints and deletes the ``-wal`` under our open connections, which from then on
    read a stale store, or one SQLite calls "malformed" (measured with zett-agent 0.2.1
    appending while the browser followed; the storage opened after the start-up reader
    checked the file while that reader's connection was open). SQLite's own descriptors
    are closed only once no connection of the process holds a lock on the file.
    """
    try:
        connection = sqlite3.connect(sqlite_uri(path, "ro"), uri=True, timeout=0, isolation_level=None)
    except sqlite3.Error:
        return True
    try:
        connection.execute("PRAGMA schema_version").fetchone()
    except sqlite3.DatabaseError as error:
        return getattr(error, "sqlite_errorcode", None) != sqlite3.SQLITE_NOTADB
    finally:
        connection.close()
    return True


def _file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    return "special file"


def sqlite_uri(path: Path, mode: str) -> str:
    """A ``file:`` URI for ``path`` whose special characters cannot change its meaning."""
    return f"file:{quote(str(path), safe='/')}?mode={mode}"


def browse_mode(path: Path) -> str:
    """Always ``ro``: see the module docstring for why ``rw`` + ``query_only`` is not enough."""
    return "ro"


def open_stdlib_reader(
    path: Path, *, text_factory: Callable[[bytes], Any] | None = None, check_same_thread: bool = True
) -> sqlite3.Connection:
    """``path`` opened read-only through the stdlib driver as the storage opens it: the file
    checked first, the ``mode=ro`` URI of the quoted path, autocommit (no transaction held
    between reads), the reader's busy timeout and ``query_only``. Record a
    :class:`~.sidecars.SidecarGuard` before calling it and release it after closing."""
    check_sqlite_file(path)
    connection = sqlite3.connect(
        sqlite_uri(path, browse_mode(path)),
        uri=True,
        timeout=READER_BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,
        check_same_thread=check_same_thread,
    )
    try:
        if text_factory is not None:
            connection.text_factory = text_factory
        connection.execute(f"PRAGMA busy_timeout={READER_BUSY_TIMEOUT_MS}")
        connection.execute("PRAGMA query_only=ON")
    except BaseException:
        connection.close()
        raise
    return connection


def close_stdlib_reader(connection: sqlite3.Connection | None, guard: SidecarGuard | None) -> None:
    """Close what :func:`open_stdlib_reader` opened, then release its guard (the sidecars
    this read created go when that is safe), the guard even when closing fails."""
    try:
        if connection is not None:
            connection.close()
    finally:
        if guard is not None:
            guard.release()
