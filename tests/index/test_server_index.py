"""The same index code over SQLite, PostgreSQL and MariaDB stores (read with least privilege)."""

from __future__ import annotations

from pathlib import Path

from tests.backends import Backend
from tests.index.helpers import S1, S2, S3, S4, S5, find, where
from zett_browser.index import SideIndex, index_stats
from zett_browser.storage import UserMessage


async def test_search_on_every_backend_follows_appends(backend: Backend, tmp_path: Path) -> None:
    storage = backend.load_fixture("storage_api")
    await storage.close()
    browser = backend.browser()
    index = SideIndex(browser, tmp_path / "index")
    try:
        first = await index.sync()
        assert first.rebuilt and first.problems == 0
        assert where(find(index, '"small red square"')) == {(S1, 5, "tool"), (S1, 9, "assistant")}
        assert where(find(index, '"look something up"')) == {(S1, 4, "assistant")}
        assert where(find(index, '"Questions 1-4 answered"')) == {(S2, 8, "snapshot")}
        assert {s for s, _, _ in where(find(index, "in:subtree", session=S3))} == {S3, S4, S5}
        assert where(find(index, "tag:origin=goal")) == {(S1, 8, "agent")}
        stats = index_stats(index.path)
        writer = backend.writer()
        try:
            await writer.append(S2, "req-x", UserMessage(content="a quokka appears"))
        finally:
            await writer.close()
        second = await index.sync()
        assert not second.rebuilt and second.messages == 1
        assert where(find(index, "quokka")) == {(S2, 13, "user")}
        assert index_stats(index.path)["messages"] == stats["messages"] + 1
    finally:
        await browser.close()
    password = backend.reader_url.password if backend.reader_url is not None else None
    if password:
        assert str(password) not in index.identity and str(password) not in index.path.name
