"""Provides the tables, columns and indexes of a zett-agent store.

They are declared to be identical to zett-agent 0.2.1's on every dialect: names, types,
nullability, server defaults and index names. MySQL gets LONGTEXT for the long text
columns, as zett-agent declares, so messages over 64 KiB survive. Only the explicit
write path (``SQLiteSessionStorage`` opened for writing) ever creates them; browsing
never issues DDL.
"""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Index, Integer, MetaData, String, Table, Text, inspect
from sqlalchemy.dialects.mysql import LONGTEXT
from sqlalchemy.engine import Connection

metadata = MetaData()

#: Long text holding a whole message or JSON object.
LongText = Text().with_variant(LONGTEXT(), "mysql")

agent_sessions = Table(
    "agent_sessions",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("parent_session_id", String(36), nullable=True, index=True),
    Column("session_type", Integer, nullable=False, default=0, server_default="0"),
    Column("title", String(200), nullable=True),
    Column("agent_name", String(64), nullable=True, index=True),
    Column("created_at", DateTime(), nullable=False),
    Column("updated_at", DateTime(), nullable=False),
    Index("ix_agent_sessions_activity", "updated_at", "id"),
)

raw_messages = Table(
    "raw_messages",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("session_id", String(36), nullable=False, index=True),
    Column("request_id", String(36), nullable=False, index=True),
    Column("sequence", Integer, nullable=False),
    Column("role", Integer, nullable=False),
    Column("content", LongText, nullable=False),
    Column("tool_name", String(200), nullable=True),
    Column("message_json", LongText, nullable=False),
    Column("metadata_json", LongText, nullable=False, default="{}"),
    Column("tags_json", LongText, nullable=False, default="{}"),
    Column("started_at", DateTime(), nullable=False),
    Column("completed_at", DateTime(), nullable=False),
    Column("duration_ns", Integer, nullable=False),
    Column("reasoning_started_at", DateTime(), nullable=True),
    Column("reasoning_completed_at", DateTime(), nullable=True),
    Column("reasoning_duration_ns", Integer, nullable=True),
    Column("content_started_at", DateTime(), nullable=True),
    Column("content_completed_at", DateTime(), nullable=True),
    Column("content_duration_ns", Integer, nullable=True),
    Column("input_tokens", Integer, nullable=True),
    Column("output_tokens", Integer, nullable=True),
    Column("cache_read_tokens", Integer, nullable=True),
    Column("cache_write_tokens", Integer, nullable=True),
    Column("reasoning_tokens", Integer, nullable=True),
    Column("created_at", DateTime(), nullable=False),
    Column("updated_at", DateTime(), nullable=False),
    Index("ux_raw_session_sequence", "session_id", "sequence", unique=True),
)

session_snapshots = Table(
    "session_snapshots",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("session_id", String(36), nullable=False, index=True),
    Column("version", Integer, nullable=False),
    Column("compacted_through_sequence", Integer, nullable=False),
    Column("message_json", LongText, nullable=False),
    Column("created_at", DateTime(), nullable=False),
    Column("updated_at", DateTime(), nullable=False),
    Index("ux_snapshot_session_version", "session_id", "version", unique=True),
)

#: Tables a store must have to be a zett-agent store.
REQUIRED_TABLES = ("agent_sessions", "raw_messages", "session_snapshots")
#: Columns a store may lack: older zett-agent stores have no ``session_type`` (read as 0).
OPTIONAL_COLUMNS = (("agent_sessions", "session_type"),)
#: Columns a browsed store must have, (table, column): every other column zett-agent
#: declares; the queries read them all. Columns the store has besides (a newer zett-agent)
#: are never read and do not matter.
REQUIRED_COLUMNS = tuple(
    (table.name, column.name)
    for table in metadata.sorted_tables
    for column in table.columns
    if (table.name, column.name) not in OPTIONAL_COLUMNS
)


def missing_columns(present: dict[str, set[str]]) -> list[str]:
    """``table.column`` of each required column missing from ``present`` (table -> its columns)."""
    return [f"{table}.{column}" for table, column in REQUIRED_COLUMNS if column not in present.get(table, set())]


def lacking_columns(present: dict[str, set[str]]) -> str | None:
    """What a store whose tables hold ``present`` lacks, said for a person (None: nothing)."""
    lacking = missing_columns(present)
    if not lacking:
        return None
    shown = ", ".join(lacking[:6]) + (f" and {len(lacking) - 6} more" if len(lacking) > 6 else "")
    return f"it lacks the column{'s' if len(lacking) > 1 else ''} {shown}"


def create_missing(connection: Connection) -> None:
    """Create missing tables, columns and indexes, as zett-agent's first call does
    (the explicit write path only)."""
    metadata.create_all(connection)
    columns = {column["name"] for column in inspect(connection).get_columns("agent_sessions")}
    if "session_type" not in columns:
        connection.exec_driver_sql("ALTER TABLE agent_sessions ADD COLUMN session_type INTEGER NOT NULL DEFAULT 0")
    for table in metadata.sorted_tables:
        existing = {index["name"] for index in inspect(connection).get_indexes(table.name)}
        for index in table.indexes:
            if index.name not in existing:
                index.create(connection)
