"""SVG snapshots of the compaction views: the ledger with its curve, and the diff (frozen times)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.support import AGENT_RUN_ROOT
from tests.ui.compaction_helpers import LEDGER_SESSION, write_ledger_store
from tests.ui.helpers import SNAP_DIR, frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.versions import VersionList


def ledger_store(name: str, *, hostile: bool = False) -> Path:
    SNAP_DIR.mkdir(parents=True, exist_ok=True)
    path = SNAP_DIR / f"{name}.sqlite3"
    for leftover in SNAP_DIR.glob(f"{name}.sqlite3*"):
        leftover.unlink()
    asyncio.run(write_ledger_store(path, hostile=hostile))
    return path


def open_ledger() -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        pilot.app.screen.query_one(RawLogView).focus()
        await pilot.press("L")
        await settle(pilot)

    return run_before


def open_diff(*keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        pilot.app.screen.query_one(Inspector).query_one(VersionList).focus()
        await pilot.press(*keys, "D")
        await settle(pilot)

    return run_before


def test_ledger_and_curve_of_the_real_agent_run(snap_compare: Any) -> None:
    """zett-agent's three compactions: one row each, the curve with the boundaries marked."""
    app = make_app(str(store_copy("agent_run")), session=AGENT_RUN_ROOT, clock=frozen_clock)
    assert snap_compare(app, terminal_size=(160, 45), run_before=open_ledger())


def test_ledger_at_80_columns(snap_compare: Any) -> None:
    """The hand-computed ledger session at 80×24."""
    app = make_app(str(ledger_store("ledger-80")), session=LEDGER_SESSION, clock=frozen_clock)
    assert snap_compare(app, terminal_size=(80, 24), run_before=open_ledger())


def test_diff_of_two_summaries(snap_compare: Any) -> None:
    """v1 → v2: the changed lines and words, the absorbed range, what compaction dropped."""
    app = make_app(str(ledger_store("ledger-diff")), session=LEDGER_SESSION, clock=frozen_clock)
    assert snap_compare(app, terminal_size=(160, 45), run_before=open_diff())


def test_diff_at_80_columns_with_hostile_summaries(snap_compare: Any) -> None:
    """Markup, ANSI and OSC sequences in both summaries show as literal text."""
    app = make_app(str(ledger_store("ledger-hostile", hostile=True)), session=LEDGER_SESSION, clock=frozen_clock)
    assert snap_compare(app, terminal_size=(80, 24), run_before=open_diff())
