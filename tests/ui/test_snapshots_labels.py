"""Snapshots of sessions told apart (issue 25): a child of three given the same brief is open;
the tree tags the siblings and marks the open one, the breadcrumb and header name it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import SNAP_DIR, frozen_clock, settle
from tests.ui.label_helpers import KIDS, write_brief_store
from zett_browser.app import make_app


@pytest.mark.parametrize("size", [(160, 45), (80, 24)], ids=["160x45", "80x24"])
def test_children_given_the_same_brief(snap_compare: Any, size: tuple[int, int]) -> None:
    """The second child open: ``●`` on it, each sibling's id prefix before the shared brief."""
    directory = SNAP_DIR / f"labels-{size[0]}"  # one per size: xdist may run both at once
    directory.mkdir(parents=True, exist_ok=True)
    for leftover in directory.glob("brief.sqlite3*"):
        leftover.unlink()
    store = asyncio.run(write_brief_store(directory / "brief.sqlite3"))
    app = make_app(str(store), session=KIDS[1], clock=frozen_clock, poll_interval=0)

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.pause(0.3)  # the marks wait for a pause in the keys
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
