"""The full build's stdlib walk of a SQLite store reads what the storage's scan reads (issue 29).

:class:`zett_browser.index.bulkread.StoreWalk` replaces ``storage.scan.raw_scan`` during a
first build of a SQLite store, for speed only. So it must hand the extractor exactly the
same rows: the same keyset order, the same values of the same types (timestamps through
the lenient reader, text that is not UTF-8 as ``BadText`` with its bytes, damaged values
unchanged), on stores zett-agent wrote and on damaged copies of them; its errors are the
storage's typed errors; and the build leaves nothing beside the store.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial import damage as d
from zett_browser.index import SideIndex, pipeline
from zett_browser.index.bulkread import StoreWalk
from zett_browser.storage import StoreCorruptError, StoreError, open_store, scan
from zett_browser.storage.values import BadText


def _damaged(tmp_path: Path) -> Path:
    """agent_run with bad times, text that is not UTF-8, a REAL token count and a blob payload."""
    path = d.copy_fixture("agent_run", tmp_path)
    rows = d.query(path, "select session_id, sequence from raw_messages order by session_id, sequence")
    targets = [(bytes(session).decode() if isinstance(session, bytes) else session, seq) for session, seq in rows]
    for number, value in enumerate(d.BAD_TIMES.values()):
        session_id, sequence = targets[number]
        column = "started_at" if number % 2 else "completed_at"
        d.bad_message_value(path, session_id, sequence, column, value)
    session_id, sequence = targets[7]
    d.bad_text(path, "raw_messages", "message_json", d.raw_id(path, session_id, sequence))
    session_id, sequence = targets[8]
    d.bad_text(path, "raw_messages", "metadata_json", d.raw_id(path, session_id, sequence))
    session_id, sequence = targets[9]
    d.bad_message_value(path, session_id, sequence, "input_tokens", 1.5)
    session_id, sequence = targets[10]
    d.bad_message_value(path, session_id, sequence, "message_json", b"\x00\x01 blob")
    return path


def _typed(rows: list[Mapping[str, Any]]) -> list[dict[str, tuple[str, Any]]]:
    """Rows with each value's type beside it (and a BadText's stored bytes)."""
    return [
        {
            key: (type(value).__name__, (value, value.raw) if isinstance(value, BadText) else value)
            for key, value in row.items()
        }
        for row in rows
    ]


async def _both(path: Path, size: int) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    storage = open_store(path)
    walk = StoreWalk(path, str(path))
    walked: list[Mapping[str, Any]] = []
    scanned: list[Mapping[str, Any]] = []
    try:
        walk.open()
        after: tuple[str, int] | None = None
        while batch := walk.batch(after, size):
            walked.extend(batch)
            after = (str(batch[-1]["session_id"]), int(batch[-1]["sequence"]))
        after = None
        while batch := await scan.raw_scan(storage.reader, after, size):
            scanned.extend(batch)
            after = (str(batch[-1]["session_id"]), int(batch[-1]["sequence"]))
    finally:
        walk.close()
        await storage.close()
    return walked, scanned


@pytest.mark.parametrize("size", [1, 3, 2000])
@pytest.mark.parametrize("name", [*d.FIXTURE_NAMES, "damaged"])
async def test_the_walk_reads_what_the_scan_reads(tmp_path: Path, name: str, size: int) -> None:
    path = _damaged(tmp_path) if name == "damaged" else d.copy_fixture(name, tmp_path)
    walked, scanned = await _both(path, size)
    assert walked and _typed(walked) == _typed(scanned)
    if name == "damaged":
        kinds = {type(value).__name__ for row in walked for value in row.values()}
        assert {"BadText", "datetime", "bytes", "float"} <= kinds  # the damage was read, not lost


async def _built(path: Path, directory: Path, batch: int = 2000) -> dict[str, list[tuple[Any, ...]]]:
    storage = open_store(path)
    try:
        index = SideIndex(storage, directory, batch=batch)
        report = await index.sync()
    finally:
        await storage.close()
    assert report.rebuilt and report.messages == d.query(path, "select count(*) from raw_messages")[0][0]
    return await _dump(index.path)


async def _dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table of the index at ``path`` but its meta, and the FTS texts."""
    db = sqlite3.connect(path)
    try:
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            table: sorted(db.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr)
            for table in tables
            if table != "meta" and not table.startswith("fts_")
        } | {"fts": db.execute("SELECT rowid, body FROM fts ORDER BY rowid").fetchall()}
    finally:
        db.close()


