"""Provides the row-to-record conversions, importable without SQLAlchemy or pydantic.

Rows come from a store another program wrote, possibly a newer or damaged one. Each
converter reads what it can, records what it could not in ``problems``, and never
raises, so one bad row never fails a page. The storage (:mod:`.rows` adds its
SQLAlchemy column types and the pydantic-decoding wrappers) and the start-up reader
(:mod:`.quickstart`, which must not import either) build their records here, so both
paths give equal records for equal rows. A converter that decodes a message takes the
decoder: the storage's never fails (:func:`~.codec.decode_message_leniently`), the
start-up reader's may give up (it then asks the storage).

Text that is not UTF-8 is decoded by :func:`lenient_text` into :class:`BadText` (SQLite's
default decoder fails the whole statement on it); :func:`stored_time` reads timestamps
without failing on garbage; JSON nested deeper than Python's recursion limit becomes a
problem.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from ..model.messages import AnyMessage, CompactedMessage, UnreadableMessage
from ..model.records import RawMessageRecord, SessionNode, SnapshotInfo
from .values import BadText as BadText
from .values import lenient_text as lenient_text  # where callers found them
from .values import stored_time as stored_time

#: Decodes a stored ``message_json`` into a message (an unreadable one says why).
Decode = Callable[[Any], "AnyMessage | CompactedMessage | UnreadableMessage"]


def text_problems(row: Mapping[Any, Any], names: tuple[str, ...]) -> list[str]:
    """A problem for each of ``names`` whose value was not valid UTF-8."""
    return [f"{name} is not valid UTF-8" for name in names if isinstance(row[name], BadText)]


#: Stand-in for a timestamp that could not be read (the record says so in ``problems``).
UNREADABLE_TIME = datetime(1970, 1, 1, tzinfo=UTC)


def time_field(row: Mapping[Any, Any], name: str, problems: list[str], *, optional: bool = False) -> datetime | None:
    value = row[name]
    if isinstance(value, datetime):
        return value
    if value is None and optional:
        return None
    problems.append(f"{name} is not a timestamp: {value!r:.80}")
    return None if optional else UNREADABLE_TIME


def int_field(row: Mapping[Any, Any], name: str, problems: list[str], *, optional: bool = False) -> int | None:
    value = row[name]
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if value is None and optional:
        return None
    problems.append(f"{name} is not an integer: {value!r:.80}")
    return None if optional else 0


def _json_object(row: Mapping[Any, Any], name: str, problems: list[str]) -> dict[str, Any]:
    raw = row[name]
    try:
        value = json.loads(raw)
    except RecursionError:
        problems.append(f"{name} is nested too deeply to read")
        return {}
    except (TypeError, ValueError):
        problems.append(f"{name} is not valid JSON: {raw!r:.120}")
        return {}
    if not isinstance(value, dict):
        problems.append(f"{name} is not a JSON object: {raw!r:.120}")
        return {}
    return value


#: Text columns of a Raw Log record whose bytes may not be UTF-8.
_RECORD_TEXT = ("id", "session_id", "request_id", "tool_name", "message_json", "metadata_json", "tags_json")


def record_from_row(row: Mapping[Any, Any], decode: Decode) -> RawMessageRecord:
    """Build a Raw Log record from a ``raw_messages`` row, reporting unreadable parts."""
    problems = text_problems(row, _RECORD_TEXT)
    message = decode(row["message_json"])
    if isinstance(message, UnreadableMessage):
        problems.append(message.error)
    elif isinstance(message, CompactedMessage):
        problems.append("a checkpoint (kind 5) is stored in the Raw Log")
    record = RawMessageRecord(
        id=row["id"] if isinstance(row["id"], str) else str(row["id"]),  # BadText stays findable
        session_id=str(row["session_id"]),
        request_id=str(row["request_id"]),
        sequence=int_field(row, "sequence", problems) or 0,
        message=message,
        metadata=_json_object(row, "metadata_json", problems),
        tags=_json_object(row, "tags_json", problems),
        started_at=time_field(row, "started_at", problems) or UNREADABLE_TIME,
        completed_at=time_field(row, "completed_at", problems) or UNREADABLE_TIME,
        duration_ns=int_field(row, "duration_ns", problems) or 0,
        reasoning_started_at=time_field(row, "reasoning_started_at", problems, optional=True),
        reasoning_completed_at=time_field(row, "reasoning_completed_at", problems, optional=True),
        reasoning_duration_ns=int_field(row, "reasoning_duration_ns", problems, optional=True),
        content_started_at=time_field(row, "content_started_at", problems, optional=True),
        content_completed_at=time_field(row, "content_completed_at", problems, optional=True),
        content_duration_ns=int_field(row, "content_duration_ns", problems, optional=True),
        input_tokens=int_field(row, "input_tokens", problems, optional=True),
        output_tokens=int_field(row, "output_tokens", problems, optional=True),
        cache_read_tokens=int_field(row, "cache_read_tokens", problems, optional=True),
        cache_write_tokens=int_field(row, "cache_write_tokens", problems, optional=True),
        reasoning_tokens=int_field(row, "reasoning_tokens", problems, optional=True),
        created_at=time_field(row, "created_at", problems) or UNREADABLE_TIME,
        updated_at=time_field(row, "updated_at", problems) or UNREADABLE_TIME,
        problems=tuple(problems),
    )
    return record


def _count(value: Any) -> int:
    """A correlated count or last sequence; anything odd (a text sequence's max) is 0."""
    if type(value) is int:
        return value
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool) and math.isfinite(value):
        return int(value)
    return 0


