"""The version list of a 2,500-version session beyond its first screen: scrolling up to an old
version, choosing it (the Raw Log goes to its boundary), diffing it (D) and time travel (x)
from its boundary, which finds that version in force. Guards the list's keys and behaviour
whatever way it is filled (the newest screen first)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from benchmarks.bigstore import COMPACTED_SESSION, build_compacted
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.screens.context import ContextScreen
from zett_browser.screens.diff import DiffScreen
from zett_browser.screens.main import MainScreen
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.versions import ORIGIN_TAGS, VersionList

EVERY = 4


def _line(widget: VersionList, index: int) -> str:
    return "".join(segment.text for segment in widget.render_line(index - int(widget.scroll_y)))


async def test_scrolling_to_an_old_version_choosing_diffing_and_time_travel_to_it(tmp_path: Path) -> None:
    path = tmp_path / "compacted.sqlite3"
    await asyncio.to_thread(build_compacted, path, messages=10_000, every=EVERY)
    app = make_app(str(path), session=COMPACTED_SESSION, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        inspector = app.screen.query_one(Inspector)
        versions = inspector.query_one(VersionList)
        height = versions.scrollable_content_region.height
        assert 0 < height < 2_500 and versions.cursor == 2_499
        first_screen = range(int(versions.scroll_y), int(versions.scroll_y) + height)
        assert first_screen.stop == 2_500, "the newest versions are on screen"
        # What made each version is read for the rows painted (and a screen either side), not all.
        known = set(versions.origins)
        assert {meta.version for meta in versions.versions[first_screen.start :]} <= known
        assert len(known) <= 3 * height and 1 not in known
        versions.focus()
        for _ in range(5):
            await pilot.press("pageup")
        await settle(pilot)
        assert versions.cursor < first_screen.start, "the cursor left the first screen"
        scrolled = versions.cursor
        assert _line(versions, scrolled).startswith(f"v{scrolled + 1}  through #{EVERY * (scrolled + 1):,} ")
        await pilot.press("home", "down", "down")  # v3, far beyond the newest screen
        await settle(pilot)
        assert versions.cursor == 2 and int(versions.scroll_y) == 0
        assert _line(versions, 2).startswith(f"v3  through #{3 * EVERY} ")
        assert inspector.summary_shown is not None and inspector.summary_shown.version == 3
        assert {1, 2, 3} <= set(versions.origins), "read once scrolled into view"
        assert ORIGIN_TAGS[versions.origins[3].kind] in _line(versions, 2)

        await pilot.press("D")  # v2 -> v3
        await settle(pilot)
        assert isinstance(app.screen, DiffScreen) and app.screen.ready
        assert (app.screen.older.version, app.screen.newer.version) == (2, 3)
        await pilot.press("escape")
        await settle(pilot)

        await pilot.press("enter")  # the Raw Log goes to v3's boundary
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        view = app.screen.query_one(RawLogView)
        assert view.current is not None and view.current.sequence == 3 * EVERY
        view.focus()
        await pilot.press("j")  # the first message after v3's boundary
        await settle(pilot)
        assert view.current is not None and view.current.sequence == 3 * EVERY + 1
        await pilot.press("x")
        await settle(pilot)
        context = app.screen
        assert isinstance(context, ContextScreen) and context.at == 3 * EVERY + 1
        assert context.point is not None and context.point.snapshot is not None
        assert context.point.snapshot.version == 3
        assert context.point.snapshot.compacted_through_sequence == 3 * EVERY