@pytest.mark.parametrize("name", [*d.FIXTURE_NAMES, "damaged"])
async def test_a_build_through_the_walk_equals_one_through_the_storage(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _damaged(tmp_path) if name == "damaged" else d.copy_fixture(name, tmp_path)
    walked = await _built(path, tmp_path / "walked")
    monkeypatch.setattr(pipeline, "WALK_SQLITE", False)
    scanned = await _built(path, tmp_path / "scanned")
    assert walked == scanned
    assert len(walked["docs"]) == len(walked["fts"]) > 10
    if name == "damaged":
        assert sum(1 for row in walked["docs"] if row[15] is not None) >= 4  # problems named alike


async def test_a_locked_or_damaged_store_is_a_typed_error(tmp_path: Path) -> None:
    path = tmp_path / "not-a-store.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    walk = StoreWalk(path, "the store")
    with pytest.raises(StoreError) as raised:
        walk.open()
        try:
            walk.batch(None, 10)
        finally:
            walk.close()
    assert "is not a SQLite database" in str(raised.value) and not isinstance(raised.value, sqlite3.Error)


async def test_a_corrupt_page_is_named_as_damage(tmp_path: Path) -> None:
    path = d.copy_fixture("storage_api", tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA journal_mode=DELETE")
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = 'raw_messages'").fetchone()[0]
    data = bytearray(path.read_bytes())
    start = (root - 1) * page_size
    data[start : start + page_size] = b"\xa5" * page_size
    path.write_bytes(bytes(data))
    walk = StoreWalk(path, "damaged store")
    walk.open()
    try:
        with pytest.raises(StoreCorruptError, match="damaged store is damaged"):
            walk.batch(None, 10)
    finally:
        walk.close()


async def test_the_walk_leaves_nothing_beside_the_store(tmp_path: Path) -> None:
    path = d.copy_fixture("agent_run", tmp_path)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode=DELETE")  # no -wal/-shm before the build
    connection.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    before = d.sha256(path)
    storage = open_store(path)
    try:
        await SideIndex(storage, tmp_path / "index").sync()
    finally:
        await storage.close()
    assert d.sha256(path) == before
    assert sorted(item.name for item in tmp_path.iterdir()) == ["index", path.name]


@pytest.mark.parametrize("walk", [True, False])
async def test_a_transaction_spans_batches_and_the_index_is_the_same(
    tmp_path: Path, walk: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full build commits every ``COMMIT_ROWS`` rows, not every batch (fewer FTS5 segments):
    a reader sees the index grow only at those commits, and the index is what a build
    committing every batch writes."""
    path = d.copy_fixture("agent_run", tmp_path)
    monkeypatch.setattr(pipeline, "WALK_SQLITE", walk)
    monkeypatch.setattr(pipeline, "COMMIT_ROWS", 1)  # every batch
    every_batch = await _built(path, tmp_path / "every", batch=2)
    monkeypatch.setattr(pipeline, "COMMIT_ROWS", 6)  # every third batch of 2
    storage = open_store(path)
    seen: list[tuple[int, int]] = []
    try:
        index = SideIndex(storage, tmp_path / "spanning", batch=2)
        async for progress in index.steps():
            if progress.phase == "messages":
                reader = sqlite3.connect(f"file:{index.path}?mode=ro", uri=True)
                try:
                    seen.append((progress.done, reader.execute("SELECT count(*) FROM docs").fetchone()[0]))
                finally:
                    reader.close()
    finally:
        await storage.close()
    counts = [count for _, count in seen]
    assert counts == sorted(counts) and len(seen) > 6
    changes = [number for number in range(1, len(counts)) if counts[number] != counts[number - 1]]
    assert changes and all(b - a >= 3 for a, b in zip(changes, changes[1:], strict=False)), seen
    assert await _dump(index.path) == every_batch
