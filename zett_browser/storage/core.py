"""Provides the storage's connection life cycle: engines, schema check, reads and writes.

:class:`SessionStorageCore` owns what every query needs: the target, one engine (a small
pool) per event loop, the schema check (browsing) or creation (writing), and the two
ways to run SQL: :meth:`~SessionStorageCore._read` (retrying briefly while a writer
holds the lock) and :meth:`~SessionStorageCore._write` (one ``BEGIN IMMEDIATE``
transaction). Driver errors leave it as typed :class:`~.errors.StoreError`\\ s.

The documented API (:mod:`.api`, :mod:`.writes`) and the browser queries
(:mod:`.browse`, :mod:`.rawlog`) are mixins over this class; the SQL is
dialect-neutral Core, and SQLite's specifics stay in :mod:`.engine`.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

import asyncio
import os
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, TypeVar
from weakref import WeakKeyDictionary

from sqlalchemy import Integer, event, func, inspect, literal, select, type_coerce
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.elements import ColumnElement

from ..model.messages import CompactedMessage
from . import schema
from .convert import lenient_text
from .engine import Target, check_sqlite_file, create_server_engine, create_sqlite_engine, parse_target, translate_error
from .errors import NotZettStoreError, ReadOnlyStoreError, StoreLockedError
from .ids import new_uuid7
from .inflight import InFlight
from .rows import StoreDataError, StoredDateTime, snapshot_info_from_row, summary_from_row
from .sidecars import SidecarGuard
from .sync import SyncObject, SyncRuntime

if TYPE_CHECKING:  # pydantic: loaded by the calls that build these
    from ..model.documented import ContextSnapshot, SessionSummary

T = TypeVar("T")

sessions_t = schema.agent_sessions
raw_t = schema.raw_messages
snapshots_t = schema.session_snapshots

#: Attempts of a read that meets a locked database, and the first back-off in seconds.
BUSY_ATTEMPTS = 4
BUSY_BACKOFF_S = 0.05
_TIME_COLUMNS = {
    "started_at",
    "completed_at",
    "reasoning_started_at",
    "reasoning_completed_at",
    "content_started_at",
    "content_completed_at",
    "created_at",
    "updated_at",
}


def read_column(column: Any) -> ColumnElement[Any]:
    """A column as read by the storage: timestamps through the lenient UTC reader."""
    if column.name in _TIME_COLUMNS:
        return type_coerce(column, StoredDateTime()).label(column.name)
    return column  # type: ignore[no-any-return]


#: Columns a record is built from. ``content`` (zett-agent's plain-text copy of the
#: message, for search) is left out: the record decodes ``message_json``, and reading
#: both would move every large tool output twice.
RAW_COLUMNS = [read_column(column) for column in raw_t.columns if column.name != "content"]
SNAPSHOT_COLUMNS = [read_column(column) for column in snapshots_t.columns]


def _decode_text_leniently(_dbapi_connection: Any, record: Any) -> None:
    """Make a SQLite connection hand back non-UTF-8 text instead of failing the statement.

    SQLite stores whatever bytes a writer gave it as TEXT; Python's default decoder
    raises on invalid UTF-8 and takes the whole page down with one bad title.
    """
    record.driver_connection.text_factory = lenient_text


class SessionStorageCore:
    """zett-agent's session storage API over SQLite, PostgreSQL or MySQL.

    Args:
        target: A SQLite path, a SQLAlchemy URL, or None for zett-agent's default store
            ``~/.zett-agent/sessions.sqlite3``.
        read_only: Browse without changing anything. The store must exist and be a
            zett-agent store; typed :class:`StoreError` subclasses say otherwise.
        clock: Returns the current UTC time for the rows' stamps (the demo replays a
            conversation at its own pace); defaults to the wall clock.
        ids: Returns the id of each new Raw Log row and snapshot (restoring an export
            keeps the original ids); defaults to a new UUIDv7.
        sidecar_guard: For a browsed SQLite store, the :class:`SidecarGuard` recorded before
            anything of this process opened it (``QuickStart.guard``); a guard of another
            file is ignored.

    Construction needs no event loop. Connections are opened by the first awaited call
    and belong to the loop that awaited it; each loop gets its own small pool, so one
    storage may serve an app's loop and a :meth:`sync` view's thread. Tests must pass a
    temporary path and never use the default store.
    """

    def __init__(
        self,
        target: str | os.PathLike[str] | URL | None = None,
        *,
        read_only: bool = False,
        clock: Callable[[], datetime] | None = None,
        ids: Callable[[], str] | None = None,
        sidecar_guard: SidecarGuard | None = None,
    ) -> None:
        self._clock: Callable[[], datetime] = clock or (lambda: datetime.now(UTC))
        self._new_id: Callable[[], str] = ids or new_uuid7
        self.target: Target = parse_target(target)
        self.read_only = read_only
        #: SQLite file of this storage, or None for a server store.
        self.path: Path | None = self.target.path
        #: The -wal/-shm files beside a browsed SQLite store before we opened it. A guard
        #: recorded earlier (the start-up reader's, taken before it opened the store) is
        #: used as is: recorded now, the reader's sidecars would count as pre-existing.
        self._sidecars: SidecarGuard | None = None
        if read_only and self.path is not None:
            given = sidecar_guard
            same = given is not None and given.store == self.path.resolve()
            self._sidecars = given if given is not None and same else SidecarGuard.record(self.path)
        if self.path is not None:
            if read_only:
                check_sqlite_file(self.path)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
        elif self.target.url is not None:
            # Fail now, not at the first call, when the server driver is missing.
            create_server_engine(self.target.url, read_only=read_only)
        self._engines: WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncEngine] = WeakKeyDictionary()
        self._ready_locks: WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = WeakKeyDictionary()
        self._ready = False
        #: Connection uses still running, their callers maybe gone (cancelled).
        self._in_flight = InFlight()
        self._has_session_type = True
        #: Columns the store declares nullable (read when browsing; None: zett-agent's schema).
        self._nullable: set[tuple[str, str]] | None = None

    @classmethod
    def open_for_browsing(
        cls, target: str | os.PathLike[str] | URL | None = None, *, sidecar_guard: SidecarGuard | None = None
    ) -> Self:
        """Open a store read-only, checking at once that the file can be browsed."""
        return cls(target, read_only=True, sidecar_guard=sidecar_guard)

    # ------------------------------------------------------------------ plumbing

    @property
    def display_name(self) -> str:
        """The store for people: its path, or its URL with the password masked."""
        return self.target.display()

    @property
    def _secret(self) -> tuple[str, ...]:
        """The URL's password and query secrets, masked wherever a driver's message repeats them."""
        return self.target.secrets

    def _engine(self) -> AsyncEngine:
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

    async def _ensure_ready(self) -> None:
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
                raise translate_error(error, self.display_name, secret=self._secret) from None
            self._ready = True

    async def _prepare_schema(self) -> None:
        async with self._engine().connect() as connection:
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

    def _may_be_null(self, table: str, column: str) -> bool:
        """Whether the store's schema lets ``table.column`` hold NULL (unknown: yes)."""
        if self._nullable is None:
            return self.read_only
        return (table, column) in self._nullable

    @property
    def _nulls_low(self) -> bool:
        """Whether the database orders NULL below every value (SQLite, MySQL; not PostgreSQL)."""
        return self.target.dialect != "postgresql"

    @property
    def _session_type(self) -> ColumnElement[int]:
        if self._has_session_type:
            return sessions_t.c.session_type
        return literal(0, Integer)

    def _session_columns(self) -> list[ColumnElement[Any]]:
        return [
            sessions_t.c.id,
            sessions_t.c.parent_session_id,
            self._session_type.label("session_type"),
            sessions_t.c.title,
            sessions_t.c.agent_name,
            read_column(sessions_t.c.created_at),
            read_column(sessions_t.c.updated_at),
        ]

    async def _read(self, work: Callable[[AsyncConnection], Awaitable[T]], *, consistent: bool = False) -> T:
        """Run ``work`` on a pooled connection, retrying briefly while the store is locked.

        ``consistent`` wraps it in one short read transaction (several statements that
        must agree); otherwise every statement sees the latest commits.
        """
        await self._ensure_ready()
        delay = BUSY_BACKOFF_S
        for attempt in range(BUSY_ATTEMPTS):
            try:
                return await self._in_flight.run(self._read_once(work, consistent=consistent))
            except DBAPIError as error:
                translated = translate_error(error, self.display_name, secret=self._secret)
                if isinstance(translated, StoreLockedError) and attempt + 1 < BUSY_ATTEMPTS:
                    await asyncio.sleep(delay)
                    delay *= 2
                    continue
                raise translated from None
        raise AssertionError("unreachable")

    async def _read_once(self, work: Callable[[AsyncConnection], Awaitable[T]], *, consistent: bool) -> T:
        async with self._engine().connect() as connection:
            if consistent and self.path is not None:
                await connection.execution_options(zett_begin="DEFERRED")
            elif consistent:
                await connection.execution_options(isolation_level="REPEATABLE READ")
            result = await work(connection)
            await connection.rollback()
            return result

    async def _write(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """Run ``work`` in one write transaction (``BEGIN IMMEDIATE`` on SQLite)."""
        if self.read_only:
            raise ReadOnlyStoreError(f"{self.display_name} is open read-only; nothing was written")
        await self._ensure_ready()
        try:
            return await self._in_flight.run(self._write_once(work))
        except DBAPIError as error:
            raise translate_error(error, self.display_name, secret=self._secret) from None

    async def _write_once(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        async with self._engine().connect() as connection:
            await connection.execution_options(zett_begin="IMMEDIATE")
            async with connection.begin():
                return await work(connection)

    async def release_loop(self) -> None:
        """Dispose of the running loop's pool (a helper thread calls it before its loop ends)."""
        engine = self._engines.pop(asyncio.get_running_loop(), None)
        if engine is not None:
            await self._drain_and_dispose(engine)

    async def close(self) -> None:
        """Release the connection pool without deleting stored data."""
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
                await engine.dispose(close=False)
            else:
                future = asyncio.run_coroutine_threadsafe(self._drain_and_dispose(engine), loop)
                await asyncio.wrap_future(future)
        if self._sidecars is not None:
            self._sidecars.release()  # remove the -wal/-shm our mode=ro browse created, if unused

    async def _drain_and_dispose(self, engine: AsyncEngine) -> None:
        """Let this loop's calls still in flight end (their callers may be gone), then
        close the pool: a connection still checked out would stay open, and its file with it."""
        await self._in_flight.drain()
        await engine.dispose()

    def sync(self, *, runtime: SyncRuntime | None = None) -> SyncObject[Self]:
        """Return a context-managed synchronous view; optionally share a runtime.

        Without ``runtime`` the view starts a background thread with its own loop and
        stops it (after closing that loop's connections) on exit. With one, it reuses
        that runtime's loop and leaves its shutdown to the caller.
        """
        return SyncObject(self, runtime=runtime, on_close=self._release_loop)

    async def _release_loop(self) -> None:
        await self.release_loop()
        if self._sidecars is not None and not self._engines:
            self._sidecars.release()

    # ------------------------------------------------------------------ shared helpers

    @staticmethod
    def _message_count() -> ColumnElement[int]:
        return select(func.count()).where(raw_t.c.session_id == sessions_t.c.id).correlate(sessions_t).scalar_subquery()

    async def _session_row(self, connection: AsyncConnection, session_id: str) -> Any:
        result = await connection.execute(select(*self._session_columns()).where(sessions_t.c.id == session_id))
        return result.mappings().first()

    async def _summary(self, connection: AsyncConnection, session_id: str) -> SessionSummary | None:
        statement = select(*self._session_columns(), self._message_count().label("message_count")).where(
            sessions_t.c.id == session_id
        )
        row = (await connection.execute(statement)).mappings().first()
        return summary_from_row(row) if row is not None else None

    @staticmethod
    async def _last_sequence(connection: AsyncConnection, session_id: str) -> int:
        value = await connection.scalar(select(func.max(raw_t.c.sequence)).where(raw_t.c.session_id == session_id))
        return int(value or 0)

    @staticmethod
    def _snapshot(row: Mapping[Any, Any]) -> ContextSnapshot:
        info = snapshot_info_from_row(row)
        if info.problems or not isinstance(info.message, CompactedMessage):
            # A StoreError for the browser, still the ValueError zett-agent raises here.
            why = "; ".join(info.problems) or "not a CompactedMessage"
            raise StoreDataError(
                f"Context snapshot must contain exactly one CompactedMessage (version {info.version}: {why:.200})"
            )
        assert info.created_at is not None and info.updated_at is not None
        from ..model.documented import ContextSnapshot

        return ContextSnapshot(
            id=info.id,
            session_id=info.session_id,
            version=info.version,
            compacted_message=info.message,
            compacted_through_sequence=info.compacted_through_sequence,
            created_at=info.created_at,
            updated_at=info.updated_at,
        )


__all__ = ["RAW_COLUMNS", "SNAPSHOT_COLUMNS", "SessionStorageCore", "raw_t", "read_column", "sessions_t", "snapshots_t"]
