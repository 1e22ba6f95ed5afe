"""Provides the tables and the columns as the storage reads them (no connection, no state).

Timestamps are read through the lenient UTC reader (:class:`~.rows.StoredDateTime`), so a
garbage value is a record's problem, never a failed page.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import type_coerce
from sqlalchemy.sql.elements import ColumnElement

from . import schema
from .rows import StoredDateTime

sessions_t = schema.agent_sessions
raw_t = schema.raw_messages
snapshots_t = schema.session_snapshots

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


__all__ = ["RAW_COLUMNS", "SNAPSHOT_COLUMNS", "raw_t", "read_column", "sessions_t", "snapshots_t"]
