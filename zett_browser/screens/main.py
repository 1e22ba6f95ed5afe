"""Provides the main screen: tree, Raw Log pane and inspector, and every storage call.

The screen is built with its store (a :class:`BrowsingStore`) and its options, and
orchestrates: it asks :mod:`zett_browser.paging` which window to read, reads it through
:meth:`MainScreen.fetch` (the one place a failed read becomes a notice), and hands
records to the widgets. Each read runs in an async worker on the app's own event loop
(no threads of ours); a failure becomes a notice and an error line, never a crash.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Header, Input

from .. import paging
from ..formatting import full_text, join, kind_name, summary_blocks
from ..keymap import bindings, commands
from ..model import RawMessageRecord, SessionNode
from ..paging import PageRequest, Place
from ..widgets.footer import KeyFooter
from ..widgets.inspector import Inspector
from ..widgets.rawlog import RawLogView
from ..widgets.safe import clean, one_line
from ..widgets.session_tree import SessionTree
from ..widgets.status import Breadcrumb, JumpField, PageState, StatusLine, summary_item
from ..widgets.textual_compat import FrameHold
from .calls import NotACall, call_ids, child_of, find_partner
from .compaction import CompactionScreen
from .indexing import IndexLine
from .outside import copy_id, take_record
from .reads import read_window
from .usage import UsageScreen
from .watch import CHILDREN_PAGE, ROOTS_PAGE, Failed, OpenSession

#: The inspector's "summary + K tail messages" counts the rows the model gets by reading
#: the tail when it is at most this long (decoded like one page); longer tails are named
#: by their boundary instead.
MODEL_TAIL_COUNTED = 200


class MainScreen(FrameHold, CompactionScreen, UsageScreen):
    """Session tree, Raw Log and inspector."""

    BINDINGS = bindings("main")

    def frames_held(self) -> bool:
        # The app holds the first paint until the first page is laid out (ZettBrowserApp.on_mount).
        return bool(getattr(self.app, "first_paint_held", False))

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="panes"):
            yield SessionTree(clock=self.options.clock, id="tree")
            with Vertical(id="center"):
                yield Breadcrumb(id="breadcrumb")
                with Horizontal(id="status-row"):
                    yield StatusLine(id="page-status")
                    yield IndexLine(id="index-status")
                    yield JumpField(id="jump")
                yield RawLogView(id="rawlog")
            yield Inspector(id="inspector")
        yield KeyFooter()

    def on_mount(self) -> None:
        # One Tab stop per pane: the inspector's summary scrolls with its version list
        # and the mouse; as a stop of its own it was invisible on sessions without snapshots.
        for scroll in self.query_one(Inspector).query(VerticalScroll):
            scroll.can_focus = False
        self.title = "zett-browser"
        self.sub_title = self.store.display_name
        self.load_roots()
        if self.options.session:
            self.open_session_by_id(self.options.session, self.options.seq)
        if self.options.poll_interval > 0:
            self.set_interval(self.options.poll_interval, self.poll_changes)
        self.start_index()
        if self.options.search_query is not None:
            self.open_search(self.options.search_query)

    def system_commands(self) -> Iterable[SystemCommand]:
        """The command palette's entries: every action of this screen and of the Raw Log."""
        view = self.query_one(RawLogView)
        for key, help_text in commands("main", "rawlog"):
            target = view if key.scope == "rawlog" else self
            yield SystemCommand(key.command or key.title, help_text, partial(target.run_action, key.action))

    # ---------------------------------------------------------------- tree

    @work(group="tree", exit_on_error=False)
    async def load_roots(self) -> None:
        tree = self.query_one(SessionTree)
        store = self.store

        async def read() -> tuple[Any, Any, Any]:
            # The token is taken before reading, so a change committed meanwhile is seen at the next poll.
            token = await store.change_token()
            page = await store.list_roots(limit=ROOTS_PAGE)
            # The orphan check grows with delegated sessions: with roots to show it runs after them.
            orphans = None if page.items else await store.list_orphans(limit=1)
            return token, page, orphans

        result = await self.fetch(read(), "Could not list sessions")
        self.roots_read = True
        if isinstance(result, Failed):
            return
        self._token, page, orphans = result
        if orphans is not None and not page.items and not orphans.items:
            self.query_one(RawLogView).show_page([], empty_text="This store has no sessions yet.")
        tree.add_sessions(tree.root, page.items, page.next_cursor)
        # Labels and the orphan check wait for a pause in the keys (the usage labels import the index).
        self.quiet.run(partial(self.usage_for, page.items))
        if orphans is None:
            self.quiet.run(self._check_orphans)
        elif orphans.items:
            tree.add_orphan_group()
        tree.root.expand()
        if self.open is None and page.items and not self.options.session:
            tree.move_cursor(tree.root.children[0] if tree.root.children else None)
            self.open_session_by_id(page.items[0].session_id, None)

    @work(group="tree", exit_on_error=False)
    async def _check_orphans(self) -> None:
        """Add the orphaned sessions' group when the store has any (after the first screen)."""
        orphans = await self.fetch(self.store.list_orphans(limit=1))
        if not isinstance(orphans, Failed) and orphans.items:
            self.query_one(SessionTree).add_orphan_group()

    @work(group="tree", exit_on_error=False)
    async def on_session_tree_children_wanted(self, event: SessionTree.ChildrenWanted) -> None:
        tree = self.query_one(SessionTree)
        limit = ROOTS_PAGE if event.parent_id is None else CHILDREN_PAGE
        page = await self.fetch(self.read_level(event.parent_id, event.cursor, limit), "Could not load sessions")
        hints = {} if isinstance(page, Failed) else await self._child_labels(event.parent_id, page.items)
        if isinstance(page, Failed):
            tree.forget(event.node)
            return
        tree.add_sessions(event.node, page.items, page.next_cursor, hints=hints)
        self.usage_for(page.items)

    @work(group="tree", exit_on_error=False)
    async def on_session_tree_orphans_wanted(self, event: SessionTree.OrphansWanted) -> None:
        tree = self.query_one(SessionTree)
        page = await self.fetch(
            self.store.list_orphans(limit=CHILDREN_PAGE, cursor=event.cursor), "Could not load orphaned sessions"
        )
        if isinstance(page, Failed):
            tree.forget(event.node)
            return
        tree.add_sessions(event.node, page.items, page.next_cursor, orphans=True)
        self.usage_for(page.items)

    def on_session_tree_session_chosen(self, event: SessionTree.SessionChosen) -> None:
        if self.open is None or self.open.node.session_id != event.session.session_id:
            self.open_session_by_id(event.session.session_id, None)

    # ---------------------------------------------------------------- opening a session

    async def _read_session(self, session_id: str) -> tuple[Any, ...]:
        store = self.store
        # Independent reads, on the pool's connections at once.
        # Versions as metadata, only the latest summary decoded (2,500 versions: issue 13).
        node, bounds, snapshots, latest, ancestors = await asyncio.gather(
            store.get_node(session_id),
            store.raw_bounds(session_id),
            store.all_snapshot_versions(session_id),
            store.snapshot_version(session_id),
            store.ancestors(session_id),
        )
        if node is not None:
            node, *ancestors = await self._labelled([node, *ancestors])
        return node, bounds, snapshots, ancestors, latest

    async def _labelled(self, nodes: list[SessionNode]) -> list[SessionNode]:
        """``nodes`` with the label their parent's ``task`` call gives the untitled ones."""
        labelled = []
        for node in nodes:
            if not node.title and node.parent_session_id and node.label_hint is None:
                hints = await self._child_labels(node.parent_session_id, [node])
                if node.session_id in hints:
                    node = dataclasses.replace(node, label_hint=hints[node.session_id])
            labelled.append(node)
        return labelled

    @work(exclusive=True, group="session", exit_on_error=False)
    async def open_session_by_id(
        self, session_id: str, sequence: int | None, *, push: bool = False, place: Place | None = None
    ) -> None:
        """Open a session at ``sequence`` (or where ``place`` says the reader was).

        ``push`` remembers the reader's place in the session left, for ``b``.
        """
        result = await self.fetch(self._read_session(session_id), "Could not open the session")
        if isinstance(result, Failed):
            return
        node, bounds, snapshots, ancestors, latest = result
        if node is None:
            self.notify(f"No session {clean(session_id)} in this store", severity="error", markup=False)
            return
        if push and self.open is not None:
            self.history = paging.push_place(self.history, self._place())
        self.open = OpenSession(
            node=node,
            count=bounds.count,
            first=bounds.first_sequence or 0,
            last=bounds.last_sequence or 0,
            snapshots=snapshots,
            model_view=place.model_view if place is not None else False,
            latest=latest,
        )
        self.query_one(Breadcrumb).show_session(ancestors, node)
        # The full id (``--session`` needs it; ``y`` copies it) where nothing cuts it.
        self.title = clean(node.session_id)
        model_tail = await self.fetch(
            self._model_tail(session_id, paging.model_floor(snapshots), bounds.last_sequence or 0),
            "Could not read the session",
        )
        self.query_one(Inspector).show(
            snapshots,
            latest=latest,
            message_count=bounds.count,
            model_tail=None if isinstance(model_tail, Failed) else model_tail,
            loader=partial(self.store.snapshot_version, session_id),
        )
        self.call_after_refresh(self.show_saved_tokens, session_id, latest)  # after the session shows
        self.query_one(SessionTree).reveal(ancestors, node)
        size = self.options.page_size
        if place is not None and place.page_after is not None:
            request = PageRequest(after=place.page_after, select=place.cursor)
        elif sequence is not None:
            request = paging.page_for(sequence, size)
        else:
            request = paging.first_page()
        await self._load_page(request)

    def _place(self) -> Place:
        """Where the reader is now: session, page, cursor and view."""
        assert self.open is not None
        view = self.query_one(RawLogView)
        return Place(
            self.open.node.session_id,
            page_after=view.records[0].sequence - 1 if view.records else None,
            cursor=view.current.sequence if view.current is not None else None,
            model_view=self.open.model_view,
        )

    async def _model_tail(self, session_id: str, boundary: int, last: int) -> int | None:
        """Messages after the boundary that the model gets (as the model view shows them),
        when the tail is short enough to count by reading it; else None."""
        if not boundary or last - boundary > MODEL_TAIL_COUNTED:
            return None
        tail = await self.store.raw_page(session_id, after_sequence=boundary, limit=MODEL_TAIL_COUNTED)
        return sum(1 for record in tail if record.message.include_in_messages)

    async def _child_labels(self, parent_id: str | None, nodes: Sequence[SessionNode]) -> dict[str, str]:
        """Labels of untitled children (decoration: a failure gives none)."""
        try:
            return await self.store.child_labels(parent_id, nodes)
        except Exception:  # noqa: BLE001 - labels are best effort; the short id shows instead
            return {}

    async def _load_page(self, request: PageRequest) -> None:
        state = self.open
        if state is None:
            return
        size = self.options.page_size
        floor = paging.model_floor(state.snapshots)
        if state.model_view:
            request = paging.clamp_to_floor(request, floor)
        call = read_window(self.store, state.node.session_id, request, size)
        self.query_one(RawLogView).hold()  # no wrapping of the page being left while reading
        records = await self.fetch(call, "Could not read the Raw Log")
        if isinstance(records, Failed):
            self.query_one(RawLogView).resume()
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
        self.query_one(RawLogView).show_page(
            records,
            boundaries=boundaries,
            compacted_through=floor,
            select_sequence=request.select,
            empty_text="This session has no messages." if not state.count else "No messages here.",
            preface=preface,
            snapshots=state.snapshots,
        )
        self._show_status(records)
        self.cards_for(records)
        if not self._started:
            self._started = True
            self.call_after_refresh(_freeze_startup_objects)
            if self.options.after_first_page is not None:
                self.options.after_first_page()
            self.quiet.run(self._warm_up)  # keys pressed at once go first
            self.quiet.run(self.start_deferred_sync)

    @work(group="warm-up", exit_on_error=False, description="warm up the first keys' queries")
    async def _warm_up(self) -> None:
        """Let the storage prepare what the first page turn, expand or open will run: a
        moment of the loop now, in a pause, instead of inside the first key press."""
        try:
            await self.store.warm_up(page_size=self.options.page_size, children_page=CHILDREN_PAGE)
        except Exception:  # noqa: BLE001, S110 - only a speed-up: the key presses read as usual
            pass

    def _unreadable_page(self, session_id: str, error: BaseException) -> None:
        """A page of the open session could not be read: never leave another session's rows
        on screen under this session's breadcrumb (a failed page turn keeps its own page)."""
        view = self.query_one(RawLogView)
        if view.records and all(record.session_id == session_id for record in view.records):
            return
        view.show_page([], empty_text=f"This session's Raw Log could not be read: {one_line(error, 300)}")
        self._show_status([])

    def _show_status(self, records: list[RawMessageRecord]) -> None:
        state = self.open
        if state is None:
            return
        page = PageState(records, state.count, state.snapshots, state.model_view, self.unseen, self.follow)
        self.query_one(StatusLine).show_state(page)

    # ---------------------------------------------------------------- actions

    @work(exclusive=True, group="session", exit_on_error=False)
    async def action_page(self, where: str) -> None:
        state = self.open
        if state is None:
            return
        shown = self.query_one(RawLogView).records
        request: PageRequest | None
        if where == "first":
            request = paging.first_page()
        elif where == "last":
            self.unseen = 0
            request = paging.last_page(select=state.last if self.follow else None)
        elif where == "next":
            request = paging.next_page(shown, state.last)
        else:
            request = paging.prev_page(shown, state.first)
        if request is not None:
            await self._load_page(request)

    def action_jump(self) -> None:
        self.query_one(JumpField).open()

    def action_cancel_jump(self) -> None:
        field_ = self.query_one(JumpField)
        if field_.has_focus:
            field_.value = ""
            self.query_one(RawLogView).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not isinstance(event.input, JumpField):
            return
        event.input.value = ""
        self.query_one(RawLogView).focus()
        sequence = paging.parse_sequence(event.value)
        if sequence is None:
            self.notify("Type a sequence number such as 151", severity="warning", markup=False)
            return
        self.jump_to(sequence)

    @work(exclusive=True, group="session", exit_on_error=False)
    async def jump_to(self, sequence: int) -> None:
        state = self.open
        if state is None:
            return
        if not state.first <= sequence <= state.last:
            self.notify(f"#{sequence} is outside #{state.first}–{state.last}", severity="warning", markup=False)
            return
        if not self.query_one(RawLogView).select_sequence(sequence):
            await self._load_page(paging.page_for(sequence, self.options.page_size))

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        if self.follow:
            self.unseen = 0
            self.action_page("last")
        elif self.open is not None:
            self._show_status(self.query_one(RawLogView).records)

    def action_toggle_inspector(self) -> None:
        # The user's choice is kept as a class, apart from the width's default (shown when
        # wide, hidden when narrow), so a choice made at one width holds at the other.
        inspector = self.query_one(Inspector)
        shown = inspector.styles.display != "none"
        inspector.set_class(shown, "-hidden")
        inspector.set_class(not shown, "-shown")

    def action_resize_tree(self, step: int) -> None:
        # The width asked for last, not the laid-out one: keys pressed before the next
        # layout would otherwise all start from the same old width.
        tree = self.query_one(SessionTree)
        width = (self._tree_width or tree.outer_size.width) + step
        self._tree_width = max(20, min(width, self.size.width - 40))
        tree.styles.width = self._tree_width

    def action_toggle_tree(self) -> None:
        self.query_one(SessionTree).toggle_class("hidden")

    @work(exclusive=True, group="session", exit_on_error=False)
    async def action_toggle_model_view(self) -> None:
        state = self.open
        if state is None:
            return
        view = self.query_one(RawLogView)
        state.model_view = not state.model_view
        request = paging.toggle_view(
            view.records[0].sequence if view.records else None,
            view.current.sequence if view.current is not None else None,
            paging.model_floor(state.snapshots),
            to_model=state.model_view,
            size=self.options.page_size,
        )
        await self._load_page(request)

    def action_copy_id(self) -> None:
        """Copy the open session's full id (``--session`` needs it) with OSC 52."""
        if self.open is not None:
            copy_id(self.app, self.open.node.session_id)

    def action_take(self, how: str) -> None:
        """``Y`` ``v`` ``E``: the Raw Log's current message to the clipboard, pager or editor."""
        take_record(self, self.query_one(RawLogView).current, how)

    def action_export(self) -> None:
        """Open the export dialog on the open session (``e``)."""
        if self.options.no_writes is not None:
            self.notify(self.options.no_writes, severity="warning", markup=False, timeout=8)
        elif self.options.exporter is None:
            self.notify("This store cannot be exported from here", severity="warning", markup=False)
        elif self.open is not None:
            node = self.open.node
            name = node.title or node.label_hint or node.agent_name or node.session_id
            from .export import ExportDialog  # a screen's module loads when it first opens

            self.app.push_screen(ExportDialog(self.options.exporter, node.session_id, name))

    def action_back(self) -> None:
        place, self.history = paging.pop_place(self.history)
        if place is not None:
            self.open_session_by_id(place.session_id, place.cursor, place=place)
        elif self.open is not None and self.open.node.parent_session_id:
            self.open_session_by_id(self.open.node.parent_session_id, None)

    def action_help(self) -> None:
        from .help import HelpScreen

        self.app.push_screen(HelpScreen(self.options.search.syntax if self.options.search else None))

    def show_hit(self, session_id: str, sequence: int) -> None:
        self.open_session_by_id(session_id, sequence, push=True)

    def show_sequence(self, sequence: int) -> None:
        self.jump_to(sequence)

    def on_raw_log_view_record_opened(self, event: RawLogView.RecordOpened) -> None:
        record = event.record
        title = f"#{record.sequence} {kind_name(record)}"
        from .detail import MessageDetail

        self.app.push_screen(MessageDetail(title, partial(full_text, record)))  # formatted in a thread

    @work(exclusive=True, group="session", exit_on_error=False)
    async def on_raw_log_view_call_jump(self, event: RawLogView.CallJump) -> None:
        try:
            call_ids(event.record)
        except NotACall as reason:
            self.notify(str(reason), markup=False)
            return
        found = await self.fetch(find_partner(self.store, event.record), "Could not search the Raw Log")
        if isinstance(found, Failed):
            return
        if found is None:
            self.notify("No matching tool call or result found", severity="warning", markup=False)
            return
        self.jump_to(found.sequence)

    @work(exclusive=True, group="session", exit_on_error=False)
    async def on_raw_log_view_child_requested(self, event: RawLogView.ChildRequested) -> None:
        child = await self.fetch(child_of(self.store, event.record), "Could not list delegated sessions")
        if isinstance(child, Failed):
            return
        if child is None:
            self.notify("This message names no delegated session", markup=False)
            return
        self.open_session_by_id(child, None, push=True)

    def on_raw_log_view_context_requested(self, event: RawLogView.ContextRequested) -> None:
        from .context import ContextScreen  # imported with the first time travel, not at start

        record = event.record
        self.app.push_screen(
            ContextScreen(
                self.store,
                record.session_id,
                record.sequence,
                page_size=self.options.page_size,
                no_writes=self.options.no_writes,
            )
        )

    def on_inspector_summary_opened(self, event: Inspector.SummaryOpened) -> None:
        from .detail import MessageDetail

        snapshot = event.snapshot
        # Formatted (10 MB cleaned) in the detail screen's thread, not here.
        self.app.push_screen(
            MessageDetail(f"v{snapshot.version} summary", lambda: join(summary_blocks(snapshot, limit=None)))
        )

    def on_inspector_version_chosen(self, event: Inspector.VersionChosen) -> None:
        if self.open is not None and self.open.model_view:
            self.open.model_view = False
        self.jump_to(event.snapshot.compacted_through_sequence)


def _freeze_startup_objects() -> None:
    """Exempt what start-up made (modules, classes, the first screen) from collection.

    They live as long as the app. Without this, every full garbage collection walks some
    150,000 of them and pauses the app for about 100 ms in the middle of a key press.
    """
    gc.freeze()
