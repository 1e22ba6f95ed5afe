"""The session tree as a user drives it: arrows fold, enter opens, children are told apart,
and an opened session is revealed (ancestors open, cursor on it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text

from tests.support import AGENT_RUN_CHILD, AGENT_RUN_ROOT, CHILD, PARENT, ROOT
from tests.ui.helpers import frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.model import SessionNode
from zett_browser.screens import wiring
from zett_browser.screens.main import MainScreen
from zett_browser.storage import SQLiteSessionStorage
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree

GRANDCHILD = ROOT + "5"
AGENT_ROOT = AGENT_RUN_ROOT
AGENT_CHILD = AGENT_RUN_CHILD


def cursor_id(tree: SessionTree) -> str | None:
    node = tree.cursor_node
    return node.data.session_id if node is not None and isinstance(node.data, SessionNode) else None


def open_id(app: object) -> str | None:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, MainScreen)
    return screen.open.node.session_id if screen.open is not None else None


async def test_arrows_fold_and_move_enter_only_opens(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        tree.focus()
        parent = tree.find(PARENT)
        assert parent is not None
        tree.move_cursor(parent)
        await pilot.press("right")
        await settle(pilot)
        assert parent.is_expanded, "→ expands (and loads) a closed node"
        assert tree.scroll_x == 0, "→ never scrolls the tree sideways"
        await pilot.press("right")
        await settle(pilot)
        assert cursor_id(tree) == CHILD, "→ on an open node goes to its first child"
        await pilot.press("left")
        await settle(pilot)
        assert cursor_id(tree) == PARENT, "← on a closed node goes to its parent"
        await pilot.press("enter")
        await settle(pilot)
        assert parent.is_expanded, "enter never collapses"
        assert open_id(app) == PARENT, "enter opens the session"
        await pilot.press("left")
        await settle(pilot)
        assert not parent.is_expanded, "← collapses an open node"
        assert tree.scroll_x == 0
        await pilot.press("space")
        await settle(pilot)
        assert parent.is_expanded, "space toggles"
        await pilot.press("space")
        await settle(pilot)
        assert not parent.is_expanded


async def test_untitled_children_are_labelled_by_what_the_parent_asked(tmp_path: Path) -> None:
    app = make_app(str(store_copy("agent_run", tmp_path)), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        root = tree.find(AGENT_ROOT)
        assert root is not None
        tree.focus()
        tree.move_cursor(root)
        await pilot.press("right")
        await settle(pilot)
        child = tree.find(AGENT_CHILD)
        assert child is not None
        label = str(child.label)
        assert label.startswith("researcher: Verify the word count · "), label
        assert "01a2380a…" not in label


async def test_ids_are_cleaned_and_get_an_ellipsis_only_when_cut(tmp_path: Path) -> None:
    path = tmp_path / "ids.sqlite3"
    storage = SQLiteSessionStorage(path)
    await storage.create_session(session_id="short")
    await storage.create_session(session_id="\x1b]0;pwned\x07-long-id")
    # UUIDv7 ids of one minute share their first 8 characters: then a longer prefix tells them apart.
    await storage.create_session(session_id="01a245fb-cfb8-73be-96bd-5f524f2d5366")
    await storage.create_session(session_id="01a245fb-d001-73be-96bd-5f524f2d5366")
    await storage.close()
    app = make_app(str(path), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        labels = [str(node.label) for node in tree.root.children]
        assert any(label.startswith("short · ") for label in labels), labels
        assert any(label.startswith("␛]0;pwned␇-long-id · ") for label in labels), labels
        # The open session (the newest) carries the mark; the prefixes can be typed to --session.
        assert any(label.startswith("● 01a245fb-d… · ") for label in labels), labels
        assert any(label.startswith("01a245fb-c… · ") for label in labels), labels
        assert not any("\x1b" in label or "\x07" in label for label in labels)


async def test_a_child_opened_at_start_is_revealed(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), session=GRANDCHILD, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        assert cursor_id(tree) == GRANDCHILD
        for ancestor in (PARENT, CHILD):
            node = tree.find(ancestor)
            assert node is not None and node.is_expanded, ancestor


async def test_o_reveals_the_child_in_the_tree(tmp_path: Path) -> None:
    app = make_app(str(store_copy("agent_run", tmp_path)), session=AGENT_ROOT, seq=8, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        view.focus()
        assert view.current is not None and view.current.sequence == 8
        await pilot.press("o")
        await settle(pilot)
        assert open_id(app) == AGENT_CHILD
        tree = app.screen.query_one(SessionTree)
        assert cursor_id(tree) == AGENT_CHILD
        root = tree.find(AGENT_ROOT)
        assert root is not None and root.is_expanded


async def test_a_session_beyond_the_loaded_page_is_still_revealed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "many.sqlite3"
    storage = SQLiteSessionStorage(path)
    await storage.create_session(session_id="s0", title="Oldest root")
    await storage.create_session(session_id="c0", parent_session_id="s0", title="Its child")
    for index in range(1, 7):
        await storage.create_session(session_id=f"s{index}", title=f"Session {index}")
    await storage.close()
    monkeypatch.setattr(wiring, "ROOTS_PAGE", 3)
    app = make_app(str(path), session="c0", clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        assert cursor_id(tree) == "c0"
        # Paging on through the roots does not show the revealed root twice.
        for _ in range(3):
            more = tree.root.children[-1]
            if str(more.label) != "more…":
                break
            tree.select_node(more)
            await settle(pilot)
        ids = [node.data.session_id for node in tree.root.children if isinstance(node.data, SessionNode)]
        assert sorted(ids) == [f"s{index}" for index in range(7)]


async def test_the_breadcrumb_names_an_untitled_child_by_what_the_parent_asked(tmp_path: Path) -> None:
    app = make_app(str(store_copy("agent_run", tmp_path)), session=AGENT_CHILD, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        crumb = str(app.screen.query_one("#breadcrumb").render())
        assert "researcher: Verify the word count" in crumb, crumb
        assert AGENT_CHILD[:8] not in crumb


async def test_a_live_refresh_keeps_the_childs_label(tmp_path: Path) -> None:
    import sqlite3

    path = store_copy("agent_run", tmp_path)
    app = make_app(str(path), clock=frozen_clock, poll_interval=0.05)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        root = tree.find(AGENT_ROOT)
        assert root is not None
        root.expand()
        await settle(pilot)
        with sqlite3.connect(path) as connection:  # another process's write: the child moves on
            connection.execute(
                "update agent_sessions set updated_at = '2026-12-03 11:59:00.000000' where id = ?", (AGENT_CHILD,)
            )
        for _ in range(40):
            await pilot.pause(0.05)
            child = tree.find(AGENT_CHILD)
            if child is not None and "1m ago" in str(child.label):
                break
        child = tree.find(AGENT_CHILD)
        assert child is not None and "1m ago" in str(child.label), "the refresh happened"
        assert str(child.label).startswith("researcher: Verify the word count"), str(child.label)


async def test_an_orphan_opened_at_start_is_revealed_in_its_group(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), session=ROOT + "6", clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        assert tree.orphans is not None and tree.orphans.is_expanded
        assert cursor_id(tree) == ROOT + "6"
        node = tree.find(ROOT + "6")
        assert node is not None and node.parent is tree.orphans
        orphans = [child for child in tree.orphans.children if isinstance(child.data, SessionNode)]
        assert len(orphans) == 1, "listed once"


def fitted_width(tree: SessionTree) -> int:
    """The width the tree's widest line needs now (its labels as they read at this moment)."""
    depth, show_root = tree.guide_depth, tree.show_root
    return max(tree.get_label_width(line.node) + line._get_guide_width(depth, show_root) for line in tree._tree_lines)


