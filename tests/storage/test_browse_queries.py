"""Browser queries: keyset pages of roots, children, orphans; snapshots; Raw Log windows; totals."""

from __future__ import annotations

from datetime import timedelta

from tests.backends import Backend
from tests.support import ROOT
from zett_browser.storage import (
    AssistantMessage,
    CompactedMessage,
    MessageKind,
    MessageTiming,
    ModelUsage,
    SQLSessionStorage,
    ToolMessage,
    UserMessage,
)


def _copy(backend: Backend, name: str = "storage_api") -> SQLSessionStorage:
    """The zett-agent-written fixture store, on this test's backend, opened for browsing."""
    return backend.load_fixture(name)


async def test_roots_are_newest_first_with_counts_and_pages_by_keyset(backend: Backend) -> None:
    storage = _copy(backend)
    try:
        everything = await storage.list_sessions(limit=1000)
        expected = [s.session_id for s in everything if s.parent_session_id is None]
        seen: list[str] = []
        cursor = None
        while True:
            page = await storage.list_roots(limit=2, cursor=cursor)
            seen.extend(node.session_id for node in page.items)
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        assert seen == expected
        nodes = {node.session_id: node for node in (await storage.list_roots(limit=100)).items}
        parent = nodes[ROOT + "3"]
        assert (parent.title, parent.child_count, parent.message_count) == ("Delegating parent", 1, 3)
        assert nodes[ROOT + "2"].snapshot_count == 3
        assert nodes[ROOT + "7"].session_type == 3
        assert all(node.is_root for node in nodes.values())
    finally:
        await storage.close()


async def test_children_to_any_depth_and_ancestors(backend: Backend) -> None:
    storage = _copy(backend)
    try:
        (child,) = (await storage.list_children(ROOT + "3")).items
        assert (child.session_id, child.title, child.child_count) == (ROOT + "4", "Find trains", 1)
        (grandchild,) = (await storage.list_children(child.session_id)).items
        assert grandchild.session_id == ROOT + "5"
        assert (await storage.list_children(grandchild.session_id)).items == []
        chain = await storage.ancestors(grandchild.session_id)
        assert [node.session_id for node in chain] == [ROOT + "3", ROOT + "4"]
        assert await storage.ancestors(ROOT + "3") == []
        orphan_chain = await storage.ancestors(ROOT + "6")
        assert orphan_chain == []
    finally:
        await storage.close()


async def test_many_nodes_in_one_read_are_each_node_read_alone(backend: Backend) -> None:
    """``get_nodes`` (a page of hits, every row of ``usage --by session``) gives what
    ``get_node`` gives for each id, in the order asked, once each, missing ids left out."""
    storage = _copy(backend)
    try:
        roots = (await storage.list_roots(limit=100)).items
        asked = [ROOT + "5", "no such session", *(node.session_id for node in reversed(roots)), ROOT + "5"]
        alone = [await storage.get_node(session_id) for session_id in dict.fromkeys(asked)]
        assert await storage.get_nodes(asked) == [node for node in alone if node is not None]
        assert [n.session_id for n in await storage.get_nodes(asked)][:2] == [ROOT + "5", roots[-1].session_id]
        assert await storage.get_nodes([]) == []
        many = [f"missing-{n}" for n in range(1_200)] + [ROOT + "3"]  # past one statement's ids
        assert [n.session_id for n in await storage.get_nodes(many)] == [ROOT + "3"]
    finally:
        await storage.close()


async def test_children_page_in_creation_order(storage: SQLSessionStorage) -> None:
    await storage.create_session(session_id="p")
    for index in range(25):
        await storage.create_session(session_id=f"c{index:02d}", parent_session_id="p")
    seen: list[str] = []
    cursor = None
    while True:
        page = await storage.list_children("p", limit=7, cursor=cursor)
        seen.extend(node.session_id for node in page.items)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == [f"c{index:02d}" for index in range(25)]
    node = await storage.get_node("p")
    assert node is not None and node.child_count == 25


async def test_orphans_are_found(backend: Backend) -> None:
    storage = _copy(backend)
    try:
        orphans = (await storage.list_orphans()).items
        assert [node.session_id for node in orphans] == [ROOT + "6"]
        assert orphans[0].parent_session_id == ROOT[:-1] + "99"
    finally:
        await storage.close()


