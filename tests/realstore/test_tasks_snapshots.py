"""SVG snapshots of session …e0001 (background tasks) in the Raw Log with its cards, at 160×45 and 80×24.

The store is the real runtime's, made the same every run (:func:`tasks_helpers.steady`:
fixed child ids, times, elapsed seconds), at a fixed path; HOME holds the children as
zett-agent's default store, so the cards say where each child is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.realstore.stores import RealStores
from tests.realstore.tasks_helpers import TASKS, steady
from tests.ui.helpers import SNAP_DIR, frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.widgets.rawlog import RawLogView

WIDE, NARROW = (160, 45), (80, 24)


def _app(real_stores: RealStores, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seq: int) -> Any:
    SNAP_DIR.mkdir(parents=True, exist_ok=True)
    store, home = steady(real_stores, SNAP_DIR / "realstore-tasks.sqlite3", tmp_path / "home")
    monkeypatch.setenv("HOME", str(home))
    return make_app(str(store), session=TASKS, seq=seq, clock=frozen_clock, poll_interval=0)


async def _settled(pilot: Pilot[None]) -> None:
    """The cards shown (they come after the page), the Raw Log focused, its cursor where opened."""
    await settle(pilot)
    pilot.app.screen.query_one(RawLogView).focus()
    await settle(pilot)


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["160x45", "80x24"])
def test_task_start_cards(
    snap_compare: Any, size: tuple[int, int], real_stores: RealStores, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The four ``task_start`` calls read as type · description · prompt; a card per background
    child under them: task id, latest status (completed, cancelled, failed with its error), and
    that the child is in ~/.zett-agent/sessions.sqlite3 with the command that opens it."""
    app = _app(real_stores, tmp_path, monkeypatch, 4)  # --seq lands a quarter down: the calls, then the results
    assert snap_compare(app, terminal_size=size, run_before=_settled)


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["160x45", "80x24"])
def test_task_results_and_notices(
    snap_compare: Any, size: tuple[int, int], real_stores: RealStores, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unread completion notice (#21) and its card;."""
    app = _app(real_stores, tmp_path, monkeypatch, 21)
    assert snap_compare(app, terminal_size=size, run_before=_settled)


def test_o_chooser(snap_compare: Any, real_stores: RealStores, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``o`` on the message with four ``task_start`` calls: a list of the four children to choose from."""
    app = _app(real_stores, tmp_path, monkeypatch, 4)

    async def run_before(pilot: Pilot[None]) -> None:
        await _settled(pilot)
        await pilot.press("o")
        await settle(pilot)

    assert snap_compare(app, terminal_size=NARROW, run_before=run_before)
