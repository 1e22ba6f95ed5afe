"""The inspector's words agree with what the model view shows (issue 10, item 12)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from tests.support import AGENT_RUN_ROOT, EMPTY
from tests.ui.helpers import frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.rawlog import RawLogView

AGENT_RUN_PARENT = AGENT_RUN_ROOT


def context_text(app: object) -> str:
    return str(app.screen.query_one("#inspector-context", Static).content)  # type: ignore[attr-defined]


async def test_the_tail_count_is_what_the_model_view_shows(tmp_path: Path) -> None:
    app = make_app(str(store_copy("agent_run", tmp_path)), session=AGENT_RUN_PARENT, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        words = context_text(app)
        app.screen.query_one(RawLogView).focus()
        await pilot.press("m")
        await settle(pilot)
        shown = app.screen.query_one(RawLogView).records
        assert shown, "the model view shows the tail"
        # The tail holds system prompts too (include_in_messages false): not counted.
        assert f"+ {len(shown)} tail message" in words
        boundary = app.screen.query_one(Inspector).snapshots[-1].compacted_through_sequence
        assert len(shown) < 21 - boundary, "the Raw Log's tail is longer than what the model gets"


async def test_an_empty_session_says_it_has_no_messages(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), session=EMPTY, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert context_text(app) == "This session has no messages."