def node_from_row(row: Mapping[Any, Any]) -> SessionNode:
    """Build a tree node from a session row with its correlated counts.

    Written for speed (a page of children holds up to 1,000 nodes): each value is read
    once and checked by exact type, the slow path only for a damaged value.
    """
    session_id, parent, title, agent = row["id"], row["parent_session_id"], row["title"], row["agent_name"]
    problems = [
        f"{name} is not valid UTF-8"
        for name, value in (("id", session_id), ("parent_session_id", parent), ("title", title), ("agent_name", agent))
        if type(value) is BadText
    ]
    created, updated, session_type, last = (
        row["created_at"],
        row["updated_at"],
        row["session_type"],
        row["message_count"],
    )
    if type(created) is not datetime:
        created = time_field(row, "created_at", problems) or UNREADABLE_TIME
    if type(updated) is not datetime:
        updated = time_field(row, "updated_at", problems) or UNREADABLE_TIME
    if type(session_type) is not int:
        session_type = int_field(row, "session_type", problems) or 0
    if type(last) is not int:
        problems.append(f"the last sequence is not an integer: {last!r:.40}")
        last = _count(last)
    if parent is not None and parent == session_id:
        problems.append("parent cycle: it is its own parent")
    return SessionNode(
        session_id=session_id if isinstance(session_id, str) else str(session_id),  # BadText stays findable
        parent_session_id=parent,
        session_type=session_type,
        title=title,
        agent_name=agent,
        created_at=created,
        updated_at=updated,
        message_count=last,
        child_count=_count(row["child_count"]),
        snapshot_count=_count(row["snapshot_count"]),
        problems=tuple(problems),
    )


def snapshot_info_from_row(row: Mapping[Any, Any], decode: Decode) -> SnapshotInfo:
    """Build a snapshot version record, keeping an unreadable summary's raw text."""
    problems = text_problems(row, ("id", "session_id", "message_json"))
    message = decode(row["message_json"])
    if isinstance(message, UnreadableMessage):
        problems.append(message.error)
    elif not isinstance(message, CompactedMessage):
        problems.append(f"snapshot holds a {type(message).__name__}, not a CompactedMessage")
        message = UnreadableMessage(kind=None, error=problems[-1], raw_json=str(row["message_json"]), data=None)
    return SnapshotInfo(
        id=str(row["id"]),
        session_id=str(row["session_id"]),
        version=int_field(row, "version", problems) or 0,
        compacted_through_sequence=int_field(row, "compacted_through_sequence", problems) or 0,
        message=message,
        created_at=time_field(row, "created_at", problems, optional=True),
        updated_at=time_field(row, "updated_at", problems, optional=True),
        problems=tuple(problems),
    )
