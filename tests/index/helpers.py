"""Helpers for the side-index tests: copies of the zett-agent-written fixtures, built indexes."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import textwrap
from pathlib import Path

from tests import support
from tests.support import FIXTURES
from zett_browser.index import Searcher, SideIndex, parse
from zett_browser.index.search import Hit
from zett_browser.storage import SQLSessionStorage

S1, S2, S3 = support.KITCHEN_SINK, support.CHECKPOINTED, support.DELEGATING_PARENT
S4, S5, S7 = support.CHILD, support.GRANDCHILD, support.NIGHTLY
PARENT, CHILD = support.AGENT_RUN_ROOT, support.AGENT_RUN_CHILD


def copy_fixture(name: str, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{name}.sqlite3"
    shutil.copyfile(FIXTURES / f"{name}.sqlite3", target)
    return target


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def build(target: str | Path, index_dir: Path) -> SideIndex:
    """Open the store read-only and bring its index up to date."""
    index = SideIndex(SQLSessionStorage.open_for_browsing(target), index_dir)
    try:
        await index.sync()
    finally:
        await index.storage.close()
    return index


def find(index: SideIndex, text: str, *, session: str | None = None, limit: int = 500) -> list[Hit]:
    return Searcher(index.path).search_now(parse(text), limit=limit, session=session).hits


def where(hits: list[Hit]) -> set[tuple[str, int, str]]:
    return {(hit.session_id, hit.sequence, hit.kind) for hit in hits}


APPEND = textwrap.dedent(
    """
    import asyncio, sys
    from zett_agent.messages import UserMessage
    from zett_agent.storage import SQLiteSessionStorage

    async def main():
        storage = SQLiteSessionStorage(sys.argv[1])
        for number in range(int(sys.argv[2])):
            await storage.append(sys.argv[3], "req-new", UserMessage(content=f"zebra{number} crossing"))
        await storage.close()

    asyncio.run(main())
    """
)


def agent_append(python: Path, store: Path, count: int, session: str) -> subprocess.Popen[str]:
    """Append ``count`` user messages to ``session`` with real zett-agent, in another process."""
    return subprocess.Popen([str(python), "-c", APPEND, str(store), str(count), session], text=True)
