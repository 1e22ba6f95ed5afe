"""The live compaction demo: the Raw Log only grows while snapshots move the boundary."""

from __future__ import annotations

import time
from pathlib import Path

from tests.ui.helpers import frozen_clock
from zett_browser.app import make_app
from zett_browser.demo.live import LiveDemo
from zett_browser.demo.store import build_demo_store
from zett_browser.storage import open_store
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.rawlog import RawLogView


async def test_live_demo_compacts_as_scripted_while_the_raw_log_only_grows(tmp_path: Path) -> None:
    path = await build_demo_store(tmp_path / "demo.sqlite3", now=frozen_clock())
    demo = LiveDemo(str(path), threshold_tokens=220)
    await demo.step()
    app = make_app(str(path), session=demo.session_id, clock=frozen_clock, poll_interval=0.1, live=demo)
    app.LIVE_STEP_SECONDS = 0.02
    reader = open_store(path)
    counts: list[int] = []
    contexts: list[int] = []
    boundaries: list[int] = []
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            # Sample until the reader itself has seen what the assertions below check: the
            # writer runs on this loop between the reads, so under load it can compact twice
            # between two samples, or right after the last one (stopping on demo.snapshots
            # alone then left a sample set with one boundary: flaky on a busy machine).
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not (
                demo.snapshots >= 2 and len(set(boundaries)) >= 3 and _drops(contexts)
            ):
                await pilot.pause(0.05)
                counts.append(await reader.count_messages(demo.session_id))
                view = await reader.load(demo.session_id)
                contexts.append(len(view.messages))
                boundaries.append(view.snapshot.compacted_through_sequence if view.snapshot else 0)
            assert demo.snapshots >= 2, "two compactions within a minute at test speed"
            await pilot.press("s")
            paused_at = demo.steps
            await pilot.pause(0.3)
            assert demo.steps == paused_at and "paused" in str(app.screen.sub_title)
            # The live writer never finishes, so poll the screen instead of waiting for workers.
            inspector = app.screen.query_one(Inspector)
            raw_log = app.screen.query_one(RawLogView)
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and len(inspector.snapshots) != demo.snapshots:
                await pilot.pause(0.1)
            assert len(inspector.snapshots) == demo.snapshots, "the inspector shows the new versions"
            assert raw_log.records and raw_log.records[-1].sequence >= demo.boundary, (
                "the followed Raw Log reached the boundary"
            )
    finally:
        await reader.close()
    assert counts == sorted(counts) and counts[-1] > counts[0], "the Raw Log only grows"
    assert boundaries == sorted(boundaries) and len(set(boundaries)) >= 3, "the boundary moves forward"
    drops = _drops(contexts)
    assert drops, "the model's context shrinks at each compaction"
    assert all(boundaries[i] > boundaries[i - 1] for i in drops)


def _drops(contexts: list[int]) -> list[int]:
    """The samples at which the model's context was smaller than at the sample before."""
    return [i for i in range(1, len(contexts)) if contexts[i] < contexts[i - 1]]


async def test_live_demo_output_has_real_line_breaks(tmp_path: Path) -> None:
    """Issue 10 item 12: the scripted tool output showed a literal backslash-n."""
    path = await build_demo_store(tmp_path / "demo.sqlite3", now=frozen_clock())
    demo = LiveDemo(str(path))
    for _ in range(4):
        await demo.step()
    await demo.close()
    reader = open_store(path)
    try:
        records = await reader.raw_page(demo.session_id, limit=10)
    finally:
        await reader.close()
    contents = [str(getattr(record.message, "content", "")) for record in records]
    assert not any("\\n" in content for content in contents), contents
    assert any("TODO handle timeouts\n" in content for content in contents)
