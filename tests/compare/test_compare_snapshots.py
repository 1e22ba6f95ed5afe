"""SVG snapshots of the compare view at 160×45 and 80×24, on the real runtime's pairs.

The store is :func:`pairs.steady`'s copy (fixed child ids, times and durations) at a fixed
path; the view is opened the way a user does: ``=`` in the tree, a move, ``=``.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import SNAP_DIR, frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.widgets.session_tree import SessionTree

from .pairs import Pairs, steady

WIDE, NARROW = (160, 45), (80, 24)


def _app(compare_pairs: Pairs, session: str) -> Any:
    SNAP_DIR.mkdir(parents=True, exist_ok=True)
    store = steady(compare_pairs, SNAP_DIR / "compare-pairs.sqlite3")
    return make_app(str(store), session=session, clock=frozen_clock, poll_interval=0)


async def _compare(pilot: Pilot[None]) -> None:
    await settle(pilot)
    pilot.app.screen.query_one(SessionTree).focus()
    await pilot.press("equals_sign", "up", "equals_sign")
    await settle(pilot)


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["160x45", "80x24"])
def test_changed_tool_result(snap_compare: Any, size: tuple[int, int], compare_pairs: Pairs) -> None:
    """Same script, one tool result changed: the deltas, the first divergence (row 5, a different
    result of ``lookup``) highlighted with the cursor on it, A's steps left and B's right."""
    assert snap_compare(_app(compare_pairs, compare_pairs.ids["result"][0]), terminal_size=size, run_before=_compare)


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["160x45", "80x24"])
def test_fan_out(snap_compare: Any, size: tuple[int, int], compare_pairs: Pairs) -> None:
    """Three delegated briefs against two: aligned by brief, the missing one A's alone (``<``)."""
    assert snap_compare(_app(compare_pairs, compare_pairs.ids["fanout"][0]), terminal_size=size, run_before=_compare)


def test_compaction(snap_compare: Any, compare_pairs: Pairs) -> None:
    """Compacted twice against never: every row the same, ◆ where A's snapshot boundaries lie,
    compactions 2→0 and A's smaller peak context in the deltas."""
    app = _app(compare_pairs, compare_pairs.ids["compaction"][0])
    assert snap_compare(app, terminal_size=WIDE, run_before=_compare)
