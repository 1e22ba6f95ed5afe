"""Builds damaged stores from the zett-agent-written fixtures, for the adversarial suite.

Every builder starts from a copy of a store real zett-agent 0.2.1 wrote
(``tests/fixtures/agent_run.sqlite3``, ``storage_api.sqlite3``) and damages the copy with
the stdlib :mod:`sqlite3` module only, never through the code under test, so a damaged
store looks exactly like one a crash, a foreign tool or a bad migration left behind.

Usage::

    path = copy_fixture("storage_api", tmp_path)
    bad_session_time(path, SESSION_IDS[3], "updated_at", "garbage")
    before = sha256(path)
    ...  # browse it
    assert sha256(path) == before
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.support import (
    AGENT_RUN_ROOT,
    CHECKPOINTED,
    CHILD,
    DELEGATING_PARENT,
    EMPTY,
    FIXTURES,
    GRANDCHILD,
    KITCHEN_SINK,
    NIGHTLY,
    ORPHAN,
    PAGINATION,
)

#: Fixture ids (from tests/support.py), re-exported for ``d.CHILD`` etc.
__all__ = [
    "AGENT_RUN_ROOT",
    "CHECKPOINTED",
    "CHILD",
    "DELEGATING_PARENT",
    "EMPTY",
    "GRANDCHILD",
    "KITCHEN_SINK",
    "NIGHTLY",
    "ORPHAN",
    "PAGINATION",
]

#: The zett-agent-written stores a damaged copy can start from.
FIXTURE_NAMES = ("agent_run", "storage_api")

#: Values that are not timestamps a reader can convert to UTC.
BAD_TIMES: dict[str, Any] = {
    "overflow": "0001-01-01T00:00:00+05:00",  # astimezone(UTC) overflows below year 1
    "garbage": "yesterday-ish",
    "null": None,
    "number": 12345,
    "blob": b"\xff\xfe",
}

#: Bytes that are not UTF-8 (SQLite hands them back from a TEXT column as stored).
INVALID_UTF8 = b"bad \xff\xfe utf-8 \x1b[31m"


def copy_fixture(name: str, directory: Path, *, filename: str = "sessions.sqlite3") -> Path:
    """Copy a zett-agent-written fixture (``agent_run`` or ``storage_api``) into ``directory``."""
    if name not in FIXTURE_NAMES:
        raise ValueError(f"unknown fixture {name!r}; one of {FIXTURE_NAMES}")
    target = directory / filename
    shutil.copyfile(FIXTURES / f"{name}.sqlite3", target)
    return target


def _connect(path: Path) -> sqlite3.Connection:
    # DELETE journal: no -wal/-shm stays beside the damaged store after we are done.
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=DELETE")
    return connection


def execute(path: Path, sql: str, *params: Any) -> int:
    """Run one statement on the store; return the number of rows it changed."""
    connection = _connect(path)
    try:
        return connection.execute(sql, params).rowcount
    finally:
        connection.close()


def query(path: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Rows of one query on the store (read with the stdlib, bytes as stored)."""
    connection = _connect(path)
    connection.text_factory = bytes
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def sha256(path: Path) -> str:
    """Hash of the file's bytes, to prove browsing changed nothing."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def session_ids(path: Path) -> list[str]:
    """Every session id of the store, as text."""
    return [bytes(row[0]).decode() for row in query(path, "select id from agent_sessions order by id")]


def drop_not_null(path: Path, table: str, columns: Sequence[str]) -> None:
    """Remove NOT NULL from ``columns`` of ``table`` in place (as a foreign tool might).

    Edits the stored schema text, so the table, its rows and its indexes stay as they are.
    """
    connection = _connect(path)
    try:
        (sql,) = connection.execute("select sql from sqlite_master where type='table' and name=?", (table,)).fetchone()
        for column in columns:
            declared = next(line for line in sql.splitlines() if line.strip().startswith(f"{column} "))
            sql = sql.replace(declared, declared.replace(" NOT NULL", ""))
        (version,) = connection.execute("PRAGMA schema_version").fetchone()
        connection.execute("PRAGMA writable_schema=ON")
        connection.execute("update sqlite_master set sql=? where type='table' and name=?", (sql, table))
        connection.execute(f"PRAGMA schema_version={version + 1}")
        connection.execute("PRAGMA writable_schema=OFF")
    finally:
        connection.close()
    check = sqlite3.connect(path)
    try:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        check.close()


def drop_index(path: Path, name: str) -> None:
    """Drop an index (e.g. ``ux_raw_session_sequence``, so duplicate sequences can exist)."""
    execute(path, f"DROP INDEX IF EXISTS {name}")


def bad_session_time(path: Path, session_id: str, column: str, value: Any) -> None:
    """Set a session's ``created_at``/``updated_at`` to a value that is not a timestamp."""
    if value is None:
        drop_not_null(path, "agent_sessions", [column])
    assert execute(path, f"update agent_sessions set {column}=? where id=?", value, session_id) == 1


