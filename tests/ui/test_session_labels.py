"""Sessions told apart everywhere (issue 25): three children given the same brief, three roots
whose prompts differ past what a pane shows, at 160×45 and 80×24.

The store is written by our own writer (tests/ui/label_helpers.py) as zett-agent's runtime
writes one: no titles, no agent names, UUIDv7-like ids sharing their first eight characters.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import frozen_clock, settle
from tests.ui.label_helpers import BOSS, KIDS, ROOTS, write_brief_store
from tests.ui.search_helpers import built, search
from zett_browser.app import make_app
from zett_browser.model import SessionNode
from zett_browser.screens.main import MainScreen
from zett_browser.widgets.hits import HitList, hit_head
from zett_browser.widgets.session_tree import SessionTree
from zett_browser.widgets.status import Breadcrumb

SIZES = [(160, 45), (80, 24)]


def tree_lines(tree: SessionTree) -> dict[str, str]:
    """Each loaded session's line as the pane shows it (cut to the tree's width)."""
    width = tree.scrollable_content_region.width
    found = {}
    for line in range(tree.last_line + 1):
        node = tree.get_node_at_line(line)
        if node is not None and isinstance(node.data, SessionNode):
            text = "".join(segment.text for segment in tree.render_line(line - int(tree.scroll_y)))
            found[node.data.session_id] = text[:width]
    return found


def labels(tree: SessionTree) -> dict[str, str]:
    found = {}
    for line in range(tree.last_line + 1):
        node = tree.get_node_at_line(line)
        if node is not None and isinstance(node.data, SessionNode):
            found[node.data.session_id] = str(node.label)
    return found


async def open_boss(pilot: Pilot[None]) -> SessionTree:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    tree = screen.query_one(SessionTree)
    tree.focus()
    boss = tree.find(BOSS)
    assert boss is not None
    tree.move_cursor(boss)
    await pilot.press("right")
    await settle(pilot)
    return tree


@pytest.mark.parametrize("size", SIZES)
async def test_children_given_the_same_brief_read_apart_in_the_visible_tree(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    store = await write_brief_store(tmp_path / "brief.sqlite3")
    app = make_app(str(store), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=size) as pilot:
        tree = await open_boss(pilot)
        shown = tree_lines(tree)
        assert set(KIDS) <= set(shown) and set(ROOTS) <= set(shown)
        # What the pane shows of each child, and of each root, differs (the tag comes first).
        assert len({shown[kid].strip() for kid in KIDS}) == 3, shown
        assert len({shown[root].strip() for root in ROOTS}) == 3, shown
        named = labels(tree)
        for number, kid in enumerate(KIDS, 1):
            # Asked by three parallel calls of message #2: the call that made each tells it apart.
            tag = named[kid].split(" ")[0]
            assert tag == f"#2.{number}", named[kid]
            assert "reviewer: Review the glossary entry" in named[kid]
        # The open session (the newest root at start) carries the mark, and only it.
        marked = [session_id for session_id, label in named.items() if label.startswith("● ")]
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.open is not None
        assert marked == [screen.open.node.session_id]


@pytest.mark.parametrize("size", SIZES)
async def test_the_breadcrumb_names_the_child_and_its_parent_as_the_tree_does(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    store = await write_brief_store(tmp_path / "brief.sqlite3")
    app = make_app(str(store), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=size) as pilot:
        tree = await open_boss(pilot)
        kid = tree.find(KIDS[1])
        assert kid is not None
        tree.move_cursor(kid)
        await pilot.press("enter")
        await settle(pilot)
        tag = labels(tree)[KIDS[1]].removeprefix("● ").split(" ")[0]
        assert labels(tree)[KIDS[1]].startswith("● "), "the open child is marked"
        crumb = str(app.screen.query_one(Breadcrumb).render())
        assert tag in crumb, crumb
        if size[0] >= 160:
            assert "Get the glossar" in crumb and "reviewer: Review the" in crumb, crumb
        assert KIDS[1] in str(app.screen.title)  # the header: name, then the full id


async def test_a_tree_filter_and_esc_never_change_a_label(tmp_path: Path) -> None:
    store = await write_brief_store(tmp_path / "brief.sqlite3")
    app = make_app(str(store), clock=frozen_clock, poll_interval=0, index=True, index_dir=tmp_path / "index")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await built(pilot)
        tree = await open_boss(pilot)
        before = labels(tree)
        assert all("Explain glossary term" in before[root] for root in ROOTS), before
        assert len({before[root][:24] for root in ROOTS}) == 3, "their starts differ (a tag first)"
        screen.parts.search.text = "glossary"
        await pilot.press("F")
        await settle(pilot)
        assert tree.filter is not None
        during = labels(tree)
        assert set(during) >= set(ROOTS)
        for session_id, label in during.items():
            assert label == before[session_id], (label, before[session_id])
        await pilot.press("escape")
        await settle(pilot)
        assert tree.filter is None
        after = labels(tree)
        for root in ROOTS:
            assert after[root] == before[root]


@pytest.mark.parametrize("size", SIZES)
async def test_search_hits_are_named_by_the_rule_not_by_an_id(tmp_path: Path, size: tuple[int, int]) -> None:
    store = await write_brief_store(tmp_path / "brief.sqlite3")
    app = make_app(str(store), clock=frozen_clock, poll_interval=0, index=True, index_dir=tmp_path / "index")
    async with app.run_test(size=size) as pilot:
        await built(pilot)
        view = await search(pilot, "glossary")
        hits = view.query_one(HitList).hits
        heads = {hit.session_id: str(hit_head(hit)) for hit in hits}
        assert set(KIDS) <= set(heads) and BOSS in heads
        assert heads[BOSS].startswith("Get the glossary reviewed three times")
        kid_labels = {heads[kid].split("  #")[0] for kid in KIDS}
        assert len(kid_labels) == 3 and all("reviewer: Review the glossary entry" in k for k in kid_labels)
        width = view.query_one(HitList).size.width
        assert len({heads[kid][:width] for kid in KIDS}) == 3
        view = await search(pilot, "glossary foo:bar")
        note = str(view.query_one("#search-note").render())
        assert "unknown qualifier 'foo:'" in note and "\n" not in note
        assert view.query_one(HitList).hits == []
