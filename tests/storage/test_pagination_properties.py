"""Property tests: keyset and offset pages concatenate to the whole Raw Log, in order."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.backends import Backend
from zett_browser.storage import UserMessage, open_store

SIZE = 137


@pytest.fixture
def big_store(backend: Backend) -> str:
    """A session of SIZE messages interleaved with another's, on each backend."""

    async def build() -> None:
        storage = backend.writer()
        for index in range(SIZE):
            await storage.append("s", f"r{index // 10}", UserMessage(content=f"m{index + 1}"))
            if index % 3 == 0:
                await storage.append("noise", "r", UserMessage(content="other session"))
        await storage.close()

    asyncio.run(build())
    return backend.reader_target


def _collect(target: str, page_size: int, start: int) -> tuple[list[int], list[int], list[int], list[int]]:
    async def run() -> tuple[list[int], list[int], list[int], list[int]]:
        storage = open_store(target)
        try:
            keyset: list[int] = []
            after = start
            while page := await storage.raw_page("s", after_sequence=after, limit=page_size):
                keyset.extend(r.sequence for r in page)
                after = page[-1].sequence
            documented: list[int] = []
            after = start
            while page := await storage.list_raw_messages("s", after_sequence=after, limit=page_size):
                documented.extend(r.sequence for r in page)
                after = page[-1].sequence
            offset_pages: list[int] = []
            offset = 0
            while page := await storage.list_raw_messages("s", after_sequence=start, limit=page_size, offset=offset):
                offset_pages.extend(r.sequence for r in page)
                offset += page_size
            backwards: list[int] = []
            before: int | None = None
            while page := await storage.raw_page_before("s", before_sequence=before, limit=page_size):
                backwards[:0] = [r.sequence for r in page if r.sequence > start]
                before = page[0].sequence
                if before <= start + 1:
                    break
            return keyset, documented, offset_pages, backwards
        finally:
            await storage.close()

    return asyncio.run(run())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(page_size=st.integers(min_value=1, max_value=SIZE + 5), start=st.integers(min_value=0, max_value=SIZE))
def test_pages_concatenate_to_the_whole_log(big_store: str, page_size: int, start: int) -> None:
    expected = list(range(start + 1, SIZE + 1))
    keyset, documented, offset_pages, backwards = _collect(big_store, page_size, start)
    assert keyset == expected
    assert documented == expected
    assert offset_pages == expected
    assert backwards == expected


#: Stored keys that are no timestamp, and healthy ones that collide on purpose.
_KEYS = st.sampled_from(
    [
        None,
        "yesterday-ish",
        "0001-01-01T00:00:00+05:00",
        "2026-12-02 18:35:43.000000",
        "2026-12-02 18:35:43.000000",
        "9999-12-31 23:59:59.999999",
        "",
        7,
        b"\xff",
    ]
)


def _pages(path: str, lister: str, page_size: int, **kwargs: str) -> list[str]:
    async def run() -> list[str]:
        storage = open_store(path)
        try:
            seen: list[str] = []
            cursor = None
            for _ in range(200):
                page = await getattr(storage, lister)(limit=page_size, cursor=cursor, **kwargs)
                seen.extend(node.session_id for node in page.items)
                if page.next_cursor is None:
                    return seen
                cursor = page.next_cursor
            raise AssertionError("more… never ends")
        finally:
            await storage.close()

    return asyncio.run(run())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    damage=st.lists(st.tuples(st.integers(min_value=0, max_value=9), _KEYS), max_size=8),
    column=st.sampled_from(["updated_at", "created_at"]),
    page_size=st.integers(min_value=1, max_value=4),
)
def test_session_pages_reach_every_session_once_whatever_its_key(
    tmp_path_factory: pytest.TempPathFactory, damage: list[tuple[int, object]], column: str, page_size: int
) -> None:
    """Roots, children and orphans page to every session exactly once over bad sort keys."""
    from tests.adversarial import damage as d

    path = d.copy_fixture("storage_api", tmp_path_factory.mktemp("keys"))
    d.widen(path)  # the delegating parent gets four children
    d.drop_not_null(path, "agent_sessions", [column])
    ids = sorted(d.session_ids(path))
    for index, value in damage:
        d.execute(path, f"update agent_sessions set {column}=? where id=?", value, ids[index])
    roots = _pages(str(path), "list_roots", page_size)
    children = _pages(str(path), "list_children", page_size, session_id=d.DELEGATING_PARENT)
    grandchildren = _pages(str(path), "list_children", page_size, session_id=d.CHILD)
    orphans = _pages(str(path), "list_orphans", page_size)
    everything = roots + children + grandchildren + orphans
    assert sorted(everything) == ids


def _raw_walk(path: str, session_id: str, page_size: int) -> tuple[list[str], list[str]]:
    async def run() -> tuple[list[str], list[str]]:
        storage = open_store(path)
        try:
            forward: list[str] = []
            page = await storage.raw_page(session_id, after_sequence=None, limit=page_size)
            while page:
                forward.extend(r.id for r in page)
                assert len(forward) < 1000, "next page never ends"
                page = await storage.raw_page(
                    session_id, after_sequence=page[-1].sequence, after_id=page[-1].id, limit=page_size
                )
            backward: list[str] = []
            page = await storage.raw_page_before(session_id, limit=page_size)
            while page:
                backward[:0] = [r.id for r in page]
                assert len(backward) < 1000, "previous page never ends"
                page = await storage.raw_page_before(
                    session_id, before_sequence=page[0].sequence, before_id=page[0].id, limit=page_size
                )
            return forward, backward
        finally:
            await storage.close()

    return asyncio.run(run())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    damage=st.lists(
        st.tuples(
            st.integers(min_value=1, max_value=16),
            st.sampled_from([None, "text", -3, 0, 1, 2, 16, b"\x00", 2**40]),
        ),
        max_size=8,
    ),
    page_size=st.integers(min_value=1, max_value=5),
)
def test_raw_pages_reach_every_row_once_whatever_its_sequence(
    tmp_path_factory: pytest.TempPathFactory, damage: list[tuple[int, object]], page_size: int
) -> None:
    """Forward and backward keyset pages give every row once, in the same order."""
    from tests.adversarial import damage as d

    path = d.copy_fixture("storage_api", tmp_path_factory.mktemp("seq"))
    d.drop_index(path, "ux_raw_session_sequence")
    d.drop_not_null(path, "raw_messages", ["sequence"])
    ids = [
        bytes(row[0]).decode()
        for row in d.query(path, "select id from raw_messages where session_id=?", d.KITCHEN_SINK)
    ]
    for index, value in damage:
        d.execute(path, "update raw_messages set sequence=? where id=?", value, ids[index - 1])
    forward, backward = _raw_walk(str(path), d.KITCHEN_SINK, page_size)
    assert sorted(forward) == sorted(ids)
    assert backward == forward
