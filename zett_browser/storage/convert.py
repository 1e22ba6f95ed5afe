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
from collections.abc import Callable, Mapping
from typing import Any

from ..model.messages import AnyMessage, CompactedMessage, UnreadableMessage
from ..model.records import RawMessageRecord, SnapshotInfo
from .noderows import UNREADABLE_TIME as UNREADABLE_TIME
from .noderows import int_field as int_field
from .noderows import node_from_row as node_from_row
from .noderows import text_problems as text_problems
from .noderows import time_field as time_field
from .values import BadText as BadText
from .values import lenient_text as lenient_text  # where callers found them
from .values import stored_time as stored_time

#: Decodes a stored ``message_json`` into a message (an unreadable one says why).
Decode = Callable[[Any], "AnyMessage | CompactedMessage | UnreadableMessage"]


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