async def test_every_snapshot_version_is_listed(backend: Backend) -> None:
    storage = _copy(backend)
    try:
        snapshots = await storage.list_snapshots(ROOT + "2")
        assert [s.version for s in snapshots] == [1, 2, 3]
        boundaries = [s.compacted_through_sequence for s in snapshots]
        assert boundaries == sorted(boundaries) and len(set(boundaries)) == 3
        assert all(isinstance(s.message, CompactedMessage) and s.summary_text for s in snapshots)
        latest = (await storage.load(ROOT + "2")).snapshot
        assert latest is not None and latest.version == 3 and latest.id == snapshots[-1].id
        assert await storage.list_snapshots("missing") == []
        # The version in force now: the newest, on every backend; a past time: none before the first.
        assert await storage.version_in_force(ROOT + "2", None) == (3, 0)
        assert await storage.version_in_force("missing", None) == (None, 0)
        first = snapshots[0].created_at
        assert first is not None
        assert await storage.version_in_force(ROOT + "2", first - timedelta(days=1)) == (None, 0)
    finally:
        await storage.close()


async def test_raw_log_windows_and_bounds(backend: Backend) -> None:
    storage = _copy(backend)
    sid = ROOT + "9"
    try:
        bounds = await storage.raw_bounds(sid)
        assert (bounds.first_sequence, bounds.last_sequence, bounds.count) == (1, 120, 120)
        first = await storage.raw_page(sid, limit=50)
        assert [r.sequence for r in first] == list(range(1, 51))
        middle = await storage.raw_page(sid, after_sequence=50, limit=50)
        assert [r.sequence for r in middle] == list(range(51, 101))
        last = await storage.raw_page_before(sid, limit=50)
        assert [r.sequence for r in last] == list(range(71, 121))
        previous = await storage.raw_page_before(sid, before_sequence=71, limit=50)
        assert [r.sequence for r in previous] == list(range(21, 71))
        assert await storage.raw_page(sid, after_sequence=120) == []
        empty = await storage.raw_bounds("missing")
        assert (empty.first_sequence, empty.last_sequence, empty.count) == (None, None, 0)
    finally:
        await storage.close()


async def test_session_totals(storage: SQLSessionStorage) -> None:
    from datetime import UTC, datetime, timedelta

    start = datetime(2026, 5, 1, tzinfo=UTC)
    await storage.append("s", "r", UserMessage(content="q"), timing=MessageTiming(start, start, 0))
    for index in range(3):
        at = start + timedelta(seconds=index + 1)
        await storage.append(
            "s",
            "r",
            AssistantMessage(content="a"),
            timing=MessageTiming(
                at,
                at + timedelta(seconds=1),
                1_000,
                reasoning_started_at=at,
                reasoning_completed_at=at,
                reasoning_duration_ns=10,
            ),
            usage=ModelUsage(input_tokens=100, output_tokens=10, cache_read_tokens=50, reasoning_tokens=2),
        )
    end = start + timedelta(seconds=4)
    await storage.append(
        "s", "r", ToolMessage(tool_call_id="c", name="t", content="r"), timing=MessageTiming(end, end, 0)
    )
    totals = await storage.session_totals("s")
    assert totals.messages == 5
    assert totals.by_kind == {MessageKind.USER: 1, MessageKind.ASSISTANT: 3, MessageKind.TOOL: 1}
    assert (totals.input_tokens, totals.output_tokens, totals.cache_read_tokens) == (300, 30, 150)
    assert (totals.reasoning_tokens, totals.cache_write_tokens, totals.total_tokens) == (6, 0, 330)
    assert (totals.duration_ns, totals.reasoning_duration_ns, totals.content_duration_ns) == (3_000, 30, 0)
    assert totals.first_started_at == start
    assert totals.last_completed_at == start + timedelta(seconds=4)
    empty = await storage.session_totals("missing")
    assert empty.messages == 0 and empty.by_kind == {} and empty.first_started_at is None


async def test_change_token_moves_on_every_kind_of_commit(storage: SQLSessionStorage, backend: Backend) -> None:
    await storage.create_session(session_id="s")
    browser = backend.browser()
    try:
        tokens = [await browser.change_token()]
        assert await browser.change_token() == tokens[0], "stable while nothing changes"
        await storage.append("s", "r", UserMessage(content="x"))
        tokens.append(await browser.change_token())
        await storage.snapshot("s", CompactedMessage(content="sum"), 1, 0)
        tokens.append(await browser.change_token())
        await storage.create_session(session_id="child", parent_session_id="s")
        tokens.append(await browser.change_token())
        await storage.update_session("s", title="renamed")
        tokens.append(await browser.change_token())
        assert len(set(tokens)) == len(tokens)
    finally:
        await browser.close()


async def test_text_size_of_a_prefix(storage: SQLSessionStorage) -> None:
    await storage.append("s", "r", UserMessage(content="abcd"))
    await storage.append("s", "r", ToolMessage(tool_call_id="c", name="t", content="123456"))
    await storage.append("s", "r", UserMessage(content="xy"))
    assert await storage.text_size("s") == 12
    assert await storage.text_size("s", through_sequence=2) == 10
    assert await storage.text_size("missing") == 0