def bad_message_value(path: Path, session_id: str, sequence: int, column: str, value: Any) -> None:
    """Set one column of one Raw Log row (found by session and sequence) to ``value``."""
    if value is None:
        drop_not_null(path, "raw_messages", [column])
    changed = execute(
        path, f"update raw_messages set {column}=? where session_id=? and sequence=?", value, session_id, sequence
    )
    assert changed == 1, f"no row {session_id}#{sequence}"


def deep_json(depth: int = 100_000) -> str:
    """JSON nested ``depth`` lists deep: json.loads raises RecursionError on it."""
    return "[" * depth + "]" * depth


def set_parent(path: Path, session_id: str, parent_id: str | None) -> None:
    """Point a session at a parent (make cycles and self-parents with it)."""
    assert execute(path, "update agent_sessions set parent_session_id=? where id=?", parent_id, session_id) == 1


def duplicate_sequence(path: Path, session_id: str, sequence: int, *, copies: int = 1) -> list[str]:
    """Insert ``copies`` extra rows with the same (session, sequence) as an existing one.

    Drops the unique index first, as a damaged store may lack it. Returns the new ids.
    """
    drop_index(path, "ux_raw_session_sequence")
    connection = _connect(path)
    try:
        names = [row[1] for row in connection.execute("PRAGMA table_info(raw_messages)")]
        new_ids = [f"dup{index:02d}-{sequence}-{session_id[-6:]}" for index in range(copies)]
        for new_id in new_ids:
            select_list = ", ".join("?" if name == "id" else name for name in names)
            connection.execute(
                f"insert into raw_messages ({', '.join(names)}) select {select_list} from raw_messages "
                "where session_id=? and sequence=? order by rowid limit 1",
                (new_id, session_id, sequence),
            )
    finally:
        connection.close()
    return new_ids


def shift_sequences(path: Path, session_id: str, delta: int) -> None:
    """Add ``delta`` to every sequence of a session (negative: sequences <= 0 appear)."""
    drop_index(path, "ux_raw_session_sequence")
    execute(path, "update raw_messages set sequence = sequence + ? where session_id=?", delta, session_id)


def bad_text(path: Path, table: str, column: str, row_id: str, data: bytes = INVALID_UTF8) -> None:
    """Store ``data`` (not UTF-8) as TEXT in one row's column, as a careless writer could."""
    changed = execute(path, f"update {table} set {column} = cast(? as text) where id=?", data, row_id)
    assert changed == 1, f"no row {row_id} in {table}"


def raw_id(path: Path, session_id: str, sequence: int) -> str:
    """The id of one Raw Log row."""
    rows = query(path, "select id from raw_messages where session_id=? and sequence=?", session_id, sequence)
    return bytes(rows[0][0]).decode()


def widen(path: Path, parent: str = DELEGATING_PARENT) -> list[str]:
    """Re-parent three roots of ``storage_api`` under ``parent`` so children span pages."""
    moved = [NIGHTLY, EMPTY, PAGINATION]
    for session_id in moved:
        set_parent(path, session_id, parent)
    return moved


def truth(path: Path) -> tuple[set[str], dict[str, set[str]]]:
    """Every session id and every Raw Log id per session, read with the stdlib alone.

    Text that is not UTF-8 is decoded with U+FFFD, as the browser shows it.
    """

    def text(value: Any) -> str:
        return bytes(value).decode("utf-8", "replace") if isinstance(value, bytes) else str(value)

    sessions = {text(row[0]) for row in query(path, "select id from agent_sessions")}
    raw: dict[str, set[str]] = {session: set() for session in sessions}
    for session_id, message_id in query(path, "select session_id, id from raw_messages"):
        raw.setdefault(text(session_id), set()).add(text(message_id))
    return sessions, raw


#: Damages an export must survive (session, harm): every row written once, the bad one marked.
DAMAGES: dict[str, tuple[str, Callable[[Path], object]]] = {
    "duplicate sequences": (PAGINATION, lambda p: duplicate_sequence(p, PAGINATION, 50, copies=3)),
    "sequences <= 0": (PAGINATION, lambda p: shift_sequences(p, PAGINATION, -60)),
    "NULL sequence": (KITCHEN_SINK, lambda p: bad_message_value(p, KITCHEN_SINK, 3, "sequence", None)),
    "text sequence": (KITCHEN_SINK, lambda p: bad_message_value(p, KITCHEN_SINK, 3, "sequence", "three")),
    "not JSON": (KITCHEN_SINK, lambda p: bad_message_value(p, KITCHEN_SINK, 2, "message_json", "{not json\x1b[2J")),
    "deep JSON": (KITCHEN_SINK, lambda p: bad_message_value(p, KITCHEN_SINK, 2, "message_json", deep_json())),
    "unknown kind": (KITCHEN_SINK, lambda p: bad_message_value(p, KITCHEN_SINK, 2, "message_json", '[{"kind": 99}]')),
    "bad timestamp": (KITCHEN_SINK, lambda p: bad_message_value(p, KITCHEN_SINK, 2, "started_at", "yesterday-ish")),
    "not UTF-8": (KITCHEN_SINK, lambda p: bad_text(p, "raw_messages", "message_json", raw_id(p, KITCHEN_SINK, 2))),
    "parent cycle": (DELEGATING_PARENT, lambda p: set_parent(p, DELEGATING_PARENT, GRANDCHILD)),
}
