"""Helpers of the export tests: run an export into a string, copy fixture stores."""

from __future__ import annotations

import io
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from tests.adversarial.damage import execute, query
from tests.support import FIXTURES
from zett_browser.export import ExportOptions, ExportReport, export_session
from zett_browser.storage import open_store


def copy_fixture(name: str, directory: Path) -> Path:
    """A copy of ``tests/fixtures/<name>.sqlite3`` (written by real zett-agent 0.2.1)."""
    target = directory / f"{name}.sqlite3"
    shutil.copyfile(FIXTURES / f"{name}.sqlite3", target)
    return target


async def export_text(store: Path | str, session: str, **options: Any) -> tuple[str, ExportReport]:
    """Export ``session`` of ``store`` (opened read-only) and return the document."""
    storage = open_store(store)
    out = io.StringIO()
    try:
        report = await export_session(storage, session, out, ExportOptions(**options))
    finally:
        await storage.close()
    return out.getvalue(), report


def _columns(path: Path, table: str) -> list[str]:
    connection = sqlite3.connect(path)
    try:
        return [d[0] for d in connection.execute(f"select * from {table} limit 0").description]
    finally:
        connection.close()


def table_rows(
    path: Path, sessions: list[str] | None = None, *, like: Path | None = None
) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the three tables (of ``sessions`` only when given), sorted.

    ``like``: only the columns that store has (a store older than ``session_type``).
    """
    connection = sqlite3.connect(path)
    try:
        found = {}
        tables = (("agent_sessions", "id"), ("raw_messages", "session_id"), ("session_snapshots", "session_id"))
        for table, column in tables:
            names = _columns(like or path, table)
            rows = connection.execute(f"select {', '.join(names)} from {table}").fetchall()
            index = names.index(column)
            found[table] = sorted(row for row in rows if sessions is None or row[index] in sessions)
        return found
    finally:
        connection.close()


def roots_and_orphans(path: Path) -> list[str]:
    """Sessions whose parent is not in the store: exporting each with its subtree covers every session."""
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(
            "select id from agent_sessions where parent_session_id is null "
            "or parent_session_id not in (select id from agent_sessions) order by created_at, id"
        ).fetchall()
        return [row[0] for row in rows]
    finally:
        connection.close()


def long_session(store: Path, session: str, count: int) -> None:
    """Give ``session`` ``count`` rows (its own repeated, new ids and sequences)."""
    columns = [bytes(row[1]).decode() for row in query(store, "pragma table_info(raw_messages)")]
    rows = query(store, "select * from raw_messages where session_id = ? order by sequence", session)
    at = {name: number for number, name in enumerate(columns)}
    execute(store, "delete from raw_messages where session_id = ?", session)
    for sequence in range(1, count + 1):
        row = list(rows[(sequence - 1) % len(rows)])
        row[at["id"]], row[at["sequence"]] = f"long-{sequence:05d}", sequence
        row = [value.decode() if isinstance(value, bytes) else value for value in row]
        execute(store, f"insert into raw_messages values ({', '.join('?' * len(columns))})", *row)
