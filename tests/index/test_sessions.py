"""Tree filters: the sessions a query matches and their ancestors, checked against the store."""

from __future__ import annotations

import sqlite3
from datetime import UTC, timedelta
from pathlib import Path

import pytest

from tests.index.helpers import S1, S2, S3, S4, S5, S7, build, copy_fixture, find
from zett_browser.index import QueryError, SideIndex, parse
from zett_browser.index.sessions import find_sessions, matching_sessions
from zett_browser.storage import AssistantMessage, SQLSessionStorage, ToolMessage

S6 = "0193a5c0-0000-7000-8000-000000000006"
S8 = "0193a5c0-0000-7000-8000-000000000008"
MISSING_PARENT = "0193a5c0-0000-7000-8000-000000000099"


@pytest.fixture
async def api(tmp_path: Path) -> tuple[Path, SideIndex]:
    store = copy_fixture("storage_api", tmp_path / "store")
    return store, await build(store, tmp_path / "index")


def _match(index: SideIndex, text: str) -> tuple[set[str], set[str]]:
    found = matching_sessions(index.path, parse(text))
    assert not found.partial
    return set(found.matching), set(found.visible)


async def _sessions(store: Path) -> list[object]:
    storage = SQLSessionStorage.open_for_browsing(store)
    try:
        return list(await storage.list_sessions(limit=1000))
    finally:
        await storage.close()


async def test_session_qualifiers_bring_their_ancestors(api: tuple[Path, SideIndex]) -> None:
    _, index = api
    assert _match(index, "agent:reasoning") == ({S5}, {S5, S4, S3})
    assert _match(index, "agent:explore") == ({S4}, {S4, S3})
    assert _match(index, "type:3") == ({S7}, {S7})
    assert _match(index, "has:snapshot") == ({S2}, {S2})
    assert _match(index, "has:children") == ({S3, S4}, {S3, S4})
    assert _match(index, "agent:reasoning type:3") == (set(), set())
    # An orphan's missing parent is named among the ancestors; the tree simply has no such row.
    assert _match(index, f"session:{S6}") == ({S6}, {S6, MISSING_PARENT})


async def test_negation_keeps_sessions_without_the_value(api: tuple[Path, SideIndex]) -> None:
    store, index = api
    everyone = {session.session_id for session in await _sessions(store)}  # type: ignore[attr-defined]
    assistants = _match(index, "agent:assistant")[0]
    assert assistants == {S1, S2, "0193a5c0-0000-7000-8000-000000000009"}
    matching, _ = _match(index, "-agent:assistant")
    assert matching == everyone - assistants
    assert S8 in matching  # no agent name at all is "not assistant"


async def test_error_true_matches_sessions_with_a_failed_tool(api: tuple[Path, SideIndex]) -> None:
    store, index = api
    storage = SQLSessionStorage.open_for_browsing(store)
    failed: set[str] = set()
    try:
        for session in await storage.list_sessions(limit=1000):
            for record in await storage.list_raw_messages(session.session_id, limit=1000):
                message = record.message
                if (isinstance(message, ToolMessage) and not message.success) or (
                    isinstance(message, AssistantMessage) and any(call.error for call in message.tool_calls)
                ):
                    failed.add(session.session_id)
    finally:
        await storage.close()
    assert failed
    matching, visible = _match(index, "error:true")
    assert matching == failed
    assert visible >= matching
    assert matching == {hit.session_id for hit in find(index, "error:true")}


async def test_dates_keep_sessions_active_in_the_range(api: tuple[Path, SideIndex]) -> None:
    store, index = api
    sessions = await _sessions(store)
    everyone = {s.session_id for s in sessions}  # type: ignore[attr-defined]
    assert _match(index, "since:2025-01-01")[0] == everyone
    assert _match(index, "before:2025-01-01") == (set(), set())
    assert _match(index, "since:2099-01-01") == (set(), set())
    # Between S4's creation and S3's last activity: sessions active in that window.
    start = next(s for s in sessions if s.session_id == S4).created_at  # type: ignore[attr-defined]
    end = start + timedelta(milliseconds=20)
    text = f"since:{start.astimezone(UTC):%Y-%m-%dT%H:%M:%S} before:{end.astimezone(UTC):%Y-%m-%dT%H:%M:%S}"
    expected = {
        s.session_id  # type: ignore[attr-defined]
        for s in sessions
        if s.updated_at >= start.replace(microsecond=0)  # type: ignore[attr-defined]
        and s.created_at < end.replace(microsecond=0)  # type: ignore[attr-defined]
    }
    assert _match(index, text)[0] == expected


async def test_words_and_mixed_queries_match_by_document(api: tuple[Path, SideIndex]) -> None:
    _, index = api
    for text in ["red", "kind:tool", "error:true agent:assistant", "tag:env=test", "trains"]:
        expected = {hit.session_id for hit in find(index, text, limit=5000)}
        assert _match(index, text)[0] == expected, text
    assert _match(index, "zyzzyva-nowhere") == (set(), set())


async def test_scope_needs_a_session_and_missing_index_is_partial(api: tuple[Path, SideIndex], tmp_path: Path) -> None:
    _, index = api
    with pytest.raises(QueryError, match="in:subtree"):
        matching_sessions(index.path, parse("in:subtree"))
    assert set(matching_sessions(index.path, parse("in:subtree"), session=S3).matching) == {S3, S4, S5}
    missing = await find_sessions(tmp_path / "nope.sqlite3", parse("agent:x"))
    assert missing.partial and not missing.matching and not missing.visible
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    damaged = matching_sessions(junk, parse("agent:x"))
    assert damaged.partial and not damaged.visible


async def test_a_parent_cycle_in_the_store_ends(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    with sqlite3.connect(store) as db:  # damage the copy: S3 -> S5 -> S4 -> S3
        db.execute("UPDATE agent_sessions SET parent_session_id = ? WHERE id = ?", (S5, S3))
    index = await build(store, tmp_path / "index")
    assert _match(index, "agent:reasoning") == ({S5}, {S3, S4, S5})  # the walk ends
