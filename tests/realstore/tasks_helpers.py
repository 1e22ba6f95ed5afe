"""Helpers of the background-task tests: copies of the real stores, merged or made deterministic."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

from tests.realstore.stores import RealStores

TASKS = "0193a5c0-0000-7000-8000-0000000e0001"


def child_ids(main: Path) -> list[str]:
    """The children of session …e0001 in the order of its calls: task-1…task-4, then the ``task`` child."""
    query = (
        "SELECT message_json FROM raw_messages WHERE session_id = ? AND tool_name IN ('task_start', 'task')"
        " ORDER BY sequence"
    )
    with sqlite3.connect(main) as connection:
        rows = connection.execute(query, (TASKS,)).fetchall()
    return [json.loads(json.loads(text)[0]["data"]["content"])["session_id"] for (text,) in rows]


def merged(stores: RealStores, target: Path) -> Path:
    """A copy of main.sqlite3 that also holds the children (plain sqlite3, as if one store)."""
    shutil.copy(stores.main, target)
    with sqlite3.connect(target) as connection:
        connection.execute("ATTACH DATABASE ? AS c", (str(stores.children),))
        connection.execute("INSERT INTO agent_sessions SELECT * FROM c.agent_sessions")
        connection.execute("INSERT INTO raw_messages SELECT * FROM c.raw_messages")
        connection.commit()
        connection.execute("DETACH DATABASE c")
    return target


def home_with_children(stores: RealStores, home: Path, ids: dict[str, str] | None = None) -> Path:
    """A HOME whose ``.zett-agent/sessions.sqlite3`` is the children store (as zett-agent leaves it)."""
    target = home / ".zett-agent" / "sessions.sqlite3"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(stores.children, target)
    if ids:
        _rename(target, ids)
    return home


def _rename(path: Path, ids: dict[str, str]) -> None:
    with sqlite3.connect(path) as connection:
        for old, new in ids.items():
            connection.execute("UPDATE agent_sessions SET id = ? WHERE id = ?", (new, old))
            connection.execute("UPDATE raw_messages SET session_id = ? WHERE session_id = ?", (new, old))
            for column in ("message_json", "content"):
                connection.execute(f"UPDATE raw_messages SET {column} = replace({column}, ?, ?)", (old, new))  # noqa: S608
        connection.commit()


def _renumber_calls(connection: sqlite3.Connection) -> None:
    """Name the task session's tool calls after the row that made them (``call_r12_0``).

    The runtime numbers calls by its step counter, and how often the scripted model polled a
    background task before it finished depends on the machine's speed: the same visible rows
    got ``call_tasks_5_0`` in one run and ``call_tasks_6_0`` in another."""
    rows = connection.execute(
        "SELECT sequence, message_json FROM raw_messages WHERE session_id = ? ORDER BY sequence", (TASKS,)
    ).fetchall()
    names: dict[str, str] = {}
    for sequence, text in rows:
        for found in re.findall(r"call_tasks_\d+_\d+", text or ""):
            names.setdefault(found, f"call_r{sequence}_{found.rsplit('_', 1)[1]}")
    for old, new in names.items():
        for column in ("message_json", "content"):
            connection.execute(
                f"UPDATE raw_messages SET {column} = replace({column}, ?, ?) WHERE session_id = ?",  # noqa: S608
                (old, new, TASKS),
            )


def steady(stores: RealStores, target: Path, home: Path) -> tuple[Path, Path]:
    """main.sqlite3 (and a HOME with the children) made the same every run, for snapshots.

    The runtime's child ids are random and its clock is the wall clock: ids become fixed
    ones, request ids numbered in order, call ids named after their row, times a fixed
    sequence, elapsed seconds and durations fixed values.
    """
    ids = {old: f"01a245fb-0000-7000-8000-{n:012d}" for n, old in enumerate(child_ids(stores.main), 1)}
    shutil.copy(stores.main, target)
    _rename(target, ids)
    with sqlite3.connect(target) as connection:
        sessions = [row[0] for row in connection.execute("SELECT id FROM agent_sessions ORDER BY id")]
        for rank, session in enumerate(sessions):
            moment = f"2026-12-03 10:{rank:02d}:00.000000"
            connection.execute(
                "UPDATE agent_sessions SET created_at = ?, updated_at = ? WHERE id = ?", (moment, moment, session)
            )
            connection.execute(
                "UPDATE raw_messages SET started_at = ?, completed_at = ?, created_at = ?, updated_at = ?,"
                " duration_ns = 1000000, reasoning_started_at = NULL, reasoning_completed_at = NULL,"
                " reasoning_duration_ns = NULL, content_started_at = NULL, content_completed_at = NULL,"
                " content_duration_ns = NULL WHERE session_id = ?",
                (moment, moment, moment, moment, session),
            )
        requests = connection.execute(
            "SELECT request_id FROM raw_messages GROUP BY request_id ORDER BY min(session_id), min(sequence)"
        ).fetchall()
        for number, (request_id,) in enumerate(requests, start=1):
            connection.execute(
                "UPDATE raw_messages SET request_id = ? WHERE request_id = ?",
                (f"01a245fb-0000-7000-9000-{number:012d}", request_id),
            )
        _renumber_calls(connection)
        rows = connection.execute("SELECT id, message_json FROM raw_messages WHERE tool_name LIKE 'task%'").fetchall()
        for row_id, text in rows:
            fixed = re.sub(r'(\\"elapsed_seconds\\": )[0-9.]+', r"\g<1>1.0", text)
            connection.execute("UPDATE raw_messages SET message_json = ? WHERE id = ?", (fixed, row_id))
        connection.commit()
    return target, home_with_children(stores, home, ids)
