"""The demo store is real-looking agent work, and real zett-agent 0.2.1 reads it identically."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from tests.compat.compare import assert_same, dump_with
from zett_browser.demo.store import build_demo_store
from zett_browser.model import AssistantMessage, ImageContent, ToolMessage, UserMessage
from zett_browser.storage import open_store


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return asyncio.run(build_demo_store(tmp_path_factory.mktemp("demo") / "demo.sqlite3"))


def test_zett_agent_reads_the_demo_store(demo_store: Path, zett_agent_py: Path) -> None:
    by_agent = dump_with(zett_agent_py, "zett_agent", demo_store)
    by_browser = dump_with(sys.executable, "zett_browser", demo_store)
    assert_same(by_agent, by_browser, "demo store")
    assert len(by_agent["list_sessions"]) == 17, "8 titled sessions + 5 runtime roots and 4 background-task children"


def test_demo_store_looks_like_real_agent_work(demo_store: Path) -> None:
    async def check() -> None:
        storage = open_store(demo_store)
        try:
            roots = (await storage.list_roots()).items
            assert len(roots) >= 5
            assert roots[0].title == "Upgrade to Python 3.13", "the in-progress session is the newest"
            refactor = next(node for node in roots if node.title and node.title.startswith("Refactor"))
            (child,) = (await storage.list_children(refactor.session_id)).items
            (grandchild,) = (await storage.list_children(child.session_id)).items
            assert (child.agent_name, grandchild.agent_name) == ("researcher", "reader")
            records = await storage.list_raw_messages(refactor.session_id)
            tools = [r.message for r in records if isinstance(r.message, ToolMessage)]
            assert any(not t.success for t in tools) and any(t.success for t in tools)
            assert any(isinstance(r.message, AssistantMessage) and r.message.reasoning for r in records)
            assert all(r.metadata == {"repo": "shop/api", "user": "dana"} for r in records)
            assert any(r.total_tokens for r in records) and any(r.reasoning_duration_ns for r in records)
            long = next(node for node in roots if node.snapshot_count)
            assert long.snapshot_count >= 3
            all_records = [r for node in roots for r in await storage.list_raw_messages(node.session_id)]
            assert any(
                isinstance(r.message, UserMessage)
                and isinstance(r.message.content, list)
                and any(isinstance(part, ImageContent) for part in r.message.content)
                for r in all_records
            )
            assert any(isinstance(r.message, AssistantMessage) and r.message.stop for r in all_records)
            assert {node.session_type for node in roots} >= {0, 2}
            assert all(not r.problems for r in all_records)
        finally:
            await storage.close()

    asyncio.run(check())


def test_demo_never_overwrites_a_store(tmp_path: Path) -> None:
    existing = tmp_path / "mine.sqlite3"
    existing.write_bytes(b"keep me")
    with pytest.raises(FileExistsError):
        asyncio.run(build_demo_store(existing))
    assert existing.read_bytes() == b"keep me"
