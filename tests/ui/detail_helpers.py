"""Opening the detail view on the Raw Log's current message: shared by the detail-view tests."""

from __future__ import annotations

from textual.pilot import Pilot

from tests.ui.helpers import settle
from zett_browser.screens.detail import MessageDetail
from zett_browser.widgets.rawlog import RawLogView


async def open_detail(pilot: Pilot[None]) -> MessageDetail:
    await settle(pilot)
    view = pilot.app.screen.query_one(RawLogView)
    view.focus()
    await pilot.press("enter")
    await settle(pilot)
    detail = pilot.app.screen
    assert isinstance(detail, MessageDetail)
    return detail
