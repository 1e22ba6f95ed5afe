"""Stores for the usage tests: copies of the zett-agent-written fixtures, edited with stdlib sqlite3.

``priced_store`` turns ``storage_api.sqlite3`` into a store with models the price table
knows, a five-level delegation chain (3 → 4 → 5 → A1 → A2), a child under the orphan
(6 → O2), one model it does not know, and rows with bad token and timing values.
New sessions are clones of zett-agent's rows of CHECKPOINTED (ids and session changed).
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import uuid
from pathlib import Path

from tests.support import CHECKPOINTED, FIXTURES, GRANDCHILD, KITCHEN_SINK, ORPHAN
from zett_browser.index import SideIndex
from zett_browser.storage import SQLSessionStorage

A1 = "0193a5c0-0000-7000-8000-0000000000a1"  # child of GRANDCHILD (claude-sonnet-4-5)
A2 = "0193a5c0-0000-7000-8000-0000000000a2"  # child of A1 (bad values)
O2 = "0193a5c0-0000-7000-8000-0000000000b2"  # child of the orphan
PRICED_MODEL = ("openai", "gpt-4o")


def set_model(db: sqlite3.Connection, session_id: str, provider: str, model: str) -> None:
    db.execute(
        "UPDATE raw_messages SET message_json = json_set(message_json, '$[0].data.provider', ?,"
        " '$[0].data.model', ?) WHERE session_id = ? AND role = 3",
        (provider, model, session_id),
    )


def clone_session(db: sqlite3.Connection, source: str, new_id: str, parent: str | None, agent: str) -> None:
    """Copy a session's row and its Raw Log rows under a new id."""
    created, updated = db.execute(
        "SELECT created_at, updated_at FROM agent_sessions WHERE id = ?", (source,)
    ).fetchone()
    db.execute(
        "INSERT INTO agent_sessions VALUES (?, ?, 0, ?, ?, ?, ?)",
        (new_id, parent, f"clone {new_id[-2:]}", agent, created, updated),
    )
    columns = [row[1] for row in db.execute("PRAGMA table_info(raw_messages)")]
    rows = db.execute(f"SELECT {', '.join(columns)} FROM raw_messages WHERE session_id = ?", (source,)).fetchall()
    for row in rows:
        values = dict(zip(columns, row, strict=True))
        values["id"], values["session_id"] = str(uuid.uuid4()), new_id
        db.execute(
            f"INSERT INTO raw_messages ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
            list(values.values()),
        )


def priced_store(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "priced.sqlite3"
    shutil.copyfile(FIXTURES / "storage_api.sqlite3", target)
    db = sqlite3.connect(target)
    try:
        set_model(db, CHECKPOINTED, *PRICED_MODEL)
        db.execute(
            "UPDATE raw_messages SET message_json = json_set(message_json, '$[0].data.model', 'gpt-4o-mini')"
            " WHERE session_id = ? AND message_json LIKE '%gpt-example%'",
            (KITCHEN_SINK,),
        )
        clone_session(db, CHECKPOINTED, A1, GRANDCHILD, "deep")
        set_model(db, A1, "anthropic", "claude-sonnet-4-5")
        clone_session(db, CHECKPOINTED, A2, A1, "deeper")
        clone_session(db, CHECKPOINTED, O2, ORPHAN, "lost")
        set_model(db, O2, "scripted", "not-a-real-model")
        bad = [
            ("input_tokens", "lots", 2),
            ("output_tokens", -5, 4),
            ("cache_read_tokens", 999_999, 6),
            ("duration_ns", -1, 3),
            ("started_at", "yesterday-ish", 5),
        ]
        for column, value, sequence in bad:
            db.execute(
                f"UPDATE raw_messages SET {column} = ? WHERE session_id = ? AND sequence = ?", (value, A2, sequence)
            )
        db.commit()
    finally:
        db.close()
    return target


def session_ids(store: Path) -> list[str]:
    db = sqlite3.connect(store)
    try:
        return [str(row[0]) for row in db.execute("SELECT id FROM agent_sessions ORDER BY id")]
    finally:
        db.close()


async def sync(store: Path, index_dir: Path, *, rebuild: bool = False) -> SideIndex:
    index = SideIndex(SQLSessionStorage.open_for_browsing(store), index_dir)
    try:
        await index.sync(rebuild=rebuild)
    finally:
        await index.storage.close()
    return index


def sync_now(store: Path, index_dir: Path, *, rebuild: bool = False) -> SideIndex:
    return asyncio.run(sync(store, index_dir, rebuild=rebuild))


def table_rows(index_path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the usage tables, sorted (times rounded to the microsecond)."""
    db = sqlite3.connect(index_path)
    try:
        out = {}
        for table, key in (
            ("own_totals", "id"),
            ("tree_totals", "id"),
            ("usage_days", "day, session_id, provider, model"),
            ("usage_models", "day, provider, model"),
        ):
            rows = db.execute(f"SELECT * FROM {table} ORDER BY {key}").fetchall()
            out[table] = [tuple(round(v, 6) if isinstance(v, float) else v for v in row) for row in rows]
        return out
    finally:
        db.close()
