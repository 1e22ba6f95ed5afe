"""Provides the storage's reader: one store's connections, schema facts and the way to run SQL.

:class:`Reader` owns what every query needs: the target, one engine (a small pool) per
event loop, the schema check (browsing) or creation (writing), the calls still in flight
(:mod:`.inflight`) and the two ways to run SQL: :meth:`Reader.run` (retrying briefly
while a writer holds the lock) and :meth:`Reader.write` (one ``BEGIN IMMEDIATE``
transaction). Driver errors leave it as typed :class:`~.errors.StoreError`\\ s.

Its public surface is what the query modules (:mod:`.tree`, :mod:`.rawlog`,
:mod:`.scan`, :mod:`.export_rows`...) use: they take a reader, never the storage
facade, and never reach into it. The dialect facts a statement depends on
(:attr:`Reader.dialect`, :attr:`Reader.nulls_low`, :meth:`Reader.may_be_null`,
:attr:`Reader.session_type`) are known once the schema check ran, so statements that
use them are built inside the work a read runs.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from sqlalchemy import Integer, event, inspect, literal
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.elements import ColumnElement

from . import schema
from .columns import read_column, sessions_t
from .convert import lenient_text
from .engine import Target, check_sqlite_file, create_server_engine, create_sqlite_engine, translate_error
from .errors import NotZettStoreError, ReadOnlyStoreError, StoreLockedError
from .inflight import InFlight
from .sidecars import SidecarGuard

T = TypeVar("T")

#: Attempts of a read that meets a locked database, and the first back-off in seconds.
BUSY_ATTEMPTS = 4
BUSY_BACKOFF_S = 0.05


def _decode_text_leniently(_dbapi_connection: Any, record: Any) -> None:
    """Make a SQLite connection hand back non-UTF-8 text instead of failing the statement.

    SQLite stores whatever bytes a writer gave it as TEXT; Python's default decoder
    raises on invalid UTF-8 and takes the whole page down with one bad title.
    """
    record.driver_connection.text_factory = lenient_text


class Reader:
    """One store's connections and schema facts; runs the queries' work on them.

    Args:
        target: The parsed store target.
        read_only: Browse without changing anything (the schema is checked, never created).
        sidecar_guard: For a browsed SQLite store, the :class:`SidecarGuard` recorded before
            anything of this process opened it; a guard of another file is ignored.

    Construction needs no event loop. Connections are opened by the first awaited call
    and belong to the loop that awaited it; each loop gets its own small pool.
    """

    def __init__(self, target: Target, *, read_only: bool, sidecar_guard: SidecarGuard | None = None) -> None:
        self.target = target
        self.read_only = read_only
        #: SQLite file of this store, or None for a server store.
        self.path: Path | None = target.path
        #: The -wal/-shm files beside a browsed SQLite store before we opened it. A guard
        #: recorded earlier (the start-up reader's, taken before it opened the store) is
        #: used as is: recorded now, the reader's sidecars would count as pre-existing.
        self._sidecars: SidecarGuard | None = None
        if read_only and self.path is not None:
            given = sidecar_guard
            same = given is not None and given.store == self.path.resolve()
            if given is not None and not same:
                given.release()  # recorded for another file: it holds nothing of this one
            self._sidecars = given if given is not None and same else SidecarGuard.record(self.path)
        if self.path is not None:
            if read_only:
                check_sqlite_file(self.path)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
        elif target.url is not None:
            # Fail now, not at the first call, when the server driver is missing.
            create_server_engine(target.url, read_only=read_only)
        self._engines: WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncEngine] = WeakKeyDictionary()
        self._ready_locks: WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = WeakKeyDictionary()
        self._ready = False
        #: Connection uses still running, their callers maybe gone (cancelled).
        self._in_flight = InFlight()
        self._has_session_type = True
        #: Columns the store declares nullable (read when browsing; None: zett-agent's schema).
        self._nullable: set[tuple[str, str]] | None = None

    # ------------------------------------------------------------------ facts

    @property
    def display_name(self) -> str:
        """The store for people: its path, or its URL with the password masked."""
        return self.target.display()

    @property
    def dialect(self) -> str:
        """The database's dialect name: ``sqlite``, ``postgresql``, ``mysql``..."""
        return self.target.dialect

    @property
    def nulls_low(self) -> bool:
        """Whether the database orders NULL below every value (SQLite, MySQL; not PostgreSQL)."""
        return self.target.dialect != "postgresql"

    @property
    def has_session_type(self) -> bool:
        """Whether the store has ``agent_sessions.session_type`` (known after the schema check)."""
        return self._has_session_type

    def may_be_null(self, table: str, column: str) -> bool:
        """Whether the store's schema lets ``table.column`` hold NULL (unknown: yes)."""
        if self._nullable is None:
            return self.read_only
        return (table, column) in self._nullable

    @property
    def session_type(self) -> ColumnElement[int]:
        """``session_type`` as read: the column, or 0 in a store older than it."""
        if self._has_session_type:
            return sessions_t.c.session_type
        return literal(0, Integer)

    def session_columns(self) -> list[ColumnElement[Any]]:
        """A session summary's stored columns (without its counts)."""
        return [
            sessions_t.c.id,
            sessions_t.c.parent_session_id,
            self.session_type.label("session_type"),
            sessions_t.c.title,
            sessions_t.c.agent_name,
            read_column(sessions_t.c.created_at),
            read_column(sessions_t.c.updated_at),
        ]

    # ------------------------------------------------------------------ connections

    def engine(self) -> AsyncEngine:
        """The running loop's engine (created at its first use)."""
        loop = asyncio.get_running_loop()
        engine = self._engines.get(loop)
        if engine is None:
            if self.path is not None:
                engine = create_sqlite_engine(self.path, read_only=self.read_only)
                event.listen(engine.sync_engine, "connect", _decode_text_leniently)
            else:
                assert self.target.url is not None
                engine = create_server_engine(self.target.url, read_only=self.read_only)
            self._engines[loop] = engine
        return engine

    def engine_of_running_loop(self) -> AsyncEngine | None:
        """The running loop's engine if it was created, else None (nothing is opened)."""
        return self._engines.get(asyncio.get_running_loop())

    async def ensure_ready(self) -> None:
        """Verify (browsing) or create (writing) the schema once, before the first statement."""
        if self._ready:
            return
        lock = self._ready_locks.setdefault(asyncio.get_running_loop(), asyncio.Lock())
        async with lock:
            if self._ready:
                return
            try:
                await self._in_flight.run(self._prepare_schema())
            except DBAPIError as error:
                raise translate_error(error, self.display_name, secret=self.target.secrets) from None
            self._ready = True

    async def _prepare_schema(self) -> None:
        async with self.engine().connect() as connection:
            if self.read_only:
                self._has_session_type = await connection.run_sync(self._verify_schema)
            else:
                await connection.run_sync(schema.create_missing)
                await connection.commit()

    def _verify_schema(self, connection: Connection) -> bool:
        inspector = inspect(connection)
        tables = set(inspector.get_table_names())
        missing = [name for name in schema.REQUIRED_TABLES if name not in tables]
        if missing:
            raise NotZettStoreError(
                f"{self.display_name} is not a zett-agent store: it has no {', '.join(missing)} table"
            )
        session_columns = inspector.get_columns("agent_sessions")
        present = {
            name: {str(column["name"]) for column in inspector.get_columns(name)} for name in schema.REQUIRED_TABLES
        }
        if lacking := schema.lacking_columns(present):  # said at open, not by every page failing
            raise NotZettStoreError(f"{self.display_name} is not a zett-agent store zett-browser can read: {lacking}")
        # Sort keys the store declares NOT NULL cannot be NULL (SQLite enforces it), so the
        # keyset pages skip their NULL band: one statement a page instead of two.
        self._nullable = {
            (table, column["name"])
            for table, columns in (
                ("agent_sessions", session_columns),
                ("raw_messages", inspector.get_columns("raw_messages")),
            )
            for column in columns
            if column.get("nullable", True)
        }
        return "session_type" in {column["name"] for column in session_columns}

    async def run(self, work: Callable[[AsyncConnection], Awaitable[T]], *, consistent: bool = False) -> T:
        """Run ``work`` on a pooled connection, retrying briefly while the store is locked.

        ``consistent`` wraps it in one short read transaction (several statements that
        must agree); otherwise every statement sees the latest commits.
        """
        await self.ensure_ready()
        delay = BUSY_BACKOFF_S
        for attempt in range(BUSY_ATTEMPTS):
            try:
                return await self._in_flight.run(self._read_once(work, consistent=consistent))
            except DBAPIError as error:
                translated = translate_error(error, self.display_name, secret=self.target.secrets)
                if isinstance(translated, StoreLockedError) and attempt + 1 < BUSY_ATTEMPTS:
                    await asyncio.sleep(delay)
                    delay *= 2
                    continue
                raise translated from None
        raise AssertionError("unreachable")

    async def _read_once(self, work: Callable[[AsyncConnection], Awaitable[T]], *, consistent: bool) -> T:
        async with self.engine().connect() as connection:
            if consistent and self.path is not None:
                await connection.execution_options(zett_begin="DEFERRED")
            elif consistent:
                await connection.execution_options(isolation_level="REPEATABLE READ")
            # Closing rolls back what the connection began (one trip; a rollback here too was a second).
            return await work(connection)

    async def write(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """Run ``work`` in one write transaction (``BEGIN IMMEDIATE`` on SQLite)."""
        if self.read_only:
            raise ReadOnlyStoreError(f"{self.display_name} is open read-only; nothing was written")
        await self.ensure_ready()
        try:
            return await self._in_flight.run(self._write_once(work))
        except DBAPIError as error:
            raise translate_error(error, self.display_name, secret=self.target.secrets) from None

    async def _write_once(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        async with self.engine().connect() as connection:
            await connection.execution_options(zett_begin="IMMEDIATE")
            async with connection.begin():
                return await work(connection)

    # ------------------------------------------------------------------ release

    async def release_loop(self) -> None:
        """Dispose of the running loop's pool (a helper thread calls it before its loop ends)."""
        engine = self._engines.pop(asyncio.get_running_loop(), None)
        if engine is not None:
            await self._drain_and_dispose(engine)

    async def release_view(self) -> None:
        """Release a sync view's loop; the last one out removes the sidecars it may remove."""
        await self.release_loop()
        if self._sidecars is not None and not self._engines:
            self._sidecars.release()

    async def close(self) -> None:
        """Release every loop's pool without deleting stored data."""
        current = None
        try:
            current = asyncio.get_running_loop()
        except RuntimeError:
            pass
        engines = list(self._engines.items())
        self._engines.clear()
        for loop, engine in engines:
            if loop is current:
                await self._drain_and_dispose(engine)
            elif loop.is_closed() or not loop.is_running():
                await self._dispose_orphan(engine)
            else:
                future = asyncio.run_coroutine_threadsafe(self._drain_and_dispose(engine), loop)
                await asyncio.wrap_future(future)
        if self._sidecars is not None:
            self._sidecars.release()  # remove the -wal/-shm our mode=ro browse created, if unused

    @staticmethod
    async def _dispose_orphan(engine: AsyncEngine) -> None:
        """Close the pool of a loop that is gone, from this one. Its connections are not tied
        to a loop (aiosqlite runs each in a thread of its own): let go unclosed, each kept its
        file open, and with it the -wal/-shm the browse created, until the process ended."""
        try:
            await engine.dispose()
        except Exception:  # noqa: BLE001 - a driver that cannot: let go of them at least
            await engine.dispose(close=False)

    async def _drain_and_dispose(self, engine: AsyncEngine) -> None:
        """Let this loop's calls still in flight end (their callers may be gone), then
        close the pool: a connection still checked out would stay open, and its file with it."""
        await self._in_flight.drain()
        await engine.dispose()


__all__ = ["BUSY_ATTEMPTS", "BUSY_BACKOFF_S", "Reader"]
