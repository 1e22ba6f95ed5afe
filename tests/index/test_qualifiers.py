"""Qualifiers and their combinations, checked against the store decoded independently."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.index.helpers import S1, S2, S3, S4, S5, S7, build, copy_fixture, find, where
from zett_browser.index import QueryError, Searcher, SideIndex, parse
from zett_browser.storage import AssistantMessage, RawMessageRecord, SQLSessionStorage, ToolMessage, UserMessage


@pytest.fixture
async def api(tmp_path: Path) -> tuple[Path, SideIndex]:
    store = copy_fixture("storage_api", tmp_path / "store")
    return store, await build(store, tmp_path / "index")


async def _records(store: Path) -> list[tuple[str, int, object, RawMessageRecord]]:
    """(session, sequence, message, record) of every Raw Log row, read by the browser's storage."""
    storage = SQLSessionStorage.open_for_browsing(store)
    out: list[tuple[str, int, object, RawMessageRecord]] = []
    try:
        for session in await storage.list_sessions(limit=1000):
            for record in await storage.list_raw_messages(session.session_id, limit=1000):
                out.append((session.session_id, record.sequence, record.message, record))
    finally:
        await storage.close()
    return out


def _kinds(hits: set[tuple[str, int, str]]) -> set[str]:
    return {kind for _, _, kind in hits}


async def test_kind_tool_and_error_match_the_decoded_store(api: tuple[Path, SideIndex]) -> None:
    store, index = api
    records = await _records(store)
    tools = {(s, n) for s, n, m, _ in records if isinstance(m, ToolMessage)}
    assert {(s, n) for s, n, _ in where(find(index, "kind:tool"))} == tools
    failed = {(s, n) for s, n, m, _ in records if isinstance(m, ToolMessage) and not m.success}
    failed |= {
        (s, n) for s, n, m, _ in records if isinstance(m, AssistantMessage) and any(c.error for c in m.tool_calls)
    }
    assert {(s, n) for s, n, _ in where(find(index, "error:true"))} == failed
    users = {(s, n) for s, n, m, _ in records if isinstance(m, UserMessage)}
    assert {(s, n) for s, n, _ in where(find(index, "kind:user"))} == users
    named = {(s, n) for s, n, m, _ in records if isinstance(m, ToolMessage) and m.name == "describe_image"}
    calls = {
        (s, n)
        for s, n, m, _ in records
        if isinstance(m, AssistantMessage) and any(c.name == "describe_image" for c in m.tool_calls)
    }
    assert {(s, n) for s, n, _ in where(find(index, "tool:describe_image"))} == named | calls
    assert where(find(index, "tool:describe*")) == where(find(index, "tool:describe_image"))


async def test_model_stop_reasoning_image_tokens(api: tuple[Path, SideIndex]) -> None:
    store, index = api
    records = await _records(store)
    gpt = {(s, n) for s, n, m, _ in records if isinstance(m, AssistantMessage) and m.model == "gpt-example"}
    assert {(s, n) for s, n, _ in where(find(index, "model:GPT-example"))} == gpt
    assert {(s, n) for s, n, _ in where(find(index, "model:gpt*"))} == gpt
    assert where(find(index, "stop:refused")) == {(S1, 11, "assistant")}
    assert where(find(index, "stop:cut_off")) == {(S1, 10, "assistant")}
    reasoning = {(s, n) for s, n, m, _ in records if isinstance(m, AssistantMessage) and m.reasoning}
    assert {(s, n) for s, n, _ in where(find(index, "has:reasoning"))} == reasoning
    assert where(find(index, "has:image")) == {(S1, 3, "user"), (S1, 7, "tool")}
    big = {(s, n) for s, n, _, r in records if (r.input_tokens or 0) + (r.output_tokens or 0) > 100}
    assert {(s, n) for s, n, _ in where(find(index, "tokens:>100"))} == big
    slow = {(s, n) for s, n, _, r in records if r.duration_ns > 1_000_000_000}
    assert {(s, n) for s, n, _ in where(find(index, "dur:>1s"))} == slow


