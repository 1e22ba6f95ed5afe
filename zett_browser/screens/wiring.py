"""Provides the main screen's controllers, built and wired to each other: :class:`MainControllers`.

Each controller has its own state and a narrow constructor (see the modules it names);
this module builds them with what each needs and holds what passes between them: a
session opened (its saved tokens shown after it paints), the first page shown (what
waited for it starts), a sync ended (cached hits, usage labels and cards are stale), the
store changed (the open session and the ledger read again). The screen (:mod:`.main`)
lays out the panes and routes keys and widget messages to the controllers.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from functools import partial
from typing import Any

from textual.screen import Screen
from textual.widget import Widget

from ..model import RawMessageRecord, SessionNode, SnapshotInfo
from ..widgets.cardlayers import CardLayers
from .compaction import CompactionViews
from .hits import SearchHits
from .indexing import IndexSync
from .levels import TreeLevels
from .links import RecordLinks
from .options import BrowserOptions
from .quiet import BUILD_PAUSE_MAX_S, QuietGate
from .reads import Services
from .review import ReviewMarks
from .session import PaneWidgets, SessionPane
from .states import StateMarks
from .usage import DelegationCards, UsageLabels
from .watch import CHILDREN_PAGE, ROOTS_PAGE, ChangePoller


class MainControllers:
    """The open session, the tree's levels, the change poll, the index sync, the search,
    usage labels and cards, compaction views, session states, where a message leads and
    the pins, labels and notes.

    Args:
        services: The store, the read helper, workers, notices and screens.
        widgets: The panes the controllers show things in.
        row: The status row (the index sync's progress).
        options: What to open first and how to browse.
        set_title: Sets the screen's title.
        call_after_refresh: The screen's ``call_after_refresh``.
        set_timer: The screen's ``set_timer``.
        screens: The app's screen stack, bottom first (the top one last).
    """

    def __init__(
        self,
        services: Services,
        widgets: PaneWidgets,
        row: Widget,
        options: BrowserOptions,
        *,
        set_title: Callable[[str], object],
        call_after_refresh: Callable[..., object],
        set_timer: Callable[..., Any],
        screens: Callable[[], list[Screen[Any]]],
    ) -> None:
        self._options = options
        self._call_after_refresh = call_after_refresh
        self._screens = screens
        self._view = widgets.view
        #: Start-up's background work waits for a pause in the keys (see :mod:`.quiet`).
        self.quiet = QuietGate(set_timer, call_after_refresh)
        #: Decoration asked for before the first page showed (it runs once it has).
        self._after_first: list[Callable[[], object]] = []
        layers = CardLayers(widgets.view)
        self.cards = DelegationCards(services, options.usage, widgets.view, layers)
        self.review = ReviewMarks(
            services, options.notes, widgets.tree, widgets.view, layers, widgets.inspector, lambda: self.open_id()
        )
        self.pane = SessionPane(
            services,
            widgets,
            page_size=options.page_size,
            follow=options.follow,
            set_title=set_title,
            opened=self._opened,
            page_shown=self._page_shown,
            first_page=self._first_page,
        )
        self.usage = UsageLabels(services, options.usage, widgets.tree)
        self.index = IndexSync(
            options.search, row, services.run_worker, services.notify, set_timer, self._synced, self._build_pause
        )
        self.quiet.on_activity = self.index.keys_came  # a first build in a child stops at a key
        self.search = SearchHits(
            options.search,
            self.index.state,
            services,
            widgets.tree,
            widgets.view,
            open_session=self.open_id,
            show_hit=self.show_hit,
            show_sequence=self.pane.jump_to,
        )
        self.compaction = CompactionViews(
            services,
            widgets.inspector,
            screens=screens,
            open_session=lambda: self.pane.open,
            show_boundary=self.pane.show_boundary,
        )
        self.poller = ChangePoller(
            services, widgets.tree, store_changed=self.index.store_changed, refresh_rest=self._refresh_open
        )
        self.links = RecordLinks(
            services,
            jump_to=self.pane.jump_to,
            open_child=lambda session_id: self.pane.open_session(session_id, None, push=True, focus=True),
            page_size=options.page_size,
            no_writes=options.no_writes,
            exporter=options.exporter,
        )
        self.levels = TreeLevels(
            services,
            widgets.tree,
            widgets.view,
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
        self.states = StateMarks(services, widgets.breadcrumb, self.levels, self.poller, self.pane, set_title)
        # The breadcrumb names siblings with the tags the tree gives them (one live mapping).
        widgets.breadcrumb.tags = widgets.tree.tag_book.tags
        widgets.breadcrumb.hints = widgets.tree.tag_book.hints
        widgets.tree.labels.names_changed = widgets.breadcrumb.refresh

    def start(self) -> None:
        """The screen is mounted: the roots, the session asked for, the index, the search asked for."""
        options = self._options
        self.levels.load_roots()
        if options.session:
            self.pane.open_session(options.session, options.seq, focus=options.seq is not None)
        # The first sync waits for the first screen's reads (unless a search is asked for).
        first = options.search_query is None and not self.pane.started
        self.index.start(after_first_page=first, when_quiet=self.quiet.run)
        if options.search_query is not None:
            self.search.text = options.search_query
            self.search.open_view()

    def open_node(self) -> SessionNode | None:
        """The open session (None: no session is open)."""
        return self.pane.open.node if self.pane.open is not None else None

    def open_id(self) -> str | None:
        """The open session's id (None: no session is open)."""
        node = self.open_node()
        return node.session_id if node is not None else None

    def show_hit(self, session_id: str, sequence: int) -> None:
        """Open a session with the cursor on ``sequence``, remembering the place left (``b``)."""
        self.pane.open_session(session_id, sequence, push=True, focus=True)

    def _page_shown(self, records: list[RawMessageRecord]) -> None:
        self.cards.cards_for(records)
        self.review.page_shown(records)

    def _opened(self, session_id: str, latest: SnapshotInfo | None) -> None:
        saved = partial(self.compaction.show_saved_tokens, session_id, latest)
        if self.pane.started:
            self._call_after_refresh(saved)  # after the session shows
        else:
            # Measuring the compacted prefix needs the SQL storage: asked for before the first
            # page, its import ran beside the first paint (a cold start onto a compacted
            # session: ~+150 ms CPU over a short one). It starts once the first page shows.
            self._after_first.append(saved)
        self.quiet.run(self.states.decorate)
        self.review.session_opened()

    def _first_page(self) -> None:
        """The first page is shown: what waited for it starts (keys pressed at once go first)."""
        self._call_after_refresh(_freeze_startup_objects)
        if self._options.after_first_page is not None:
            self._options.after_first_page()
        waiting, self._after_first = self._after_first, []
        for call in waiting:
            self._call_after_refresh(call)
        self.quiet.run(partial(self.levels.warm_up, self._options.page_size))
        self.quiet.run(self.index.start_deferred)
        # The marks need the store's identity (the storage opened): after the first screen too.
        self.quiet.run(self.review.load)

    async def _refresh_open(self) -> None:
        await self.pane.refresh()
        self.compaction.reload_ledgers()

    async def _build_pause(self) -> None:
        """Between the side index's first-build batches: until the keys pause, at most
        :data:`~.quiet.BUILD_PAUSE_MAX_S` (a reader who keeps paging still sees the build go on)."""
        await self.quiet.settled(longest=BUILD_PAUSE_MAX_S)

    def _synced(self) -> None:
        """A sync ended: cached hits and the shown usage are stale; a search view showing
        partial results runs again."""
        stack = self._screens()
        self.search.synced(stack[-1] if stack else None)
        self.usage.relabel_shown()
        self.cards.cards_for(self._view.records)  # the children's totals are known now


def _freeze_startup_objects() -> None:
    """Exempt what start-up made (modules, classes, the first screen) from collection.

    They live as long as the app. Without this, every full garbage collection walks some
    150,000 of them and pauses the app for about 100 ms in the middle of a key press.
    """
    gc.freeze()