@pytest.mark.parametrize("fixture", ["agent_run", "storage_api"])
async def test_the_scroll_width_follows_labels_that_change_after_the_first_paint(tmp_path: Path, fixture: str) -> None:
    """Usage totals, states and tags arrive after the first paint and relabel nodes; the tree's
    horizontal scroll range follows them (``set_label`` alone kept the width of the first
    labels: a scroll bar whose size depended on timing, a flaky snapshot under load)."""
    from zett_browser.screens.quiet import QUIET_S

    app = make_app(str(store_copy(fixture, tmp_path)), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.pause(QUIET_S + 0.2)
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        assert tree.virtual_size.width == fitted_width(tree)
        node = tree.cursor_node
        assert node is not None
        before = node.label
        node.set_label(str(before) + " a much longer label than any session has" * 3)
        tree.refit()
        await pilot.pause()
        assert tree.virtual_size.width == fitted_width(tree) > 160
        node.set_label(before)
        tree.refit()
        await pilot.pause()
        assert tree.virtual_size.width == fitted_width(tree) < 160


async def settled_tree(pilot: object) -> SessionTree:
    """The tree once the first screen's labels (usage, states, tags) have all arrived."""
    from zett_browser.screens.quiet import QUIET_S

    await settle(pilot)  # type: ignore[arg-type]
    await pilot.pause(QUIET_S + 0.2)  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]
    return pilot.app.screen.query_one(SessionTree)  # type: ignore[attr-defined, no-any-return]


