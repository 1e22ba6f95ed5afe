"""Provides :func:`restore`: a JSON export written back through the storage API.

Each session is created with ``create_session``, each Raw Log row appended with
``append`` (its decoded envelope, timing, usage, metadata and tags), each snapshot
written with ``snapshot`` and the session's last activity set with ``update_session``,
exactly as an agent would have written them. The storage is given a clock that answers
the stored timestamps and an id source that answers the stored row ids, so the new
store's tables equal the original's column for column (the tests compare them, and have
real zett-agent 0.2.1 read the result). A row the API cannot reproduce (an unreadable
envelope, a gap in the sequences) stops the restore with a :class:`RestoreError` naming it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ..model import CompactedMessage, MessageTiming, ModelUsage
from ..storage import SQLSessionStorage, decode_messages
from .jsondoc import FORMAT


class RestoreError(ValueError):
    """The export cannot be written back exactly."""


class _Stamps:
    """The clock and id source handed to the storage: they answer what the next write needs."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)
        self.next_id = ""

    def clock(self) -> datetime:
        return self.now

    def ids(self) -> str:
        return self.next_id


def _time(value: Any) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise RestoreError(f"not a stored timestamp: {value!r:.80}")
    parsed = datetime.fromisoformat(value)
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _timing(row: Mapping[str, Any]) -> MessageTiming:
    parts = {name: _time(row[name]) for name in row if name.endswith(("_started_at", "_completed_at"))}
    return MessageTiming(
        started_at=_time(row["started_at"]),  # type: ignore[arg-type]
        completed_at=_time(row["completed_at"]),  # type: ignore[arg-type]
        duration_ns=row["duration_ns"],
        reasoning_started_at=parts["reasoning_started_at"],
        reasoning_completed_at=parts["reasoning_completed_at"],
        reasoning_duration_ns=row["reasoning_duration_ns"],
        content_started_at=parts["content_started_at"],
        content_completed_at=parts["content_completed_at"],
        content_duration_ns=row["content_duration_ns"],
    )


def _usage(row: Mapping[str, Any]) -> ModelUsage | None:
    names = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")
    if all(row[name] is None for name in names):
        return None
    values = [int(row[name] or 0) for name in names]
    return ModelUsage(
        input_tokens=values[0],
        output_tokens=values[1],
        cache_read_tokens=values[2],
        cache_write_tokens=values[3],
        reasoning_tokens=values[4],
    )


class _Restore:
    def __init__(self, storage: SQLSessionStorage, stamps: _Stamps) -> None:
        self.storage = storage
        self.stamps = stamps
        self.sessions = 0

    async def session(self, doc: Mapping[str, Any]) -> None:
        row = doc["row"]
        session_id = row["id"]
        self.stamps.now = _time(row["created_at"])  # type: ignore[assignment]
        await self.storage.create_session(
            session_id=session_id,
            parent_session_id=row["parent_session_id"],
            title=row["title"],
            agent_name=row["agent_name"],
            session_type=row["session_type"],
        )
        self.sessions += 1
        last = self.stamps.now
        for item in doc["messages"]:
            if "session" in item:
                await self.session(item["session"])
                continue
            last = await self.message(item, row["parent_session_id"])
        for snapshot in doc["snapshots"]:
            await self.snapshot(snapshot)
        updated = _time(row["updated_at"])
        if updated != last:
            if row["title"] is None and row["agent_name"] is None:
                raise RestoreError(f"session {session_id}: its last activity cannot be set without a title or agent")
            self.stamps.now = updated  # type: ignore[assignment]
            await self.storage.update_session(session_id, title=row["title"], agent_name=row["agent_name"])

    async def message(self, row: Mapping[str, Any], parent: str | None) -> datetime:
        where = f"session {row['session_id']} #{row['sequence']}"
        if row["created_at"] != row["updated_at"]:
            raise RestoreError(f"{where}: a row changed after it was appended cannot be written again")
        try:
            (message,) = decode_messages(row["message_json"])
        except (ValueError, TypeError) as error:
            raise RestoreError(f"{where}: its message cannot be decoded ({error})") from None
        self.stamps.now = _time(row["created_at"])  # type: ignore[assignment]
        self.stamps.next_id = row["id"]
        sequence = await self.storage.append(
            row["session_id"],
            row["request_id"],
            message,
            timing=_timing(row),
            parent_session_id=parent,
            metadata=json.loads(row["metadata_json"]),
            tags=json.loads(row["tags_json"]),
            usage=_usage(row),
        )
        if sequence != row["sequence"]:
            raise RestoreError(f"{where}: appended as #{sequence} (the stored sequences have a gap)")
        return self.stamps.now

    async def snapshot(self, row: Mapping[str, Any]) -> None:
        (message,) = decode_messages(row["message_json"])
        if not isinstance(message, CompactedMessage):
            raise RestoreError(f"snapshot {row['id']}: its message is not a checkpoint")
        self.stamps.now = _time(row["created_at"])  # type: ignore[assignment]
        self.stamps.next_id = row["id"]
        await self.storage.snapshot(row["session_id"], message, row["compacted_through_sequence"], row["version"] - 1)


async def restore(document: Mapping[str, Any], target: str) -> int:
    """Write a JSON export (parsed) into the store at ``target`` (a new or empty store).

    Returns the number of sessions written.

    Raises:
        RestoreError: The document is no export, or a row cannot be written back exactly.
    """
    if document.get("format") != FORMAT:
        raise RestoreError("not a zett-browser JSON export")
    stamps = _Stamps()
    storage = SQLSessionStorage(target, clock=stamps.clock, ids=stamps.ids)
    try:
        work = _Restore(storage, stamps)
        await work.session(document["session"])
        return work.sessions
    finally:
        await storage.close()
