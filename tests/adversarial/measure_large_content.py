"""Measures big content on the UI thread (run by hand, not collected by pytest).

``.venv/bin/python -m tests.adversarial.measure_large_content`` prints, for a 50 MB
message and a 10 MB summary on copies of the agent_run fixture: the time to the first
part on screen, the longest stall of the event loop meanwhile (a 1 ms ticker), and what
each detail-view key costs its handler.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from tests.adversarial.large import MAIN, TOOL_RESULT, copy_agent_run, huge_text, set_json_content
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.screens.detail import MessageDetail
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.versions import VersionList


async def timed(action: Callable[[], Awaitable[object]]) -> tuple[float, float]:
    """Milliseconds the action took, and the longest the event loop was blocked meanwhile."""
    gaps: list[float] = [0.0]
    done = False

    async def ticker() -> None:
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    task = asyncio.create_task(ticker())
    start = time.perf_counter()
    await action()
    total = time.perf_counter() - start
    done = True
    await task
    return total * 1000, max(gaps) * 1000


async def until_detail(app: object) -> None:
    while not (isinstance(app.screen, MessageDetail) and app.screen.body):  # type: ignore[attr-defined]
        await asyncio.sleep(0.005)


async def message() -> None:
    path = copy_agent_run(Path(tempfile.mkdtemp()))
    text = huge_text(50_000_000, "THE END")
    set_json_content(path, "raw_messages", "session_id = ? and sequence = ?", (MAIN, TOOL_RESULT), text)
    app = make_app(str(path), session=MAIN, seq=TOOL_RESULT, clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.screen.query_one(RawLogView).focus()

        async def open_detail() -> None:
            await pilot.press("enter")
            await until_detail(app)

        total, stall = await timed(open_detail)
        print(f"enter on a 50 MB message: first part in {total:.0f} ms, longest event-loop stall {stall:.0f} ms")
        detail = app.screen
        assert isinstance(detail, MessageDetail)
        for key, action in (("G", detail.action_bottom), ("g", detail.action_top), ("n", detail.action_next_part)):
            start = time.perf_counter()
            action()
            print(f"  {key}: handler {1000 * (time.perf_counter() - start):.0f} ms")
            await pilot.pause()
        total, stall = await timed(lambda: detail.find("the end").wait())
        print(f"  find across 50 MB: {total:.0f} ms, longest stall {stall:.0f} ms")


async def summary() -> None:
    path = copy_agent_run(Path(tempfile.mkdtemp()))
    set_json_content(path, "session_snapshots", "session_id = ? and version = 3", (MAIN,), huge_text(10_000_000, "END"))
    app = make_app(str(path), session=MAIN, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        total, stall = await timed(lambda: settle(pilot))
        print(f"start and open a session whose summary is 10 MB: {total:.0f} ms, longest stall {stall:.0f} ms")
        app.screen.query_one(VersionList).focus()

        async def open_summary() -> None:
            await pilot.press("s")
            await until_detail(app)

        total, stall = await timed(open_summary)
        print(f"s: the 10 MB summary's first part in {total:.0f} ms, longest stall {stall:.0f} ms")


if __name__ == "__main__":
    asyncio.run(message())
    asyncio.run(summary())
