"""Provides the time-travel view: the model's context when it produced message N.

Opened with ``x`` on a Raw Log message. The head says which snapshot was in force, the
size per category and the step's measured ``input_tokens`` (counted in the background,
a page of rows at a time); below, the context itself in the Raw Log's own virtual view,
one page at a time: the summary first, then the rows the model got back. ``w`` writes
the context as zett-agent message envelopes (exactly as stored) to a JSON file (in a
served page, ``zett-browser serve``, it writes nothing and says why).
Everything is read through :mod:`zett_browser.views.time_travel` and the store's protocol.
"""

from __future__ import annotations

import asyncio
import re
from functools import partial
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.screen import Screen

from ..keymap import bindings
from ..model.context import ContextRow
from ..model.store import BrowsingStore
from ..views import time_travel as context
from ..views.formatting import full_text, kind_name
from ..views.time_travel import ContextPoint
from ..widgets.context import ContextHead, offered_items
from ..widgets.footer import KeyFooter
from ..widgets.rawlog import RawLogView
from ..widgets.safe import clean, one_line
from ..widgets.status import summary_item
from .detail import MessageDetail
from .reads import Failed, ReadHelper

#: Rows decoded per read when the whole context is walked (size, export): about 25 ms of
#: decoding, so keys stay answered while a context of 100,000 rows is counted.
STEP = 100


def _write(directory: Path, name: str, items: list[object]) -> Path:
    """Serialise and write the export to a new file (in a thread: a big context is megabytes).

    An existing file (or a link) of that name is never replaced: the name is numbered past
    it (``…-at-N-2.json``), and the file is created exclusively.
    """
    text = context.dump(items) + "\n"
    stem = name.removesuffix(".json")
    for number in range(1, 1000):
        target = directory / (name if number == 1 else f"{stem}-{number}.json")
        try:
            with target.open("x", encoding="utf-8") as file:
                file.write(text)
        except FileExistsError:
            continue
        return target
    raise FileExistsError(f"{directory / name} and 998 numbered names exist already")


def export_name(session_id: str, at: int) -> str:
    """``zett-context-<session>-at-<N>.json``: the id's letters, digits and dashes only."""
    safe = re.sub(r"[^A-Za-z0-9-]", "", session_id)[:36] or "session"
    return f"zett-context-{safe}-at-{at}.json"


