"""Several stores as one history (zett_browser/multi/store.py), on the stores real zett-agent
0.2.1 wrote: its default subagent profiles put the children of ``async_tasks`` into another
store than their parent's (tests/realstore)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.multi.helpers import ASYNC, GOAL, copies, fingerprint
from tests.realstore.stores import RealStores
from zett_browser.model import SessionNode
from zett_browser.multi.members import short_names
from zett_browser.multi.store import MultiStore
from zett_browser.storage import open_store


def ids(nodes: list[SessionNode]) -> list[str]:
    return [node.session_id for node in nodes]


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return list(db.execute(sql))


@pytest.fixture
def joined(real_stores: RealStores, tmp_path: Path) -> tuple[Path, Path]:
    return copies(real_stores, tmp_path / "stores")


async def test_a_child_written_to_another_store_is_listed_under_its_parent(joined: tuple[Path, Path]) -> None:
    main, children = joined
    expected = [
        str(row[0]) for row in rows(children, f"SELECT id FROM agent_sessions WHERE parent_session_id = '{ASYNC}'")
    ]
    assert len(expected) == 5
    alone = open_store(main)
    both = MultiStore([open_store(main), open_store(children)])
    try:
        assert (await alone.list_children(ASYNC)).items == []  # alone, the parent's store has none of them
        # Joined, the parent counts them (it can be expanded), wherever it is read from.
        assert (await alone.get_node(ASYNC)).child_count == 0  # type: ignore[union-attr]
        parent = await both.get_node(ASYNC)
        assert parent is not None and parent.child_count == 5
        roots = {node.session_id: node for node in (await both.list_roots()).items}
        assert roots[ASYNC].child_count == 5
        refreshed, _ = await both.tree_refresh([])
        assert {node.session_id: node.child_count for node in refreshed.items}[ASYNC] == 5
        page = await both.list_children(ASYNC)
        assert sorted(ids(list(page.items))) == sorted(expected)
        assert page.next_cursor is None
        # In creation order across the stores, each naming the store it lives in (not its parent's).
        assert [node.created_at for node in page.items] == sorted(node.created_at for node in page.items)
        assert {node.store for node in page.items} == {"children.sqlite3"}
        # Children in the parent's own store need no store name.
        goal_children = (await both.list_children(GOAL)).items
        assert len(goal_children) == 2 and {node.store for node in goal_children} == {None}
        # Reads about such a child go to its store; its parent chain crosses into the other.
        child = expected[0]
        assert (await both.raw_bounds(child)).count == rows(
            children, f"SELECT count(*) FROM raw_messages WHERE session_id = '{child}'"
        )[0][0]
        count = (await both.raw_bounds(child)).count
        assert count >= 2
        assert [record.sequence for record in await both.raw_page(child, limit=3)] == list(range(1, min(3, count) + 1))
        assert ids(await both.ancestors(child)) == [ASYNC]
        node = await both.get_node(child)
        assert node is not None and node.store == "children.sqlite3"
        # No open store holds it: nothing, not an error.
        assert await both.get_node("0193a5c0-dead-7000-8000-000000000000") is None
        assert (await both.raw_bounds("0193a5c0-dead-7000-8000-000000000000")).count == 0
    finally:
        await alone.close()
        await both.close()


async def test_no_orphans_once_the_parents_store_is_open(joined: tuple[Path, Path], tmp_path: Path) -> None:
    main, children = joined
    # Another store, without the parent: its children stay orphans.
    without = tmp_path / "without.sqlite3"
    with closing(sqlite3.connect(main)) as source, closing(sqlite3.connect(without)) as target:
        source.backup(target)
    with closing(sqlite3.connect(without)) as db, db:
        db.execute("DELETE FROM agent_sessions WHERE id = ?", (ASYNC,))
    alone = open_store(children)
    both = MultiStore([open_store(main), open_store(children)])
    elsewhere = MultiStore([open_store(without), open_store(children)])
    try:
        assert len((await alone.list_orphans()).items) == 5  # alone, every child there lost its parent
        assert (await both.list_orphans()).items == []
        orphans = (await elsewhere.list_orphans(limit=2)).items
        assert len(orphans) == 2 and {node.parent_session_id for node in orphans} == {ASYNC}
    finally:
        await alone.close()
        await both.close()
        await elsewhere.close()


async def test_roots_merge_newest_first_and_page_each_once(joined: tuple[Path, Path], tmp_path: Path) -> None:
    main, children = joined
    # A second store of roots: main's roots with new ids and times between main's own.
    second = tmp_path / "second.sqlite3"
    with closing(sqlite3.connect(main)) as source, closing(sqlite3.connect(second)) as target:
        source.backup(target)
    with closing(sqlite3.connect(second)) as db, db:
        db.execute("DELETE FROM agent_sessions WHERE parent_session_id IS NOT NULL")
        db.execute("UPDATE agent_sessions SET id = 'b-' || id, updated_at = datetime(updated_at, '+1 seconds')")
    both = MultiStore([open_store(main), open_store(second)])
    try:
        everything: list[SessionNode] = []
        page = await both.list_roots(limit=4)
        everything.extend(page.items)
        while page.next_cursor is not None:
            page = await both.list_roots(limit=4, cursor=page.next_cursor)
            everything.extend(page.items)
        expected_main = [
            str(row[0]) for row in rows(main, "SELECT id FROM agent_sessions WHERE parent_session_id IS NULL")
        ]
        assert sorted(ids(everything)) == sorted([*expected_main, *("b-" + sid for sid in expected_main)])
        assert len(set(ids(everything))) == len(everything)
        times = [node.updated_at for node in everything]
        assert times == sorted(times, reverse=True)
        assert {node.store for node in everything} == {"main.sqlite3", "second.sqlite3"}
        # The first page of a refresh is the first page of the list.
        refreshed, kids = await both.tree_refresh([GOAL], roots_limit=4)
        assert ids(list(refreshed.items)) == ids(everything[:4])
        assert len(kids[GOAL].items) == 2
    finally:
        await both.close()


async def test_browsing_both_changes_neither_store(joined: tuple[Path, Path]) -> None:
    main, children = joined
    before = fingerprint(main.parent)
    both = MultiStore([open_store(main), open_store(children)])
    try:
        for node in (await both.list_roots()).items:
            await both.raw_page(node.session_id)
            for child in (await both.list_children(node.session_id)).items:
                await both.raw_page(child.session_id)
                await both.ancestors(child.session_id)
        await both.list_orphans()
        await both.change_token()
    finally:
        await both.close()
    assert fingerprint(main.parent) == before


def test_stores_are_named_by_as_much_of_their_path_as_tells_them_apart() -> None:
    assert short_names(["/a/x/main.sqlite3", "/a/y/children.sqlite3"]) == ["main.sqlite3", "children.sqlite3"]
    assert short_names(["/a/x/sessions.sqlite3", "/a/y/sessions.sqlite3"]) == [
        "x/sessions.sqlite3",
        "y/sessions.sqlite3",
    ]
    assert short_names(["postgresql://u:***@h/db", "/a/b.sqlite3"]) == ["postgresql://u:***@h/db", "b.sqlite3"]
