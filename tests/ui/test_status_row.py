"""The status row while the side index builds: the page status keeps its range and total."""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget

from tests.index.helpers import PARENT, copy_fixture
from tests.ui.search_helpers import built
from zett_browser.app import make_app
from zett_browser.screens.indexing import IndexLine, show_build_progress
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.status import JumpField, PageState, StatusLine, status_text


@dataclass
class Progress:
    """A build's progress as the index service reports it."""

    done: int = 7_000
    total: int = 100_000
    rate: float = 1_300.0
    eta: float | None = 70.0
    finished: bool = False


@dataclass
class Record:
    sequence: int


class Row(App[None]):
    CSS_PATH = "../../zett_browser/app.tcss"

    def compose(self) -> ComposeResult:
        with Horizontal(id="status-row"):
            yield StatusLine(id="page-status")
            yield IndexLine(id="index-status")
            yield JumpField(id="jump")


@pytest.mark.parametrize("width", [55, 67, 80, 120])  # the Raw Log's row at 80 and 160 columns, wider
@pytest.mark.parametrize(("first", "last", "count"), [(51, 100, 100_000), (999_951, 1_000_000, 1_000_000)])
async def test_the_page_status_keeps_its_figures_while_the_index_builds(
    width: int, first: int, last: int, count: int
) -> None:
    """Issue 29: ``RAW LOG   #51–100 of      indexing 7% · 70 s left`` (the total was cut off)."""
    app = Row()
    async with app.run_test(size=(width, 5)) as pilot:
        status = app.query_one(StatusLine)
        state = PageState(records=[Record(first), Record(last)], count=count, snapshots=[])  # type: ignore[list-item]
        status.show_state(state)
        show_build_progress(app.query_one("#status-row", Horizontal), Progress())
        await pilot.pause()
        shown = "".join(segment.text for segment in status.render_line(0))
        whole, compact = status_text(state).plain, status_text(state, compact=True).plain
        assert whole in shown or compact in shown, (shown, width)
        assert f"of {count:,}" in shown
        line, jump = app.query_one(IndexLine), app.query_one(JumpField)
        progress = "".join(segment.text for segment in line.render_line(0)) if line.display else jump.placeholder
        assert "7%" in progress, "the progress shows beside it, or in the idle jump field"


@pytest.mark.parametrize("width", [42, 47, 51, 56])  # the Raw Log's row at 100, 110, 120, 80 columns
@pytest.mark.parametrize(("first", "last", "count"), [(11_999, 12_000, 12_000), (999_951, 1_000_000, 1_000_000)])
async def test_a_narrow_row_keeps_the_range_and_the_total(width: int, first: int, last: int, count: int) -> None:
    """Even where the compact form (``LOG #999,951–1,000,000 of 1,000,000 ◆499``) does not fit,
    the range and the total do, with or without a build beside them."""
    app = Row()
    async with app.run_test(size=(width, 5)) as pilot:
        status = app.query_one(StatusLine)
        state = PageState(records=[Record(first), Record(last)], count=count, snapshots=[object()] * 499)  # type: ignore[list-item]
        for building in (False, True):
            status.show_state(state)
            if building:
                show_build_progress(app.query_one("#status-row", Horizontal), Progress())
            await pilot.pause()
            shown = rendered_line(status).replace(",", "")
            assert f"#{first}–{last}" in shown and (f"of {count}" in shown or f"/{count}" in shown), (shown, width)


def long_session(tmp_path: Path, count: int) -> Path:
    """agent_run as zett-agent wrote it, its root's Raw Log grown to ``count`` messages
    (copies of its first message: the page status's range and total get long)."""
    store = copy_fixture("agent_run", tmp_path / "store")
    db = sqlite3.connect(store)
    try:
        columns = [row[1] for row in db.execute("PRAGMA table_info(raw_messages)")]
        first = db.execute(
            "SELECT * FROM raw_messages WHERE session_id = ? ORDER BY sequence LIMIT 1", (PARENT,)
        ).fetchone()
        assert first is not None
        last = db.execute("SELECT max(sequence) FROM raw_messages WHERE session_id = ?", (PARENT,)).fetchone()[0]
        rows = []
        for sequence in range(last + 1, count + 1):
            row = dict(zip(columns, first, strict=True))
            row["id"], row["sequence"] = str(uuid.UUID(int=sequence)), sequence
            rows.append(tuple(row.values()))
        with db:
            db.executemany(f"INSERT INTO raw_messages VALUES ({','.join('?' * len(columns))})", rows)
    finally:
        db.close()
    return store


@pytest.mark.parametrize("width", [80, 100, 120, 160])
async def test_a_page_turn_during_a_build_keeps_the_total_at_once(tmp_path: Path, width: int) -> None:
    """Issue 29: ``G`` during a first build showed ``LOG #99,951–100,000 of      index 5%`` until
    the progress was next shown (~450 ms in a real terminal, while the build waited for the
    keys to pause): the progress kept the room the shorter ``#1–50`` status had left it."""
    store = long_session(tmp_path, 12_000)
    app = make_app(str(store), index=True, index_dir=tmp_path / "index", poll_interval=0, session=PARENT, page_size=2)
    async with app.run_test(size=(width, 24)) as pilot:
        main = await built(pilot)
        status = main.query_one(StatusLine)
        assert "#1–2 of 12,000" in rendered_line(status)
        # A build's progress as the sync shows it, and no newer one while the keys come.
        show_build_progress(main.query_one("#status-row", Horizontal), Progress(eta=1_234.0))
        await pilot.pause()
        assert "of 12,000" in rendered_line(status)
        main.query_one(RawLogView).focus()
        await pilot.press("G")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        shown = rendered_line(status)
        assert "#11,999–12,000 of 12,000" in shown or "#11,999–12,000/12,000" in shown, shown
        line, jump = main.query_one(IndexLine), main.query_one(JumpField)
        progress = rendered_line(line) if line.display else jump.placeholder
        assert "7%" in progress, "the progress stays, fitted to the room left"


def rendered_line(widget: Widget) -> str:
    return "".join(segment.text for segment in widget.render_line(0))
