"""Provides the storage class: zett-agent's documented session-storage API, async.

``SQLSessionStorage`` implements the documented API of zett-agent 0.2.1's
``SQLiteSessionStorage`` on SQLAlchemy's asyncio engine (aiosqlite for files), writing
rows byte-compatible with zett-agent's. Opened with ``read_only=True`` (see
:meth:`SQLSessionStorage.open_for_browsing`) it never creates, alters or writes
anything: it checks the file first, verifies the tables instead of creating them, and
every write method raises :class:`~zett_browser.storage.errors.ReadOnlyStoreError`.

The browser queries live in :mod:`zett_browser.storage.browse`; the SQL here is
dialect-neutral Core, and SQLite's specifics stay in :mod:`.engine`.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self, TypeVar
from weakref import WeakKeyDictionary

from sqlalchemy import Integer, delete, func, insert, inspect, literal, select, type_coerce, update
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.elements import ColumnElement

from ..model.messages import AssistantMessage, CompactedMessage, ToolMessage, UnreadableMessage, UserMessage
from ..model.records import ContextSnapshot, MessageTiming, ModelUsage, RawMessageRecord, SessionSummary, SessionView
from . import schema
from .codec import MessageKind, encode_messages, kind_of
from .engine import Target, check_sqlite_file, create_server_engine, create_sqlite_engine, parse_target, translate_error
from .errors import NotZettStoreError, ReadOnlyStoreError, StoreError, StoreLockedError
from .ids import new_uuid7
from .rows import StoredDateTime, record_from_row, snapshot_info_from_row, summary_from_row
from .sidecars import SidecarGuard
from .sync import SyncObject, SyncRuntime

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


def _utc_naive(value: datetime) -> datetime:
    """A datetime as zett-agent stores it: UTC wall time without tzinfo."""
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
    return value.replace(tzinfo=None)


def _display_value(value: str | None, name: str, limit: int, *, strip: bool) -> str | None:
    if value is None:
        return None
    normalized = value.strip() if strip else value
    if not normalized.strip() or len(normalized) > limit:
        raise ValueError(f"{name} must contain between 1 and {limit} characters")
    return normalized


def _session_type_code(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("session_type must be an integer code")
    if value < 0:
        raise ValueError("session_type cannot be negative")
    return int(value)


def _check_json(value: object) -> None:
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        return
    if isinstance(value, list):
        for item in value:
            _check_json(item)
        return
    if isinstance(value, dict):
        if any(not isinstance(key, str) for key in value):
            raise ValueError("JSON object keys must be strings")
        for item in value.values():
            _check_json(item)
        return
    raise ValueError("Value must contain only JSON-compatible types")


def encode_context(value: Mapping[str, Any] | None, *, field_name: str, nonempty_keys: bool = False) -> str:
    """Validate request metadata or tags and encode them as zett-agent does."""
    result = dict(value or {})
    if any(not isinstance(key, str) or (nonempty_keys and not key.strip()) for key in result):
        qualifier = "non-empty string" if nonempty_keys else "string"
        raise ValueError(f"{field_name} keys must be {qualifier}s")
    try:
        _check_json(result)
    except ValueError as error:
        raise ValueError(f"{field_name} must be JSON serializable") from error
    return json.dumps(result, ensure_ascii=False, sort_keys=True, allow_nan=False)


class SessionStorageCore:
    """zett-agent's session storage API over SQLite, PostgreSQL or MySQL.

    Args:
        target: A SQLite path, a SQLAlchemy URL, or None for zett-agent's default store
            ``~/.zett-agent/sessions.sqlite3``.
        read_only: Browse without changing anything. The store must exist and be a
            zett-agent store; typed :class:`StoreError` subclasses say otherwise.
        clock: Returns the current UTC time for the rows' stamps (the demo replays a
            conversation at its own pace); defaults to the wall clock.

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
    ) -> None:
        self._clock: Callable[[], datetime] = clock or (lambda: datetime.now(UTC))
        self.target: Target = parse_target(target)
        self.read_only = read_only
        #: SQLite file of this storage, or None for a server store.
        self.path: Path | None = self.target.path
        #: The -wal/-shm files beside a browsed SQLite store before we opened it.
        self._sidecars = SidecarGuard.record(self.path) if read_only and self.path is not None else None
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
        self._has_session_type = True

    @classmethod
    def open_for_browsing(cls, target: str | os.PathLike[str] | URL | None = None) -> Self:
        """Open a store read-only, checking at once that the file can be browsed."""
        return cls(target, read_only=True)

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
                async with self._engine().connect() as connection:
                    if self.read_only:
                        self._has_session_type = await connection.run_sync(self._verify_schema)
                    else:
                        await connection.run_sync(self._create_schema)
                        await connection.commit()
            except DBAPIError as error:
                raise translate_error(error, self.display_name, secret=self._secret) from None
            self._ready = True

    def _verify_schema(self, connection: Connection) -> bool:
        inspector = inspect(connection)
        tables = set(inspector.get_table_names())
        missing = [name for name in schema.REQUIRED_TABLES if name not in tables]
        if missing:
            raise NotZettStoreError(
                f"{self.display_name} is not a zett-agent store: it has no {', '.join(missing)} table"
            )
        columns = {column["name"] for column in inspector.get_columns("agent_sessions")}
        return "session_type" in columns

    @staticmethod
    def _create_schema(connection: Connection) -> None:
        """Create missing tables, columns and indexes, as zett-agent's first call does."""
        schema.metadata.create_all(connection)
        inspector = inspect(connection)
        columns = {column["name"] for column in inspector.get_columns("agent_sessions")}
        if "session_type" not in columns:
            connection.exec_driver_sql("ALTER TABLE agent_sessions ADD COLUMN session_type INTEGER NOT NULL DEFAULT 0")
        for table in schema.metadata.sorted_tables:
            existing = {index["name"] for index in inspect(connection).get_indexes(table.name)}
            for index in table.indexes:
                if index.name not in existing:
                    index.create(connection)

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
                async with self._engine().connect() as connection:
                    if consistent and self.path is not None:
                        await connection.execution_options(zett_begin="DEFERRED")
                    elif consistent:
                        await connection.execution_options(isolation_level="REPEATABLE READ")
                    result = await work(connection)
                    await connection.rollback()
                    return result
            except DBAPIError as error:
                translated = translate_error(error, self.display_name, secret=self._secret)
                if isinstance(translated, StoreLockedError) and attempt + 1 < BUSY_ATTEMPTS:
                    await asyncio.sleep(delay)
                    delay *= 2
                    continue
                raise translated from None
        raise AssertionError("unreachable")

    async def _write(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """Run ``work`` in one write transaction (``BEGIN IMMEDIATE`` on SQLite)."""
        if self.read_only:
            raise ReadOnlyStoreError(f"{self.display_name} is open read-only; nothing was written")
        await self._ensure_ready()
        try:
            async with self._engine().connect() as connection:
                await connection.execution_options(zett_begin="IMMEDIATE")
                async with connection.begin():
                    return await work(connection)
        except DBAPIError as error:
            raise translate_error(error, self.display_name, secret=self._secret) from None

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
                await engine.dispose()
            elif loop.is_closed() or not loop.is_running():
                await engine.dispose(close=False)
            else:
                future = asyncio.run_coroutine_threadsafe(engine.dispose(), loop)
                await asyncio.wrap_future(future)
        if self._sidecars is not None:
            self._sidecars.release()  # remove the -wal/-shm our mode=ro browse created, if unused

    def sync(self, *, runtime: SyncRuntime | None = None) -> SyncObject[Self]:
        """Return a context-managed synchronous view; optionally share a runtime.

        Without ``runtime`` the view starts a background thread with its own loop and
        stops it (after closing that loop's connections) on exit. With one, it reuses
        that runtime's loop and leaves its shutdown to the caller.
        """
        return SyncObject(self, runtime=runtime, on_close=self._release_loop)

    async def _release_loop(self) -> None:
        engine = self._engines.pop(asyncio.get_running_loop(), None)
        if engine is not None:
            await engine.dispose()
        if self._sidecars is not None and not self._engines:
            self._sidecars.release()

    # ------------------------------------------------------------------ documented API

    async def create_session(
        self,
        *,
        session_id: str | None = None,
        parent_session_id: str | None = None,
        title: str | None = None,
        agent_name: str | None = None,
        session_type: int = 0,
    ) -> SessionSummary:
        """Create an empty session before its first Raw Log message is appended.

        Raises:
            ValueError: An id is empty, the session is its own parent, a display value
                is empty or too long, the type code is invalid, or the id exists.
        """
        resolved_id = session_id or new_uuid7()
        if not resolved_id.strip():
            raise ValueError("session_id cannot be empty")
        if parent_session_id is not None and not parent_session_id.strip():
            raise ValueError("parent_session_id cannot be empty")
        if parent_session_id == resolved_id:
            raise ValueError("parent_session_id must differ from session_id")
        normalized_title = _display_value(title, "Session title", 200, strip=True)
        normalized_agent = _display_value(agent_name, "Agent name", 64, strip=True)
        code = _session_type_code(session_type)
        now = _utc_naive(self._clock())

        async def work(connection: AsyncConnection) -> SessionSummary:
            if await self._session_row(connection, resolved_id) is not None:
                raise ValueError(f"Session already exists: {resolved_id}")
            await connection.execute(
                insert(sessions_t).values(
                    id=resolved_id,
                    parent_session_id=parent_session_id,
                    session_type=code,
                    title=normalized_title,
                    agent_name=normalized_agent,
                    created_at=now,
                    updated_at=now,
                )
            )
            return await self._summary(connection, resolved_id)  # type: ignore[return-value]

        return await self._write(work)

    async def list_raw_messages(
        self,
        session_id: str,
        *,
        after_sequence: int = 0,
        through_sequence: int | None = None,
        limit: int = 10_000,
        offset: int = 0,
    ) -> list[RawMessageRecord]:
        """Return one chronological page from a session's immutable Raw Log.

        Snapshots are ignored: this is the original history. ``after_sequence`` is an
        exclusive lower bound, ``through_sequence`` an inclusive upper bound; ``offset``
        and ``limit`` paginate the filtered range. A row that cannot be decoded comes
        back as a record whose ``problems`` say why.

        Raises:
            ValueError: A bound or pagination argument is out of range.
        """
        if after_sequence < 0:
            raise ValueError("after_sequence cannot be negative")
        if through_sequence is not None and through_sequence < 1:
            raise ValueError("through_sequence must be positive")
        if limit < 1:
            raise ValueError("limit must be positive")
        if offset < 0:
            raise ValueError("offset cannot be negative")
        statement = select(*RAW_COLUMNS).where(raw_t.c.session_id == session_id, raw_t.c.sequence > after_sequence)
        if through_sequence is not None:
            statement = statement.where(raw_t.c.sequence <= through_sequence)
        statement = statement.order_by(raw_t.c.sequence).offset(offset).limit(limit)

        async def work(connection: AsyncConnection) -> list[RawMessageRecord]:
            result = await connection.execute(statement)
            return [record_from_row(row) for row in result.mappings()]

        return await self._read(work)

    async def list_sessions(
        self,
        *,
        session_types: Sequence[int] | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[SessionSummary]:
        """Return one page of root and delegated sessions by latest activity.

        Ordered by ``updated_at`` then id, newest first. Message counts are computed
        for the page's sessions only, not by grouping every message of the store.

        Raises:
            ValueError: ``limit`` is not positive, ``offset`` negative, or a type code invalid.
        """
        if limit < 1:
            raise ValueError("limit must be positive")
        if offset < 0:
            raise ValueError("offset cannot be negative")
        codes = tuple(_session_type_code(value) for value in session_types) if session_types else None

        async def work(connection: AsyncConnection) -> list[SessionSummary]:
            # Built here, after the schema check: old stores lack session_type.
            page = select(sessions_t.c.id, sessions_t.c.updated_at)
            if codes is not None:
                page = page.where(self._session_type.in_(codes))
            page_sq = (
                page.order_by(sessions_t.c.updated_at.desc(), sessions_t.c.id.desc()).offset(offset).limit(limit)
            ).subquery("page")
            statement = (
                select(*self._session_columns(), self._message_count().label("message_count"))
                .join_from(sessions_t, page_sq, page_sq.c.id == sessions_t.c.id)
                .order_by(sessions_t.c.updated_at.desc(), sessions_t.c.id.desc())
            )
            result = await connection.execute(statement)
            return [summary_from_row(row) for row in result.mappings()]

        return await self._read(work)

    async def count_messages(self, session_id: str) -> int:
        """Count a session's Raw Log messages without decoding them."""

        async def work(connection: AsyncConnection) -> int:
            value = await connection.scalar(select(func.count()).where(raw_t.c.session_id == session_id))
            return int(value or 0)

        return await self._read(work)

    async def get_session(self, session_id: str) -> SessionSummary | None:
        """Return one session's stored fields and message count, or None."""
        return await self._read(lambda connection: self._summary(connection, session_id))

    async def update_session(
        self, session_id: str, *, title: str | None = None, agent_name: str | None = None
    ) -> SessionSummary | None:
        """Update a session's title and/or agent name; None leaves a field unchanged.

        Returns:
            The refreshed summary, or None for an unknown session.

        Raises:
            ValueError: Neither field is given, or a value is empty or too long.
        """
        if title is None and agent_name is None:
            raise ValueError("At least one session field must be supplied")
        normalized_title = _display_value(title, "Session title", 200, strip=True)
        normalized_agent = _display_value(agent_name, "Agent name", 64, strip=True)
        values: dict[str, Any] = {"updated_at": _utc_naive(self._clock())}
        if normalized_title is not None:
            values["title"] = normalized_title
        if normalized_agent is not None:
            values["agent_name"] = normalized_agent

        async def work(connection: AsyncConnection) -> SessionSummary | None:
            if await self._session_row(connection, session_id) is None:
                return None
            await connection.execute(update(sessions_t).where(sessions_t.c.id == session_id).values(**values))
            return await self._summary(connection, session_id)

        return await self._write(work)

    async def delete_session(self, session_id: str) -> bool:
        """Delete one session's raw messages, snapshots and row; True if anything was deleted."""

        async def work(connection: AsyncConnection) -> bool:
            counts = [
                (await connection.execute(delete(table).where(column == session_id))).rowcount
                for table, column in (
                    (raw_t, raw_t.c.session_id),
                    (snapshots_t, snapshots_t.c.session_id),
                    (sessions_t, sessions_t.c.id),
                )
            ]
            return any(counts)

        return await self._write(work)

    async def load(self, session_id: str) -> SessionView:
        """Restore the latest checkpoint and the original messages after its boundary.

        An unknown session gives an empty view and creates nothing.

        Raises:
            ValueError: The latest snapshot does not hold exactly one CompactedMessage.
        """

        async def work(connection: AsyncConnection) -> SessionView:
            session_row = await self._session_row(connection, session_id)
            snapshot_row = (
                (
                    await connection.execute(
                        select(*SNAPSHOT_COLUMNS)
                        .where(snapshots_t.c.session_id == session_id)
                        .order_by(snapshots_t.c.version.desc())
                        .limit(1)
                    )
                )
                .mappings()
                .first()
            )
            snapshot = self._snapshot(snapshot_row) if snapshot_row is not None else None
            boundary = snapshot.compacted_through_sequence if snapshot is not None else 0
            rows = await connection.execute(
                select(*RAW_COLUMNS)
                .where(raw_t.c.session_id == session_id, raw_t.c.sequence > boundary)
                .order_by(raw_t.c.sequence)
            )
            values: dict[str, Any] = {
                "parent_session_id": session_row["parent_session_id"] if session_row else None,
                "session_type": session_row["session_type"] if session_row else 0,
                "title": session_row["title"] if session_row else None,
                "agent_name": session_row["agent_name"] if session_row else None,
                "snapshot": snapshot,
                "raw_tail": [record_from_row(row) for row in rows.mappings()],
            }
            try:
                return SessionView.model_validate(values)
            except ValueError:
                return SessionView.model_construct(**values)

        return await self._read(work, consistent=True)

    async def append(
        self,
        session_id: str,
        request_id: str,
        message: Any,
        timing: MessageTiming | None = None,
        parent_session_id: str | None = None,
        title: str | None = None,
        agent_name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        tags: Mapping[str, Any] | None = None,
        usage: ModelUsage | None = None,
    ) -> int:
        """Append one original message and return its new per-session sequence.

        The first append creates the session (with the parent, title and agent name
        given); later appends may update title and agent name, never the parent.

        Raises:
            ValueError: Metadata or tags are not JSON objects, a display value is empty
                or too long, the parent differs from the stored one, usage is given for
                a non-assistant message, or the message is a checkpoint.
        """
        if title is not None and (not title.strip() or len(title) > 200):
            raise ValueError("Session title must contain between 1 and 200 characters")
        if agent_name is not None and (not agent_name.strip() or len(agent_name) > 64):
            raise ValueError("Agent name must contain between 1 and 64 characters")
        if usage is not None and not isinstance(message, AssistantMessage):
            raise ValueError("Model usage belongs only to assistant messages")
        encoded_metadata = encode_context(metadata, field_name="Message metadata")
        encoded_tags = encode_context(tags, field_name="Message tags", nonempty_keys=True)
        if isinstance(message, UnreadableMessage):
            raise ValueError("An unreadable message cannot be appended")
        kind = kind_of(message)
        if kind == MessageKind.CHECKPOINT:
            raise ValueError("Checkpoints belong in snapshots, not raw logs")
        if timing is None:
            instant = self._clock()
            timing = MessageTiming(started_at=instant, completed_at=instant, duration_ns=0)
        message_json = encode_messages([message])
        content = message.text if isinstance(message, (UserMessage, ToolMessage)) else message.content

        def stamp(value: datetime | None) -> datetime | None:
            return _utc_naive(value) if value is not None else None

        async def work(connection: AsyncConnection) -> int:
            sequence = await self._last_sequence(connection, session_id)
            now = _utc_naive(self._clock())
            row = await self._session_row(connection, session_id)
            if row is None:
                await connection.execute(
                    insert(sessions_t).values(
                        id=session_id,
                        parent_session_id=parent_session_id,
                        session_type=0,
                        title=title,
                        agent_name=agent_name,
                        created_at=now,
                        updated_at=now,
                    )
                )
            elif row["parent_session_id"] != parent_session_id:
                raise ValueError("Session parent cannot change after creation")
            else:
                values: dict[str, Any] = {"updated_at": now}
                if title is not None:
                    values["title"] = title
                if agent_name is not None:
                    values["agent_name"] = agent_name
                await connection.execute(update(sessions_t).where(sessions_t.c.id == session_id).values(**values))
            await connection.execute(
                insert(raw_t).values(
                    id=new_uuid7(),
                    session_id=session_id,
                    request_id=request_id,
                    sequence=sequence + 1,
                    role=int(kind),
                    content=content,
                    tool_name=message.name if isinstance(message, ToolMessage) else None,
                    message_json=message_json,
                    metadata_json=encoded_metadata,
                    tags_json=encoded_tags,
                    started_at=stamp(timing.started_at),
                    completed_at=stamp(timing.completed_at),
                    duration_ns=timing.duration_ns,
                    reasoning_started_at=stamp(timing.reasoning_started_at),
                    reasoning_completed_at=stamp(timing.reasoning_completed_at),
                    reasoning_duration_ns=timing.reasoning_duration_ns,
                    content_started_at=stamp(timing.content_started_at),
                    content_completed_at=stamp(timing.content_completed_at),
                    content_duration_ns=timing.content_duration_ns,
                    input_tokens=usage.input_tokens if usage is not None else None,
                    output_tokens=usage.output_tokens if usage is not None else None,
                    cache_read_tokens=usage.cache_read_tokens if usage is not None else None,
                    cache_write_tokens=usage.cache_write_tokens if usage is not None else None,
                    reasoning_tokens=usage.reasoning_tokens if usage is not None else None,
                    created_at=now,
                    updated_at=now,
                )
            )
            return sequence + 1

        return await self._write(work)

    async def snapshot(
        self,
        session_id: str,
        compacted_message: CompactedMessage,
        compacted_through_sequence: int,
        expected_version: int,
    ) -> ContextSnapshot:
        """Create an immutable compaction checkpoint with optimistic version checking.

        The Raw Log is never changed.

        Raises:
            ValueError: The version is stale, the boundary is outside the Raw Log, or it
                does not advance beyond the previous snapshot.
        """
        if type(compacted_message) is not CompactedMessage:
            raise ValueError("A snapshot holds exactly one CompactedMessage")
        message_json = encode_messages([compacted_message])

        async def work(connection: AsyncConnection) -> ContextSnapshot:
            latest = (
                (
                    await connection.execute(
                        select(snapshots_t.c.version, snapshots_t.c.compacted_through_sequence)
                        .where(snapshots_t.c.session_id == session_id)
                        .order_by(snapshots_t.c.version.desc())
                        .limit(1)
                    )
                )
                .mappings()
                .first()
            )
            version = latest["version"] if latest is not None else 0
            if version != expected_version:
                raise ValueError("Snapshot conflict; reload the session")
            last = await self._last_sequence(connection, session_id)
            if compacted_through_sequence < 1 or compacted_through_sequence > last:
                raise ValueError("Snapshot boundary must identify an existing Raw Log message")
            if latest is not None and compacted_through_sequence <= latest["compacted_through_sequence"]:
                raise ValueError("Snapshot boundary must advance beyond the previous checkpoint")
            now = self._clock()
            snapshot_id = new_uuid7()
            await connection.execute(
                insert(snapshots_t).values(
                    id=snapshot_id,
                    session_id=session_id,
                    version=version + 1,
                    compacted_through_sequence=compacted_through_sequence,
                    message_json=message_json,
                    created_at=_utc_naive(now),
                    updated_at=_utc_naive(now),
                )
            )
            return ContextSnapshot(
                id=snapshot_id,
                session_id=session_id,
                version=version + 1,
                compacted_message=compacted_message,
                compacted_through_sequence=compacted_through_sequence,
                created_at=now,
                updated_at=now,
            )

        return await self._write(work)

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
            raise ValueError("Context snapshot must contain exactly one CompactedMessage")
        assert info.created_at is not None and info.updated_at is not None
        return ContextSnapshot(
            id=info.id,
            session_id=info.session_id,
            version=info.version,
            compacted_message=info.message,
            compacted_through_sequence=info.compacted_through_sequence,
            created_at=info.created_at,
            updated_at=info.updated_at,
        )


__all__ = ["SessionStorageCore", "StoreError", "encode_context"]
