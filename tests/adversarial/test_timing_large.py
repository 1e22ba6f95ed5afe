"""The timing view on a session of 100,000 messages: keyset pages of the timing columns only,
every row reached once, the first and the last page opened without reading the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adversarial.damage import bad_message_value, sha256
from tests.adversarial.large import MAIN, copy_agent_run, grow_session
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.screens.timing import PAGE, TimingScreen
from zett_browser.storage import open_store
from zett_browser.views.timing import Step
from zett_browser.widgets.timing import TimingView

GROWN = 100_000


@pytest.fixture(scope="module")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = copy_agent_run(tmp_path_factory.mktemp("timing-large"))
    last = grow_session(path, MAIN, GROWN)
    return path, last


async def test_pages_reach_every_row_once_in_order(big_store: tuple[Path, int]) -> None:
    path, last = big_store
    store = open_store(path)
    try:
        seen: list[int | None] = []
        page = await store.timing_page(MAIN, limit=2000)
        while page:
            seen.extend(row.sequence for row in page)
            page = await store.timing_page(MAIN, after_id=page[-1].id, limit=2000)
        assert seen == list(range(1, last + 1))
        tail = await store.timing_page(MAIN, from_end=True, limit=3)
        assert [row.sequence for row in tail] == [last - 2, last - 1, last]
        before = await store.timing_page(MAIN, before_id=tail[0].id, limit=2)
        assert [row.sequence for row in before] == [last - 4, last - 3]
    finally:
        await store.close()


async def test_the_timing_view_opens_a_page_at_either_end(big_store: tuple[Path, int]) -> None:
    path, last = big_store
    before = sha256(path)
    app = make_app(str(path), session=MAIN, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TimingScreen)
        view = screen.query_one(TimingView)
        steps = [line for line in view.lines if isinstance(line, Step)]
        assert steps and steps[0].sequence == 4 and len(view.lines) <= PAGE
        assert "messages #1–#" in str(screen.query_one("#timing-status").render())
        await pilot.press("G")
        await settle(pilot)
        steps = [line for line in view.lines if isinstance(line, Step)]
        assert steps and last - PAGE < steps[-1].sequence <= last  # type: ignore[operator]
        assert f"#{last} ·" in str(screen.query_one("#timing-status").render())
        await pilot.press("p")
        await settle(pilot)
        assert all(line.sequence <= last - PAGE for line in view.lines if isinstance(line, Step))  # type: ignore[operator]
    assert sha256(path) == before


async def test_bad_timing_values_are_problems_not_failures(tmp_path: Path) -> None:
    """A duration that is text and a timestamp that is garbage: the step says so, the page stands."""
    path = copy_agent_run(tmp_path)
    bad_message_value(path, MAIN, 4, "duration_ns", "forty")
    bad_message_value(path, MAIN, 7, "started_at", "not a time")
    store = open_store(path)
    try:
        rows = await store.timing_page(MAIN)
    finally:
        await store.close()
    by_sequence = {row.sequence: row for row in rows}
    assert by_sequence[4].duration_ns is None and by_sequence[4].problems == ("duration_ns is not an integer",)
    assert by_sequence[7].started_at is None and by_sequence[7].problems == ("started_at is not a timestamp",)
    assert len(rows) == 21
