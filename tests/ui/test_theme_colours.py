"""Every cell of the line-API views carries the theme's colours (issue 25: on catppuccin-latte
the Raw Log's plain text and the versions list showed the terminal's own colours: dark boxes
on a light theme, the `◆ N snapshots` mark unreadable)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region

from tests.ui.helpers import LONG, frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.widgets.linestyle import LineView
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.versions import VersionList


@pytest.mark.parametrize("theme", ["catppuccin-latte", "textual-light", "textual-dark"])
async def test_no_cell_is_left_to_the_terminals_colours(tmp_path: Path, theme: str) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), session=LONG, clock=frozen_clock, index=False)
    async with app.run_test(size=(160, 45)) as pilot:
        app.theme = theme
        await settle(pilot)
        views: list[LineView] = [app.screen.query_one(RawLogView), app.screen.query_one(VersionList)]
        for view in views:
            width, height = view.size
            assert width and height
            unset = [
                (type(view).__name__, y, segment.text)
                for y, strip in enumerate(view.render_lines(Region(0, 0, width, height)))
                for segment in strip
                if segment.text.strip()
                and (segment.style is None or segment.style.color is None or segment.style.bgcolor is None)
            ]
            assert unset == [], unset[:5]
