"""Large content never freezes the UI: a 50 MB message and a 10 MB summary (issue 10).

In review, ``enter`` on a 50 MB message froze the app for 51-90 s (the whole text went into
one TextArea) and a 10 MB snapshot summary for 38-63 s on opening its session (the
inspector rendered it whole). The stores here are copies of a zett-agent-written fixture
with one row made huge by the stdlib ``sqlite3`` module; the tests assert behaviour (the
screen is shown, ``G`` reaches the last line, find lands on the match), not wall time.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from tests.adversarial.large import MAIN, TOOL_RESULT, copy_agent_run, huge_text, set_json_content
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.screens.detail import PART, MessageDetail, PartArea
from zett_browser.screens.main import MainScreen
from zett_browser.views.formatting import PREVIEW
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.versions import VersionList


async def test_enter_on_a_50_mb_message_pages_it_and_keys_reach_its_end(tmp_path: Path) -> None:
    path = copy_agent_run(tmp_path)
    text = huge_text(50_000_000, "THE END")
    set_json_content(path, "raw_messages", "session_id = ? and sequence = ?", (MAIN, TOOL_RESULT), text)
    app = make_app(str(path), session=MAIN, seq=TOOL_RESULT, clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        view.focus()
        assert view.current is not None and view.current.sequence == TOOL_RESULT
        await pilot.press("enter")
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, MessageDetail)
        area = detail.query_one(PartArea)
        assert len(detail.starts) >= len(text) // PART, "shown a part at a time"
        assert len(area.text) <= PART
        assert detail.body.count("\n") >= text.count("\n")

        await pilot.press("G")
        await pilot.pause()
        row, _ = area.cursor_location
        assert detail.part == len(detail.starts) - 1
        assert row == area.document.line_count - 1
        assert "THE END" in area.text.splitlines()[-3:]  # then the record's tags line

        await pilot.press("g")
        await pilot.pause()
        assert detail.part == 0 and area.cursor_location == (0, 0)

        await pilot.press("pagedown")
        assert area.cursor_location[0] > 0, "pagedown moves within the part"
        await pilot.press("end")
        await pilot.pause()
        assert detail.part == len(detail.starts) - 1, "end: the whole text's bottom, not the line's"
        await pilot.press("home")
        await pilot.pause()
        assert detail.part == 0 and area.cursor_location == (0, 0)
        await pilot.press("n", "n", "pageup")
        await pilot.pause()
        assert detail.part == 1 and area.cursor_location[0] == area.document.line_count - 1, "pageup at a top"

        await pilot.press("slash", *"the end", "enter")
        await settle(pilot)  # the search runs as a worker, a part at a time
        assert detail.part == len(detail.starts) - 1
        assert area.selected_text == "THE END"

        await pilot.press("escape")  # closes the find field
        await pilot.pause()
        assert app.screen is detail
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_a_10_mb_summary_is_previewed_and_s_opens_it_whole(tmp_path: Path) -> None:
    path = copy_agent_run(tmp_path)
    summary = huge_text(10_000_000, "SUMMARY END")
    set_json_content(path, "session_snapshots", "session_id = ? and version = 3", (MAIN,), summary)
    app = make_app(str(path), session=MAIN, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        inspector = app.screen.query_one(Inspector)
        assert inspector.summary_shown is not None and inspector.summary_shown.summary_text == summary
        shown = str(inspector.query_one("#inspector-summary", Static).content)
        assert len(shown) < PREVIEW + 200
        assert "s in the version list reads it whole" in shown

        inspector.query_one(VersionList).focus()
        await pilot.press("s")
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, MessageDetail)
        assert summary in detail.body
        await pilot.press("G")
        await pilot.pause()
        area = detail.query_one(PartArea)
        assert area.document.get_line(area.cursor_location[0]) == "SUMMARY END"
