"""``tree_refresh``: a live tree's poll reads the roots and every expanded node at once.

It must give exactly what ``list_roots`` and ``list_children`` give one by one, in one
pooled read (one connection checkout), whatever the number of nodes.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import event

from tests.support import AGENT_RUN_ROOT
from tests.ui.helpers import store_copy
from zett_browser.storage import open_store

ROOT_PAGE = 100


async def test_it_gives_what_the_single_reads_give(tmp_path: Path) -> None:
    for fixture in ("storage_api", "agent_run"):
        storage = open_store(store_copy(fixture, tmp_path))
        try:
            roots = await storage.list_roots(limit=ROOT_PAGE)
            ids = [node.session_id for node in roots.items] + ["no-such-session"]
            singles = {sid: await storage.list_children(sid, limit=3) for sid in ids}
            batched_roots, batched = await storage.tree_refresh(ids, roots_limit=ROOT_PAGE, children_limit=3)
            assert batched_roots == roots
            assert batched == singles
        finally:
            await storage.close()


async def test_it_is_one_read_however_many_nodes(tmp_path: Path) -> None:
    storage = open_store(store_copy("agent_run", tmp_path))
    try:
        await storage.list_roots(limit=1)  # the pool exists now
        engine = storage.reader.engine()
        checkouts = []
        event.listen(engine.sync_engine, "checkout", lambda *_: checkouts.append(1))
        _, children = await storage.tree_refresh([AGENT_RUN_ROOT] * 3 + ["x", "y"], children_limit=200)
        assert set(children) == {AGENT_RUN_ROOT, "x", "y"}
        assert children[AGENT_RUN_ROOT].items, "the root's delegated sessions are there"
        assert len(checkouts) == 1
        before = len(checkouts)
        for sid in (AGENT_RUN_ROOT, "x", "y"):
            await storage.list_children(sid)
        assert len(checkouts) - before == 3, "the single reads take one checkout each (the difference is real)"
    finally:
        await storage.close()


async def test_a_poll_builds_no_statement_per_node(tmp_path: Path) -> None:
    """Each expanded node's first page and cycle check run statements built once, with
    the parent id bound: building them per node and poll was most of a poll's time on the
    event loop. A node in a parent cycle still takes the general path (tested with the
    damaged stores in tests/adversarial)."""
    storage = open_store(store_copy("agent_run", tmp_path))
    try:
        roots = await storage.list_roots(limit=ROOT_PAGE)
        ids = [node.session_id for node in roots.items] * 5 + ["x", "y"]
        first = await storage.tree_refresh(ids, children_limit=200)
        built: list[int] = []
        real = storage._tree._with_counts

        def counted(*args: object) -> object:
            built.append(1)
            return real(*args)  # type: ignore[arg-type]

        storage._tree._with_counts = counted  # type: ignore[method-assign, assignment]
        again = await storage.tree_refresh(ids, children_limit=200)
        assert again == first
        nullable = storage.reader.may_be_null("agent_sessions", "updated_at")
        assert len(built) == (2 if nullable else 1), "only the roots' page is built (one per band)"
    finally:
        await storage.close()
