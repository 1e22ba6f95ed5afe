"""Big content on copies of the agent_run fixture: the store edits the large-content tests and
``measure_large_content.py`` share."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.support import AGENT_RUN_ROOT, FIXTURES

MAIN = AGENT_RUN_ROOT  # agent_run.sqlite3's parent session
TOOL_RESULT = 6  # a count_words result in it


def copy_agent_run(directory: Path) -> Path:
    target = directory / "sessions.sqlite3"
    shutil.copyfile(FIXTURES / "agent_run.sqlite3", target)
    return target


def huge_text(size: int, last: str) -> str:
    """About ``size`` characters of numbered lines, ending with ``last``."""
    line = "line {:08d} of a very long tool output that goes on for a while\n"
    count = size // len(line.format(0))
    return "".join(line.format(index) for index in range(count)) + last


def set_json_content(path: Path, table: str, where: str, params: tuple[object, ...], text: str) -> None:
    """Replace the ``content`` of the stored message envelope (and the text copy column)."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=DELETE")
        (raw,) = connection.execute(f"select message_json from {table} where {where}", params).fetchone()
        envelope = json.loads(raw)
        envelope[0]["data"]["content"] = text
        connection.execute(f"update {table} set message_json = ? where {where}", (json.dumps(envelope), *params))
        if table == "raw_messages":
            connection.execute(f"update {table} set content = ? where {where}", (text, *params))
    finally:
        connection.close()


def grow_session(path: Path, session_id: str, rows: int) -> int:
    """Append ``rows`` copies of the session's own rows (new ids, sequences after its last,
    one second apart); returns the new last sequence."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=DELETE")
        columns = [info[1] for info in connection.execute("PRAGMA table_info(raw_messages)")]
        template = connection.execute(
            "select * from raw_messages where session_id = ? order by sequence", (session_id,)
        ).fetchall()
        last = int(max(record[columns.index("sequence")] for record in template))
        start = datetime(2026, 12, 2, 19, 0, tzinfo=UTC)
        made = []
        for index in range(rows):
            values = list(template[index % len(template)])
            stamp = (start + timedelta(seconds=index)).strftime("%Y-%m-%d %H:%M:%S.%f")
            values[columns.index("id")] = f"grown-{index:09d}"
            values[columns.index("sequence")] = last + 1 + index
            for name in ("started_at", "completed_at", "created_at", "updated_at"):
                values[columns.index(name)] = stamp
            made.append(values)
        marks = ", ".join("?" for _ in columns)
        connection.execute("begin")
        connection.executemany(f"insert into raw_messages values ({marks})", made)
        connection.execute("commit")
        return last + rows
    finally:
        connection.close()
