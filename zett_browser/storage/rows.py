"""Provides the storage's side of the row conversions: column types and pydantic decoding.

The conversions themselves live in :mod:`.convert` (no SQLAlchemy, no pydantic), shared
with the start-up reader; here they get the storage's message decoder, which never
fails. :class:`StoredDateTime` reads timestamps through :func:`~.convert.stored_time`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import String, TypeDecorator

from ..model.records import RawMessageRecord, SnapshotInfo
from . import convert
from .codec import decode_message_leniently
from .convert import UNREADABLE_TIME, stored_time
from .convert import BadText as BadText  # re-exported: callers import these from here
from .convert import node_from_row as node_from_row
from .errors import StoreError

if TYPE_CHECKING:
    from ..model.documented import SessionSummary


class StoreDataError(StoreError, ValueError):
    """A value the call needs cannot be read (e.g. the latest snapshot of ``load``).

    A ``ValueError`` too, as zett-agent raises for the same case.
    """


class RawValue(TypeDecorator[Any]):
    """A column read and compared as stored: no conversion that could fail (sort keys)."""

    impl = String
    cache_ok = True


class StoredDateTime(TypeDecorator[Any]):
    """Reads a stored datetime without failing the row when the value is malformed.

    zett-agent stores naive UTC datetimes (SQLite text ``YYYY-MM-DD HH:MM:SS.ffffff``).
    A readable value comes back aware, in UTC; anything else comes back unchanged for
    the converter to report.
    """

    impl = String
    cache_ok = True

    def process_result_value(self, value: Any, dialect: Any) -> Any:
        return stored_time(value)


def summary_from_row(row: Mapping[Any, Any]) -> SessionSummary:
    """Build a ``SessionSummary``; a foreign value that fails validation is kept as is."""
    from pydantic import ValidationError

    from ..model.documented import SessionSummary

    values = {
        "session_id": row["id"],
        "parent_session_id": row["parent_session_id"],
        "session_type": row["session_type"] if row["session_type"] is not None else 0,
        "title": row["title"],
        "agent_name": row["agent_name"],
        "message_count": int(row["message_count"] or 0),
        "created_at": row["created_at"] if isinstance(row["created_at"], datetime) else UNREADABLE_TIME,
        "updated_at": row["updated_at"] if isinstance(row["updated_at"], datetime) else UNREADABLE_TIME,
    }
    try:
        return SessionSummary.model_validate(values)
    except ValidationError:
        return SessionSummary.model_construct(**values)


def record_from_row(row: Mapping[Any, Any]) -> RawMessageRecord:
    """Build a Raw Log record from a ``raw_messages`` row, reporting unreadable parts."""
    return convert.record_from_row(row, decode_message_leniently)


def snapshot_info_from_row(row: Mapping[Any, Any]) -> SnapshotInfo:
    """Build a snapshot version record, keeping an unreadable summary's raw text."""
    return convert.snapshot_info_from_row(row, decode_message_leniently)
