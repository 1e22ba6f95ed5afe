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
