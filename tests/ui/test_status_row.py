"""The status row while the side index builds: the page status keeps its range and total."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal

from zett_browser.screens.indexing import IndexLine, show_build_progress
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
