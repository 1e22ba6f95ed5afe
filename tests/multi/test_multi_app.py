"""The app over two stores the real runtime wrote (``zett-browser main.sqlite3 children.sqlite3``):
children written to the other store show under their parent, open from its cards, and search
finds them naming their store."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.multi.helpers import ASYNC, copies, fingerprint
from tests.realstore.stores import RealStores
from tests.ui.helpers import frozen_clock, settle
from tests.ui.search_helpers import built, until
from zett_browser.app import make_app
from zett_browser.model import SessionNode
from zett_browser.multi.store import MultiStore
from zett_browser.screens.main import MainScreen
from zett_browser.storage import ToolMessage, open_store
from zett_browser.widgets.hits import hit_head
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree


def joined_app(main: Path, children: Path, index_dir: Path, **options: object):  # type: ignore[no-untyped-def]
    store = MultiStore([open_store(main), open_store(children)])
    return make_app(store, index=True, index_dir=index_dir, clock=frozen_clock, poll_interval=0, **options)  # type: ignore[arg-type]


async def test_children_in_the_other_store_show_under_their_parent_and_open(
    real_stores: RealStores, tmp_path: Path
) -> None:
    main, children = copies(real_stores, tmp_path / "stores")
    before = fingerprint(main.parent)
    app = joined_app(main, children, tmp_path / "index", session=ASYNC)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.open is not None
        tree = screen.query_one(SessionTree)
        parent = tree.find(ASYNC)
        assert parent is not None
        parent.expand()
        await settle(pilot)
        await until(pilot, lambda: len(parent.children) >= 5)
        kids = [node for node in parent.children if isinstance(node.data, SessionNode)]
        assert len(kids) == 5
        for node in kids:
            assert "@children.sqlite3" in str(node.label), node.label
        # The foreground `task` call's card opens its child, which lives in the other store.
        view = screen.query_one(RawLogView)
        await until(pilot, lambda: bool(view.records))
        calls = [r for r in view.records if isinstance(r.message, ToolMessage) and r.message.name == "task"]
        assert calls, [type(r.message).__name__ for r in view.records]
        view.select_sequence(calls[0].sequence)
        view.focus()
        await pilot.press("o")
        await settle(pilot)
        assert screen.open.node.parent_session_id == ASYNC
        assert screen.open.node.store == "children.sqlite3"
        opened = screen.open.node.session_id
        assert opened in {str(node.data.session_id) for node in kids if isinstance(node.data, SessionNode)}
        view = screen.query_one(RawLogView)
        await until(pilot, lambda: bool(view.records) and view.records[0].session_id == opened)
        crumb = str(screen.query_one("#breadcrumb").render())
        assert "@children.sqlite3" in crumb, crumb
        await pilot.press("b")
        await settle(pilot)
        assert screen.open.node.session_id == ASYNC
    assert fingerprint(main.parent) == before  # nothing written beside either store


async def test_search_spans_both_stores_and_names_where_each_hit_is(real_stores: RealStores, tmp_path: Path) -> None:
    main, children = copies(real_stores, tmp_path / "stores")
    app = joined_app(main, children, tmp_path / "index")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await built(pilot)
        options = screen.options
        assert options.search is not None
        page = await options.search.search("exploration")  # only the children store has it
        assert page.hits and {hit.store for hit in page.hits} == {"children.sqlite3"}
        assert all("@children.sqlite3" in str(hit_head(hit)) for hit in page.hits)
        page = await options.search.search('"config loading"')  # both stores
        assert {hit.store for hit in page.hits} == {"main.sqlite3", "children.sqlite3"}
        times = [hit.time for hit in page.hits if hit.time is not None]
        assert times == sorted(times, reverse=True)
        # Paged across the stores: every hit once.
        first = await options.search.search('"config loading"', limit=2)
        rest = await options.search.search('"config loading"', after=first.next_cursor, limit=100)
        together = [(hit.session_id, hit.sequence) for hit in [*first.hits, *rest.hits]]
        assert sorted(together) == sorted((hit.session_id, hit.sequence) for hit in page.hits)
        # The tree filter: a child in the other store shows with its parent.
        matches = await options.search.sessions_matching("exploration")
        assert matches.matching and ASYNC in matches.visible
        # Usage of a child comes from its own store's index.
        assert options.usage is not None
        child = next(iter(matches.matching))
        usage = await options.usage.usage([child, ASYNC])
        assert set(usage) == {child, ASYNC}


async def test_a_subtree_export_follows_children_into_the_other_store(real_stores: RealStores, tmp_path: Path) -> None:
    from zett_browser.model.export import ExportRequest

    main, children = copies(real_stores, tmp_path / "stores")
    before = fingerprint(main.parent)
    app = joined_app(main, children, tmp_path / "index")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        exporter = app.screen.options.exporter  # type: ignore[attr-defined]
        assert exporter is not None
        out = tmp_path / "async.md"
        line = await exporter.export(ExportRequest(ASYNC, "md", out, subtree=True))
        assert "in 6 sessions" in line, line
        text = out.read_text()
        # The children's own messages, read from children.sqlite3, under their parent's calls.
        assert "read-only code exploration subagent" in text
        assert text.index("Investigate auth") < text.index("read-only code exploration subagent")
        # Alone, the parent's store has none of them.
        single = tmp_path / "alone.md"
        from zett_browser.export import ExportOptions
        from zett_browser.export.files import export_file

        alone = open_store(main)
        try:
            report = await export_file(alone, ASYNC, ExportOptions(format="md", subtree=True), single, force=False)
        finally:
            await alone.close()
        assert report.sessions == 1
        assert "read-only code exploration subagent" not in single.read_text()
        # Never onto either store, even with force.
        from zett_browser.export.plan import ExportError

        with pytest.raises(ExportError, match="is the store being exported"):
            await exporter.export(ExportRequest(ASYNC, "md", children, subtree=True, force=True))
    assert fingerprint(main.parent) == before
