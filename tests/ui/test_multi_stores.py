"""The tree over two stores at once, as the real runtime wrote them (tests/realstore): grouped
by store at start, ``s`` merges them by activity and back, a child written to the other store
under its parent, named by its store; snapshots at 160×45 and 80×24."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from tests.multi.helpers import ASYNC
from tests.multi.still import still_pair
from tests.realstore.stores import RealStores
from tests.ui.helpers import SNAP_DIR, frozen_clock, settle
from tests.ui.search_helpers import until
from zett_browser.app import ZettBrowserApp, make_app
from zett_browser.model import SessionNode
from zett_browser.multi.store import MultiStore
from zett_browser.screens.main import MainScreen
from zett_browser.storage import open_store
from zett_browser.widgets.session_tree import Group, SessionTree


def pair_app(real: RealStores, name: str, **options: Any) -> ZettBrowserApp:
    main, children = still_pair(real, SNAP_DIR / name)
    store = MultiStore([open_store(main), open_store(children)])
    return make_app(store, clock=frozen_clock, poll_interval=0, index=False, **options)


async def test_grouped_by_store_then_merged_by_activity(real_stores: RealStores) -> None:
    app = pair_app(real_stores, "pair-pilot")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        tree = screen.query_one(SessionTree)
        groups = [node for node in tree.root.children if isinstance(node.data, Group)]
        assert [group.data.name for group in groups if isinstance(group.data, Group)] == [
            "main.sqlite3",
            "children.sqlite3",
        ]
        main_group, children_group = groups
        await until(pilot, lambda: len(main_group.children) == 15)
        # Under its group a root does not name its store again; the other group says why it is empty.
        assert not any("@main.sqlite3" in str(node.label) for node in main_group.children)
        assert "show under their parents" in str(children_group.children[0].label)
        opened = screen.open
        assert opened is not None
        await pilot.press("s")
        await settle(pilot)
        roots = [node for node in tree.root.children if isinstance(node.data, SessionNode)]
        assert len(roots) == 15 and not any(isinstance(node.data, Group) for node in tree.root.children)
        assert all("@main.sqlite3" in str(node.label) for node in roots)
        marked = [node for node in roots if str(node.label).startswith("●")]
        assert [node.data.session_id for node in marked if isinstance(node.data, SessionNode)] == [
            opened.node.session_id
        ]
        await pilot.press("s")
        await settle(pilot)
        assert [node.data.name for node in tree.root.children if isinstance(node.data, Group)] == [
            "main.sqlite3",
            "children.sqlite3",
        ]


def expanded(session: str) -> Any:
    """A snapshot's ``run_before``: settle, open ``session``'s children in the tree, focus it."""

    async def run_before(pilot: Pilot[None]) -> None:
        from zett_browser.screens.quiet import QUIET_S

        await settle(pilot)
        tree = pilot.app.screen.query_one(SessionTree)
        node = tree.find(session)
        assert node is not None
        node.expand()
        await settle(pilot)
        await until(pilot, lambda: len(node.children) == 5)
        tree.focus()
        tree.move_cursor(node)
        await pilot.pause(QUIET_S + 0.2)
        await settle(pilot)

    return run_before


def test_two_stores_grouped_with_a_cross_store_child(real_stores: RealStores, snap_compare: Any) -> None:
    """160×45: the stores as groups; the async session's five children, written to the other
    store by zett-agent's default profiles, under their parent and named by their store."""
    app = pair_app(real_stores, "pair-160", session=ASYNC)
    assert snap_compare(app, terminal_size=(160, 45), run_before=expanded(ASYNC))


def test_two_stores_merged_at_80_columns(real_stores: RealStores, snap_compare: Any) -> None:
    """80×24: ``s`` merged the stores into one list by activity, each root naming its store."""
    app = pair_app(real_stores, "pair-80", session=ASYNC)
    before = expanded(ASYNC)

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press("s")
        await before(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
