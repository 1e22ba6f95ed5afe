"""Exports from a server store (PostgreSQL, MariaDB) read as a SELECT-only user: every format
works, and a JSON export restored into a SQLite file reads back exactly as the server store
does through the storage API (sessions, every Raw Log record, every snapshot)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from tests.backends import Backend
from tests.support import DELEGATING_PARENT, KITCHEN
from zett_browser.export import ExportOptions, export_session
from zett_browser.export.restore import restore
from zett_browser.storage import SQLiteSessionStorage, open_store


async def test_a_server_store_exports_and_restores_into_sqlite(backend: Backend, tmp_path: Path) -> None:
    loaded = backend.load_fixture("storage_api")
    await loaded.close()
    reader = open_store(backend.reader_target)
    target = tmp_path / "restored.sqlite3"
    try:
        for session in (KITCHEN, DELEGATING_PARENT):
            for fmt in ("md", "html"):
                out = io.StringIO()
                report = await export_session(reader, session, out, ExportOptions(format=fmt, subtree=True))
                assert report.messages > 0 and out.getvalue()
            out = io.StringIO()
            await export_session(reader, session, out, ExportOptions(format="json", subtree=True))
            await restore(json.loads(out.getvalue()), str(target))
        restored = SQLiteSessionStorage(target, read_only=True)
        try:
            for session in (KITCHEN, DELEGATING_PARENT, DELEGATING_PARENT[:-1] + "4", DELEGATING_PARENT[:-1] + "5"):
                assert await restored.get_session(session) == await reader.get_session(session)
                assert await restored.list_raw_messages(session) == await reader.list_raw_messages(session)
                assert await restored.list_snapshots(session) == await reader.list_snapshots(session)
        finally:
            await restored.close()
    finally:
        await reader.close()


async def test_a_server_store_gives_the_same_spans_as_its_sqlite_copy(backend: Backend) -> None:
    """OTLP spans from PostgreSQL / MariaDB (times as ``datetime``, not SQLite's text) have the
    ids, names, parents and attributes of the same rows in SQLite, and the server's own times
    (MariaDB's DATETIME keeps whole seconds: the times are the store's, as the storage API reads them)."""
    from tests.export.otlp_helpers import spans_of
    from tests.support import FIXTURES
    from zett_browser.export.otlp_model import nanoseconds

    loaded = backend.load_fixture("storage_api")
    await loaded.close()
    reader = open_store(backend.reader_target)
    try:
        for session in (KITCHEN, DELEGATING_PARENT):
            served = await spans_of(backend.reader_target, session, content=True)
            local = await spans_of(FIXTURES / "storage_api.sqlite3", session, content=True)
            assert served and [(s.span_id, s.parent_id, s.name, s.attributes) for s in served] == [
                (s.span_id, s.parent_id, s.name, s.attributes) for s in local
            ]
            chats = 0
            for span in served:
                found = dict(span.attributes)
                sequence, owner = found.get("zett.sequence"), str(found["gen_ai.conversation.id"])
                if isinstance(sequence, int):
                    (row,) = [r for r in await reader.list_raw_messages(owner) if r.sequence == sequence]
                    assert (span.start_ns, span.end_ns) == (nanoseconds(row.started_at), nanoseconds(row.completed_at))
                    chats += 1
            assert chats > 0
    finally:
        await reader.close()
