"""The storage's warm-up (issue 16: the first expand or page turn compiled its statements).

SQLAlchemy compiles a statement at its first execution, 5-11 ms each on the event loop.
``warm_up`` runs the queries of the first key presses once, for a session no store holds:
afterwards a page turn, a jump to the end, an expand of a page of children (with its labels)
and opening a session compile nothing; and it reads only, on real zett-agent stores.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

from tests.support import AGENT_RUN_ROOT, DELEGATING_PARENT, FIXTURES, PAGINATION, listing
from zett_browser.storage import SQLSessionStorage, open_store


def copy_of(name: str, directory: Path) -> Path:
    target = directory / f"{name}.sqlite3"
    shutil.copy(FIXTURES / f"{name}.sqlite3", target)
    return target


def compiled(storage: SQLSessionStorage) -> int:
    """Statements in the running loop's engine's compiled cache."""
    engine: Any = storage.reader.engine()
    return len(engine.sync_engine._compiled_cache)  # noqa: SLF001


async def first_keys(storage: SQLSessionStorage, session: str, parent: str) -> None:
    """What the first key presses read: n, p, G, g, expanding ``parent`` (with labels), opening ``session``."""
    first = await storage.raw_page(session, after_sequence=None, limit=50)
    last = first[-1]
    await storage.raw_page(session, after_sequence=last.sequence, after_id=last.id, limit=50)
    await storage.raw_page_before(session, before_sequence=first[0].sequence, before_id=first[0].id, limit=50)
    await storage.raw_page_before(session, limit=50)
    children = await storage.list_children(parent, limit=200)
    await storage.child_labels(parent, [*children.items] * 200)
    await storage.get_node(session)
    await storage.raw_bounds(session)
    await storage.all_snapshot_versions(session)
    await storage.snapshot_version(session)
    await storage.ancestors(session)


async def test_after_the_warm_up_the_first_keys_compile_nothing(tmp_path: Path) -> None:
    storage = open_store(copy_of("storage_api", tmp_path))
    try:
        await storage.warm_up(page_size=50, children_page=200)
        warmed = compiled(storage)
        await first_keys(storage, PAGINATION, DELEGATING_PARENT)
        assert compiled(storage) == warmed, "a first key press compiled a statement the warm-up did not"
    finally:
        await storage.close()


async def test_without_it_they_would(tmp_path: Path) -> None:
    """The check above can fail: the same reads on a cold storage fill the cache."""
    storage = open_store(copy_of("storage_api", tmp_path))
    try:
        await storage.change_token()
        cold = compiled(storage)
        await first_keys(storage, PAGINATION, DELEGATING_PARENT)
        assert compiled(storage) > cold + 5
    finally:
        await storage.close()


async def test_the_warm_up_reads_only(tmp_path: Path) -> None:
    path = copy_of("agent_run", tmp_path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    before = listing(tmp_path)
    storage = open_store(path)
    try:
        await storage.warm_up()
        assert (await storage.get_node(AGENT_RUN_ROOT)) is not None
    finally:
        await storage.close()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert listing(tmp_path) == before