class ContextScreen(Screen[None]):
    """The context of one message, a page at a time, with its size and the export."""

    BINDINGS = bindings("context")

    DEFAULT_CSS = """
    ContextScreen #context-log { height: 1fr; }
    """

    def __init__(
        self,
        store: BrowsingStore,
        session_id: str,
        at: int,
        *,
        reader: ReadHelper,
        page_size: int = 100,
        export_dir: Path | None = None,
        no_writes: str | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        #: The main screen's read helper (the one place a failed read becomes a notice).
        self.reader = reader
        self.session_id = session_id
        self.at = at
        self.page_size = page_size
        self.export_dir = export_dir
        #: Why ``w`` writes nothing (``zett-browser serve``), or None.
        self.no_writes = no_writes
        self.point: ContextPoint | None = None
        #: Where each shown page started (``after`` sequence and row id), for ``p``.
        self._starts: list[tuple[int, str | None]] = []
        self._shown: list[ContextRow] = []

    def compose(self) -> ComposeResult:
        yield ContextHead(id="context-head")
        yield RawLogView(id="context-log")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = f"Context at #{self.at}"
        self.sub_title = clean(self.session_id)
        self.query_one(RawLogView).show_page([], empty_text="Reading the context…")
        self.query_one(RawLogView).focus()
        self.load()

    @work(exclusive=True, group="context", exit_on_error=False)
    async def load(self) -> None:
        point = await self.reader.attempt(context.locate(self.store, self.session_id, self.at))
        if isinstance(point, Failed):  # worded in place of the context
            self.query_one(RawLogView).show_page(
                [], empty_text=f"The context could not be read: {one_line(point.error, 300)}"
            )
            return
        self.point = point
        head = self.query_one(ContextHead)
        head.show(self.point, None)
        await self._show_page(self.point.floor, None)
        self.count(self.point)

    @work(group="count", exit_on_error=False)
    async def count(self, point: ContextPoint) -> None:
        head = self.query_one(ContextHead)
        size = await self.reader.fetch(
            context.estimate(self.store, point, progress=lambda done: head.show(point, None, progress=done), page=STEP),
            "Could not size the context",
        )
        if isinstance(size, Failed):
            return
        head.show(point, size)

    async def _read(self, after: int, after_id: str | None) -> list[ContextRow]:
        """One page of the context's rows (the rows left out are skipped, pages stay full)."""
        point = self.point
        assert point is not None
        page: list[ContextRow] = []
        pages = context.context_pages(
            self.store, point, page=self.page_size, start_after=after, start_after_id=after_id
        )
        async for rows in pages:
            page.extend(rows)
            if len(page) >= self.page_size:
                break
        return page[: self.page_size]

    async def _show_page(self, after: int, after_id: str | None) -> bool:
        point = self.point
        if point is None:
            return False
        rows = await self.reader.fetch(self._read(after, after_id), "Could not read the context")
        if isinstance(rows, Failed):
            return False
        first = after <= point.floor and after_id is None
        if not rows and not first:
            return False
        self._starts.append((after, after_id))
        self._shown = rows
        preface = offered_items(point.offered) if first else []
        if first and point.snapshot is not None:
            preface += summary_item(point.snapshot)
        self.query_one(RawLogView).show_page(
            [row.record for row in rows],
            empty_text="No Raw Log rows: the context is the summary alone."
            if point.snapshot
            else "Empty: the model had no messages before this one.",
            preface=preface,
        )
        return True

    @work(exclusive=True, group="context", exit_on_error=False)
    async def action_page(self, where: str) -> None:
        if self.point is None:
            return
        if where == "first":
            self._starts.clear()
            await self._show_page(self.point.floor, None)
        elif where == "next" and self._shown and len(self._shown) >= self.page_size:
            last = self._shown[-1].record
            await self._show_page(last.sequence, last.id)
        elif where == "prev" and len(self._starts) > 1:
            self._starts.pop()
            after, after_id = self._starts.pop()
            await self._show_page(after, after_id)

    @work(group="export", exit_on_error=False)
    async def action_write_json(self) -> None:
        if self.no_writes is not None:
            self.notify(self.no_writes, severity="warning", markup=False, timeout=8)
            return
        point = self.point
        if point is None:
            return
        directory, name = self.export_dir or Path.cwd(), export_name(self.session_id, point.at)

        async def export() -> Path:
            items = [item async for item in context.envelopes(self.store, point, page=STEP)]
            return await asyncio.to_thread(_write, directory, name, items)

        target = await self.reader.fetch(export(), "Not written")  # ContextError, OSError, a failed read
        if isinstance(target, Failed):
            return
        self.notify(f"Wrote the context to {clean(target)}", markup=False, timeout=8)

    def action_close(self) -> None:
        self.dismiss()

    def on_raw_log_view_record_opened(self, event: RawLogView.RecordOpened) -> None:
        record = event.record
        self.app.push_screen(MessageDetail(f"#{record.sequence} {kind_name(record)}", partial(full_text, record)))

    def on_raw_log_view_context_requested(self, event: RawLogView.ContextRequested) -> None:
        """``x`` here too: travel to the context of that message."""
        event.stop()
        self.app.switch_screen(
            ContextScreen(
                self.store,
                self.session_id,
                event.record.sequence,
                reader=self.reader,
                page_size=self.page_size,
                export_dir=self.export_dir,
                no_writes=self.no_writes,
            )
        )
