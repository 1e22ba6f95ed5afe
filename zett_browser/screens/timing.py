"""Provides the timing view of one session (``T``): steps as bars, children, stalls, a page at a time.

The screen reads one page of the Raw Log's timing columns with a keyset query (never the
messages), plus a few rows on each side so a step cut by the page edge still gets its
tool time and the gap before the page's first step is measured. Reads go through the
main screen's :class:`~.reads.ReadHelper` (the one place a failed read becomes a
notice) in a worker, so keys stay answered while a page of a 100,000-message session is
read. It dismisses with what the user chose: a sequence to show, or a child to open.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Header

from ..keymap import bindings
from ..model import SessionNode
from ..model.store import BrowsingStore
from ..model.timing import ChildSpan, TimingRow
from ..views.labels import node_name
from ..views.timing import ASSISTANT, layout
from ..widgets.footer import KeyFooter
from ..widgets.line import TextLine
from ..widgets.safe import one_line
from ..widgets.timing import TimingView, legend
from .reads import ReadHelper

#: Rows read per page, and rows read on each side for the steps cut by a page edge.
PAGE = 500
CONTEXT = 64


def _times(span: ChildSpan) -> tuple[datetime, datetime]:
    moment = span.created_at or datetime(1970, 1, 1, tzinfo=UTC)
    return moment, span.updated_at or moment


class Chosen:
    """What the timing screen was closed with: a sequence to show or a session to open."""

    def __init__(self, *, sequence: int | None = None, session_id: str | None = None) -> None:
        self.sequence = sequence
        self.session_id = session_id


class TimingScreen(Screen["Chosen | None"]):
    """The timing of one session, one page of steps at a time."""

    BINDINGS = bindings("timing")

    def __init__(self, store: BrowsingStore, node: SessionNode, reader: ReadHelper, *, page: int = PAGE) -> None:
        super().__init__()
        self.store = store
        self.node = node
        self._reader = reader
        self.page_rows = page
        #: The shown page's first and last row ids, and whether rows lie beyond them.
        self.first_id: str | None = None
        self.last_id: str | None = None
        self.more_before = False
        self.more_after = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield TextLine(id="timing-legend")
        yield TextLine(id="timing-status")
        yield TimingView(id="timing-view")
        yield KeyFooter()

    def on_mount(self) -> None:
        label = node_name(self.node)  # the one labelling rule
        self.title = f"Timing · {one_line(label, 60)}"
        named_by_id = self.node.session_id.startswith(label.rstrip("…"))  # no title: not the id twice
        self.sub_title = "" if named_by_id else one_line(self.node.session_id, 40)
        self.query_one("#timing-legend", TextLine).show(legend())
        self.query_one(TimingView).focus()
        self.load("first")

    async def _read(self, where: str) -> tuple[Any, ...]:
        store, session = self.store, self.node.session_id
        if where == "next" and self.last_id is not None:
            rows = await store.timing_page(session, after_id=self.last_id, limit=self.page_rows)
        elif where == "prev" and self.first_id is not None:
            rows = await store.timing_page(session, before_id=self.first_id, limit=self.page_rows)
        elif where == "last":
            rows = await store.timing_page(session, from_end=True, limit=self.page_rows)
        else:
            rows = await store.timing_page(session, limit=self.page_rows)
        if not rows:
            return [], [], False, [], {}
        before = await store.timing_page(session, before_id=rows[0].id, limit=CONTEXT)
        after = await store.timing_page(session, after_id=rows[-1].id, limit=CONTEXT)
        # The page runs on to the next step: its last step's tool results belong to it.
        cut = next((i for i, row in enumerate(after) if row.kind == ASSISTANT), len(after))
        rows = rows + after[:cut]
        # A page that starts inside a step leaves those rows to the page before.
        if before and rows[0].kind != ASSISTANT:
            lead = next((i for i, row in enumerate(rows) if row.kind == ASSISTANT), len(rows))
            before, rows = before + rows[:lead], rows[lead:] or rows
        since = rows[0].started_at if before else None
        beyond = after[cut:]
        # More rows lie beyond when a step follows, or when its tool results filled the look-ahead.
        more = bool(beyond) or len(after) == CONTEXT
        until = beyond[0].started_at if beyond else (rows[-1].completed_at if more else None)
        children = await store.child_spans(session, since=since, until=until)
        return before, rows, more, children, await self._labels(children)

    async def _labels(self, children: list[ChildSpan]) -> dict[str, str]:
        """What the parent asked each untitled child (decoration: a failure gives none)."""
        nodes = [
            SessionNode(span.session_id, self.node.session_id, 0, span.title, span.agent_name, *_times(span), 0, 0, 0)
            for span in children
            if not span.title
        ]
        if not nodes:
            return {}
        return await self._reader.quietly(self.store.child_labels(self.node.session_id, nodes), {}, "child labels")

    @work(exclusive=True, group="timing", exit_on_error=False)
    async def load(self, where: str) -> None:
        """Read and show a page: ``first``, ``last``, ``next`` or ``prev``."""
        result = await self._reader.fetch(self._read(where), "Could not read the session's timing")
        if not isinstance(result, tuple):
            return
        before, rows, more, children, labels = result
        view = self.query_one(TimingView)
        if not rows:
            view.show_lines([], empty_text="This session has no messages.")
            self._status(rows, 0)
            return
        self.first_id, self.last_id = rows[0].id, rows[-1].id
        self.more_before, self.more_after = bool(before), more
        lines = layout(rows, children, context=before)
        view.show_lines(lines, labels, empty_text="No assistant steps on this page.")
        self._status(rows, len(children))

    def _status(self, rows: list[TimingRow], children: int) -> None:
        text = Text()
        if rows:
            first = next((row.sequence for row in rows if row.sequence is not None), None)
            last = next((row.sequence for row in reversed(rows) if row.sequence is not None), None)
            steps = sum(1 for row in rows if row.kind == ASSISTANT)
            text.append(f"messages #{first}–#{last} · {steps} steps · {children} delegated")
            text.append("  ")
            if self.more_before:
                text.append("p: earlier  ", style="dim")
            if self.more_after:
                text.append("n: later", style="dim")
        self.query_one("#timing-status", TextLine).show(text)

    def action_page(self, where: str) -> None:
        if (where == "next" and not self.more_after) or (where == "prev" and not self.more_before):
            self.notify("No more steps that way", markup=False, timeout=2)
            return
        self.load(where)

    def action_close(self) -> None:
        self.dismiss(None)

    def on_timing_view_step_chosen(self, event: TimingView.StepChosen) -> None:
        self.dismiss(Chosen(sequence=event.sequence))

    def on_timing_view_child_chosen(self, event: TimingView.ChildChosen) -> None:
        self.dismiss(Chosen(session_id=event.session_id))