async def test_sessions_tags_metadata_and_scope(api: tuple[Path, SideIndex]) -> None:
    _, index = api
    assert {s for s, _, _ in where(find(index, "agent:planner"))} == {S3}
    assert {s for s, _, _ in where(find(index, "type:3"))} == {S7}
    assert {s for s, _, _ in where(find(index, f"session:{S2}"))} == {S2}
    assert {s for s, _, _ in where(find(index, "session:0193a5c0-0000-7000-8000-00000000000*"))} >= {S1, S2, S3}
    assert where(find(index, "tag:origin=goal")) == {(S1, 8, "agent")}
    assert {n for _, n, _ in where(find(index, "tag:env=test"))} == {1, 2, 4, 5, 9}
    assert {n for _, n, _ in where(find(index, "tag:priority=2 kind:user"))} == {2}
    assert {n for _, n, _ in where(find(index, "meta.client:tui"))} == {1, 2, 3, 4, 5, 9}
    assert {s for s, _, _ in where(find(index, "has:snapshot"))} == {S2}
    assert {s for s, _, _ in where(find(index, "has:children"))} == {S3, S4}
    assert {s for s, _, _ in where(find(index, "in:subtree", session=S3))} == {S3, S4, S5}
    assert {s for s, _, _ in where(find(index, "in:session", session=S4))} == {S4}
    with pytest.raises(QueryError, match="in:subtree"):
        find(index, "in:subtree")


async def test_dates_and_combinations(api: tuple[Path, SideIndex]) -> None:
    store, index = api
    everything = where(find(index, "kind:user", limit=1000))
    assert where(find(index, "kind:user since:2025-01-01")) == everything
    assert where(find(index, "kind:user before:2025-01-01")) == set()
    recent = {
        (s, n, "user")
        for s, n, m, r in await _records(store)
        if isinstance(m, UserMessage) and r.started_at > datetime.now(UTC) - timedelta(days=2)
    }
    assert where(find(index, "kind:user since:2d")) == recent
    combined = where(find(index, "red kind:assistant -square model:gpt*"))
    assert combined == where(find(index, "red kind:assistant model:gpt*")) - where(find(index, "square"))
    assert where(find(index, "-kind:user kind:tool")) == where(find(index, "kind:tool"))
    assert _kinds(where(find(index, "-kind:user -kind:tool -kind:session"))) <= {
        "system",
        "assistant",
        "agent",
        "snapshot",
    }
    assert where(find(index, "answered -checkpoint has:snapshot")) == set()


async def test_pages_continue_without_overlap(api: tuple[Path, SideIndex]) -> None:
    _, index = api
    searcher = Searcher(index.path)
    query = parse("message")
    seen: list[tuple[str, int, str]] = []
    after = None
    while True:
        page = searcher.search_now(query, limit=7, after=after)
        seen.extend((h.session_id, h.sequence, h.kind) for h in page.hits)
        assert not page.partial
        if page.next_cursor is None:
            break
        after = page.next_cursor
    assert len(seen) == len(set(seen)) == len(where(find(index, "message", limit=1000)))
    assert len(seen) > 50


@pytest.fixture(scope="module")
def built_api(tmp_path_factory: pytest.TempPathFactory) -> SideIndex:
    import asyncio

    tmp = tmp_path_factory.mktemp("hyp")
    return asyncio.run(build(copy_fixture("storage_api", tmp / "store"), tmp / "index"))


ALPHABET = st.sampled_from(list("ab \"*-:OR()^.=_/\\'NEAR AND NOT{}+kind:tool tag:x=y meta.k:v since:2d é日\x00\x1b"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.text(max_size=40), st.lists(ALPHABET, max_size=30).map("".join)))
def test_a_valid_query_never_makes_sqlite_raise(built_api: SideIndex, source: str) -> None:
    try:
        query = parse(source)
    except QueryError:
        return
    searcher = Searcher(built_api.path)
    try:
        searcher.search_now(query, limit=5, session=S1)
    except QueryError:
        pass


def test_times_are_aware_utc(built_api: SideIndex) -> None:
    hit = find(built_api, "Thanks")[0]
    assert hit.time is not None and hit.time.tzinfo is UTC and hit.time < datetime.now(UTC)
