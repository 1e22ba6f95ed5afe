"""The exports' stdlib Raw Log pages (``storage/quickexport.py``) hand every writer exactly the
rows the SQLAlchemy path hands it (values, their types, a non-UTF-8 text's stored bytes), in
the same order, with delegated sessions in the same places: on stores real zett-agent
wrote, on damaged stores, and across pages where some must be read the old way."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial import damage
from tests.adversarial.damage import DAMAGES
from tests.export.helpers import copy_fixture, export_text, long_session
from tests.realstore.stores import RealStores
from tests.support import KITCHEN
from zett_browser.export.walk import SessionHead, Walk, WalkStats
from zett_browser.storage import open_store


class Recorder:
    """A writer that keeps what the walk hands it: every value with its type."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def start_session(self, head: SessionHead) -> None:
        self.events.append(("start", head.row["id"], head.call_id, head.depth))

    def message(self, row: Mapping[str, Any], head: SessionHead) -> None:
        values = tuple((name, type(value), value, getattr(value, "raw", None)) for name, value in row.items())
        self.events.append(("message", *values))

    def end_session(self, head: SessionHead) -> None:
        self.events.append(("end", head.row["id"]))


async def _recorded(store: Path, session: str, *, quick: bool) -> tuple[list[tuple[Any, ...]], WalkStats]:
    storage = open_store(store)
    recorder = Recorder()
    try:
        stats = await Walk(storage, recorder, subtree=True, quick=quick).run(session)
    finally:
        await storage.close()
    return recorder.events, stats


async def _same(store: Path, session: str) -> WalkStats:
    beside = sorted(store.parent.glob(f"{store.name}-*"))
    quick, stats = await _recorded(store, session, quick=True)
    assert sorted(store.parent.glob(f"{store.name}-*")) == beside  # no -wal/-shm left by the stdlib reads
    usual, _ = await _recorded(store, session, quick=False)
    assert quick == usual
    assert stats.encoded == 0  # rows as stored: only the JSON export asks for SQLite's text
    return stats


def _sessions(store: Path) -> list[str]:
    connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return [row[0] for row in connection.execute("select id from agent_sessions order by id")]
    finally:
        connection.close()


@pytest.mark.parametrize("name", ["storage_api", "agent_run"])
async def test_fixture_stores_hand_the_same_rows(tmp_path: Path, name: str) -> None:
    store = copy_fixture(name, tmp_path)
    for session in _sessions(store):
        stats = await _same(store, session)
        assert stats.quick == stats.messages


async def test_real_runtime_stores_hand_the_same_rows(real_stores: RealStores) -> None:
    messages = 0
    for store in (real_stores.main, real_stores.children):
        for session in _sessions(store):
            stats = await _same(store, session)
            assert stats.quick == stats.messages
            messages += stats.messages
    assert messages > 20


@pytest.mark.parametrize("case", sorted(DAMAGES))
async def test_damaged_stores_hand_the_same_rows(tmp_path: Path, case: str) -> None:
    session, harm = DAMAGES[case]
    store = damage.copy_fixture("storage_api", tmp_path)
    harm(store)
    stats = await _same(store, session)
    # A schema letting ``sequence`` be NULL is read the old way (the NULL band is not written out).
    assert stats.quick == (0 if case == "NULL sequence" else stats.messages) and stats.messages > 0


async def test_pages_after_an_edge_it_cannot_bind_are_read_the_old_way(tmp_path: Path) -> None:
    """Pages of 200 with a REAL, a BLOB and bad UTF-8 (read as stored all the same), and a text
    id at the end of the third page: the pages after it are read the old way, exactly."""
    store = damage.copy_fixture("storage_api", tmp_path)
    long_session(store, KITCHEN, 650)
    damage.bad_message_value(store, KITCHEN, 333, "duration_ns", 1 / 3)
    damage.bad_message_value(store, KITCHEN, 420, "tool_name", b"\x00blob")
    damage.bad_text(store, "raw_messages", "content", damage.raw_id(store, KITCHEN, 450))
    damage.execute(store, "update raw_messages set id = ? where session_id = ? and sequence = 600", b"\xff id", KITCHEN)
    damage.execute(store, "update raw_messages set id = cast(id as text) where sequence = 600")
    stats = await _same(store, KITCHEN)
    assert stats.messages == 650 and stats.quick == 600


async def test_every_format_still_exports(tmp_path: Path) -> None:
    """Markdown, HTML and OTLP through the stdlib pages on a long session (rows past the first page)."""
    store = damage.copy_fixture("storage_api", tmp_path)
    long_session(store, KITCHEN, 450)
    for fmt in ("md", "html", "otlp"):
        _, report = await export_text(store, KITCHEN, format=fmt)
        assert report.messages == 450
