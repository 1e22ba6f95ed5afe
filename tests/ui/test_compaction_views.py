"""The compaction views in the real app: a 2,500-version session, the ledger, the diff, the live demo."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from rich.console import Console

from benchmarks.bigstore import COMPACTED_SESSION, build_compacted
from tests.support import AGENT_RUN_ROOT
from tests.ui.compaction_helpers import LEDGER_SESSION, write_ledger_store
from tests.ui.helpers import HOSTILE, frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.demo.live import LiveDemo
from zett_browser.demo.store import build_demo_store
from zett_browser.screens.diff import DiffScreen
from zett_browser.screens.ledger import LedgerScreen
from zett_browser.screens.main import MainScreen
from zett_browser.text import clean
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.versions import VersionList


def plain_text(renderable: object, width: int = 160) -> str:
    console = Console(width=width, record=True, color_system="truecolor", file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(renderable)
    return console.export_text(styles=False)


def line_text(widget: VersionList, y: int) -> str:
    return "".join(segment.text for segment in widget.render_line(y))


async def test_a_2500_version_session_opens_decoding_one_summary_and_scrolls_to_the_right_versions(
    tmp_path: Path,
) -> None:
    path = tmp_path / "compacted.sqlite3"
    await asyncio.to_thread(build_compacted, path, messages=10_000, every=4)
    app = make_app(str(path), session=COMPACTED_SESSION, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        inspector = app.screen.query_one(Inspector)
        versions = inspector.query_one(VersionList)
        assert inspector.version_count == 2_500
        assert inspector.summary_shown is not None and inspector.summary_shown.version == 2_500
        assert inspector.decoded == 0, "only the latest summary was decoded (by the screen, once)"
        assert versions.cursor == 2_499 and "v2500" in line_text(versions, versions.cursor - int(versions.scroll_y))
        versions.focus()
        await pilot.press("home")
        await settle(pilot)
        assert versions.cursor == 0 and versions.scroll_y == 0
        assert line_text(versions, 0).startswith("v1  through #4 ")
        assert inspector.summary_shown.version == 1 and inspector.decoded == 1
        for _ in range(3):
            await pilot.press("pagedown")
        await settle(pilot)
        top = int(versions.scroll_y)
        assert top > 0 and versions.cursor >= top
        for y in range(versions.scrollable_content_region.height):
            number = top + y + 1
            assert line_text(versions, y).startswith(f"v{number}  through #{4 * number:,} "), y
        assert inspector.summary_shown.version == versions.cursor + 1
        assert inspector.decoded <= 4, "a summary is decoded per highlighted version, not per listed one"
        await pilot.press("end", "enter")
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        assert view.current is not None and view.current.sequence == 10_000


async def test_the_ledger_of_the_real_agent_run_and_enter_jumps_to_a_boundary(tmp_path: Path) -> None:
    app = make_app(str(store_copy("agent_run", tmp_path)), session=AGENT_RUN_ROOT, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.screen.query_one(RawLogView).focus()
        await pilot.press("L")
        await settle(pilot)
        ledger = app.screen
        assert isinstance(ledger, LedgerScreen)
        assert [m.version for m in ledger.versions] == [1, 2, 3]
        assert [(r.covered_rows, r.cache_drop, r.input_after) for r in ledger.rows.values()] == [
            (9, -180, 820),
            (2, 780, 300),
            (6, 300, 350),
        ]
        rows = ledger.query_one(VersionList)
        assert line_text(rows, 1).split()[:4] == ["v2", "#11", "0s", "2"]
        curve = ledger.query_one("#ledger-curve")
        assert curve.curve is not None and curve.curve.top == 820  # type: ignore[attr-defined]
        assert sum(curve.curve.boundary_counts) == 3  # type: ignore[attr-defined]
        await pilot.press("up", "enter")  # from the latest (v3) to v2
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        view = app.screen.query_one(RawLogView)
        assert view.current is not None and view.current.sequence == 11


async def test_d_diffs_the_highlighted_version_with_the_previous_and_says_what_was_dropped(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    await write_ledger_store(path)
    app = make_app(str(path), session=LEDGER_SESSION, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.screen.query_one(Inspector).query_one(VersionList).focus()
        await pilot.press("D")
        await settle(pilot)
        diff = app.screen
        assert isinstance(diff, DiffScreen) and diff.ready
        assert (diff.older.version, diff.newer.version) == (1, 2)
        text = plain_text(diff.shown)
        assert "Raw Log #5–#8 (4 rows)" in text
        assert "- User asked to fix src/app/main.py; retry_count was 5." in text
        assert "+ Fixed src/app/main.py and ran the tests: 3 passed." in text
        assert "identifiers (1): retry_count" in text and "numbers (1): 5" in text
        await pilot.press("escape")
        await settle(pilot)
        # Mark v2, move to v1: D diffs the marked one with the highlighted one, oldest left.
        versions = app.screen.query_one(Inspector).query_one(VersionList)
        await pilot.press("space", "up", "D")
        await settle(pilot)
        assert isinstance(app.screen, DiffScreen)
        assert (app.screen.older.version, app.screen.newer.version) == (1, 2)
        assert versions.marked == 1


async def test_hostile_summaries_stay_literal_in_the_diff(tmp_path: Path) -> None:
    path = tmp_path / "hostile.sqlite3"
    await write_ledger_store(path, hostile=True)
    app = make_app(str(path), session=LEDGER_SESSION, clock=frozen_clock)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        app.screen.query_one(Inspector).query_one(VersionList).focus()
        await pilot.press("D")
        await settle(pilot)
        assert isinstance(app.screen, DiffScreen) and app.screen.ready
        text = plain_text(app.screen.shown, width=400)
        flat = " ".join(text.split())
        for hostile in HOSTILE:
            assert clean(hostile) in flat, hostile
        assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text
        assert "first" in flat and "second" in flat


async def test_the_live_demos_ledger_grows_as_it_compacts(tmp_path: Path) -> None:
    path = await build_demo_store(tmp_path / "demo.sqlite3", now=frozen_clock())
    demo = LiveDemo(str(path), threshold_tokens=120)
    await demo.step()
    app = make_app(str(path), session=demo.session_id, clock=frozen_clock, poll_interval=0.1, live=demo)
    app.LIVE_STEP_SECONDS = 0.02
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            # The live writer never finishes: poll the screen instead of waiting for workers.
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not app.screen.query_one(RawLogView).records:
                await pilot.pause(0.1)
            app.screen.query_one(RawLogView).focus()
            await pilot.press("L")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                await pilot.pause(0.1)
                ledger = app.screen
                if isinstance(ledger, LedgerScreen) and len(ledger.versions) >= 3 and len(ledger.rows) >= 3:
                    break
            ledger = app.screen
            assert isinstance(ledger, LedgerScreen)
            assert len(ledger.versions) >= 3, "the open ledger followed the demo's compactions"
            assert [m.version for m in ledger.versions] == list(range(1, len(ledger.versions) + 1))
            curve = ledger.query_one("#ledger-curve")
            assert sum(curve.curve.boundary_counts) >= 3  # type: ignore[attr-defined]
            assert curve.curve.top > 0, "the demo records usage: the curve has steps"  # type: ignore[attr-defined]
            drops = [row.cache_drop for row in ledger.rows.values() if row.cache_drop is not None]
            assert drops and all(drop > 0 for drop in drops), "each compaction empties the demo's cache"
    finally:
        await demo.close()
