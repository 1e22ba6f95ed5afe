"""Provides the open session's controller: opening, paging, jumping, the back history.

:class:`SessionPane` owns what the Raw Log pane shows (:class:`~.watch.OpenSession`), the
follow mode and the count of unseen messages. It asks :mod:`zett_browser.views.paging` which
window to read, reads it through the screen's :class:`~.reads.ReadHelper` and hands records to
the widgets it was built with. Its reads run in the screen's ``session`` worker group, so a
stale request is cancelled by the next one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from textual.worker import Worker

from ..model import RawLogBounds, RawMessageRecord, SessionNode, SnapshotInfo
from ..model.compaction import SnapshotMeta
from ..views import paging
from ..views.paging import PageRequest, Place
from ..widgets.inspector import Inspector
from ..widgets.rawlog import RawLogView
from ..widgets.safe import clean, one_line
from ..widgets.session_tree import SessionTree
from ..widgets.status import Breadcrumb, PageState, StatusLine, session_label, summary_item
from .indexing import refit_build_progress
from .reads import Failed, Services, read_window
from .session_reads import MODEL_TAIL_COUNTED, count_model_tail, read_session
from .watch import OpenSession, _versions_after_change


@dataclasses.dataclass(frozen=True)
class PaneWidgets:
    """The widgets the open session is shown in."""

    view: RawLogView
    inspector: Inspector
    status: StatusLine
    breadcrumb: Breadcrumb
    tree: SessionTree


class SessionPane:
    """The open session: what is read for it and where the reader is.

    Args:
        services: The store, the read helper, workers and notices.
        widgets: The panes the session shows in.
        page_size: Raw Log messages per page.
        follow: Start keeping the Raw Log at the newest message.
        set_title: Shows the open session's full id.
        opened: Called once a session's panes show (``session_id``, latest snapshot).
        page_shown: Called with each page's records once shown (the delegation cards).
        first_page: Called once, after the first page is shown.
    """

    def __init__(
        self,
        services: Services,
        widgets: PaneWidgets,
        *,
        page_size: int,
        follow: bool,
        set_title: Callable[[str], object],
        opened: Callable[[str, SnapshotInfo | None], object],
        page_shown: Callable[[list[RawMessageRecord]], object],
        first_page: Callable[[], object],
    ) -> None:
        self._store = services.store
        self._reader = services.reader
        self._w = widgets
        self._run = services.run_worker
        self._notify = services.notify
        self._size = page_size
        self._set_title = set_title
        self._opened = opened
        self._page_shown = page_shown
        self._first_page = first_page
        self.open: OpenSession | None = None
        self.history: tuple[Place, ...] = ()
        #: Keep the Raw Log at the newest message while the store grows.
        self.follow = follow
        #: Messages appended after the shown page while the user looks elsewhere.
        self.unseen = 0
        #: The first page has been shown.
        self.started = False

    def _session_worker(self, name: str, call: Callable[[], Any]) -> Worker[None]:
        """Run ``call`` in the ``session`` group; keys typed at the Raw Log meanwhile wait
        for it and run after it, once (``:1120 enter x`` means #1120's context)."""
        view = self._w.view
        token = view.expect_page()

        async def run() -> None:
            try:
                await call()
            finally:
                view.page_done(token)

        return self._run(run, name=name, group="session", exclusive=True, description=name, exit_on_error=False)

    # ---------------------------------------------------------------- opening a session

    def open_session(
        self,
        session_id: str,
        sequence: int | None,
        *,
        push: bool = False,
        place: Place | None = None,
        focus: bool = False,
    ) -> Worker[None]:
        """Open a session at ``sequence`` (or where ``place`` says the reader was).

        ``push`` remembers the reader's place in the session left, for ``b``. ``focus``
        gives the Raw Log the keys now (``--seq``, a search hit, ``o``): typed before the
        page shows, they wait for it.
        """
        if focus:
            self._w.view.focus()
        return self._session_worker(
            "open_session_by_id", partial(self._open_session, session_id, sequence, push=push, place=place)
        )

    async def _open_session(self, session_id: str, sequence: int | None, *, push: bool, place: Place | None) -> None:
        read = read_session(self._store, session_id, self.child_labels)
        result = await self._reader.fetch(read, "Could not open the session")
        if isinstance(result, Failed):
            return
        node, bounds, snapshots, ancestors, latest = result
        if node is None:
            self._notify(f"No session {clean(session_id)} in this store", severity="error", markup=False)
            return
        if push and self.open is not None:
            self.history = paging.push_place(self.history, self.place())
        self.open = OpenSession(
            node=node,
            count=bounds.count,
            first=bounds.first_sequence or 0,
            last=bounds.last_sequence or 0,
            snapshots=snapshots,
            model_view=place.model_view if place is not None else False,
            latest=latest,
        )
        self._w.breadcrumb.show_session(ancestors, node)
        title = f"{session_label(node, 30)} · {clean(node.session_id)}"  # the full id: --session needs it
        self._set_title(title)
        self._w.inspector.show(
            snapshots,
            latest=latest,
            message_count=bounds.count,
            loader=partial(self._store.snapshot_version, session_id),
        )
        self._opened(session_id, latest)
        self._w.tree.reveal(ancestors, node)
        if place is not None and place.page_after is not None:
            request = PageRequest(after=place.page_after, select=place.cursor)
        elif sequence is not None:
            request = paging.jump_page(sequence, self._size, bounds.first_sequence or 0, bounds.last_sequence or 0)
        else:
            request = paging.first_page()
        await self.load_page(request, upper=request.select is not None)
        self._count_tail(session_id, paging.model_floor(snapshots), bounds.last_sequence or 0)

    def _count_tail(self, session_id: str, floor: int, last: int) -> None:
        """Count the messages the model gets after the latest boundary once the page shows
        (it needs the storage, which a cold start imports after the first frame)."""
        if not floor or last - floor > MODEL_TAIL_COUNTED:
            return

        async def count() -> None:
            tail = await self._reader.fetch(count_model_tail(self._store, session_id, floor, last))
            state = self.open
            if isinstance(tail, Failed) or tail is None or state is None or state.node.session_id != session_id:
                return
            self._w.inspector.show_tail(tail)

        self._run(count, name="count_model_tail", group="model-tail", exclusive=True, exit_on_error=False)

    async def child_labels(self, parent_id: str | None, nodes: Sequence[SessionNode]) -> dict[str, str]:
        """Labels of untitled children (decoration: a failure gives none, the short id shows)."""
        return await self._reader.quietly(self._store.child_labels(parent_id, nodes), {}, "child labels")

    def place(self) -> Place:
        """Where the reader is now: session, page, cursor and view."""
        assert self.open is not None
        view = self._w.view
        return Place(
            self.open.node.session_id,
            page_after=view.records[0].sequence - 1 if view.records else None,
            cursor=view.current.sequence if view.current is not None else None,
            model_view=self.open.model_view,
        )

    # ---------------------------------------------------------------- one page

    async def load_page(self, request: PageRequest, *, upper: bool = False, summary_first: bool = False) -> None:
        """Read the window ``request`` names and show it (``upper``: jumped to, the cursor's
        message shows a quarter down the view; ``summary_first``: the model view's summary shows)."""
        state = self.open
        if state is None:
            return
        size = self._size
        floor = paging.model_floor(state.snapshots)
        if state.model_view:
            request = paging.clamp_to_floor(request, floor)
        call = read_window(self._store, state.node.session_id, request, size)
        view = self._w.view
        view.hold()  # no wrapping of the page being left while reading
        records = await self._reader.fetch(call, "Could not read the Raw Log")
        if isinstance(records, Failed):
            view.resume()
            self._unreadable_page(state.node.session_id, records.error)
            return
        preface = []
        if state.model_view:
            if state.latest is not None and paging.reaches_tail_start(request, records, floor, size):
                preface = summary_item(state.latest)
            records = paging.in_model_view(records, floor)
        boundaries = {
            item.compacted_through_sequence: f"v{item.version}: compacted through #{item.compacted_through_sequence}"
            for item in state.snapshots
        }
        view.show_page(
            records,
            boundaries=boundaries,
            compacted_through=floor,
            select_sequence=request.select,
            empty_text="This session has no messages." if not state.count else "No messages here.",
            preface=preface,
            snapshots=state.snapshots,
            contiguous=not state.model_view,
            upper=upper,
            summary_first=summary_first,
        )
        self.show_status(records)
        self._page_shown(records)
        if not self.started:
            self.started = True
            self._first_page()

    def _unreadable_page(self, session_id: str, error: BaseException) -> None:
        """A page of the open session could not be read: never leave another session's rows
        on screen under this session's breadcrumb (a failed page turn keeps its own page)."""
        view = self._w.view
        if view.records and all(record.session_id == session_id for record in view.records):
            return
        view.show_page([], empty_text=f"This session's Raw Log could not be read: {one_line(error, 300)}")
        self.show_status([])

    def show_status(self, records: list[RawMessageRecord]) -> None:
        if (state := self.open) is not None:
            page = PageState(records, state.count, state.snapshots, state.model_view, self.unseen, self.follow)
            self._w.status.show_state(page)
            refit_build_progress(self._w.status)  # an index build's progress beside it fits it now

    # ---------------------------------------------------------------- moving

    def page(self, where: str) -> Worker[None]:
        """Turn to the ``first``, ``last``, ``next`` or ``prev`` page."""
        return self._session_worker("action_page", partial(self._page, where))

    async def _page(self, where: str) -> None:
        state = self.open
        if state is None:
            return
        shown = self._w.view.records
        request: PageRequest | None
        if where == "first":
            request = paging.first_page()
        elif where == "last":
            self.unseen = 0
            request = paging.last_page(select=paging.END)  # the last row, even one newer than state.last
        elif where == "next":
            request = paging.next_page(shown, state.last)
        else:
            request = paging.prev_page(shown, state.first)
        if request is not None:
            await self.load_page(request)

    def jump_typed(self, text: str) -> None:
        """The jump field's ``text`` submitted: a sequence number to put the cursor on."""
        sequence = paging.parse_sequence(text)
        if sequence is None:
            self._notify("Type a sequence number such as 151", severity="warning", markup=False)
            return
        self.jump_to(sequence)

    def jump_to(self, sequence: int) -> Worker[None]:
        """Put the cursor on ``sequence`` of the open session (reading its page if needed)."""
        return self._session_worker("jump_to", partial(self._jump_to, sequence))

    async def _jump_to(self, sequence: int) -> None:
        state = self.open
        if state is None:
            return
        if not state.first <= sequence <= state.last:
            self._notify(f"#{sequence} is outside #{state.first}–{state.last}", severity="warning", markup=False)
            return
        shown = self._w.view.records
        # In the shown page's last quarter, the message would sit low: read the page around it.
        low = bool(shown) and shown[-1].sequence < state.last and sequence > shown[-1].sequence - self._size // 4
        if low or not self._w.view.select_sequence(sequence):
            await self.load_page(paging.jump_page(sequence, self._size, state.first, state.last), upper=True)

    def toggle_follow(self) -> None:
        self.follow = not self.follow
        if self.follow:
            self.unseen = 0
            self.page("last")
        elif self.open is not None:
            self.show_status(self._w.view.records)

    def toggle_model_view(self) -> Worker[None]:
        return self._session_worker("action_toggle_model_view", self._toggle_model_view)

    async def _toggle_model_view(self) -> None:
        state = self.open
        if state is None:
            return
        view = self._w.view
        state.model_view = not state.model_view
        request = paging.toggle_view(
            view.records[0].sequence if view.records else None,
            view.current.sequence if view.current is not None else None,
            paging.model_floor(state.snapshots),
            to_model=state.model_view,
            size=self._size,
        )
        await self.load_page(request, summary_first=state.model_view)

    def back(self) -> None:
        """``b``: the place left last, else the parent session."""
        place, self.history = paging.pop_place(self.history)
        if place is not None:
            self.open_session(place.session_id, place.cursor, place=place)
        elif self.open is not None and self.open.node.parent_session_id:
            self.open_session(self.open.node.parent_session_id, None)

    def show_boundary(self, boundary: int) -> None:
        """Put the cursor on a boundary (in the raw view: the model view hides it)."""
        if self.open is not None and self.open.model_view:
            self.open.model_view = False
        self.jump_to(boundary)

    # ---------------------------------------------------------------- a live store

    async def refresh(self) -> None:
        """The store changed: re-read the open session's bounds and snapshots, and follow."""
        state = self.open
        if state is None:
            return
        session_id = state.node.session_id
        store = self._store

        async def read() -> tuple[RawLogBounds, tuple[int, str | None], list[SnapshotMeta]]:
            bounds, mark = await store.raw_bounds(session_id), await store.snapshot_mark(session_id)
            # Version metadata is read again only when a snapshot was added (or the first time).
            if mark == state.snapshot_mark:
                return bounds, mark, state.snapshots
            return bounds, mark, await _versions_after_change(store, session_id, state.snapshots, mark)

        result = await self._reader.fetch(read())
        if isinstance(result, Failed):
            return
        bounds, mark, snapshots = result
        snapshots_changed = snapshots is not state.snapshots and snapshots != state.snapshots
        state.snapshot_mark = mark
        view = self._w.view
        grew = bounds.count != state.count
        if not grew and not snapshots_changed:
            return
        shown_last = view.records[-1].sequence if view.records else 0
        at_end = shown_last >= state.last
        added = max(0, (bounds.last_sequence or 0) - state.last)
        state.count, state.first, state.last = bounds.count, bounds.first_sequence or 0, bounds.last_sequence or 0
        if snapshots_changed:
            latest = await self._reader.fetch(store.snapshot_version(session_id))
            state.latest = None if isinstance(latest, Failed) else latest
        state.snapshots = snapshots
        if snapshots_changed or not snapshots:  # with none, the pane shows the message count
            loader = partial(store.snapshot_version, session_id)
            self._w.inspector.show(snapshots, latest=state.latest, message_count=state.count, loader=loader)
        if self.follow:
            await self.load_page(paging.last_page(select=state.last))
            self.unseen = 0
        elif at_end and len(view.records) < self._size:
            # New rows belong on this unfilled page: re-read it, keeping the cursor.
            keep = view.current.sequence if view.current is not None else None
            scroll = view.scroll_y
            start = view.records[0].sequence - 1 if view.records else 0
            await self.load_page(PageRequest(after=start, select=keep))
            view.rendered_lines()  # the whole page, so the old scroll position exists again
            view.scroll_to(y=scroll, animate=False)
            self.unseen = 0
        else:
            self.unseen += added
            self.show_status(view.records)
