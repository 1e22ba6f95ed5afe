"""Helpers for the side-index tests: copies of the zett-agent-written fixtures, built indexes."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from tests.support import FIXTURES
from zett_browser.index import Searcher, SideIndex, parse
from zett_browser.index.search import Hit
from zett_browser.storage import SQLSessionStorage

S1 = "0193a5c0-0000-7000-8000-000000000001"
S2 = "0193a5c0-0000-7000-8000-000000000002"
S3 = "0193a5c0-0000-7000-8000-000000000003"
S4 = "0193a5c0-0000-7000-8000-000000000004"
S5 = "0193a5c0-0000-7000-8000-000000000005"
S7 = "0193a5c0-0000-7000-8000-000000000007"
PARENT = "0193a5c0-0000-7000-8000-00000000a9e1"
CHILD = "01a2380a-8411-7587-9925-7a4bf47e62e0"


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
