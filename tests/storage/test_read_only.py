"""Browsing never creates or changes anything, and every bad input gets a typed error."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support import FIXTURES, listing
from zett_browser.storage import (
    NotSQLiteError,
    NotZettStoreError,
    ReadOnlyStoreError,
    SQLiteSessionStorage,
    StoreIsDirectoryError,
    StoreLockedError,
    StoreNotFoundError,
    UserMessage,
    open_store,
)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def browse_everything(path: Path) -> int:
    """Call every read method on every session, as the browser would."""
    storage = open_store(path)
    seen = 0
    try:
        for summary in await storage.list_sessions(limit=10_000):
            sid = summary.session_id
            seen += len(await storage.list_raw_messages(sid))
            await storage.get_session(sid)
            await storage.count_messages(sid)
            await storage.load(sid)
            await storage.list_snapshots(sid)
            await storage.raw_bounds(sid)
            await storage.raw_page_before(sid)
            await storage.session_totals(sid)
            await storage.list_children(sid)
            await storage.ancestors(sid)
        await storage.list_roots()
        await storage.list_orphans()
    finally:
        await storage.close()
    return seen


@pytest.mark.parametrize("name", ["storage_api", "agent_run", "legacy_no_session_type", "empty"])
async def test_browsing_a_copy_leaves_bytes_and_directory_unchanged(tmp_path: Path, name: str) -> None:
    store = tmp_path / f"{name}.sqlite3"
    shutil.copy(FIXTURES / f"{name}.sqlite3", store)
    before_digest, before_listing = digest(store), listing(tmp_path)
    await browse_everything(store)
    assert digest(store) == before_digest
    assert listing(tmp_path) == before_listing


async def test_browsing_a_wal_store_with_wal_files_present_keeps_them(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite3"
    writer = SQLiteSessionStorage(store)
    await writer.append("s", "r", UserMessage(content="x"))
    # The writer stays open, so its -wal and -shm files exist while we browse.
    before = set(listing(tmp_path))
    assert await browse_everything(store) == 1
    assert set(listing(tmp_path)) == before
    await writer.close()


async def test_legacy_store_without_session_type_reads_as_type_zero_and_is_not_altered(tmp_path: Path) -> None:
    store = tmp_path / "legacy.sqlite3"
    shutil.copy(FIXTURES / "legacy_no_session_type.sqlite3", store)
    storage = open_store(store)
    try:
        sessions = await storage.list_sessions()
        assert sessions and all(s.session_type == 0 for s in sessions)
        roots = await storage.list_roots()
        assert all(node.session_type == 0 for node in roots.items)
        assert (await storage.load(sessions[0].session_id)).session_type == 0
    finally:
        await storage.close()
    with sqlite3.connect(store) as connection:
        columns = [row[1] for row in connection.execute("pragma table_info(agent_sessions)")]
    assert "session_type" not in columns


async def test_missing_path_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nested" / "sessions.sqlite3"
    with pytest.raises(StoreNotFoundError, match="does not exist.*~/.zett-agent/sessions.sqlite3"):
        open_store(missing)
    with pytest.raises(StoreNotFoundError):
        SQLiteSessionStorage(missing, read_only=True)
    assert listing(tmp_path) == {}


async def test_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(StoreIsDirectoryError, match="is a directory"):
        open_store(tmp_path)


async def test_non_sqlite_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some notes, long enough to have a header\n")
    with pytest.raises(NotSQLiteError, match="not a SQLite database"):
        open_store(path)
    assert path.read_text().startswith("just some notes")


@pytest.mark.parametrize("content", ["plain", "empty"])
async def test_sqlite_without_zett_tables_is_an_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "other.sqlite3"
    if content == "plain":
        with sqlite3.connect(path) as connection:
            connection.execute("create table notes (id integer primary key, body text)")
    else:
        path.touch()
    before = digest(path)
    storage = open_store(path)
    with pytest.raises(NotZettStoreError, match="not a zett-agent store.*agent_sessions"):
        await storage.list_sessions()
    await storage.close()
    assert digest(path) == before
    assert sorted(listing(tmp_path)) == ["other.sqlite3"]


def test_unreadable_file_is_a_permission_error(nobody_tmp: Path) -> None:
    """Run as an unprivileged user (root may read anything), in a subprocess."""
    base = nobody_tmp / "perm"
    base.mkdir()
    store = base / "s.sqlite3"
    shutil.copy(FIXTURES / "storage_api.sqlite3", store)
    store.chmod(0o000)
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parents[2])!r})
        import os
        from zett_browser.storage import open_store, StorePermissionError
        if os.geteuid() == 0:
            # Drop to nobody after the imports: root may read any file.
            os.setgid(65534)
            os.setuid(65534)
        try:
            open_store({str(store)!r})
        except StorePermissionError as error:
            print("PERMISSION:", error)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert "PERMISSION: Cannot read" in result.stdout, result.stderr
    store.chmod(0o644)


async def test_every_write_method_is_refused_when_browsing(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite3"
    shutil.copy(FIXTURES / "storage_api.sqlite3", store)
    before = digest(store)
    storage = open_store(store)
    sid = (await storage.list_sessions())[0].session_id
    from zett_browser.storage import CompactedMessage

    attempts = [
        storage.create_session(title="x"),
        storage.append(sid, "r", UserMessage(content="x")),
        storage.update_session(sid, title="x"),
        storage.delete_session(sid),
        storage.snapshot(sid, CompactedMessage(content="x"), 1, 99),
    ]
    for attempt in attempts:
        with pytest.raises(ReadOnlyStoreError, match="read-only"):
            await attempt
    await storage.close()
    assert digest(store) == before


async def test_the_browsing_connection_itself_refuses_writes(tmp_path: Path) -> None:
    """Even raw SQL through the browsing engine cannot write (query_only / mode=ro)."""
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    store = tmp_path / "s.sqlite3"
    shutil.copy(FIXTURES / "storage_api.sqlite3", store)
    storage = open_store(store)
    await storage.list_sessions()
    async with storage.reader.engine().connect() as connection:
        with pytest.raises(DBAPIError, match="readonly|read-only|query_only"):
            await connection.execute(text("delete from raw_messages"))
    await storage.close()
    with sqlite3.connect(store) as connection:
        assert connection.execute("select count(*) from raw_messages").fetchone()[0] > 0


@pytest.mark.parametrize("name", ["we?ird#name%41.sqlite3", "spaces and ü.sqlite3"])
async def test_special_characters_in_the_path_open_that_exact_file(tmp_path: Path, name: str) -> None:
    store = tmp_path / name
    shutil.copy(FIXTURES / "storage_api.sqlite3", store)
    before = listing(tmp_path)
    assert await browse_everything(store) > 0
    assert listing(tmp_path) == before
    writable = SQLiteSessionStorage(tmp_path / ("new-" + name))
    await writable.create_session(session_id="x")
    await writable.close()
    assert (tmp_path / ("new-" + name)).exists()
    assert sorted(listing(tmp_path)) == sorted([*before, "new-" + name])


async def test_a_locked_rollback_journal_store_is_reported_after_brief_retries(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite3"
    shutil.copy(FIXTURES / "storage_api.sqlite3", store)
    with sqlite3.connect(store) as connection:
        connection.execute("pragma journal_mode=delete")
    locker = sqlite3.connect(store, isolation_level=None)
    locker.execute("begin exclusive")
    storage = open_store(store)
    started = time.monotonic()
    with pytest.raises(StoreLockedError, match="locked by another process"):
        await storage.list_sessions()
    assert time.monotonic() - started < 15
    locker.execute("rollback")
    assert await storage.list_sessions()
    await storage.close()
    locker.close()


async def test_a_wal_writer_holding_a_write_transaction_does_not_block_browsing(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite3"
    shutil.copy(FIXTURES / "storage_api.sqlite3", store)
    writer = sqlite3.connect(store, isolation_level=None)
    assert writer.execute("pragma journal_mode").fetchone()[0] == "wal"
    writer.execute("begin immediate")
    writer.execute("update agent_sessions set title = 'uncommitted'")
    storage = open_store(store)
    titles = {s.title for s in await storage.list_sessions()}
    assert "uncommitted" not in titles
    writer.execute("commit")
    assert {s.title for s in await storage.list_sessions()} == {"uncommitted"}
    await storage.close()
    writer.close()


async def test_mode_ro_is_used_even_for_a_file_the_user_may_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mode=rw`` + ``query_only`` checkpointed a writer's WAL into the store on close: never use it."""
    import zett_browser.storage.engine as engine

    store = tmp_path / "s.sqlite3"
    shutil.copy(FIXTURES / "storage_api.sqlite3", store)  # a WAL store, as zett-agent writes them
    modes: list[str] = []
    original = engine.sqlite_uri

    def spy(path: Path, mode: str) -> str:
        modes.append(mode)
        return original(path, mode)

    assert os.access(store, os.W_OK)
    monkeypatch.setattr(engine, "sqlite_uri", spy)
    before_digest, before_listing = digest(store), listing(tmp_path)
    assert await browse_everything(store) > 0
    assert modes == ["ro"]
    assert digest(store) == before_digest and listing(tmp_path) == before_listing
