"""Provides the documented writing half of zett-agent 0.2.1's storage API.

``create_session``, ``append``, ``snapshot``, ``update_session`` and ``delete_session``
validate as zett-agent does (:mod:`.validation`) and write rows byte-compatible with
its own. Each runs in one write transaction; a storage opened for browsing refuses
them all with :class:`~.errors.ReadOnlyStoreError` before touching the store.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.kinds import MessageKind, kind_of
from ..model.messages import AssistantMessage, CompactedMessage, ToolMessage, UnreadableMessage, UserMessage
from ..model.records import MessageTiming, ModelUsage
from .codec import encode_messages
from .columns import raw_t, sessions_t, snapshots_t
from .ids import new_uuid7
from .reader import Reader
from .sessions import last_sequence, session_row, summary
from .validation import check_display_values, display_value, encode_context, session_type_code, utc_naive

if TYPE_CHECKING:  # pydantic: loaded by the calls that build these
    from ..model.documented import ContextSnapshot, SessionSummary


def _stamp(value: datetime | None) -> datetime | None:
    return utc_naive(value) if value is not None else None


def _timing_values(timing: MessageTiming) -> dict[str, Any]:
    """The timing columns of a Raw Log row."""
    return {
        "started_at": _stamp(timing.started_at),
        "completed_at": _stamp(timing.completed_at),
        "duration_ns": timing.duration_ns,
        "reasoning_started_at": _stamp(timing.reasoning_started_at),
        "reasoning_completed_at": _stamp(timing.reasoning_completed_at),
        "reasoning_duration_ns": timing.reasoning_duration_ns,
        "content_started_at": _stamp(timing.content_started_at),
        "content_completed_at": _stamp(timing.content_completed_at),
        "content_duration_ns": timing.content_duration_ns,
    }


def _usage_values(usage: ModelUsage | None) -> dict[str, Any]:
    """The token columns of a Raw Log row (all NULL without usage)."""
    names = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")
    return {name: getattr(usage, name) if usage is not None else None for name in names}


class SessionWriter:
    """The bodies of zett-agent's documented write methods, over one store's reader.

    ``clock`` stamps the rows; ``new_id`` names each new Raw Log row and snapshot.
    """

    def __init__(self, reader: Reader, *, clock: Callable[[], datetime], new_id: Callable[[], str]) -> None:
        self.reader = reader
        self.clock = clock
        self.new_id = new_id

    async def create_session(
        self,
        *,
        session_id: str | None = None,
        parent_session_id: str | None = None,
        title: str | None = None,
        agent_name: str | None = None,
        session_type: int = 0,
    ) -> SessionSummary:
        """The body of :meth:`.documented.DocumentedAPI.create_session` (its docstring is the one source)."""
        resolved_id = session_id or new_uuid7()
        if not resolved_id.strip():
            raise ValueError("session_id cannot be empty")
        if parent_session_id is not None and not parent_session_id.strip():
            raise ValueError("parent_session_id cannot be empty")
        if parent_session_id == resolved_id:
            raise ValueError("parent_session_id must differ from session_id")
        normalized_title = display_value(title, "Session title", 200, strip=True)
        normalized_agent = display_value(agent_name, "Agent name", 64, strip=True)
        code = session_type_code(session_type)
        now = utc_naive(self.clock())

        async def work(connection: AsyncConnection) -> SessionSummary:
            if await session_row(self.reader, connection, resolved_id) is not None:
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
            return await summary(self.reader, connection, resolved_id)  # type: ignore[return-value]

        return await self.reader.write(work)

    async def update_session(
        self, session_id: str, *, title: str | None = None, agent_name: str | None = None
    ) -> SessionSummary | None:
        """The body of :meth:`.documented.DocumentedAPI.update_session` (its docstring is the one source)."""
        if title is None and agent_name is None:
            raise ValueError("At least one session field must be supplied")
        normalized_title = display_value(title, "Session title", 200, strip=True)
        normalized_agent = display_value(agent_name, "Agent name", 64, strip=True)
        values: dict[str, Any] = {"updated_at": utc_naive(self.clock())}
        if normalized_title is not None:
            values["title"] = normalized_title
        if normalized_agent is not None:
            values["agent_name"] = normalized_agent

        async def work(connection: AsyncConnection) -> SessionSummary | None:
            if await session_row(self.reader, connection, session_id) is None:
                return None
            await connection.execute(update(sessions_t).where(sessions_t.c.id == session_id).values(**values))
            return await summary(self.reader, connection, session_id)

        return await self.reader.write(work)

    async def delete_session(self, session_id: str) -> bool:
        """The body of :meth:`.documented.DocumentedAPI.delete_session` (its docstring is the one source)."""

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

        return await self.reader.write(work)

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
        """The body of :meth:`.documented.DocumentedAPI.append` (its docstring is the one source)."""
        check_display_values(title, agent_name)
        row = self._raw_row_values(session_id, request_id, message, timing, metadata, tags, usage)

        async def work(connection: AsyncConnection) -> int:
            sequence = await last_sequence(connection, session_id) + 1
            now = utc_naive(self.clock())
            await self._upsert_for_append(connection, session_id, parent_session_id, title, agent_name, now)
            await connection.execute(
                insert(raw_t).values(id=self.new_id(), sequence=sequence, created_at=now, updated_at=now, **row)
            )
            return sequence

        return await self.reader.write(work)

    def _raw_row_values(
        self,
        session_id: str,
        request_id: str,
        message: Any,
        timing: MessageTiming | None,
        metadata: Mapping[str, Any] | None,
        tags: Mapping[str, Any] | None,
        usage: ModelUsage | None,
    ) -> dict[str, Any]:
        """Validate an append's arguments (before any I/O) and build its row's columns."""
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
            instant = self.clock()
            timing = MessageTiming(started_at=instant, completed_at=instant, duration_ns=0)
        return {
            "session_id": session_id,
            "request_id": request_id,
            "role": int(kind),
            "content": message.text if isinstance(message, (UserMessage, ToolMessage)) else message.content,
            "tool_name": message.name if isinstance(message, ToolMessage) else None,
            "message_json": encode_messages([message]),
            "metadata_json": encoded_metadata,
            "tags_json": encoded_tags,
            **_timing_values(timing),
            **_usage_values(usage),
        }

    async def _upsert_for_append(
        self,
        connection: AsyncConnection,
        session_id: str,
        parent_session_id: str | None,
        title: str | None,
        agent_name: str | None,
        now: datetime,
    ) -> None:
        """Create the session on its first append, else refresh its activity and names."""
        row = await session_row(self.reader, connection, session_id)
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
            return
        if row["parent_session_id"] != parent_session_id:
            raise ValueError("Session parent cannot change after creation")
        values: dict[str, Any] = {"updated_at": now}
        if title is not None:
            values["title"] = title
        if agent_name is not None:
            values["agent_name"] = agent_name
        await connection.execute(update(sessions_t).where(sessions_t.c.id == session_id).values(**values))

    async def snapshot(
        self,
        session_id: str,
        compacted_message: CompactedMessage,
        compacted_through_sequence: int,
        expected_version: int,
    ) -> ContextSnapshot:
        """The body of :meth:`.documented.DocumentedAPI.snapshot` (its docstring is the one source)."""
        if type(compacted_message) is not CompactedMessage:
            raise ValueError("A snapshot holds exactly one CompactedMessage")
        message_json = encode_messages([compacted_message])

        async def work(connection: AsyncConnection) -> ContextSnapshot:
            latest = await self._latest_version(connection, session_id)
            version = latest["version"] if latest is not None else 0
            if version != expected_version:
                raise ValueError("Snapshot conflict; reload the session")
            last = await last_sequence(connection, session_id)
            if compacted_through_sequence < 1 or compacted_through_sequence > last:
                raise ValueError("Snapshot boundary must identify an existing Raw Log message")
            if latest is not None and compacted_through_sequence <= latest["compacted_through_sequence"]:
                raise ValueError("Snapshot boundary must advance beyond the previous checkpoint")
            now = self.clock()
            snapshot_id = self.new_id()
            await connection.execute(
                insert(snapshots_t).values(
                    id=snapshot_id,
                    session_id=session_id,
                    version=version + 1,
                    compacted_through_sequence=compacted_through_sequence,
                    message_json=message_json,
                    created_at=utc_naive(now),
                    updated_at=utc_naive(now),
                )
            )
            from ..model.documented import ContextSnapshot

            return ContextSnapshot(
                id=snapshot_id,
                session_id=session_id,
                version=version + 1,
                compacted_message=compacted_message,
                compacted_through_sequence=compacted_through_sequence,
                created_at=now,
                updated_at=now,
            )

        return await self.reader.write(work)

    @staticmethod
    async def _latest_version(connection: AsyncConnection, session_id: str) -> Any:
        """The latest snapshot's version and boundary, or None."""
        statement = (
            select(snapshots_t.c.version, snapshots_t.c.compacted_through_sequence)
            .where(snapshots_t.c.session_id == session_id)
            .order_by(snapshots_t.c.version.desc())
            .limit(1)
        )
        return (await connection.execute(statement)).mappings().first()


__all__ = ["SessionWriter"]
