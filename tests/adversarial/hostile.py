"""The hostile store of the untrusted-text suite, shared with the copy and serve tests.

A copy of the zett-agent-written ``agent_run`` store whose delegated session's id, the
parent's title and agent name, message content and a tool name carry OSC 0 (window title),
OSC 52 (clipboard), OSC 8 (link), a clear screen, an 8-bit CSI, Textual markup and bidi
overrides (written with the stdlib ``sqlite3`` module).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from tests.support import AGENT_RUN_CHILD, AGENT_RUN_ROOT, FIXTURES

PARENT = AGENT_RUN_ROOT
CHILD = AGENT_RUN_CHILD
#: The child's id starts with an OSC 0 that fits the 8 characters an untitled label shows.
HOSTILE_CHILD = "\x1b]0;PWN\x07" + CHILD
TITLE = "Title \x1b]0;PWNED\x07 \u202edesrever\u202c [@click=app.quit]x[/]"
AGENT = "agent\x1b]52;c;UFdORUQ=\x07"
CONTENT = (
    "clear\x1b[2J link \x1b]8;;http://evil.example/\x07click\x1b]8;;\x07 csi\x9b31m red"
    " [@click=app.quit]quit[/] \u2066iso\u2069 \ufeffbom \ud800 done"
)
TOOL = "tool\x1b]52;c;UFdORUQ=\x07"
#: What must never be in the bytes the app writes.
INJECTED = ("\x1b]0;PWN", "\x1b]52;c;UFdORUQ", "\x1b]8;;http://evil", "\x1b[2J link", "\x9b")


def hostile_store(directory: Path) -> Path:
    """A copy of agent_run.sqlite3 with hostile strings in ids, names and content."""
    path = directory / "sessions.sqlite3"
    shutil.copyfile(FIXTURES / "agent_run.sqlite3", path)
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=DELETE")
        connection.execute("update agent_sessions set title = ?, agent_name = ? where id = ?", (TITLE, AGENT, PARENT))
        connection.execute("update agent_sessions set id = ? where id = ?", (HOSTILE_CHILD, CHILD))
        for table in ("raw_messages", "session_snapshots"):
            connection.execute(f"update {table} set session_id = ? where session_id = ?", (HOSTILE_CHILD, CHILD))
        rows = connection.execute(
            "select id, message_json from raw_messages where session_id = ? and sequence in (2, 4)", (HOSTILE_CHILD,)
        ).fetchall()
        for row_id, raw in rows:
            envelope = json.loads(raw)
            data = envelope[0]["data"]
            data["content"] = CONTENT
            if "name" in data:
                data["name"] = TOOL
                connection.execute("update raw_messages set tool_name = ? where id = ?", (TOOL, row_id))
            connection.execute("update raw_messages set message_json = ? where id = ?", (json.dumps(envelope), row_id))
    finally:
        connection.close()
    return path
