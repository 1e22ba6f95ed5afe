"""SVG snapshots of the usage UI: tree totals, a delegation card, the details panel, the timing view
(fixed sizes, frozen clock, fixed store and index paths, a fixed price-data date)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import SNAP_DIR, frozen_clock, settle
from tests.ui.usage_helpers import ROOT, fresh_index, priced_store, usage_shown
from zett_browser.app import make_app
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree

WIDE, NARROW = (160, 45), (80, 24)


@pytest.fixture(autouse=True)
def fixed_prices_date(monkeypatch: pytest.MonkeyPatch) -> None:
    """The price data's date is the newest price not in the future: it moves with the calendar."""
    from zett_browser.index.usage_service import IndexUsage

    monkeypatch.setattr(IndexUsage, "prices_date", property(lambda self: "2026-12-01 (genai-prices 0.2.3)"))


def usage_app(**kwargs: Any) -> Any:
    store = priced_store(SNAP_DIR / "usage")
    index_dir = fresh_index(SNAP_DIR / "usage-index")
    return make_app(str(store), clock=frozen_clock, index=True, index_dir=index_dir, poll_interval=0, **kwargs)


def then(*keys: str, tree: bool = False) -> Any:
    async def run_before(pilot: Pilot[None]) -> None:
        await usage_shown(pilot)
        pilot.app.screen.query_one(SessionTree).focus()
        await pilot.press("right")  # the root open: its child with its own totals
        await usage_shown(pilot)
        widget = SessionTree if tree else RawLogView
        pilot.app.screen.query_one(widget).focus()
        # From the top: where the page was scrolled when the cards arrived depends on timing.
        pilot.app.screen.query_one(RawLogView).scroll_home(animate=False)
        await settle(pilot)
        await pilot.press(*keys)
        await settle(pilot)

    return run_before


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["160x45", "80x24"])
def test_tree_totals_and_delegation_card(snap_compare: Any, size: tuple[int, int]) -> None:
    """Subtree tokens and cost on each node (the child's model unpriced: ``+?``); the card under
    the ``task`` call: what was asked, success, the child's subtree cost and time, ``o``."""
    app = usage_app(session=ROOT, seq=8)
    assert snap_compare(app, terminal_size=size, run_before=then("k"))


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["160x45", "80x24"])
def test_usage_details(snap_compare: Any, size: tuple[int, int]) -> None:
    """``u`` on the root: identity, own vs subtree totals, cost by model ("cost unknown"), price date."""
    app = usage_app(session=ROOT)
    assert snap_compare(app, terminal_size=size, run_before=then("u", tree=True))


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["160x45", "80x24"])
def test_timing_view(snap_compare: Any, size: tuple[int, int]) -> None:
    """``T``: each step's thinking / writing / waiting / tool bar, the child under the task step."""
    store = priced_store(SNAP_DIR / "timing")
    app = make_app(str(store), session=ROOT, clock=frozen_clock, poll_interval=0)

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
