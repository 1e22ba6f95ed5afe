"""A store whose tables lack a column (an older or newer zett-agent schema) is refused at open.

Such a store was accepted, then every page (or the index build, the export...) failed.
Now the schema check names the missing table column: one line, exit status 2, in every
command, and the start-up reader declines so the TUI gives the same line instead of
starting. Columns a store has besides zett-agent's (a newer zett-agent) stay accepted.
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.backends import Backend
from tests.support import AGENT_RUN_ROOT, FIXTURES
from zett_browser.__main__ import preflight
from zett_browser.storage import NotZettStoreError, open_store
from zett_browser.storage.quickstart import QuickStart

REPO = Path(__file__).resolve().parents[2]
#: (table, column) dropped, and any index on it dropped first.
DROPS = {
    "raw_messages.tool_name": ("raw_messages", "tool_name", None),
    "raw_messages.input_tokens": ("raw_messages", "input_tokens", None),
    "raw_messages.content": ("raw_messages", "content", None),
    "agent_sessions.title": ("agent_sessions", "title", None),
    "agent_sessions.agent_name": ("agent_sessions", "agent_name", "ix_agent_sessions_agent_name"),
    "session_snapshots.compacted_through_sequence": ("session_snapshots", "compacted_through_sequence", None),
}


def edited_store(directory: Path, *statements: str) -> Path:
    """A copy of a zett-agent-written store, alone in ``directory``, changed by ``statements``."""
    directory.mkdir()
    path = directory / "sessions.sqlite3"
    shutil.copy(FIXTURES / "agent_run.sqlite3", path)
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in statements:
            connection.execute(statement)
    finally:
        connection.close()
    assert sorted(child.name for child in directory.iterdir()) == [path.name]
    return path


def without(directory: Path, name: str) -> Path:
    table, column, index = DROPS[name]
    statements = [f"DROP INDEX {index}"] if index else []
    return edited_store(directory, *statements, f"ALTER TABLE {table} DROP COLUMN {column}")


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "zett_browser", *argv],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        raise AssertionError(f"the command did not end (the app started?): {expired.stderr!r}") from None


def commands(store: Path, index: Path) -> dict[str, list[str]]:
    return {
        "browse": [str(store), "--no-index"],
        "browse --session": [str(store), "--no-index", "--session", AGENT_RUN_ROOT],
        "index": ["index", "--index-dir", str(index), str(store)],
        "search": ["search", "--index-dir", str(index), str(store), "agent"],
        "usage": ["usage", "--index-dir", str(index), str(store)],
        "export": ["export", str(store), "--session", AGENT_RUN_ROOT],
        "context": ["context", str(store), "--session", AGENT_RUN_ROOT],
    }


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("missing", list(DROPS))
@pytest.mark.parametrize("command", ["browse", "browse --session", "index", "search", "usage", "export", "context"])
def test_a_missing_column_is_named_at_open(tmp_path: Path, missing: str, command: str) -> None:
    store = without(tmp_path / "store", missing)
    digest = sha256(store)
    result = run(*commands(store, tmp_path / "index")[command], cwd=tmp_path)
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert result.stderr.count("\n") == 1, result.stderr
    assert missing in result.stderr and "zett-agent store" in result.stderr, result.stderr
    assert result.stdout == ""
    assert sha256(store) == digest
    assert sorted(child.name for child in store.parent.iterdir()) == [store.name]


def test_the_start_up_reader_declines_and_the_storage_names_the_column(tmp_path: Path) -> None:
    store = without(tmp_path / "store", "raw_messages.tool_name")
    quick = QuickStart(store, session=AGENT_RUN_ROOT, seq=None, page_size=50).start()
    try:
        assert quick.preflight(timeout=30) is False  # unknown: the storage's preflight words it
    finally:
        quick.finish()
        quick.guard.release()
    with pytest.raises(NotZettStoreError, match=r"raw_messages\.tool_name"):
        asyncio.run(preflight(open_store(store), AGENT_RUN_ROOT))
    assert sorted(child.name for child in store.parent.iterdir()) == [store.name]


NEWER = (
    "ALTER TABLE raw_messages ADD COLUMN future_notes TEXT",
    "ALTER TABLE agent_sessions ADD COLUMN workspace TEXT DEFAULT 'x'",
    "ALTER TABLE session_snapshots ADD COLUMN model TEXT",
)


def test_extra_columns_of_a_newer_zett_agent_are_accepted(tmp_path: Path) -> None:
    store = edited_store(tmp_path / "store", *NEWER)
    quick = QuickStart(store, session=AGENT_RUN_ROOT, seq=None, page_size=50).start()
    try:
        assert quick.preflight(timeout=30) is True
    finally:
        quick.finish()
        quick.guard.release()
    assert asyncio.run(preflight(open_store(store), AGENT_RUN_ROOT)) is None
    for command in ("index", "export", "context"):
        result = run(*commands(store, tmp_path / "index")[command], cwd=tmp_path)
        assert result.returncode == 0, (command, result.stderr[-2000:])
        assert result.stdout
    assert sorted(child.name for child in store.parent.iterdir()) == [store.name]


def test_a_store_without_session_type_is_still_accepted(tmp_path: Path) -> None:
    """zett-agent stores older than ``session_type`` read it as 0: not a missing column."""
    directory = tmp_path / "store"
    directory.mkdir()
    store = directory / "sessions.sqlite3"
    shutil.copy(FIXTURES / "legacy_no_session_type.sqlite3", store)
    assert asyncio.run(preflight(open_store(store), None)) is None
    result = run("index", "--index-dir", str(tmp_path / "index"), str(store), cwd=tmp_path)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("backend", ["postgresql", "mysql"], indirect=True)
def test_a_server_store_missing_a_column_is_named_at_open(tmp_path: Path, backend: Backend) -> None:
    asyncio.run(backend.load_fixture("agent_run").close())
    engine = backend.raw()
    try:
        with engine.begin() as connection:
            connection.execute(text("ALTER TABLE raw_messages DROP COLUMN tool_name"))
    finally:
        engine.dispose()
    for command in ("browse", "index", "export"):
        argv = commands(Path("STORE"), tmp_path / "index")[command]
        argv = [backend.reader_target if value == "STORE" else value for value in argv]
        result = run(*argv, cwd=tmp_path)
        assert "Traceback" not in result.stderr, result.stderr[-3000:]
        assert result.returncode == 2, (command, result.stderr[-2000:])
        assert result.stderr.count("\n") == 1 and "raw_messages.tool_name" in result.stderr, result.stderr
