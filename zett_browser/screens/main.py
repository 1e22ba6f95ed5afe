"""Provides the main screen: tree, Raw Log pane and inspector, and the routing between them.

The screen lays out the panes and owns small controllers, each with its own state and a
narrow constructor: the open session (:mod:`.session`), the tree's levels (:mod:`.levels`),
the change poll (:mod:`.watch`), the index sync (:mod:`.indexing`), the search
(:mod:`.hits`), usage labels and cards (:mod:`.usage`), compaction views and where a
message leads (:mod:`.compaction`, :mod:`.links`). Every storage call goes through one
:class:`~.reads.ReadHelper`; the reads run in workers started on this screen.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from functools import partial

from textual.app import ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Input
from textual.worker import Worker

from ..keymap import bindings, commands
from ..model import RawMessageRecord, SessionNode, SnapshotInfo
from ..model.store import BrowsingStore
from ..widgets.footer import KeyFooter
from ..widgets.inspector import Inspector
from ..widgets.rawlog import RawLogView
from ..widgets.session_tree import SessionTree
from ..widgets.status import Breadcrumb, JumpField, StatusLine
from ..widgets.textual_compat import FrameHold
from ..widgets.versions import VersionList
from .compaction import CompactionViews
from .hits import SearchHits
from .indexing import IndexLine, IndexSync
from .indexstate import IndexState
from .levels import TreeLevels
from .links import RecordLinks
from .options import BrowserOptions
from .outside import copy_id, take_record
from .quiet import QuietGate
from .reads import ReadHelper, Services
from .session import PaneWidgets, SessionPane
from .states import StateMarks
from .usage import DelegationCards, UsageLabels
from .watch import CHILDREN_PAGE, ROOTS_PAGE, ChangePoller, OpenSession


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
        #: Start-up's background work waits for a pause in the keys (see :mod:`.quiet`).
        self.quiet = QuietGate(self.set_timer, self.call_after_refresh)
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
        push = lambda screen, callback=None: self.app.push_screen(screen, callback)  # noqa: E731
        services = Services(store, self.reader, self.run_worker, self.notify, push, options.elsewhere)
        widgets = PaneWidgets(self._view, self._inspector, self._status, self._breadcrumb, self._tree)
        self.cards = DelegationCards(services, options.usage, self._view)
        self.pane = SessionPane(
            services,
            widgets,
            page_size=options.page_size,
            follow=options.follow,
            set_title=partial(setattr, self, "title"),
            opened=self._opened,
            page_shown=self.cards.cards_for,
            first_page=self._first_page,
        )
        self.usage = UsageLabels(services, options.usage, self._tree)
        self.index = IndexSync(options.search, self._row, self.run_worker, self.notify, self.set_timer, self._synced)
        self.search = SearchHits(
            options.search,
            self.index.state,
            services,
            self._tree,
            self._view,
            open_session=self._open_id,
            show_hit=self.show_hit,
            show_sequence=self.show_sequence,
        )
        self.compaction = CompactionViews(
            services,
            self._inspector,
            screens=lambda: self.app.screen_stack,
            open_session=lambda: self.pane.open,
            show_boundary=self.pane.show_boundary,
        )
        self.poller = ChangePoller(
            services, self._tree, store_changed=self.index.store_changed, refresh_rest=self._refresh_open
        )
        self.links = RecordLinks(
            services,
            jump_to=self.show_sequence,
            open_child=lambda session_id: self.pane.open_session(session_id, None, push=True),
            page_size=options.page_size,
            no_writes=options.no_writes,
            exporter=options.exporter,
        )
        self.levels = TreeLevels(
            services,
            self._tree,
            self._view,
            later=self.quiet.run,
            read_level=self.usage.read_level,
            child_labels=self.pane.child_labels,
            usage_for=self.usage.usage_for,
            roots_read=self.poller.roots_answered,
            first_wanted=lambda: self.pane.open is None and not options.session,
            open_session=lambda session_id: self.pane.open_session(session_id, None),
            roots_page=ROOTS_PAGE,
            children_page=CHILDREN_PAGE,
        )
        self.states = StateMarks(services, self._breadcrumb, self.levels, self.poller, self.pane)

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
        self.levels.load_roots()
        if self.options.session:
            self.pane.open_session(self.options.session, self.options.seq)
        if self.options.poll_interval > 0:
            self.set_interval(self.options.poll_interval, self.poller.poll)
        # The first sync waits for the first screen's reads (unless a search is asked for).
        self.index.start(after_first_page=self.options.search_query is None and not self.pane.started)
        if self.options.search_query is not None:
            self.open_search(self.options.search_query)

    def on_key(self) -> None:
        self.quiet.activity()

    def system_commands(self) -> Iterable[SystemCommand]:
        """The command palette's entries: every action of this screen and of the Raw Log."""
        for key, help_text in commands("main", "rawlog"):
            target = self._view if key.scope == "rawlog" else self
            yield SystemCommand(key.command or key.title, help_text, partial(target.run_action, key.action))

    # ---------------------------------------------------------------- what the controllers share

    @property
    def open(self) -> OpenSession | None:
        """What the Raw Log pane shows now."""
        return self.pane.open

    @property
    def follow(self) -> bool:
        """Keep the Raw Log at the newest message while the store grows."""
        return self.pane.follow

    @follow.setter
    def follow(self, follow: bool) -> None:
        self.pane.follow = follow

    @property
    def offline(self) -> str | None:
        """Why the server cannot be reached, while it cannot (None: connected)."""
        return self.reader.offline

    @property
    def index_state(self) -> IndexState:
        return self.index.state

    @property
    def search_text(self) -> str | None:
        """The last search's query."""
        return self.search.text

    @search_text.setter
    def search_text(self, text: str | None) -> None:
        self.search.text = text

    def _open_id(self) -> str | None:
        return self.pane.open.node.session_id if self.pane.open is not None else None

    def _opened(self, session_id: str, latest: SnapshotInfo | None) -> None:
        self.call_after_refresh(self.compaction.show_saved_tokens, session_id, latest)  # after the session shows
        self.quiet.run(self.states.decorate)

    def _offline(self, reason: str | None) -> None:
        name = self.store.display_name
        self.sub_title = name if reason is None else f"{name} · connection lost, retrying"

    def _first_page(self) -> None:
        """The first page is shown: what waited for it starts (keys pressed at once go first)."""
        self.call_after_refresh(_freeze_startup_objects)
        if self.options.after_first_page is not None:
            self.options.after_first_page()
        self.quiet.run(partial(self.levels.warm_up, self.options.page_size))
        self.quiet.run(self.index.start_deferred)

    async def _refresh_open(self) -> None:
        await self.pane.refresh()
        self.compaction.reload_ledgers()

    def _synced(self) -> None:
        """A sync ended: cached hits and the shown usage are stale; a search view showing
        partial results runs again."""
        self.search.synced(self.app.screen)
        self.usage.relabel_shown()
        self.cards.cards_for(self._view.records)  # the children's totals are known now

    def usage_for(self, nodes: list[SessionNode]) -> Worker[None]:
        return self.usage.usage_for(nodes)

    def cards_for(self, records: list[RawMessageRecord]) -> Worker[None]:
        return self.cards.cards_for(records)

    def apply_tree_filter(self, query: str) -> Worker[None]:
        return self.search.apply_filter(query)

    def open_session_by_id(self, session_id: str, sequence: int | None, *, push: bool = False) -> Worker[None]:
        return self.pane.open_session(session_id, sequence, push=push)

    def open_search(self, text: str) -> None:
        """Open the search view on ``text`` (``--search``)."""
        self.search.text = text
        self.search.open_view()

    def show_hit(self, session_id: str, sequence: int) -> None:
        """Open a session with the cursor on ``sequence``, remembering the place left (``b``)."""
        self.pane.open_session(session_id, sequence, push=True)

    def show_sequence(self, sequence: int) -> None:
        """Move the Raw Log's cursor to ``sequence`` of the open session."""
        self.pane.jump_to(sequence)

    # ---------------------------------------------------------------- messages from the panes

    def on_session_tree_children_wanted(self, event: SessionTree.ChildrenWanted) -> None:
        self.levels.children_wanted(event)

    def on_session_tree_orphans_wanted(self, event: SessionTree.OrphansWanted) -> None:
        self.levels.orphans_wanted(event)

    def on_session_tree_session_chosen(self, event: SessionTree.SessionChosen) -> None:
        if self._open_id() != event.session.session_id:
            self.pane.open_session(event.session.session_id, None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not isinstance(event.input, JumpField):
            return
        event.input.value = ""
        self._view.focus()
        self.pane.jump_typed(event.value)

    def on_raw_log_view_record_opened(self, event: RawLogView.RecordOpened) -> None:
        self.links.whole(event.record)

    def on_raw_log_view_call_jump(self, event: RawLogView.CallJump) -> None:
        self.links.call_jump(event.record)

    def on_raw_log_view_child_requested(self, event: RawLogView.ChildRequested) -> None:
        self.links.child(event.record)

    def on_raw_log_view_context_requested(self, event: RawLogView.ContextRequested) -> None:
        self.links.context(event.record)

    def on_inspector_summary_opened(self, event: Inspector.SummaryOpened) -> None:
        self.links.summary(event.snapshot)

    def on_inspector_version_chosen(self, event: Inspector.VersionChosen) -> None:
        self.pane.show_boundary(event.snapshot.compacted_through_sequence)

    def on_version_list_diff_wanted(self, event: VersionList.DiffWanted) -> None:
        self.compaction.diff(event.older, event.newer)

    # ---------------------------------------------------------------- actions (keymap.py names them)

    def action_page(self, where: str) -> Worker[None]:
        return self.pane.page(where)

    def action_jump(self) -> None:
        self.query_one(JumpField).open()

    def action_cancel_jump(self) -> None:
        field_ = self.query_one(JumpField)
        if field_.has_focus:
            field_.value = ""
            self._view.focus()

    def action_toggle_follow(self) -> None:
        self.pane.toggle_follow()

    def action_toggle_model_view(self) -> Worker[None]:
        return self.pane.toggle_model_view()

    def action_back(self) -> None:
        self.pane.back()

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

    def action_copy_id(self) -> None:
        """Copy the open session's full id (``--session`` needs it) with OSC 52."""
        if self.pane.open is not None:
            copy_id(self.app, self.pane.open.node.session_id)

    def action_take(self, how: str) -> None:
        """``Y`` ``v`` ``E``: the Raw Log's current message to the clipboard, pager or editor."""
        take_record(self, self._view.current, how)

    def action_export(self) -> None:
        """Open the export dialog on the open session (``e``)."""
        self.links.export(self.pane.open.node if self.pane.open is not None else None)

    def action_help(self) -> None:
        from .help import HelpScreen

        self.app.push_screen(HelpScreen(self.options.search.syntax if self.options.search else None))

    def action_search(self) -> None:
        self.search.open_view()

    def action_hit(self, step: int) -> Worker[None]:
        return self.search.step(step)

    def action_filter_tree(self) -> None:
        self.search.filter_tree()

    def action_timing(self) -> None:
        """Open the timing view of the open session."""
        self.links.timing(self.pane.open.node if self.pane.open is not None else None, self.show_hit)

    def action_sort_tree(self) -> None:
        self.usage.sort_tree()

    def action_usage_details(self) -> None:
        self.usage.details(self.pane.open.node if self.pane.open is not None else None)

    def action_ledger(self) -> None:
        self.compaction.ledger()


def _freeze_startup_objects() -> None:
    """Exempt what start-up made (modules, classes, the first screen) from collection.

    They live as long as the app. Without this, every full garbage collection walks some
    150,000 of them and pauses the app for about 100 ms in the middle of a key press.
    """
    gc.freeze()
