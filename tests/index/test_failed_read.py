"""A store read that fails in the middle of a first build is an error, never a crash.

The index writes a batch in a worker thread while the next batch is read from the store.
When that read fails, the build must wait for the write in flight before the index file is
closed (closing a SQLite connection another thread still uses brought the process down).
The store is one built in zett-agent's format (benchmarks/bigstore.py) with a corrupt
``raw_messages`` page near its end, so the first batches read and write fine.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from zett_browser.index import SideIndex
from zett_browser.storage import StoreError, open_store

sys.path.insert(0, str(Path(__file__).parents[2]))
from benchmarks.bigstore import build as build_big  # noqa: E402


def store_with_a_late_corrupt_page(tmp_path: Path) -> Path:
    path = tmp_path / "store.sqlite3"
    build_big(path, messages=12_000, sessions=20, big=6_000, fanout=3)
    with sqlite3.connect(path) as connection:
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        pages = [
            row[0]
            for row in connection.execute(
                "SELECT pageno FROM dbstat WHERE name = 'raw_messages' AND pagetype = 'leaf' ORDER BY pageno"
            )
        ]
    victim = pages[int(len(pages) * 0.8)]
    data = bytearray(path.read_bytes())
    start = (victim - 1) * page_size
    data[start + 8 : start + page_size] = b"\xa5" * (page_size - 8)
    path.write_bytes(bytes(data))
    return path


async def test_a_read_failing_mid_build_is_an_error_and_the_index_survives(tmp_path: Path) -> None:
    path = store_with_a_late_corrupt_page(tmp_path)
    storage = open_store(path)
    try:
        index = SideIndex(storage, tmp_path / "index")
        with pytest.raises(StoreError):
            await index.sync()
        with sqlite3.connect(index.path) as connection:  # still a readable SQLite file
            assert connection.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            state = dict(connection.execute("SELECT key, value FROM meta").fetchall()).get("state")
        assert state == "building", "an unfinished build is never taken for a complete one"
    finally:
        await storage.close()
