"""Provides the walk over a session (and its delegated sessions) that every format writes.

The walk reads the Raw Log a keyset page at a time (:mod:`zett_browser.storage.export_rows`)
and hands each stored row to a :class:`Writer`, which writes it out at once: memory holds
one page per open session, whatever the session's length.

With ``subtree``, a delegated session is written where it was delegated: right after the
assistant message whose ``task`` or background ``task_start`` call created it (the link is
the ``session_id`` the result names), in the order of the calls. A background child is
so placed after the call that started it, not after the parent's last row. Delegated sessions no call links to (another
runtime, a damaged row, a task still running) follow the parent's last message, in the
order they were created. A parent cycle is written once. The order is planned first
(:mod:`.plan`, which also sums the totals Markdown and HTML open with), then followed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..model.usage import Totals
from ..storage import SQLSessionStorage
from ..storage.export_rows import after_row, snapshot_of, stored_raw_page, stored_snapshots
from ..storage.keyset import Position
from ..storage.quickexport import EncodedPage, QuickExport
from ..storage.reader import Reader
from .plan import PAGE, ExportError, Planner, PlanNode, task_call_ids
from .source import Source, source_of
from .story import SummaryNote, anchor, meta_of, note_of

#: Messages written between two yields to the event loop: the app exports on its own loop,
#: and a page of 200 rendered at once would hold it for ~80 ms (keys must answer in 100).
YIELD_EVERY = 16


@dataclass(frozen=True, slots=True)
class SessionHead:
    """A session as an export opens it: its stored row, snapshots and place in the subtree."""

    row: Mapping[str, Any]
    snapshots: list[dict[str, Any]]
    depth: int = 0
    #: The ``task`` call that delegated it, when a call links to it.
    call_id: str | None = None
    #: What the tree shows for an untitled delegated session (the parent's task request).
    label: str | None = None
    #: The boundary of the latest readable snapshot (messages up to it are compacted).
    compacted_through: int = 0
    #: Each snapshot version's summary, to place at its boundary (Markdown and HTML).
    notes: tuple[SummaryNote, ...] = ()
    #: The session's stable anchor (``session-<id>``).
    anchor: str = ""
    #: Its own totals, and (first session only) the subtree's; None when not summed (JSON).
    own: Totals | None = None
    subtree: Totals | None = None
    #: The plan (first session only): the table of contents of a subtree export.
    plan: PlanNode | None = None


class Writer(Protocol):
    """A format: called in document order, writes as it goes."""

    def start_session(self, head: SessionHead) -> None: ...

    def message(self, row: Mapping[str, Any], head: SessionHead) -> None: ...

    def end_session(self, head: SessionHead) -> None: ...


@runtime_checkable
class TextWriter(Writer, Protocol):
    """A format that also takes rows as their JSON text already written (the JSON export)."""

    def message_texts(self, texts: list[str], head: SessionHead) -> None:
        """Rows in order, as :meth:`Writer.message` would write them one by one."""
        ...


@dataclass
class WalkStats:
    """What a walk wrote."""

    sessions: int = 0
    messages: int = 0
    seen: set[str] = field(default_factory=set)
    #: Messages read through the stdlib driver (``quick``), and of those handed over as
    #: the JSON text SQLite wrote (``encoded``).
    quick: int = 0
    encoded: int = 0


def _boundary(snapshots: list[dict[str, Any]]) -> int:
    through = [row["compacted_through_sequence"] for row in snapshots]
    numbers = [value for value in through if isinstance(value, int) and not isinstance(value, bool)]
    return max(numbers, default=0)


class Walk:
    """One export's walk over a store (read-only).

    ``summaries``: read each version's summary and origin, ``totals``: sum the totals first
    (Markdown and HTML; not with ``--no-usage``); JSON writes the stored rows only.
    ``quick``: a SQLite store's pages are read through the stdlib driver
    (:mod:`zett_browser.storage.quickexport`: the same values, without SQLAlchemy's cost);
    ``encoded`` too (JSON without redaction, a :class:`TextWriter`): its rows are handed
    over as the JSON text SQLite writes wherever that is exact.
    """

    def __init__(
        self,
        storage: SQLSessionStorage | Source,
        writer: Writer,
        *,
        subtree: bool,
        summaries: bool = False,
        totals: bool = False,
        quick: bool = True,
        encoded: bool = False,
    ) -> None:
        self.source = source_of(storage)
        self.writer = writer
        self.subtree = subtree
        self.summaries = summaries
        self.totals = totals
        #: The writer taking rows as JSON text, when asked for and able to.
        self._texts = writer if quick and encoded and isinstance(writer, TextWriter) else None
        self.quick = quick
        self.stats = WalkStats()
        #: Per SQLite file read: its stdlib reader (open for the walk), or None.
        self._readers: dict[Path, QuickExport | None] = {}
        self._open = contextlib.ExitStack()

    async def run(self, session_id: str) -> WalkStats:
        """Write ``session_id`` (and, with ``subtree``, every session it delegated to)."""
        plan = await Planner(self.source, subtree=self.subtree, totals=self.totals).plan(session_id)
        with self._open:
            await self._session(plan, root=True)
        return self.stats

    def _quick(self, reader: Reader) -> QuickExport | None:
        """The stdlib reader of ``reader``'s store: SQLite files whose ``sequence`` is NOT NULL."""
        path = reader.path
        if not self.quick or path is None or reader.dialect != "sqlite":
            return None
        if path not in self._readers:
            nullable = reader.may_be_null("raw_messages", "sequence")
            self._readers[path] = None if nullable else self._open.enter_context(QuickExport(path))
        return self._readers[path]

    async def _page(
        self, reader: Reader, node: PlanNode, after: Position | None
    ) -> Sequence[Mapping[str, Any]] | EncodedPage:
        quick = self._quick(reader)
        rows: Sequence[Mapping[str, Any]] | EncodedPage | None = None
        if quick is not None and self._texts is not None:
            rows = quick.encoded_page(node.session_id, after, PAGE, delegations=bool(node.by_call))
            self.stats.encoded += len(rows) if rows is not None else 0
        if quick is not None and rows is None:
            rows = quick.stored_page(node.session_id, after, PAGE)
        if rows is not None:
            self.stats.quick += len(rows)
            return rows
        return await stored_raw_page(reader, node.session_id, after, PAGE)

    async def _head(self, node: PlanNode, *, root: bool) -> SessionHead:
        snapshots = await stored_snapshots(await self.source.reader_for(node.session_id), node.session_id)
        notes: tuple[SummaryNote, ...] = ()
        if self.summaries and snapshots:
            infos = [snapshot_of(row) for row in snapshots]
            metas = [meta_of(info, row) for info, row in zip(infos, snapshots, strict=True)]
            origins = await self.source.browse.snapshot_origins(node.session_id, metas)
            notes = tuple(note_of(info, origins.get(info.version)) for info in infos)
        own = node.own_totals() if self.totals else None
        subtree = node.subtree_totals() if self.totals and root and self.subtree else None
        return SessionHead(
            node.row,
            snapshots,
            node.depth,
            node.call_id,
            node.label,
            _boundary(snapshots),
            notes,
            anchor(node.session_id),
            own,
            subtree,
            node if root else None,
        )

    async def _stored(self, page: Sequence[Mapping[str, Any]], node: PlanNode, head: SessionHead) -> None:
        """Hand a page of stored rows to the writer one by one, a delegated session after its call."""
        for number, message in enumerate(page, 1):
            self.writer.message(message, head)
            self.stats.messages += 1
            if number % YIELD_EVERY == 0:
                await asyncio.sleep(0)
            for call in task_call_ids(message) if node.by_call else ():
                child = node.by_call.get(call)
                if child is not None and child.session_id not in self.stats.seen:
                    await self._session(child)

    async def _encoded(self, page: EncodedPage, node: PlanNode, head: SessionHead) -> None:
        """Write a page of rows SQLite encoded: in runs, a delegated session after its call."""
        assert self._texts is not None  # only such a walk reads encoded pages
        run: list[str] = []
        for row in page:
            run.append(row.json)
            self.stats.messages += 1
            for call in task_call_ids(row) if node.by_call and row.delegating is not None else ():
                child = node.by_call.get(call)
                if child is not None and child.session_id not in self.stats.seen:
                    self._texts.message_texts(run, head)
                    run = []
                    await self._session(child)
        self._texts.message_texts(run, head)
        await asyncio.sleep(0)

    async def _session(self, node: PlanNode, *, root: bool = False) -> None:
        session_id = node.session_id
        self.stats.seen.add(session_id)
        self.stats.sessions += 1
        head = await self._head(node, root=root)
        self.writer.start_session(head)
        after = None
        reader = await self.source.reader_for(session_id)
        while True:
            page = await self._page(reader, node, after)
            if isinstance(page, EncodedPage):
                await self._encoded(page, node, head)
            else:
                await self._stored(page, node, head)
            if len(page) < PAGE:
                break
            after = page[-1].position if isinstance(page, EncodedPage) else after_row(page[-1])
        for child in node.created:
            if child.session_id not in self.stats.seen:
                await self._session(child)
        self.writer.end_session(head)


__all__ = ["ExportError", "SessionHead", "TextWriter", "Walk", "WalkStats", "Writer"]
