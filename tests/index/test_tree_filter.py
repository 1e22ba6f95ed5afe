"""Tree filters in the real app: matches under their ancestors, a count line, esc restores.

The filter sets come from a real side index built into tmp_path from a copy of the
zett-agent-written fixture; the tree is driven through the app's own screen.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets.tree import TreeNode

from tests.index.helpers import S1, S2, S3, S4, S5, S7, build, copy_fixture
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.index import ENV_DIR, SideIndex, parse
from zett_browser.index.sessions import matching_sessions
from zett_browser.model import SessionNode
from zett_browser.screens import wiring
from zett_browser.screens.main import MainScreen
from zett_browser.widgets.session_tree import More, NodeData, SessionTree

S6 = "0193a5c0-0000-7000-8000-000000000006"
S9 = "0193a5c0-0000-7000-8000-000000000009"


@pytest.fixture
async def indexed(tmp_path: Path) -> tuple[Path, SideIndex]:
    store = copy_fixture("storage_api", tmp_path / "store")
    return store, await build(store, tmp_path / "index")


def shown(tree: SessionTree) -> dict[str, TreeNode[NodeData]]:
    """Every session node in the tree, by id."""
    found: dict[str, TreeNode[NodeData]] = {}
    stack = [tree.root]
    while stack:
        node = stack.pop()
        if isinstance(node.data, SessionNode):
            found[node.data.session_id] = node
        stack.extend(node.children)
    return found


def has_more(tree: SessionTree) -> bool:
    stack = [tree.root]
    while stack:
        node = stack.pop()
        if isinstance(node.data, More):
            return True
        stack.extend(node.children)
    return False


async def _filter(tree: SessionTree, index: SideIndex, text: str) -> None:
    found = matching_sessions(index.path, parse(text))
    tree.apply_filter(set(found.matching), set(found.visible), text)


async def test_filter_shows_matches_under_open_ancestors_and_esc_restores(
    indexed: tuple[Path, SideIndex],
) -> None:
    store, index = indexed
    app = make_app(str(store), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        normal = set(shown(tree))
        assert {S1, S2, S3, S9} <= normal and S5 not in normal  # S5 is two levels down, unread
        await _filter(tree, index, "agent:reasoning")
        await settle(pilot)
        nodes = shown(tree)
        assert set(nodes) == {S3, S4, S5}
        assert nodes[S3].is_expanded and nodes[S4].is_expanded, "ancestors open by themselves"
        assert tree.show_root and str(tree.root.label) == "1 session matches `agent:reasoning` (esc clears)"
        assert tree.orphans is None, "no orphan matches: no orphan group"
        tree.focus()
        await pilot.press("escape")
        await settle(pilot)
        assert tree.filter is None and not tree.show_root
        assert set(shown(tree)) == normal
        assert tree.orphans is not None, "the orphan group is back"


async def test_children_read_later_respect_the_filter(indexed: tuple[Path, SideIndex]) -> None:
    store, index = indexed
    app = make_app(str(store), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        await _filter(tree, index, f"session:{S3}")
        await settle(pilot)
        nodes = shown(tree)
        assert set(nodes) == {S3} and not nodes[S3].is_expanded, "a match is not opened for it"
        tree.focus()
        tree.move_cursor(nodes[S3])
        await pilot.press("right")
        await settle(pilot)
        assert nodes[S3].is_expanded
        assert set(shown(tree)) == {S3}, "S4 (S3's child) does not match: it stays out"
        tree.clear_filter()
        await settle(pilot)
        parent = shown(tree)[S3]
        tree.move_cursor(parent)
        await pilot.press("right")
        await settle(pilot)
        assert S4 in shown(tree), "without the filter the child is read again"


async def test_filter_follows_every_page_and_reaches_orphans(
    indexed: tuple[Path, SideIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, index = indexed
    monkeypatch.setattr(wiring, "ROOTS_PAGE", 2)
    app = make_app(str(store), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        assert has_more(tree), "the normal tree pages its roots"
        await _filter(tree, index, "agent:assistant")
        await settle(pilot)
        assert set(shown(tree)) == {S1, S2, S9}, "matches on later pages are shown too"
        assert not has_more(tree)
        assert str(tree.root.label).startswith("3 sessions match")
        await _filter(tree, index, f"session:{S6}")
        await settle(pilot)
        assert set(shown(tree)) == {S6}
        assert tree.orphans is not None and [c.data.session_id for c in tree.orphans.children] == [S6]  # type: ignore[union-attr]


async def test_hostile_query_text_stays_literal_in_the_count_line(indexed: tuple[Path, SideIndex]) -> None:
    store, index = indexed
    app = make_app(str(store), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        found = matching_sessions(index.path, parse("agent:reasoning"))
        tree.apply_filter(set(found.matching), set(found.visible), "[bold red]x[/] \x1b]8;;http://e\x07link\x1b[31m")
        await settle(pilot)
        label = str(tree.root.label)
        assert "\x1b" not in label and "\x07" not in label
        assert "[bold red]x[/]" in label, "markup is shown as typed, never interpreted"


async def test_screen_glue_filters_reports_bad_queries_and_clears(
    indexed: tuple[Path, SideIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, index = indexed
    monkeypatch.setenv(ENV_DIR, str(index.path.parent))  # where the app keeps the store's index
    app = make_app(str(store), clock=frozen_clock, index=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        tree = screen.query_one(SessionTree)
        normal = set(shown(tree))
        screen.parts.search.apply_filter("type:3")
        await settle(pilot)
        assert set(shown(tree)) == {S7}
        screen.parts.search.apply_filter("since:yesterdayish")
        await settle(pilot)
        assert set(shown(tree)) == {S7}, "a bad query leaves the filter as it was"
        assert any("since:yesterdayish" in note.message for note in app._notifications)
        screen.parts.search.apply_filter("")
        await settle(pilot)
        assert tree.filter is None and set(shown(tree)) == normal
        screen.parts.search.text = "type:3"  # what the search view leaves behind
        await pilot.press("F")
        await settle(pilot)
        assert set(shown(tree)) == {S7}, "F filters the tree by the last search"
        await pilot.press("escape")
        await settle(pilot)
        assert tree.filter is None and set(shown(tree)) == normal


async def test_f_without_a_search_or_without_the_index_says_why(indexed: tuple[Path, SideIndex]) -> None:
    store, _index = indexed
    app = make_app(str(store), clock=frozen_clock, index=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("F")
        await settle(pilot)
        assert any("Search first" in note.message for note in app._notifications)
        screen.parts.search.apply_filter("type:3")
        await settle(pilot)
        assert screen.query_one(SessionTree).filter is None
        assert any("--no-index" in note.message for note in app._notifications)
