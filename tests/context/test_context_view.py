"""The context view (``x``), the export key, and the Raw Log's marks, on real stores.

The store is ``agent_run.sqlite3``, written by real zett-agent 0.2.1 with compaction on:
snapshots v1 (through #9), v2 (through #11, created just before #15's step) and v3
(through #17, before #21's step); rows #1, #2, #12, #13, #18, #19 are system rows
(include_in_messages false).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.support import AGENT_RUN_ROOT, PAGINATION
from tests.ui.helpers import frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.screens.context import ContextScreen, export_name
from zett_browser.storage import SQLSessionStorage
from zett_browser.views import time_travel as context
from zett_browser.widgets.context import ContextHead
from zett_browser.widgets.rawlog import RawLogView


def _head(app: Any) -> str:
    return str(app.screen.query_one(ContextHead).render())


async def _open(pilot: Pilot[None]) -> RawLogView:
    await settle(pilot)
    view = pilot.app.screen.query_one(RawLogView)
    view.focus()
    await pilot.press("x")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ContextScreen)
    return pilot.app.screen.query_one(RawLogView)


async def test_x_shows_the_context_with_summary_sizes_and_measured_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = store_copy("agent_run", tmp_path)
    app = make_app(str(path), session=AGENT_RUN_ROOT, seq=17, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        view = await _open(pilot)
        assert [record.sequence for record in view.records] == [14, 15, 16]
        assert any("v2" in str(line) for line in view.preface)
        head = _head(app)
        assert "Context of #17 (assistant" in head
        assert "Snapshot v2 in force" in head and "#1–#11" in head
        assert "summary + 3 rows (#12–#16); 2 not replayed" in head
        assert "Measured input_tokens of #17: 330" in head
        await pilot.press("w")
        await settle(pilot)
        written = tmp_path / export_name(AGENT_RUN_ROOT, 17)
        storage = SQLSessionStorage.open_for_browsing(path)
        try:
            point = await context.locate(storage, AGENT_RUN_ROOT, 17)
            expected = json.loads(await context.export_json(storage, point))
        finally:
            await storage.close()
        assert json.loads(written.read_text(encoding="utf-8")) == expected
        assert [item["kind"] for item in expected] == [5, 2, 3, 4]
        # Review case: a second `w` (or a file of that name) is never replaced: numbered instead.
        first = written.read_bytes()
        written.with_name(written.stem + "-2.json").symlink_to(tmp_path / "elsewhere")
        await pilot.press("w")
        await settle(pilot)
        third = written.with_name(written.stem + "-3.json")
        assert written.read_bytes() == first and not (tmp_path / "elsewhere").exists()
        assert json.loads(third.read_text(encoding="utf-8")) == expected
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ContextScreen)


async def test_a_long_context_is_read_a_page_at_a_time(tmp_path: Path) -> None:
    """120 messages, no snapshot: the context of #120 is #1–#119, shown 50 at a time."""
    path = store_copy("storage_api", tmp_path)
    app = make_app(str(path), session=PAGINATION, seq=120, page_size=50, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _open(pilot)
        assert [r.sequence for r in view.records] == list(range(1, 51))
        assert "No snapshot in force" in _head(app) and "119 messages" in _head(app)
        await pilot.press("n")
        await settle(pilot)
        assert [r.sequence for r in view.records] == list(range(51, 101))
        await pilot.press("n")
        await settle(pilot)
        assert [r.sequence for r in view.records] == list(range(101, 120))
        await pilot.press("n")  # the last page: stays
        await settle(pilot)
        assert view.records[-1].sequence == 119
        await pilot.press("p")
        await settle(pilot)
        assert [r.sequence for r in view.records] == list(range(51, 101))
        await pilot.press("g")
        await settle(pilot)
        assert view.records[0].sequence == 1


async def test_raw_log_dims_what_the_snapshot_in_force_at_the_cursor_covers(tmp_path: Path) -> None:
    path = store_copy("agent_run", tmp_path)
    app = make_app(str(path), session=AGENT_RUN_ROOT, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        floors = {}
        for index, record in enumerate(view.records):
            view.cursor = index
            floors[record.sequence] = view.covered_floor()
        # v1 was made before #11's step, v2 before #15's, v3 before #21's: by time.
        assert floors[9] == 0 and floors[10] == 0 and floors[11] == 9
        assert floors[14] == 9 and floors[15] == 11 and floors[20] == 11 and floors[21] == 17
        view.scroll_to(y=0, animate=False)
        await settle(pilot)

        def first_dim() -> bool:  # the "#1 " of the top line: bold, and dim only when covered
            style = list(view.render_line(0))[0].style
            return bool(style and style.dim)

        view.cursor = 20  # #21: v3 in force, #1–#17 covered
        assert first_dim()
        view.cursor = 0  # #1: nothing in force yet
        assert not first_dim()
        texts = "\n".join(strip.text for strip in view.rendered_lines())
        assert "#12 system" in texts and texts.count("[not replayed]") == 6


async def test_x_inside_the_context_view_travels_to_that_message(tmp_path: Path) -> None:
    path = store_copy("agent_run", tmp_path)
    app = make_app(str(path), session=AGENT_RUN_ROOT, seq=21, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        view = await _open(pilot)
        assert [r.sequence for r in view.records] == [20]  # v3 + #20
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen) and app.screen.at == 20
        assert "Snapshot v2 in force" in _head(app)


def test_export_name_keeps_only_safe_characters() -> None:
    assert export_name("../../etc/passwd\x1b[31m", 3) == "zett-context-etcpasswd31m-at-3.json"
    assert export_name("////", 1) == "zett-context-session-at-1.json"


async def test_hostile_text_stays_literal_in_the_context_view(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Markup, ANSI and OSC in the messages and in a summary never reach the terminal."""
    import sqlite3

    from tests.ui.helpers import HOSTILE, write_hostile_store

    monkeypatch.chdir(tmp_path)
    path = tmp_path / "hostile.sqlite3"
    await write_hostile_store(path)
    summary = json.dumps([{"kind": 5, "data": {"content": " | ".join(HOSTILE)}}])
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO session_snapshots VALUES ('s1', 'hostile', 1, 1, ?, '2000-01-01 00:00:00', "
            "'2000-01-01 00:00:00')",
            (summary,),
        )
    connection.close()
    app = make_app(str(path), session="hostile", seq=3, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _open(pilot)
        assert [r.sequence for r in view.records] == [2]
        lines = "\n".join(strip.text for strip in view.rendered_lines())
        assert "[bold red]styled?[/]" in lines and "\x1b" not in lines and "\x9b" not in lines
        assert "\x1b" not in _head(app) and "Snapshot v1 in force" in _head(app)
        assert "\x1b" not in app.export_screenshot()
        await pilot.press("w")
        await settle(pilot)
        exported = json.loads((tmp_path / export_name("hostile", 3)).read_text(encoding="utf-8"))
        assert exported[0]["data"]["content"] == " | ".join(HOSTILE)  # the stored text, exactly
