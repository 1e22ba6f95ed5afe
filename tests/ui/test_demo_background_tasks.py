"""The demo's background tasks keep their subagents in the same store: ``o`` opens each of them."""

from __future__ import annotations

from pathlib import Path

from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.demo.runtime_sessions import AUDIT, CHILD_IDS
from zett_browser.demo.store import build_demo_store
from zett_browser.screens.main import MainScreen
from zett_browser.storage import ToolMessage
from zett_browser.widgets.rawlog import RawLogView


async def test_o_opens_the_subagent_of_every_background_task(tmp_path: Path) -> None:
    path = await build_demo_store(tmp_path / "demo.sqlite3", now=frozen_clock())
    app = make_app(str(path), session=AUDIT, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.open is not None
        view = screen.query_one(RawLogView)
        starts = [
            r.sequence for r in view.records if isinstance(r.message, ToolMessage) and r.message.name == "task_start"
        ]
        assert len(starts) == len(CHILD_IDS)
        for sequence, child in zip(starts, CHILD_IDS, strict=True):
            view.select_sequence(sequence)
            view.focus()
            await pilot.press("o")
            await settle(pilot)
            assert screen.open.node.session_id == child, f"#{sequence}"
            assert screen.open.node.parent_session_id == AUDIT
            await pilot.press("b")
            await settle(pilot)
            assert screen.open.node.session_id == AUDIT
            view = screen.query_one(RawLogView)