async def test_states_read_again_unchanged_repaint_no_tree_line(tmp_path: Path) -> None:
    """A follow poll reads the states of the sessions it touched again and marks them: when
    nothing changed, no label is set and no line of the tree is repainted (every mark used to
    set each label anew, repainting the node's line and the lines under it)."""
    app = make_app(str(store_copy("agent_run", tmp_path)), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        tree = await settled_tree(pilot)
        states = dict(tree.labels.states)
        assert states, "the fixture's sessions have states"
        labels = {node.id: node.label for node in tree.root.children}
        repaints: list[object] = []
        real_refresh = tree.refresh

        def refresh(*regions: object, **options: object) -> object:
            repaints.append(regions)
            return real_refresh(*regions, **options)  # type: ignore[arg-type]

        tree.refresh = refresh  # type: ignore[method-assign, assignment]
        tree.mark(states, {})  # what a poll's state read hands the tree
        await pilot.pause()
        await pilot.pause()
        assert repaints == []
        assert {node.id: node.label for node in tree.root.children} == labels


async def test_a_label_that_changes_width_does_not_lay_the_screen_out(tmp_path: Path) -> None:
    """A followed session's label grows (``99 msg`` → ``100 msg``) while the tree already
    scrolls sideways: the scroll range follows without laying out the screen (a layout
    repainted every pane: 20-30 ms with 100 nodes open)."""
    app = make_app(str(store_copy("agent_run", tmp_path)), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        tree = await settled_tree(pilot)
        node = tree.cursor_node
        assert node is not None and isinstance(node.label, Text)
        node.set_label(node.label + " a long label" * 12)
        tree.refit()
        await settle(pilot)
        wide = tree.virtual_size.width
        assert wide == fitted_width(tree) > tree.scrollable_content_region.width
        screen = app.screen
        layouts: list[object] = []
        real_layout = screen._refresh_layout

        def refresh_layout(*args: object, **options: object) -> None:
            layouts.append(args)
            real_layout(*args, **options)  # type: ignore[arg-type]

        screen._refresh_layout = refresh_layout  # type: ignore[method-assign]
        node.set_label(node.label + " and more")
        tree.refit()
        await settle(pilot)
        assert tree.virtual_size.width == fitted_width(tree) == wide + len(" and more")
        assert layouts == []
        assert tree.show_horizontal_scrollbar
        assert tree.horizontal_scrollbar.window_virtual_size == tree.virtual_size.width
