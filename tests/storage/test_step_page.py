"""``step_page`` (compare's narrow read) gives exactly what ``raw_page`` gives of the columns it reads,
a keyset page at a time, and one bad row never fails a page."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.backends import Backend
from tests.support import FIXTURES
from zett_browser.model.steps import StepRow
from zett_browser.storage import SQLSessionStorage, SystemMessage, UnreadableMessage, UserMessage, open_store


async def _steps(storage: SQLSessionStorage, session_id: str, limit: int) -> list[StepRow]:
    rows: list[StepRow] = []
    after = None
    while True:
        page = await storage.step_page(session_id, after_id=after, limit=limit)
        rows += page
        if len(page) < limit:
            return rows
        after = page[-1].id


@pytest.mark.parametrize("name", ["storage_api", "agent_run"])
async def test_every_row_as_raw_page_reads_it(tmp_path: Path, name: str) -> None:
    store = tmp_path / f"{name}.sqlite3"
    shutil.copy(FIXTURES / f"{name}.sqlite3", store)
    storage = open_store(str(store))
    try:
        roots = (await storage.list_roots(limit=100)).items
        sessions = [node.session_id for node in roots]
        for node in roots:
            sessions += [child.session_id for child in (await storage.list_children(node.session_id)).items]
        checked = systems = 0
        for session_id in sessions:
            records = await storage.raw_page(session_id, after_sequence=None, limit=10_000)
            steps = await _steps(storage, session_id, limit=7)
            assert [step.id for step in steps] == [record.id for record in records]
            for step, record in zip(steps, records, strict=True):
                assert step.sequence == record.sequence
                system = isinstance(record.message, SystemMessage)
                assert step.message == (None if system else record.message)
                systems += system
                assert (step.duration_ns, step.started_at) == (record.duration_ns, record.started_at)
                tokens = (step.input_tokens, step.output_tokens, step.cache_read_tokens, step.cache_write_tokens)
                assert tokens == (record.input_tokens, record.output_tokens, record.cache_read_tokens,
                                  record.cache_write_tokens)  # fmt: skip
                assert step.reasoning_tokens == record.reasoning_tokens
                checked += 1
        assert checked > 20 and systems > 0
    finally:
        await storage.close()


async def test_bad_rows_are_read_not_failed(tmp_path: Path) -> None:
    from zett_browser.storage import SQLiteSessionStorage

    store = tmp_path / "bad.sqlite3"
    writer = SQLiteSessionStorage(store)
    for index in range(6):
        await writer.append("s", "r", UserMessage(content=f"row {index + 1}"))
    await writer.close()
    with sqlite3.connect(store) as connection:
        connection.execute("update raw_messages set message_json = '{not json' where sequence = 2")
        connection.execute("update raw_messages set started_at = 'yesterday-ish' where sequence = 3")
        connection.execute("update raw_messages set input_tokens = 'many', duration_ns = 1.5 where sequence = 4")
    connection.close()
    storage = open_store(str(store))
    try:
        steps = await _steps(storage, "s", limit=2)
        assert [step.sequence for step in steps] == [1, 2, 3, 4, 5, 6]
        assert isinstance(steps[1].message, UnreadableMessage)
        assert steps[2].started_at is None and getattr(steps[2].message, "content", None) == "row 3"
        assert steps[3].input_tokens is None and steps[3].duration_ns is None
        assert await storage.step_page("nobody", limit=5) == []
        with pytest.raises(ValueError):
            await storage.step_page("s", limit=0)
    finally:
        await storage.close()


async def test_pages_on_every_backend(backend: Backend) -> None:
    writer = backend.writer()
    for index in range(5):
        await writer.append("s", "r", UserMessage(content=f"row {index + 1}"))
    await writer.close()
    storage = open_store(backend.reader_target)
    try:
        steps = await _steps(storage, "s", limit=2)
        assert [getattr(step.message, "content", None) for step in steps] == [f"row {n}" for n in range(1, 6)]
    finally:
        await storage.close()
