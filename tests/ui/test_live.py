"""Following a live store: another process writes while the app is open."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from textual.pilot import Pilot

from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.screens.main import MainScreen
from zett_browser.storage import SQLiteSessionStorage, UserMessage
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree

WRITER = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, {root!r})
    from zett_browser.storage import SQLiteSessionStorage, UserMessage, CompactedMessage

    async def main():
        storage = SQLiteSessionStorage({path!r})
        for index in range(5):
            await storage.append("live", "r", UserMessage(content=f"late {{index}}"))
        await storage.snapshot("live", CompactedMessage(content="summary of the start"), 3, 0)
        await storage.create_session(session_id="child", parent_session_id="live", title="New subagent")
        await storage.create_session(session_id="new-root", title="A brand new conversation")
        await storage.close()

    asyncio.run(main())
    """
)


async def wait_for(pilot: Pilot[None], condition: object, seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await settle(pilot)
        if condition():  # type: ignore[operator]
            return
        await asyncio.sleep(0.1)
    raise AssertionError("not seen in time")


async def test_rows_snapshots_and_sessions_written_elsewhere_appear(tmp_path: Path) -> None:
    path = tmp_path / "live.sqlite3"
    storage = SQLiteSessionStorage(path)
    for index in range(4):
        await storage.append("live", "r", UserMessage(content=f"early {index}"), title="Live session")
    await storage.close()
    app = make_app(str(path), clock=frozen_clock, poll_interval=0.2)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        view = screen.query_one(RawLogView)
        tree = screen.query_one(SessionTree)
        view.focus()
        await pilot.press("down")
        assert view.current is not None and view.current.sequence == 2
        live_node = tree.find("live")
        assert live_node is not None
        tree.select_node(live_node)  # the user's place in the tree
        live_node.expand()
        await settle(pilot)
        script = WRITER.format(root=str(Path(__file__).parents[2]), path=str(path))
        await asyncio.to_thread(subprocess.run, [sys.executable, "-c", script], check=True, timeout=60)
        await wait_for(pilot, lambda: [r.sequence for r in view.records] == list(range(1, 10)))
        assert view.current is not None and view.current.sequence == 2, "the selection is kept"
        await wait_for(pilot, lambda: len(screen.query_one(Inspector).snapshots) == 1)
        await wait_for(pilot, lambda: tree.find("child") is not None and tree.find("new-root") is not None)
        assert tree.cursor_node is live_node, "the tree cursor stays on the user's node"
        assert "#1–9 of 9" in str(screen.query_one("#page-status").render())


async def test_new_messages_marker_when_scrolled_away_and_follow_mode(tmp_path: Path) -> None:
    path = tmp_path / "live.sqlite3"
    storage = SQLiteSessionStorage(path)
    for index in range(12):
        await storage.append("live", "r", UserMessage(content=f"m {index}"), title="Live")
    await storage.close()
    app = make_app(str(path), clock=frozen_clock, poll_interval=0.2, page_size=5)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        view = screen.query_one(RawLogView)
        assert [r.sequence for r in view.records] == [1, 2, 3, 4, 5]
        writer = SQLiteSessionStorage(path)
        await writer.append("live", "r", UserMessage(content="new"))
        await wait_for(pilot, lambda: "1 new" in str(screen.query_one("#page-status").render()))
        assert [r.sequence for r in view.records] == [1, 2, 3, 4, 5], "the page the user reads does not move"
        view.focus()
        await pilot.press("f")
        await settle(pilot)
        assert view.records[-1].sequence == 13
        await writer.append("live", "r", UserMessage(content="newer"))
        await writer.close()
        await wait_for(pilot, lambda: view.records[-1].sequence == 14)
        assert view.current is not None and view.current.sequence == 14, "follow keeps the newest message selected"


async def test_a_reader_at_the_bottom_of_the_last_page_stays_there_when_a_message_arrives(tmp_path: Path) -> None:
    """The unfilled last page is re-read in place: the scroll position survives the re-read."""
    path = tmp_path / "live.sqlite3"
    body = "\n".join(f"line {index}" for index in range(12))
    storage = SQLiteSessionStorage(path)
    for index in range(30):
        await storage.append("live", "r", UserMessage(content=f"msg {index}\n{body}"), title="Live")
    app = make_app(str(path), clock=frozen_clock, poll_interval=0.2)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            view = app.screen.query_one(RawLogView)
            view.focus()
            await pilot.press("end")
            await settle(pilot)
            before = view.scroll_y
            assert before > 100, "the page is taller than the screen"
            await storage.append("live", "r", UserMessage(content=f"msg new\n{body}"))
            deadline = time.monotonic() + 10
            while len(view.records) < 31 and time.monotonic() < deadline:
                await pilot.pause(0.1)
            await settle(pilot)
            assert len(view.records) == 31
            assert abs(view.scroll_y - before) <= 1, (before, view.scroll_y)
    finally:
        await storage.close()
