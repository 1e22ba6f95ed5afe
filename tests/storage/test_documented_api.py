"""One test per documented behaviour and error of SQLiteSessionStorage, on temporary files."""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.backends import Backend
from zett_browser.storage import (
    AgentMessage,
    AssistantMessage,
    CompactedMessage,
    MessageTiming,
    ModelUsage,
    SQLiteSessionStorage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)


async def test_construction_needs_no_event_loop_and_creates_parent_directories(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "sessions.sqlite3"
    storage = SQLiteSessionStorage(path)  # no running loop here
    assert path.parent.is_dir()
    assert not path.exists(), "tables are created by the first awaited call, not the constructor"
    await storage.create_session(title="x")
    assert path.exists()
    await storage.close()


def test_constructible_outside_any_loop(tmp_path: Path) -> None:
    storage = SQLiteSessionStorage(tmp_path / "s.sqlite3")

    async def use() -> int:
        try:
            return len(await storage.list_sessions())
        finally:
            await storage.close()

    assert asyncio.run(use()) == 0


def test_default_path_is_under_home(_isolated_home: Path) -> None:
    storage = SQLiteSessionStorage()
    assert storage.path == _isolated_home / ".zett-agent" / "sessions.sqlite3"


async def test_create_session_returns_summary_equal_to_get_session(storage: SQLiteSessionStorage) -> None:
    session = await storage.create_session(title="Documentation review")
    assert await storage.get_session(session.session_id) == session
    assert session.message_count == 0
    assert session.parent_session_id is None
    assert session.session_type == 0
    assert session.created_at.tzinfo is UTC
    assert len(session.session_id) == 36 and session.session_id[14] == "7"


async def test_create_session_normalizes_and_validates(storage: SQLiteSessionStorage) -> None:
    session = await storage.create_session(
        session_id="s1", parent_session_id="p", title="  Title  ", agent_name=" coder ", session_type=4
    )
    assert (session.title, session.agent_name, session.session_type) == ("Title", "coder", 4)
    assert session.parent_session_id == "p"
    with pytest.raises(ValueError, match="already exists"):
        await storage.create_session(session_id="s1")
    with pytest.raises(ValueError, match="session_id cannot be empty"):
        await storage.create_session(session_id="  ")
    with pytest.raises(ValueError, match="parent_session_id cannot be empty"):
        await storage.create_session(parent_session_id=" ")
    with pytest.raises(ValueError, match="must differ"):
        await storage.create_session(session_id="x", parent_session_id="x")
    with pytest.raises(ValueError, match="between 1 and 200"):
        await storage.create_session(title=" ")
    with pytest.raises(ValueError, match="between 1 and 200"):
        await storage.create_session(title="t" * 201)
    with pytest.raises(ValueError, match="between 1 and 64"):
        await storage.create_session(agent_name="a" * 65)
    with pytest.raises(ValueError, match="negative"):
        await storage.create_session(session_type=-1)
    with pytest.raises(ValueError, match="integer code"):
        await storage.create_session(session_type=True)


async def test_append_creates_session_and_assigns_increasing_sequences(storage: SQLiteSessionStorage) -> None:
    assert await storage.get_session("s") is None
    first = await storage.append("s", "r1", UserMessage(content="hello"), title="T", agent_name="main")
    second = await storage.append("s", "r1", AssistantMessage(content="hi"))
    third = await storage.append("s", "r1", UserMessage(content="again"))
    assert (first, second, third) == (1, 2, 3)
    summary = await storage.get_session("s")
    assert summary is not None
    assert (summary.title, summary.agent_name, summary.message_count) == ("T", "main", 3)
    assert summary.updated_at >= summary.created_at


async def test_append_updates_title_and_agent_but_never_the_parent(storage: SQLiteSessionStorage) -> None:
    await storage.append("child", "r", AgentMessage(content="go"), parent_session_id="root")
    await storage.append("child", "r", UserMessage(content="x"), parent_session_id="root", title="New")
    summary = await storage.get_session("child")
    assert summary is not None and summary.title == "New"
    with pytest.raises(ValueError, match="parent cannot change"):
        await storage.append("child", "r", UserMessage(content="x"), parent_session_id="other")
    with pytest.raises(ValueError, match="parent cannot change"):
        await storage.append("child", "r", UserMessage(content="x"))


async def test_append_validation_errors(storage: SQLiteSessionStorage) -> None:
    message = UserMessage(content="x")
    with pytest.raises(ValueError, match="only to assistant"):
        await storage.append("s", "r", message, usage=ModelUsage(input_tokens=1))
    with pytest.raises(ValueError, match="JSON serializable"):
        await storage.append("s", "r", message, metadata={"x": math.nan})
    with pytest.raises(ValueError, match="JSON serializable"):
        await storage.append("s", "r", message, metadata={"x": {1, 2}})
    with pytest.raises(ValueError, match="keys must be strings"):
        await storage.append("s", "r", message, metadata={1: "x"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="non-empty string"):
        await storage.append("s", "r", message, tags={" ": 1})
    with pytest.raises(ValueError, match="Checkpoints belong in snapshots"):
        await storage.append("s", "r", CompactedMessage(content="summary"))
    with pytest.raises(ValueError, match="between 1 and 200"):
        await storage.append("s", "r", message, title="")
    with pytest.raises(ValueError, match="between 1 and 64"):
        await storage.append("s", "r", message, agent_name="a" * 65)
    assert await storage.get_session("s") is None, "a rejected append writes nothing"


async def test_append_stores_timing_usage_metadata_and_tags(storage: SQLiteSessionStorage, backend: Backend) -> None:
    start = backend.as_stored(datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC))
    timing = MessageTiming(
        started_at=start,
        completed_at=start + timedelta(seconds=2),
        duration_ns=2_000_000_000,
        reasoning_started_at=start,
        reasoning_completed_at=start + timedelta(seconds=1),
        reasoning_duration_ns=1_000_000_000,
        content_started_at=start + timedelta(seconds=1),
        content_completed_at=start + timedelta(seconds=2),
        content_duration_ns=1_000_000_000,
    )
    usage = ModelUsage(
        input_tokens=100, output_tokens=40, cache_read_tokens=25, cache_write_tokens=5, reasoning_tokens=7
    )
    await storage.append(
        "s",
        "r",
        AssistantMessage(content="a", reasoning="r", tool_calls=(ToolCall("c", "t", {"k": [1, 2]}),)),
        timing=timing,
        usage=usage,
        metadata={"user": {"id": 7}},
        tags={"env": "test"},
    )
    (record,) = await storage.list_raw_messages("s")
    assert record.started_at == start and record.completed_at == start + timedelta(seconds=2)
    assert record.reasoning_duration_ns == 1_000_000_000 and record.content_started_at == start + timedelta(seconds=1)
    assert (record.input_tokens, record.output_tokens, record.cache_read_tokens) == (100, 40, 25)
    assert (record.cache_write_tokens, record.reasoning_tokens) == (5, 7)
    assert record.total_tokens == 140 and record.cache_hit_rate == 0.25
    assert record.metadata == {"user": {"id": 7}} and record.tags == {"env": "test"}
    assert record.problems == ()


async def test_non_utc_timing_is_stored_as_utc(storage: SQLiteSessionStorage) -> None:
    local = datetime(2026, 1, 1, 12, 0, tzinfo=UTC).astimezone(__import__("datetime").timezone(timedelta(hours=2)))
    await storage.append("s", "r", UserMessage(content="x"), timing=MessageTiming(local, local, 0))
    (record,) = await storage.list_raw_messages("s")
    assert record.started_at == datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


async def test_instant_timing_when_none_given(storage: SQLiteSessionStorage) -> None:
    await storage.append("s", "r", UserMessage(content="x"))
    (record,) = await storage.list_raw_messages("s")
    assert record.duration_ns == 0 and record.started_at == record.completed_at
    assert record.total_tokens is None and record.cache_hit_rate is None


async def _fill(storage: SQLiteSessionStorage, session_id: str, count: int) -> None:
    for index in range(count):
        await storage.append(session_id, "r", UserMessage(content=f"m{index + 1}"))


async def test_list_raw_messages_bounds_and_pagination(storage: SQLiteSessionStorage) -> None:
    await _fill(storage, "s", 10)
    await _fill(storage, "other", 3)
    assert [r.sequence for r in await storage.list_raw_messages("s")] == list(range(1, 11))
    assert [r.sequence for r in await storage.list_raw_messages("s", after_sequence=7)] == [8, 9, 10]
    assert [r.sequence for r in await storage.list_raw_messages("s", through_sequence=3)] == [1, 2, 3]
    page = await storage.list_raw_messages("s", after_sequence=2, through_sequence=9, offset=2, limit=3)
    assert [r.sequence for r in page] == [5, 6, 7]
    assert await storage.list_raw_messages("s", after_sequence=10) == []
    assert await storage.list_raw_messages("unknown") == []
    assert all(r.session_id == "s" for r in await storage.list_raw_messages("s"))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"after_sequence": -1}, "after_sequence cannot be negative"),
        ({"through_sequence": 0}, "through_sequence must be positive"),
        ({"limit": 0}, "limit must be positive"),
        ({"offset": -1}, "offset cannot be negative"),
    ],
)
async def test_list_raw_messages_rejects_out_of_range_arguments(
    storage: SQLiteSessionStorage, kwargs: dict[str, int], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        await storage.list_raw_messages("s", **kwargs)


async def test_list_sessions_orders_by_activity_and_filters_types(storage: SQLiteSessionStorage) -> None:
    await storage.create_session(session_id="a", session_type=1)
    await storage.create_session(session_id="b", session_type=2)
    await storage.create_session(session_id="c", parent_session_id="a")
    await storage.append("a", "r", UserMessage(content="latest activity"))
    sessions = await storage.list_sessions()
    assert [s.session_id for s in sessions] == ["a", "c", "b"]
    assert [s.message_count for s in sessions] == [1, 0, 0]
    assert [s.session_id for s in await storage.list_sessions(session_types=[2, 0])] == ["c", "b"]
    assert [s.session_id for s in await storage.list_sessions(limit=1, offset=1)] == ["c"]
    assert await storage.list_sessions(offset=5) == []
    with pytest.raises(ValueError, match="limit must be positive"):
        await storage.list_sessions(limit=0)
    with pytest.raises(ValueError, match="offset cannot be negative"):
        await storage.list_sessions(offset=-1)
    with pytest.raises(ValueError, match="negative"):
        await storage.list_sessions(session_types=[-2])


async def test_count_messages(storage: SQLiteSessionStorage) -> None:
    assert await storage.count_messages("s") == 0
    await _fill(storage, "s", 4)
    assert await storage.count_messages("s") == 4


async def test_update_session(storage: SQLiteSessionStorage) -> None:
    created = await storage.create_session(session_id="s", title="Old", agent_name="a")
    updated = await storage.update_session("s", title="  New  ")
    assert updated is not None and (updated.title, updated.agent_name) == ("New", "a")
    assert updated.updated_at >= created.updated_at
    updated = await storage.update_session("s", agent_name="b")
    assert updated is not None and (updated.title, updated.agent_name) == ("New", "b")
    assert await storage.update_session("missing", title="x") is None
    with pytest.raises(ValueError, match="At least one"):
        await storage.update_session("s")
    with pytest.raises(ValueError, match="between 1 and 200"):
        await storage.update_session("s", title="   ")


async def test_delete_session_removes_messages_and_snapshots(storage: SQLiteSessionStorage) -> None:
    await _fill(storage, "s", 3)
    await storage.snapshot("s", CompactedMessage(content="sum"), 2, 0)
    await _fill(storage, "keep", 1)
    assert await storage.delete_session("s") is True
    assert await storage.get_session("s") is None
    assert await storage.count_messages("s") == 0
    view = await storage.load("s")
    assert view.snapshot is None and view.raw_tail == []
    assert await storage.delete_session("s") is False
    assert await storage.count_messages("keep") == 1


async def test_load_unknown_session_is_empty_and_creates_nothing(storage: SQLiteSessionStorage) -> None:
    view = await storage.load("nope")
    assert view.snapshot is None and view.raw_tail == [] and view.messages == []
    assert view.session_type == 0
    assert await storage.list_sessions() == []


async def test_load_restores_latest_snapshot_and_tail(storage: SQLiteSessionStorage) -> None:
    await storage.append("s", "r", SystemMessage(content="sys"), title="T", agent_name="ag")
    await _fill(storage, "s", 5)
    first = await storage.snapshot("s", CompactedMessage(content="v1"), 3, 0)
    second = await storage.snapshot("s", CompactedMessage(content="v2"), 4, 1)
    assert (first.version, second.version) == (1, 2)
    view = await storage.load("s")
    assert view.snapshot == second
    assert [r.sequence for r in view.raw_tail] == [5, 6]
    assert (view.title, view.agent_name) == ("T", "ag")
    assert [getattr(m, "content", None) for m in view.messages] == ["v2", "m4", "m5"]


async def test_system_messages_are_recorded_but_not_restored(storage: SQLiteSessionStorage) -> None:
    await storage.append("s", "r", SystemMessage(content="sys"))
    await storage.append("s", "r", UserMessage(content="u"))
    view = await storage.load("s")
    assert len(view.raw_tail) == 2
    assert [type(m) for m in view.messages] == [UserMessage]


async def test_snapshot_validation(storage: SQLiteSessionStorage) -> None:
    await _fill(storage, "s", 4)
    with pytest.raises(ValueError, match="Snapshot conflict"):
        await storage.snapshot("s", CompactedMessage(content="x"), 2, 1)
    with pytest.raises(ValueError, match="existing Raw Log message"):
        await storage.snapshot("s", CompactedMessage(content="x"), 0, 0)
    with pytest.raises(ValueError, match="existing Raw Log message"):
        await storage.snapshot("s", CompactedMessage(content="x"), 5, 0)
    await storage.snapshot("s", CompactedMessage(content="x"), 3, 0)
    with pytest.raises(ValueError, match="advance beyond"):
        await storage.snapshot("s", CompactedMessage(content="y"), 3, 1)
    with pytest.raises(ValueError, match="Snapshot conflict"):
        await storage.snapshot("s", CompactedMessage(content="y"), 4, 0)


async def test_snapshot_never_changes_the_raw_log(storage: SQLiteSessionStorage) -> None:
    await _fill(storage, "s", 4)
    before = await storage.list_raw_messages("s")
    snap = await storage.snapshot("s", CompactedMessage(content="sum"), 3, 0)
    assert snap.created_at.tzinfo is UTC and snap.updated_at == snap.created_at
    assert await storage.list_raw_messages("s") == before


async def test_tool_messages_store_tool_name_and_text(storage: SQLiteSessionStorage, backend: Backend) -> None:
    await storage.append("s", "r", ToolMessage(tool_call_id="c1", name="grep", content="out", success=False))
    engine = backend.raw()
    with engine.connect() as connection:
        row = connection.execute(text("select role, content, tool_name from raw_messages")).one()
    engine.dispose()
    assert tuple(row) == (4, "out", "grep")


async def test_close_keeps_data_and_storage_reopens(store_path: Path) -> None:
    storage = SQLiteSessionStorage(store_path)
    await storage.append("s", "r", UserMessage(content="kept"))
    await storage.close()
    again = SQLiteSessionStorage(store_path)
    try:
        assert await again.count_messages("s") == 1
    finally:
        await again.close()


def test_sync_view_runs_the_api_from_plain_code(store_path: Path) -> None:
    storage = SQLiteSessionStorage(store_path)
    with storage.sync() as store:
        session = store.create_session(title="sync")
        assert store.append(session.session_id, "r", UserMessage(content="x")) == 1
        assert store.count_messages(session.session_id) == 1
        assert store.path == store_path


def test_sync_view_can_share_a_runtime(store_path: Path) -> None:
    from zett_browser.storage import SyncRuntime

    storage = SQLiteSessionStorage(store_path)
    with SyncRuntime() as runtime:
        with storage.sync(runtime=runtime) as first:
            first.create_session(session_id="a")
        with storage.sync(runtime=runtime) as second:  # the runtime outlived the first view
            assert second.get_session("a") is not None
        assert runtime.loop.is_running()
