"""The layout at 80×24: two panes, the inspector on request over the Raw Log, `?` and `q` in the footer."""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget

from tests.ui.helpers import frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.widgets.footer import KeyFooter
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree


def footer_keys(footer: KeyFooter, width: int) -> set[str]:
    """Keys whose footer entry is shown and lies wholly on screen."""
    shown = set()
    for child in footer.query("*"):
        key = getattr(child, "key", None)
        if isinstance(child, Widget) and isinstance(key, str) and child.display:
            region = child.region
            if region.width and region.right <= width:
                shown.add(key)
    return shown


async def test_at_80_columns_the_raw_log_keeps_the_width_and_help_and_quit_stay(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        inspector = screen.query_one(Inspector)
        view = screen.query_one(RawLogView)
        tree = screen.query_one(SessionTree)
        assert not inspector.display, "no third pane at 80 columns"
        assert tree.outer_size.width <= 24
        assert view.outer_size.width >= 50, view.outer_size
        assert {"question_mark", "q"} <= footer_keys(screen.query_one(KeyFooter), 80)
        width = view.outer_size.width
        view.focus()
        await pilot.press("i")
        await settle(pilot)
        assert inspector.display and inspector.region.width >= 30, "i shows the inspector"
        assert view.outer_size.width == width, "over the Raw Log, not squeezing it"
        assert inspector.region.right == 80
        await pilot.press("i")
        await settle(pilot)
        assert not inspector.display


async def test_wide_terminals_keep_three_panes_and_every_footer_key(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        inspector = screen.query_one(Inspector)
        assert inspector.display and inspector.region.width >= 26
        assert {"colon", "f", "question_mark", "q"} <= footer_keys(screen.query_one(KeyFooter), 160)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert not inspector.display, "shrinking the terminal hides it"
        await pilot.resize_terminal(160, 45)
        await settle(pilot)
        assert inspector.display


async def test_hiding_the_inspector_holds_at_either_width(tmp_path: Path) -> None:
    """`i` at 160 columns hides it; shrinking to 80 and growing back must not bring it back."""
    app = make_app(str(store_copy("storage_api", tmp_path)), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        inspector = app.screen.query_one(Inspector)
        app.screen.query_one(RawLogView).focus()
        await pilot.press("i")
        await settle(pilot)
        assert not inspector.display
        for size in ((80, 24), (160, 45)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            assert not inspector.display, size
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        assert inspector.display, "shown on request at 80 columns"
        await pilot.resize_terminal(160, 45)
        await settle(pilot)
        assert inspector.display, "and still shown when the terminal grows"
