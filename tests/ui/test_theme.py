"""Text colours come from the app's Textual theme: switching themes restyles the Raw Log."""

from __future__ import annotations

from pathlib import Path

from rich.style import Style

from tests.ui.helpers import KITCHEN, frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.widgets.rawlog import RawLogView


def kind_colour(view: RawLogView, kind: str) -> str | None:
    """The colour the Raw Log paints a record kind's name in."""
    for strip in view.rendered_lines():
        for segment in strip:
            if segment.text == kind and isinstance(segment.style, Style) and segment.style.color is not None:
                return segment.style.color.triplet.hex if segment.style.color.triplet else segment.style.color.name
    return None


async def test_switching_the_theme_restyles_the_raw_log(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), session=KITCHEN, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        first = kind_colour(view, "user")
        assert first == app.get_css_variables()["text-primary"].lower()
        app.theme = "nord" if app.theme != "nord" else "gruvbox"
        await settle(pilot)
        second = kind_colour(view, "user")
        assert second == app.get_css_variables()["text-primary"].lower()
        assert second != first
