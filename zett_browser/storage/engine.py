"""Provides store targets, SQLite file checks, engine creation and error translation.

Targets (a SQLite path or a server URL, with their secrets) live in :mod:`.target`. SQLite files
are opened through a ``file:`` URI built from the quoted path, never through a string
URL: SQLAlchemy percent-decodes a string URL's database part, so a path holding ``?``,
``#`` or ``%`` would open (and possibly create) a different file.

Opened for browsing, a SQLite store is always connected with ``mode=ro`` (plus
``PRAGMA query_only=ON``): the file is opened ``O_RDONLY``, so closing can never
checkpoint a writer's WAL into it. ``mode=rw`` did exactly that when the last connection
closed after an agent had written, changing the store's bytes (and corrupting a file
restored from a backup meanwhile); Python 3.11 has no ``Connection.setconfig`` to set
``SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE``. The ``-wal``/``-shm`` files ``mode=ro`` leaves
behind are removed by :mod:`.sidecars` when that is provably safe. ``mode=ro`` never
creates a missing file. ``immutable=1`` is never used: it ignores the WAL of a running
agent. Only regular files are opened: a FIFO, socket or device is refused after a
``stat`` (reading a FIFO's "header" would block forever).

A server store (PostgreSQL through psycopg 3, MySQL/MariaDB through aiomysql) gets a
small pool with pre-ping (a connection lost while idle is replaced at the next call),
connect and statement timeouts, and, when browsing, sessions that the server itself
keeps read-only (``default_transaction_read_only`` on PostgreSQL, ``SET SESSION
TRANSACTION READ ONLY`` on MySQL), so a write cannot happen even by mistake.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

import os
import re
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import aiosqlite
from sqlalchemy import event
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, NoSuchModuleError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import AsyncAdaptedQueuePool

from ..text import clean
from .errors import (
    NotSQLiteError,
    NotZettStoreError,
    ReadOnlyStoreError,
    StoreConnectionError,
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    StoreNotFoundError,
    StorePermissionError,
    StoreTimeoutError,
)

# Re-exported: the stdlib-only file checks moved to .sqlitefile (the start-up reader uses them).
from .sqlitefile import READER_BUSY_TIMEOUT_MS as READER_BUSY_TIMEOUT_MS
from .sqlitefile import SQLITE_HEADER as SQLITE_HEADER
from .sqlitefile import WRITER_BUSY_TIMEOUT_MS as WRITER_BUSY_TIMEOUT_MS
from .sqlitefile import browse_mode as browse_mode
from .sqlitefile import check_sqlite_file as check_sqlite_file
from .sqlitefile import sqlite_uri as sqlite_uri

# Re-exported: callers import these from here, as before the targets had their own module.
from .target import DEFAULT_DRIVERS as DEFAULT_DRIVERS
from .target import DEFAULT_PATH as DEFAULT_PATH
from .target import DRIVER_EXTRAS as DRIVER_EXTRAS
from .target import Target as Target
from .target import parse_target as parse_target
from .target import scrub as scrub

#: Seconds to wait for a server connection, and for one browsing statement.
CONNECT_TIMEOUT_S = 10
STATEMENT_TIMEOUT_S = 30


def create_sqlite_engine(path: Path, *, read_only: bool) -> AsyncEngine:
    """Create an engine holding a small pool of connections to one SQLite file.

    Connections are reused across calls (a new aiosqlite connection is a new thread and
    costs milliseconds); the pool belongs to the event loop that uses it. Each
    connection runs in SQLite autocommit mode so a reader never holds a snapshot open:
    it sees a writer's commits at its next statement and never stalls its checkpoints.
    A scope that needs a transaction asks for one with the ``zett_begin`` execution
    option (``DEFERRED`` for a consistent read, ``IMMEDIATE`` for a write).
    """
    mode = browse_mode(path) if read_only else "rwc"
    uri = sqlite_uri(path, mode)

    async def creator() -> aiosqlite.Connection:
        connection = aiosqlite.connect(uri, uri=True)
        # A pooled connection's worker thread must not keep the process alive when a
        # script forgets close(): committed rows are already durable in SQLite.
        thread = getattr(connection, "_thread", None)
        if thread is not None:
            thread.daemon = True
        return await connection

    engine = create_async_engine(
        "sqlite+aiosqlite://",
        async_creator=creator,
        poolclass=AsyncAdaptedQueuePool,
        pool_size=2,
        max_overflow=4,
        pool_timeout=30,
    )

    def on_connect(dbapi_connection: Any, _record: object) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            if read_only:
                cursor.execute(f"PRAGMA busy_timeout={READER_BUSY_TIMEOUT_MS}")
                cursor.execute("PRAGMA query_only=ON")
            else:
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute(f"PRAGMA busy_timeout={WRITER_BUSY_TIMEOUT_MS}")
                cursor.execute("PRAGMA synchronous=NORMAL")
        finally:
            cursor.close()

    def on_begin(connection: Any) -> None:
        begin = connection.get_execution_options().get("zett_begin")
        if begin:
            connection.exec_driver_sql(f"BEGIN {begin}")

    event.listen(engine.sync_engine, "connect", on_connect)
    event.listen(engine.sync_engine, "begin", on_begin)
    return engine


def create_server_engine(url: URL, *, read_only: bool = True) -> AsyncEngine:
    """Create a pooled engine for a PostgreSQL or MySQL store.

    Browsing sessions are read-only on the server side and their statements time out
    after :data:`STATEMENT_TIMEOUT_S`; every driver waits at most
    :data:`CONNECT_TIMEOUT_S` for a connection.

    Raises:
        StoreError: The dialect's driver is not installed (names the extra).
    """
    backend, driver = url.get_backend_name(), url.get_driver_name()
    given = dict(url.query)  # what the URL sets itself wins over the defaults below
    connect_args: dict[str, Any] = {}
    if driver == "psycopg":
        if "connect_timeout" not in given:
            connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
        if "application_name" not in given:
            connect_args["application_name"] = "zett-browser"
        if read_only:
            options = [str(given["options"])] if "options" in given else []
            options.append(f"-c statement_timeout={STATEMENT_TIMEOUT_S * 1000}")
            options.append("-c default_transaction_read_only=on")
            connect_args["options"] = " ".join(options)
    elif driver == "aiomysql":
        _check_mysql_charset(url, given.get("charset"))
        if "connect_timeout" not in given:
            connect_args = {"connect_timeout": CONNECT_TIMEOUT_S}
    elif driver == "asyncpg":
        connect_args = {"timeout": CONNECT_TIMEOUT_S}
        if read_only:
            connect_args["server_settings"] = {
                "default_transaction_read_only": "on",
                "statement_timeout": str(STATEMENT_TIMEOUT_S * 1000),
            }
    try:
        engine = create_async_engine(
            url,
            pool_size=5,
            max_overflow=5,
            pool_timeout=CONNECT_TIMEOUT_S,
            pool_pre_ping=True,
            pool_recycle=1800,
            connect_args=connect_args,
        )
    except (ModuleNotFoundError, NoSuchModuleError) as error:
        extra = DRIVER_EXTRAS.get(backend)
        hint = f'; install it with pip install "zett-browser[{extra}]"' if extra else ""
        raise StoreError(f"The {backend} driver ({driver}) is not installed{hint}") from error
    except (ValueError, TypeError) as error:  # e.g. ?connect_timeout=abc for aiomysql
        target = Target(None, url)
        raise StoreError(
            f"Invalid connection option in {target.display()}: {clean(scrub(str(error), target.secrets))}"
        ) from None
    if backend in ("mysql", "mariadb"):

        def on_connect(dbapi_connection: Any, _record: object) -> None:
            cursor = dbapi_connection.cursor()
            try:
                cursor.execute("SELECT VERSION()")
                mariadb = "mariadb" in str(cursor.fetchone()[0]).lower()
                if read_only:
                    cursor.execute("SET SESSION TRANSACTION READ ONLY")
                    if mariadb:
                        cursor.execute(f"SET SESSION max_statement_time = {STATEMENT_TIMEOUT_S}")
                    else:
                        cursor.execute(f"SET SESSION max_execution_time = {STATEMENT_TIMEOUT_S * 1000}")
            finally:
                cursor.close()

        event.listen(engine.sync_engine, "connect", on_connect)
    return engine


def _check_mysql_charset(url: URL, charset: str | tuple[str, ...] | None) -> None:
    """Refuse a ``?charset=`` aiomysql does not know: it would fail every connect with an
    ``AttributeError`` (and a second traceback when the half-built connection is collected)."""
    if charset is None:
        return
    try:
        from pymysql.charset import charset_by_name  # type: ignore[import-untyped]  # aiomysql's own table
    except ImportError:
        return  # no aiomysql either: creating the engine says which extra to install

    name = charset if isinstance(charset, str) else ",".join(charset)
    if charset_by_name(name) is None:
        target = Target(None, url)
        shown = clean(scrub(name, target.secrets))[:60]
        raise StoreError(f"Invalid connection option in {target.display()}: unknown MySQL character set {shown!r}")


#: PostgreSQL SQLSTATE classes and MySQL error numbers the browser explains.
_PG_READ_ONLY = "25006"
_PG_PRIVILEGE = "42501"
_PG_NO_TABLE = "42P01"
_PG_NO_DATABASE = "3D000"
_PG_AUTH = ("28000", "28P01")
_PG_TIMEOUT = "57014"
_MYSQL_READ_ONLY = 1792
_MYSQL_PRIVILEGE = (1142, 1143, 1044, 1045, 1227)
_MYSQL_NO_TABLE = 1146
_MYSQL_NO_DATABASE = 1049
_MYSQL_TIMEOUT = (1969, 3024)
_MYSQL_UNREACHABLE = (2002, 2003, 2005)
_MYSQL_LOST = (2006, 2013, 2055)
#: libpq's words for a connection option it cannot parse (``?connect_timeout=abc``).
_BAD_OPTION = re.compile(r"bad value for|invalid connection option|invalid \w+ value|invalid value for", re.IGNORECASE)


def translate_error(error: DBAPIError, where: str, *, secret: str | Iterable[str] | None = None) -> StoreError:
    """Map a driver error to a typed :class:`StoreError` with a message for people.

    ``where`` names the store as shown to people (a path, or a URL with its secrets
    masked); ``secret`` is the password (or all the URL's secrets), masked wherever the
    driver's text repeats it. The driver's text is cleaned: it may quote a store's bytes.
    """
    original = error.orig
    name = getattr(original, "sqlite_errorname", "") or ""
    text = clean(scrub(str(original) if original is not None else str(error), secret)).strip()
    if not isinstance(original, sqlite3.Error):
        return _translate_server_error(error, where, text)
    no_room = _file_system_problem(where, name, text)
    if no_room is not None:
        return no_room
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in text:
        return StoreLockedError(f"{where} is locked by another process; try again in a moment")
    if name == "SQLITE_NOTADB" or "file is not a database" in text:
        return NotSQLiteError(f"{where} is not a SQLite database")
    if name.startswith("SQLITE_CORRUPT") or "malformed" in text:
        return StoreCorruptError(f"{where} is damaged: SQLite reports {text}")
    if name.startswith("SQLITE_READONLY") or "readonly database" in text:
        if name == "SQLITE_READONLY_DIRECTORY" or "directory" in text:
            return StorePermissionError(
                f"Cannot open {where} read-only: its directory is not writable and SQLite "
                "needs the store's -shm file, which does not exist"
            )
        return ReadOnlyStoreError(f"{where} is open read-only; nothing was written")
    if name.startswith("SQLITE_CANTOPEN") or "unable to open" in text:
        return StoreNotFoundError(f"Cannot open {where}: {text}")
    if name.startswith("SQLITE_PERM") or name.startswith("SQLITE_AUTH"):
        return StorePermissionError(f"Cannot read {where}: permission denied")
    if "no such table" in text:
        return NotZettStoreError(f"{where} is not a zett-agent store ({text})")
    if error.connection_invalidated:
        return StoreConnectionError(f"Lost the connection to {where}: {text}")
    return StoreError(f"{where}: {text}")


def _file_system_problem(where: str, name: str, text: str) -> StoreError | None:
    """A store that cannot be opened because its disk is full or read-only, in words.

    Reading a WAL store needs its ``-wal`` and ``-shm`` files: SQLite creates them beside
    the store, which fails with "disk I/O error" or "unable to open" on a full disk or a
    read-only file system.
    """
    words = ("disk I/O error", "unable to open", "database or disk is full")
    if not (name.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_FULL")) or any(w in text for w in words)):
        return None
    store = Path(where).expanduser().absolute()
    try:
        if not store.is_file():
            return None  # a missing store is "cannot open", whatever the disk
        found = os.statvfs(store.parent)
    except (OSError, ValueError):
        return None
    if found.f_flag & os.ST_RDONLY:
        return StorePermissionError(
            f"Cannot open {where}: it is on a read-only file system, where SQLite cannot make the -wal/-shm "
            "files it needs to read it; copy the store to a writable directory and open the copy"
        )
    if found.f_bavail == 0 or name == "SQLITE_FULL":
        return StoreError(
            f"Cannot open {where}: its disk is full and SQLite needs room for the store's -wal/-shm files; "
            "free some space and try again"
        )
    return None


def _translate_server_error(error: DBAPIError, where: str, text: str) -> StoreError:
    original = error.orig
    sqlstate = getattr(original, "sqlstate", None) or getattr(original, "pgcode", None)
    errno = None
    args = getattr(original, "args", ())
    if args and isinstance(args[0], int):
        errno = args[0]
    first_line = text.splitlines()[0] if text else type(original).__name__
    if sqlstate is None and errno is None and _BAD_OPTION.search(first_line):
        return StoreError(f"Invalid connection option in {where}: {first_line}")
    if sqlstate == _PG_READ_ONLY or errno == _MYSQL_READ_ONLY:
        return ReadOnlyStoreError(f"{where} is open read-only; nothing was written")
    if sqlstate in _PG_AUTH or errno == 1045 or "authentication failed" in text:
        return StorePermissionError(f"Cannot log in to {where}: {first_line}")
    if sqlstate == _PG_PRIVILEGE or errno in _MYSQL_PRIVILEGE:
        return StorePermissionError(f"Permission denied on {where}: {first_line}")
    if sqlstate == _PG_NO_TABLE or errno == _MYSQL_NO_TABLE:
        return NotZettStoreError(f"{where} is not a zett-agent store ({first_line})")
    if sqlstate == _PG_NO_DATABASE or errno == _MYSQL_NO_DATABASE or ("database" in text and "does not exist" in text):
        return StoreNotFoundError(f"No such database: {where} ({first_line})")
    if sqlstate == "22003" or errno == 1264:
        return StoreError(
            f"{where} cannot hold a value: {first_line} (zett-agent's schema keeps durations in "
            "nanoseconds in INTEGER columns, 32-bit on PostgreSQL and MySQL: at most about 2.1 s)"
        )
    if sqlstate == _PG_TIMEOUT or errno in _MYSQL_TIMEOUT:
        return StoreTimeoutError(f"{where} took too long to answer (over {STATEMENT_TIMEOUT_S} s); try again")
    if errno in _MYSQL_UNREACHABLE:
        return StoreConnectionError(f"Cannot reach {where}: {first_line}")
    if error.connection_invalidated or errno in _MYSQL_LOST:
        return StoreConnectionError(f"Lost the connection to {where}: {first_line}; the next action reconnects")
    if sqlstate is None and errno is None:
        return StoreConnectionError(f"Cannot reach {where}: {first_line}")
    return StoreError(f"{where}: {first_line}")
