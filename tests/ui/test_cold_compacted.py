"""A cold start straight onto a compacted session (issue 29: at most +100 ms over a short one).

The command line paints the first screen from the start-up reader and imports the SQL
storage only after it. Counting the model's tail reads rows through that storage: awaited
before the inspector showed, it held a compacted session's first frame ~600 ms behind a
short session's. The panes now show without it and the count follows.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from textual.widgets import Static

from tests.support import AGENT_RUN_ROOT
from tests.ui.helpers import frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.startup.launch import LazyStore, begin, resume_collection
from zett_browser.storage import SQLSessionStorage, open_store
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.rawlog import RawLogView


async def test_a_compacted_session_shows_before_the_storage_is_imported(tmp_path: Path) -> None:
    path = store_copy("agent_run", tmp_path)
    quick = begin(path, session=AGENT_RUN_ROOT, seq=None, page_size=50)
    resume_collection()
    assert quick is not None, "the start-up reader reads the fixture"
    gate = threading.Event()

    def opener() -> SQLSessionStorage:
        gate.wait(20)  # the storage is still being imported while the first screen is made
        return open_store(path, sidecar_guard=quick.guard)

    store = LazyStore(opener, "agent_run", release=quick.guard.release)
    app = make_app(store, session=AGENT_RUN_ROOT, warm=quick, clock=frozen_clock, poll_interval=0)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            inspector = app.screen.query_one(Inspector)
            view = app.screen.query_one(RawLogView)
            for _ in range(100):
                if view.records and inspector.version_count:
                    break
                await pilot.pause(0.05)
            assert view.records and view.records[0].session_id == AGENT_RUN_ROOT, "the page shows"
            assert inspector.version_count >= 1, "the versions are listed without the storage"
            context = app.screen.query_one("#inspector-context", Static)
            assert "the messages after #" in str(context.content), "the boundary is named meanwhile"
            gate.set()
            await asyncio.to_thread(store.loaded)
            await settle(pilot)
            for _ in range(100):
                if "tail message" in str(context.content):
                    break
                await pilot.pause(0.05)
            assert "tail message" in str(context.content), "the count follows once the storage is there"
    finally:
        gate.set()
