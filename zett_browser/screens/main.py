"""Provides the main screen: tree, Raw Log and inspector, and the routing between them.

The screen lays out the panes and routes keys and widget messages to the controllers it
owns (:class:`~.wiring.MainControllers`: the open session, the tree's levels, the change
poll, the index sync, the search, usage labels and cards, compaction views and where a
message leads, each with its own state and a narrow constructor). Every storage call goes
through one :class:`~.reads.ReadHelper`; the reads run in workers started on this screen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from textual.app import ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Input
from textual.worker import Worker

from ..keymap import bindings, commands, key_names
from ..model import SessionNode
from ..model.store import BrowsingStore, GroupedStore
from ..widgets.footer import KeyFooter
from ..widgets.inspector import Inspector
from ..widgets.rawlog import RawLogView
from ..widgets.session_tree import SessionTree
from ..widgets.status import Breadcrumb, JumpField, StatusLine
from ..widgets.textual_compat import FrameHold
from ..widgets.versions import VersionList
from .indexing import IndexLine
from .indexstate import IndexState
from .options import BrowserOptions
from .outside import copy_id, take_record
from .quiet import QuietGate
from .reads import ReadHelper, Services
from .session import PaneWidgets
from .watch import OpenSession
from .wiring import MainControllers


class MainScreen(FrameHold, Screen[None]):
    """Session tree, Raw Log and inspector.

    Args:
        store: The store browsed.
        options: What to open first and how to browse.
        frames_held: True while the app holds the first paint (no frame is computed).
    """

    BINDINGS = bindings("main")

    def __init__(
        self, store: BrowsingStore, options: BrowserOptions, *, frames_held: Callable[[], bool] | None = None
    ) -> None:
        super().__init__()
        self.store = store
        self.options = options
        self._frames_held = frames_held
        #: The tree width the user asked for with [ and ] (None: the stylesheet's).
        self._tree_width: int | None = None
        self.reader = ReadHelper(
            self.notify, lambda line: self.log.warning(line), options.is_connection_failure, self._offline
        )
        # The panes are made here so that each controller is built with the ones it uses.
        self._tree = SessionTree(clock=options.clock, id="tree")
        self._view = RawLogView(id="rawlog")
        self._inspector = Inspector(id="inspector")
        self._row = Horizontal(id="status-row")
        self._status = StatusLine(id="page-status")
        self._breadcrumb = Breadcrumb(id="breadcrumb")
        if isinstance(store, GroupedStore):  # several stores: the tree groups them (w: merged)
            self._tree.store_groups = tuple(store.store_names)
            self._tree.grouped = True
        #: The session ``=`` marked as the first of two to compare.
        self.compare_mark: SessionNode | None = None
        push = lambda screen, callback=None: self.app.push_screen(screen, callback)  # noqa: E731
        #: The controllers, wired to each other; the screen routes to them.
        self.parts = MainControllers(
            Services(store, self.reader, self.run_worker, self.notify, push, options.elsewhere),
            PaneWidgets(self._view, self._inspector, self._status, self._breadcrumb, self._tree),
            self._row,
            options,
            set_title=partial(setattr, self, "title"),
            call_after_refresh=self.call_after_refresh,
            set_timer=self.set_timer,
            screens=lambda: self.app.screen_stack,
        )

    def frames_held(self) -> bool:
        # The app holds the first paint until the first page is laid out (ZettBrowserApp.on_mount).
        return self._frames_held is not None and self._frames_held()

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="panes"):
            yield self._tree
            with Vertical(id="center"):
                yield self._breadcrumb
                with self._row:
                    yield self._status
                    yield IndexLine(id="index-status")
                    yield JumpField(id="jump")
                yield self._view
            yield self._inspector
        yield KeyFooter()

    def on_mount(self) -> None:
        # One Tab stop per pane: the inspector's summary scrolls with its version list
        # and the mouse; as a stop of its own it was invisible on sessions without snapshots.
        for scroll in self._inspector.query(VerticalScroll):
            scroll.can_focus = False
        self.title = "zett-browser"
        self.sub_title = self.store.display_name
        self.parts.start()
        if self.options.poll_interval > 0:
            self.set_interval(self.options.poll_interval, self.parts.poller.poll)

    def on_key(self) -> None:
        self.parts.quiet.activity()

    def system_commands(self) -> Iterable[SystemCommand]:
        """The command palette's entries: every action of this screen and of the Raw Log, each
        with its keys."""
        for key, help_text in commands("main", "rawlog"):
            target = self._view if key.scope == "rawlog" else self
            # The keys first: the palette teaches them (issue 25).
            shown = f"{key_names(key.keys)} · {help_text}"
            yield SystemCommand(key.command or key.title, shown, partial(target.run_action, key.action))

    # ---------------------------------------------------------------- what tests and tools read

    @property
    def open(self) -> OpenSession | None:
        """What the Raw Log pane shows now."""
        return self.parts.pane.open

    @property
    def follow(self) -> bool:
        """Keep the Raw Log at the newest message while the store grows."""
        return self.parts.pane.follow

    @follow.setter
    def follow(self, follow: bool) -> None:
        self.parts.pane.follow = follow

    @property
    def offline(self) -> str | None:
        """Why the server cannot be reached, while it cannot (None: connected)."""
        return self.reader.offline

    @property
    def index_state(self) -> IndexState:
        return self.parts.index.state

    @property
    def quiet(self) -> QuietGate:
        return self.parts.quiet

    def _offline(self, reason: str | None) -> None:
        name = self.store.display_name
        self.sub_title = name if reason is None else f"{name} · connection lost, retrying"

    # ---------------------------------------------------------------- messages from the panes

    def on_session_tree_children_wanted(self, event: SessionTree.ChildrenWanted) -> None:
        self.parts.levels.children_wanted(event)

    def on_session_tree_orphans_wanted(self, event: SessionTree.OrphansWanted) -> None:
        self.parts.levels.orphans_wanted(event)

    def on_session_tree_session_chosen(self, event: SessionTree.SessionChosen) -> None:
        if self.parts.open_id() != event.session.session_id:
            self.parts.pane.open_session(event.session.session_id, None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not isinstance(event.input, JumpField):
            return
        event.input.value = ""
        self._view.focus()
        self.parts.pane.jump_typed(event.value)

    def on_raw_log_view_record_opened(self, event: RawLogView.RecordOpened) -> None:
        self.parts.links.whole(event.record)

    def on_raw_log_view_call_jump(self, event: RawLogView.CallJump) -> None:
        self.parts.links.call_jump(event.record)

    def on_raw_log_view_child_requested(self, event: RawLogView.ChildRequested) -> None:
        self.parts.links.child(event.record)

    def on_raw_log_view_context_requested(self, event: RawLogView.ContextRequested) -> None:
        self.parts.links.context(event.record)

    def on_inspector_summary_opened(self, event: Inspector.SummaryOpened) -> None:
        self.parts.links.summary(event.snapshot)

    def on_inspector_version_chosen(self, event: Inspector.VersionChosen) -> None:
        self.parts.pane.show_boundary(event.snapshot.compacted_through_sequence)

    def on_version_list_origins_wanted(self, event: VersionList.OriginsWanted) -> None:
        event.stop()
        state = self.open
        if state is not None:
            self.parts.compaction.show_origins(state.node.session_id, event.versions)

    def on_version_list_diff_wanted(self, event: VersionList.DiffWanted) -> None:
        self.parts.compaction.diff(event.older, event.newer)

    # ---------------------------------------------------------------- actions (keymap.py names them)

    def action_page(self, where: str) -> Worker[None]:
        return self.parts.pane.page(where)

    def action_jump(self) -> None:
        self.query_one(JumpField).open()

    def action_cancel_jump(self) -> None:
        field_ = self.query_one(JumpField)
        if field_.has_focus:
            field_.value = ""
            self._view.focus()

    def action_toggle_follow(self) -> None:
        self.parts.pane.toggle_follow()

    def action_toggle_model_view(self) -> Worker[None]:
        return self.parts.pane.toggle_model_view()

    def action_back(self) -> None:
        self.parts.pane.back()

    def action_toggle_inspector(self) -> None:
        # The user's choice is kept as a class, apart from the width's default (shown when
        # wide, hidden when narrow), so a choice made at one width holds at the other.
        inspector = self._inspector
        shown = inspector.styles.display != "none"
        inspector.set_class(shown, "-hidden")
        inspector.set_class(not shown, "-shown")

    def action_resize_tree(self, step: int) -> None:
        # The width asked for last, not the laid-out one: keys pressed before the next
        # layout would otherwise all start from the same old width.
        tree = self._tree
        width = (self._tree_width or tree.outer_size.width) + step
        self._tree_width = max(20, min(width, self.size.width - 40))
        tree.styles.width = self._tree_width

    def action_toggle_tree(self) -> None:
        self._tree.toggle_class("hidden")

    def action_group_stores(self) -> None:
        """``w``: with several stores open, group the tree by store or merge it by activity."""
        tree = self._tree
        if not tree.store_groups:
            self.notify("One store is open: give several (zett-browser A B …) to group them", markup=False)
            return
        tree.grouped = not tree.grouped
        tree.reload(tree.filter.line() if tree.filter is not None else None)
        shown = self._breadcrumb.session
        if shown is not None:  # the open session stays marked and under the cursor
            tree.reveal(*shown)

    def action_copy_id(self) -> None:
        """Copy the open session's full id (``--session`` needs it) with OSC 52."""
        if self.parts.pane.open is not None:
            copy_id(self.app, self.parts.pane.open.node.session_id)

    def action_take(self, how: str) -> None:
        """``Y`` ``v`` ``E``: the Raw Log's current message to the clipboard, pager or editor."""
        take_record(self, self._view.current, how)

    def action_export(self) -> None:
        """Open the export dialog on the open session (``e``)."""
        self.parts.links.export(self.parts.open_node())

    def action_help(self) -> None:
        from .help import HelpScreen

        self.app.push_screen(HelpScreen(self.options.search.syntax if self.options.search else None))

    def action_search(self) -> None:
        self.parts.search.open_view()

    def action_hit(self, step: int) -> Worker[None]:
        return self.parts.search.step(step)

    def action_filter_tree(self) -> None:
        self.parts.search.filter_tree()

    def action_timing(self) -> None:
        """Open the timing view of the open session."""
        self.parts.links.timing(self.parts.open_node(), self.parts.show_hit)

    def action_sort_tree(self) -> None:
        self.parts.usage.sort_tree()

    def action_usage_details(self) -> None:
        self.parts.usage.details(self.parts.open_node())

    def action_ledger(self) -> None:
        self.parts.compaction.ledger()

    def action_compare(self) -> None:
        """``=``: mark the session under the tree's cursor (or the open one); on a second, compare."""
        from .compare import CompareScreen, mark_or_compare  # a screen's module loads when it first opens

        cursor = self._tree.cursor_node
        data = cursor.data if cursor is not None else None
        session = data if isinstance(data, SessionNode) else self.parts.open_node()
        self.compare_mark = mark_or_compare(
            self.compare_mark,
            session,
            notify=self.notify,
            open_screen=self.app.push_screen,
            make=lambda left, right: CompareScreen(self.store, left, right, self.reader),
            clear=self.app.clear_notifications,
        )

    def action_pin(self) -> Worker[None] | None:
        """``*``: pin or unpin the tree's session (tree focused) or the Raw Log's message."""
        return self.parts.review.pin(self.parts.review.target(self._tree.has_focus))

    def action_label(self) -> None:
        self.parts.review.ask_labels(self.parts.review.target(self._tree.has_focus))

    def action_note(self) -> None:
        self.parts.review.ask_note(self.parts.review.target(self._tree.has_focus))
