"""Provides the side index's part of the main screen: background sync, progress, hits.

The first sync starts when the screen mounts and later ones when the change poll sees
the store move; each runs in a worker while the keys stay answered (the index does
its work in threads, in batches). Progress goes to a one-line widget that only repaints,
at most a few times a second. The search view is pushed from here, and ``.``/``,``
step through the last query's hits in the open session.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import work
from textual.widget import Widget

from ..model.search import BuildProgress, SearchHit
from ..widgets.line import TextLine
from ..widgets.rawlog import RawLogView
from ..widgets.safe import one_line
from ..widgets.session_tree import SessionTree
from ..widgets.status import JumpField, StatusLine
from .indexstate import IndexState as IndexState  # where it was (tests import it here)
from .watch import WatchingScreen

#: Seconds between repaints of the progress line (and before it first shows).
PROGRESS_EVERY = 0.25


def progress_text(progress: BuildProgress, width: int) -> Text:
    """``indexing 40% 12,000/30,000 · 5,100/s · 4 s left``, or a shorter form that fits ``width``."""
    percent = min(99, progress.done * 100 // max(progress.total, 1))
    left = f"{progress.eta:,.0f} s left" if progress.eta is not None else "starting"
    counts = f"{progress.done:,}/{progress.total:,}"
    forms = (
        f"indexing {percent}% {counts} · {progress.rate:,.0f}/s · {left}",
        f"indexing {percent}% {counts} · {left}",
        f"indexing {percent}% · {left}",
        f"index {percent}% · {left}",
        f"index {percent}%",
        f"{percent}%",
    )
    chosen = next((form for form in forms if len(form) <= width), forms[-1])
    return Text(chosen, style="bold yellow")


#: Cells of the status row the index line never takes: the jump field's.
JUMP_CELLS = 14


class IndexLine(TextLine):
    """The index's progress in the status row: hidden unless a sync takes a while.

    It takes only what the page status leaves: the status keeps its whole range and total
    (``#999,951–1,000,000 of 1,000,000``) and the progress shortens to fit, down to ``7%``.
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.add_class("hidden")
        self._cells = 30

    def show_progress(self, progress: BuildProgress, status_cells: int = 26, compact_cells: int = 0) -> bool:
        """Show ``progress`` next to a page status whose text takes ``status_cells`` cells
        (``compact_cells`` in its compact form); False, hidden, where the row has no room
        left (the jump field then shows it: :func:`show_build_progress`)."""
        row = self.parent.size.width if isinstance(self.parent, Widget) else 0
        # The status's padding (2) and a gap (1) stay with it. The whole status and a
        # readable progress if both fit, else the status's compact form and the rest, down
        # to 6 cells (" 99% ").
        cells = row - JUMP_CELLS - status_cells - 3
        if cells < 12:
            cells = row - JUMP_CELLS - (compact_cells or status_cells) - 3
        if cells < 6:
            self.add_class("hidden")
            return False
        cells = min(52, cells)
        if cells != self._cells or self.has_class("hidden"):
            # A layout only when the room changes (a page turn changed the status's length).
            self._cells = cells
            self.styles.width = cells
            self.remove_class("hidden")
        self.show(progress_text(progress, cells - 2))
        return True


def show_build_progress(row: Widget, progress: BuildProgress) -> None:
    """Show ``progress`` in the status ``row`` without cutting the page status: in the index
    line, or, where the row has no room for it, in the idle jump field."""
    status = row.query_one(StatusLine)
    shown = row.query_one(IndexLine).show_progress(progress, status.cells, status.compact_cells)
    row.query_one(JumpField).show_note(None if shown else progress_text(progress, JUMP_CELLS - 2).plain)


class IndexingScreen(WatchingScreen):
    """A watching screen that also keeps the side index up to date and searches it."""

    index_state: IndexState
    search_text: str | None = None
    #: The first sync waits for the first page (see :meth:`start_index`).
    _sync_after_first_page = False

    def start_index(self) -> None:
        """Begin the first sync (when the app has a search service)."""
        self.index_state = IndexState()
        self._sync_again = False
        self._session_hits: tuple[str, str, list[int]] | None = None
        if self.options.search is not None:
            if self.options.search_query is None and not self._started:
                self._sync_after_first_page = True  # the first screen's reads go first
                self.set_timer(3.0, self.start_deferred_sync)  # no first page (an empty store...)
            else:
                self.sync_index()

    def start_deferred_sync(self) -> None:
        """Start the first sync if it waits for the first page (once)."""
        if self._sync_after_first_page:
            self._sync_after_first_page = False
            self.sync_index()

    def _store_changed(self) -> None:
        if self.options.search is None:
            return
        if self.index_state.building:
            self._sync_again = True  # one more sync when this one ends
        else:
            self.sync_index()

    @work(group="index", exit_on_error=False)
    async def sync_index(self) -> None:
        service = self.options.search
        if service is None:
            return
        state = self.index_state
        state.building = True
        line = self.query_one(IndexLine)
        started = last = time.monotonic()
        try:
            async for progress in service.steps():
                state.done, state.total = progress.done, progress.total
                now = time.monotonic()
                if not progress.finished and now - last >= PROGRESS_EVERY and now - started >= PROGRESS_EVERY:
                    last = now
                    show_build_progress(self.query_one("#status-row", Widget), progress)
            state.built = True
        except Exception as error:  # noqa: BLE001 - the index is derived data: browsing goes on
            self.notify(f"Could not update the search index: {one_line(error, 200)}", severity="warning", markup=False)
        finally:
            state.building = False
            state.syncs += 1
            line.add_class("hidden")
            self.query_one(JumpField).show_note(None)
        self._index_synced()
        if self._sync_again:
            self._sync_again = False
            self.sync_index()

    def _index_synced(self) -> None:
        """A sync ended: forget cached hits; a search view showing partial results runs again."""
        self._session_hits = None
        from .search import SearchScreen  # the search view imports this module

        screen = self.app.screen
        if isinstance(screen, SearchScreen) and screen.partial:
            screen.run_query(screen.query_text)

    def action_search(self) -> None:
        service = self.options.search
        if service is None:
            self.notify("Search is off (--no-index)", severity="warning", markup=False)
            return
        from .search import SearchScreen

        session = self.open.node.session_id if self.open is not None else None
        self.app.push_screen(
            SearchScreen(service, self.index_state, self.search_text or "", session=session), self._hit_chosen
        )

    def open_search(self, text: str) -> None:
        """Open the search view on ``text`` (``--search``)."""
        self.search_text = text
        self.action_search()

    def _hit_chosen(self, result: tuple[str, SearchHit | None] | None) -> None:
        if result is None:
            return
        text, hit = result
        self.search_text = text or None
        if hit is not None:
            self.show_hit(hit.session_id, hit.sequence)

    def show_hit(self, session_id: str, sequence: int) -> None:
        """Open a session with the cursor on ``sequence``, remembering the place left (``b``)."""
        raise NotImplementedError

    def show_sequence(self, sequence: int) -> None:
        """Move the Raw Log's cursor to ``sequence`` of the open session."""
        raise NotImplementedError

    @work(exclusive=True, group="hits", exit_on_error=False)
    async def action_hit(self, step: int) -> None:
        """Jump the Raw Log to the next (``step`` 1) or previous (-1) hit in the open session."""
        service, text, state = self.options.search, self.search_text, self.open
        if service is None or state is None:
            return
        if not text:
            self.notify("No search yet: / searches", markup=False)
            return
        session_id = state.node.session_id
        cached = self._session_hits
        if cached is not None and cached[:2] == (text, session_id):
            sequences = cached[2]
        else:
            found = await self.fetch(service.sequences_in(text, session_id), "Could not search the session")
            if not isinstance(found, list):
                return
            sequences = found
            self._session_hits = (text, session_id, sequences)
        current = self.query_one(RawLogView).current
        here = current.sequence if current is not None else 0
        ahead = [s for s in sequences if s > here] if step > 0 else [s for s in reversed(sequences) if s < here]
        if not sequences:
            self.notify("No hits of the last search in this session", markup=False)
        elif not ahead:
            self.notify("No more hits in this session" if step > 0 else "No earlier hits in this session", markup=False)
        else:
            place = sequences.index(ahead[0]) + 1
            self.notify(f"Hit {place} of {len(sequences)} in this session", markup=False, timeout=2)
            self.show_sequence(ahead[0])

    # ---------------------------------------------------------------- tree filter (issue 11)

    def action_filter_tree(self) -> None:
        """``F``: show only the sessions the last search matches (``esc`` in the tree clears)."""
        if not self.search_text:
            self.notify("Search first (/): F then filters the tree by that query", markup=False)
            return
        self.apply_tree_filter(self.search_text)
        self.query_one(SessionTree).focus()

    @work(group="tree-filter", exclusive=True, exit_on_error=False)
    async def apply_tree_filter(self, query: str) -> None:
        """Filter the tree by a query of the search language; an empty query clears it.

        The matching sessions come from the side index; a bad query or search switched off
        is a one-line notice.
        """
        tree = self.query_one(SessionTree)
        if not query.strip():
            tree.clear_filter()
            return
        service = self.options.search
        if service is None:
            self.notify("Search is off (--no-index): no tree filter", severity="warning", markup=False)
            return
        session = self.open.node.session_id if self.open is not None else None
        try:
            found = await service.sessions_matching(query, session)
        except ValueError as error:  # a bad query: the message names the token
            self.notify(one_line(str(error), 200), severity="error", markup=False)
            return
        except Exception as error:  # noqa: BLE001 - a locked or damaged index: say so, keep the tree
            self.notify(f"Could not filter the tree: {one_line(error, 200)}", severity="error", markup=False)
            return
        if found.partial:
            self.notify("The index is still being built: the filter may miss sessions", markup=False)
        tree.apply_filter(set(found.matching), set(found.visible), query)
