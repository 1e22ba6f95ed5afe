"""The Raw Log of the real runtime's sessions in the app (Pilot), and its snapshots (issue 24).

Steering (``…e0007``): skipped results, the steering message, the offered tools, repeated
system rows collapsed to one line; server tools (``…e0002``): the search, its results and
the failed fetch. Snapshots use :func:`tests.realstore.stable.stable_copy` (fixed clock and ids).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.realstore.stable import stable_copy
from tests.realstore.stores import RealStores
from tests.ui.detail_helpers import open_detail
from tests.ui.helpers import SNAP_DIR, frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.widgets.rawlog import RawLogView

WIDE, NARROW = (160, 45), (80, 24)


def request_of(path: Path, session_id: str, sequence: int) -> str:
    with closing(sqlite3.connect(path)) as connection:
        (request,) = connection.execute(
            "SELECT request_id FROM raw_messages WHERE session_id = ? AND sequence = ?", (session_id, sequence)
        ).fetchone()
    return str(request)


def shown(app: Any) -> str:
    view = app.screen.query_one(RawLogView)
    return "\n".join(strip.text.rstrip() for strip in view.rendered_lines())


async def test_steering_session_in_the_raw_log(real_stores: RealStores, tmp_path: Path) -> None:
    path = stable_copy(real_stores, tmp_path)
    app = make_app(str(path), session=real_stores.session("steering"), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        text = shown(app)
        assert "← result ⊘ skipped step_one  call_steer_1_1" in text
        assert "✗ failed" not in text
        assert "↪ steering: interrupts the turn\nStop editing; explain what you found first." in text
        assert "offered 2 tools · unchanged" in text
        request = request_of(path, real_stores.session("steering"), 12)
        assert "#12 system  2026-12-03 11:00:12  [not replayed]  same as #1 ·\nrepeat 1  req …" + request[-8:] in text
        assert text.count("You are the zett-browser store generator's scripted agent.") == 1
        view = app.screen.query_one(RawLogView)
        assert view.select_sequence(12)
        detail = await open_detail(pilot)
        assert "You are the zett-browser store generator's scripted agent." in detail.body
        assert f"request {request}" in detail.body


async def test_server_tools_in_the_raw_log(real_stores: RealStores, tmp_path: Path) -> None:
    path = stable_copy(real_stores, tmp_path)
    app = make_app(str(path), session=real_stores.session("server_tools"), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        text = shown(app)
        assert "⌁ web_search(query: sqlite wal mode)\n→ 2 results\n" in text
        assert "  Write-Ahead Logging — https://sqlite.org/wal.html" in text
        assert "⌁ web_fetch(url: https://example.invalid/wal)\n→ error: url_not_accessible" in text
        assert "offered no tools + 2 server tools (web_search, web_fetch)" in text


def at_steering(pilot_keys: tuple[str, ...] = ()) -> Any:
    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        view = pilot.app.screen.query_one(RawLogView)
        view.focus()
        view.select_sequence(14)
        await pilot.press(*pilot_keys)
        await settle(pilot)

    return run_before


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["160x45", "80x24"])
def test_steering_snapshot(real_stores: RealStores, snap_compare: Any, size: tuple[int, int]) -> None:
    """The steering session at the skipped results: ``⊘ skipped`` (not the failure red), the
    steering user row, offered tools with changes, the request ids, a repeated system row in one line."""
    path = stable_copy(real_stores, SNAP_DIR / "realstore")
    app = make_app(str(path), session=real_stores.session("steering"), clock=frozen_clock, poll_interval=0)
    assert snap_compare(app, terminal_size=size, run_before=at_steering())
