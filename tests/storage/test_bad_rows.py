"""One bad row never fails a page: corrupt, foreign and newer rows come back explained."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.backends import Backend
from tests.support import FIXTURES
from zett_browser.storage import (
    AssistantMessage,
    SQLiteSessionStorage,
    UnreadableMessage,
    UserMessage,
    decode_messages,
    encode_messages,
    open_store,
)


@pytest.fixture
async def bad_store(backend: Backend) -> str:
    """A store whose session 's' has good rows 1, 3, 9 and odd rows 2, 4-8, 10.

    Row 7's text timestamp can only be planted in SQLite (a server's TIMESTAMP column
    refuses it), so on a server row 7 stays good.
    """
    storage = backend.writer()
    for index in range(10):
        await storage.append("s", "r", UserMessage(content=f"row {index + 1}"), metadata={"i": index})
    await storage.close()
    good = '[{"kind": 2, "data": {"attributes": {}, "persist": true, "include_in_messages": true, "content": "x"}}]'
    newer_fields = json.dumps(
        [
            {
                "kind": 3,
                "data": {
                    "attributes": {},
                    "persist": True,
                    "include_in_messages": True,
                    "content": "from the future",
                    "reasoning": None,
                    "tool_calls": [{"id": "c", "name": "t", "arguments": {}, "error": None, "priority": 5}],
                    "provider": "p",
                    "model": "m",
                    "replay_blocks": [],
                    "stop": None,
                    "citations": [{"url": "https://example.com"}],
                },
            }
        ]
    )
    updates = {
        2: ("message_json", "{not json"),
        4: ("message_json", '[{"kind": 9, "data": {"content": "a kind from a newer zett-agent"}}]'),
        5: ("message_json", '[{"kind": 4, "data": {"content": "tool result without its call id"}}]'),
        6: ("metadata_json", "[1, 2]"),
        7: ("started_at", "yesterday-ish"),
        8: ("message_json", newer_fields),
        10: ("message_json", f"[{good[1:-1]}, {good[1:-1]}]"),
    }
    if backend.name != "sqlite":
        del updates[7]
    engine = backend.raw()
    with engine.begin() as connection:
        for sequence, (column, value) in updates.items():
            connection.execute(
                text(f"update raw_messages set {column} = :value where sequence = :sequence"),
                {"value": value, "sequence": sequence},
            )
    engine.dispose()
    return backend.reader_target


async def test_a_page_with_bad_rows_returns_every_row_in_order(bad_store: str) -> None:
    storage = open_store(bad_store)
    try:
        records = await storage.list_raw_messages("s")
        assert [r.sequence for r in records] == list(range(1, 11))
        page = await storage.raw_page("s", after_sequence=1, limit=5)
        assert [r.sequence for r in page] == [2, 3, 4, 5, 6]
    finally:
        await storage.close()
    by_seq = {r.sequence: r for r in records}
    for sequence in (1, 3, 9):
        assert by_seq[sequence].problems == () and by_seq[sequence].message.content == f"row {sequence}"


async def test_each_kind_of_damage_is_explained_and_keeps_the_raw_text(bad_store: str, backend: Backend) -> None:
    storage = open_store(bad_store)
    try:
        by_seq = {r.sequence: r for r in await storage.list_raw_messages("s")}
    finally:
        await storage.close()

    invalid = by_seq[2]
    assert isinstance(invalid.message, UnreadableMessage)
    assert invalid.message.raw_json == "{not json"
    assert "not valid JSON" in invalid.problems[0]

    unknown = by_seq[4]
    assert isinstance(unknown.message, UnreadableMessage) and unknown.message.kind == 9
    assert "unknown message kind 9" in unknown.problems[0]
    assert unknown.message.content == "a kind from a newer zett-agent"

    missing = by_seq[5]
    assert isinstance(missing.message, UnreadableMessage) and missing.message.kind == 4
    assert "tool_call_id" in missing.problems[0] and "missing" in missing.problems[0].lower()

    metadata = by_seq[6]
    assert metadata.metadata == {} and "metadata_json is not a JSON object" in metadata.problems[0]
    assert metadata.message.content == "row 6", "the message itself still reads"

    timestamp = by_seq[7]
    if backend.name == "sqlite":
        assert "started_at is not a timestamp" in timestamp.problems[0]
    assert timestamp.message.content == "row 7"

    two = by_seq[10]
    assert isinstance(two.message, UnreadableMessage) and "exactly one message" in two.problems[0]


async def test_unknown_fields_are_kept_and_written_back(bad_store: str) -> None:
    storage = open_store(bad_store)
    try:
        (record,) = await storage.list_raw_messages("s", after_sequence=7, through_sequence=8)
    finally:
        await storage.close()
    message = record.message
    assert isinstance(message, AssistantMessage) and record.problems == ()
    assert message.content == "from the future"
    assert message.unknown_fields == {"citations": [{"url": "https://example.com"}]}
    assert message.tool_calls[0].unknown_fields == {"priority": 5}
    again = decode_messages(encode_messages([message]))[0]
    assert again.unknown_fields == message.unknown_fields
    assert again.tool_calls[0].unknown_fields == {"priority": 5}  # type: ignore[union-attr]


async def test_a_corrupt_snapshot_is_listed_with_its_problem(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    shutil.copy(FIXTURES / "storage_api.sqlite3", path)
    with sqlite3.connect(path) as connection:
        sid, version = connection.execute("select session_id, max(version) from session_snapshots").fetchone()
        connection.execute(
            "update session_snapshots set message_json = ? where session_id = ? and version = 1", ("oops", sid)
        )
    storage = open_store(path)
    try:
        snapshots = await storage.list_snapshots(sid)
    finally:
        await storage.close()
    assert [s.version for s in snapshots] == list(range(1, version + 1))
    assert snapshots[0].problems and snapshots[0].summary_text == "oops"
    assert all(not s.problems for s in snapshots[1:])


async def test_a_foreign_title_that_breaks_validation_still_lists(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    storage = SQLiteSessionStorage(path)
    await storage.create_session(session_id="s", title="ok")
    await storage.close()
    with sqlite3.connect(path) as connection:
        connection.execute("update agent_sessions set title = '', agent_name = ? ", ("a" * 300,))
    browser = open_store(path)
    try:
        (summary,) = await browser.list_sessions()
        assert summary.title == "" and len(summary.agent_name or "") == 300
        node = await browser.get_node("s")
        assert node is not None and node.title == ""
    finally:
        await browser.close()
