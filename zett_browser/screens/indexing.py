"""Provides the side index's sync for the main screen: :class:`IndexSync` and its progress line.

The first sync starts when the screen mounts and later ones when the change poll sees
the store move; each runs in a worker while the keys stay answered (the index does
its work in threads, in batches). Progress goes to a one-line widget that only repaints,
at most a few times a second. The search itself is ``index/search_service.py``'s.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from functools import partial
from typing import cast

from rich.text import Text
from textual.widget import Widget
from textual.worker import Worker

from ..model.search import BuildProgress, SearchService
from ..widgets.line import TextLine
from ..widgets.safe import one_line
from ..widgets.status import JumpField, StatusLine
from .indexstate import IndexState as IndexState  # where it was (tests import it here)
from .reads import Failed, Notify, RunWorker, attempt

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
        #: The progress last shown (None: no sync is showing one), fitted again when the
        #: page status beside it changes length (:func:`refit_build_progress`).
        self.progress: BuildProgress | None = None

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
    status, line = row.query_one(StatusLine), row.query_one(IndexLine)
    line.progress = progress
    shown = line.show_progress(progress, status.cells, status.compact_cells)
    row.query_one(JumpField).show_note(None if shown else progress_text(progress, JUMP_CELLS - 2).plain)


def refit_build_progress(status: StatusLine) -> None:
    """The page ``status`` changed: the build's progress beside it takes the room left now.

    A build's progress is shown every :data:`PROGRESS_EVERY` at most, and not at all while
    the build waits for the keys to pause; a page turn that lengthens the status
    (``#1–50`` to ``#99,951–100,000``) would otherwise cut its total off until then (in a
    real terminal: ~450 ms after ``G``)."""
    row = status.parent
    lines = row.query(IndexLine) if isinstance(row, Widget) else None  # none: a screen without the index
    if isinstance(row, Widget) and lines and (progress := lines.first().progress) is not None:
        show_build_progress(row, progress)


def hide_build_progress(row: Widget) -> None:
    """A sync ended: no progress in ``row``."""
    line = row.query_one(IndexLine)
    line.progress = None
    line.add_class("hidden")
    row.query_one(JumpField).show_note(None)


class IndexSync:
    """Keeps the side index up to date: the first sync, one more per change, the progress.

    Args:
        service: The search service (None: ``--no-index``, nothing to sync).
        row: The status row, whose index line (or jump field) shows the progress.
        run_worker: Starts a worker on the screen.
        notify: Shows a notice.
        set_timer: The screen's ``set_timer``.
        synced: Called after each sync (cached hits and the shown usage are stale).
        settle: Awaited between the sync's batches: returns once the keys pause
            (:meth:`~zett_browser.screens.quiet.QuietGate.settled`); None: no wait.
    """

    def __init__(
        self,
        service: SearchService | None,
        row: Widget,
        run_worker: RunWorker,
        notify: Notify,
        set_timer: Callable[[float, Callable[[], object]], object],
        synced: Callable[[], object],
        settle: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        self._service = service
        self._settle = settle
        self._row = row
        self._run = run_worker
        self._notify = notify
        self._set_timer = set_timer
        self._synced = synced
        self.state = IndexState()
        self._sync_again = False
        #: The first sync waits for the first page (see :meth:`start`).
        self._after_first_page = False
        self._when_quiet: Callable[[Callable[[], object]], object] | None = None
        #: Whether keys hold a first build in a child process (until they pause).
        self._holding = False

    def start(self, *, after_first_page: bool, when_quiet: Callable[[Callable[[], object]], object]) -> None:
        """Begin the first sync (when there is a search service), at once or, with
        ``after_first_page``, once the first screen's reads are done (or 3 s passed, and
        then too only in a pause of the keys: ``when_quiet``)."""
        self._when_quiet = when_quiet
        if self._service is not None:
            if after_first_page:
                self._after_first_page = True  # the first screen's reads go first
                # No first page (an empty store...); on a loaded machine a first page slower
                # than 3 s started the build under the reader's keys.
                self._set_timer(3.0, partial(when_quiet, self.start_deferred))
            else:
                self.sync()

    def start_deferred(self) -> None:
        """Start the first sync if it waits for the first page (once)."""
        if self._after_first_page:
            self._after_first_page = False
            self.sync()

    def keys_came(self) -> None:
        """A key or wheel turn: a first build running in a child process stops at once (not
        at its next report: a commit of its batches runs for a second or more) and goes on
        once the keys pause (:meth:`~.quiet.QuietGate.run`)."""
        state = self.state
        if self._service is None or self._when_quiet is None or self._holding or not state.building or state.built:
            return
        self._holding = True
        self._service.hold_background(True)
        self._when_quiet(self._keys_paused)

    def _keys_paused(self) -> None:
        self._holding = False
        if self._service is not None:
            self._service.hold_background(False)

    def store_changed(self) -> None:
        """Something was committed to the store since the last poll: the index follows."""
        if self._service is None:
            return
        if self.state.building:
            self._sync_again = True  # one more sync when this one ends
        else:
            self.sync()

    async def _steps(self, service: SearchService) -> None:
        """Run one sync to its end, showing its progress now and then."""
        state, row = self.state, self._row
        started = last = time.monotonic()
        # Closed here even when cancelled between steps (the app quitting while the build
        # waits for the keys): the index file and its lock are released now, not by the GC.
        async with contextlib.aclosing(cast("AsyncGenerator[BuildProgress, None]", service.steps())) as steps:
            async for progress in steps:
                state.done, state.total = progress.done, progress.total
                now = time.monotonic()
                if not progress.finished and now - last >= PROGRESS_EVERY and now - started >= PROGRESS_EVERY:
                    last = now
                    show_build_progress(row, progress)
                if self._settle is not None and not progress.finished and not state.built:
                    await self._settle()  # the first build's next batch waits for a pause of the keys
        state.built = True

    def sync(self) -> Worker[None]:
        return self._run(self._sync, name="sync_index", group="index", description="sync_index()", exit_on_error=False)

    async def _sync(self) -> None:
        service = self._service
        if service is None:
            return
        state = self.state
        state.building = True
        try:
            built = await attempt(self._steps(service))
            if isinstance(built, Failed):  # the index is derived data: a warning, browsing goes on
                message = f"Could not update the search index: {one_line(built.error, 200)}"
                self._notify(message, severity="warning", markup=False)
        finally:
            state.building = False
            state.syncs += 1
            hide_build_progress(self._row)
        self._synced()
        if self._sync_again:
            self._sync_again = False
            self.sync()
