"""Provides the frozen options a browsing screen is built with.

Everything a screen needs besides its store: where to start, the page size, how often
to look for changes, the clock, the search service, and how to recognise a lost server connection (the
storage's error classes stay in the storage package; the app passes a predicate).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..model.export import ExportService
from ..model.notes import NotesService
from ..model.search import SearchService
from ..model.usage_service import UsageService


def _now() -> datetime:
    return datetime.now(UTC)


def _never(error: BaseException) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class BrowserOptions:
    """What to open first and how to browse."""

    #: Session to open at start (None: the newest root) and the sequence to put the cursor on.
    session: str | None = None
    seq: int | None = None
    #: Raw Log messages per page.
    page_size: int = 50
    #: Seconds between checks for changes written by another process (0: never).
    poll_interval: float = 0.5
    clock: Callable[[], datetime] = field(default=_now)
    #: True when an error means the database server cannot be reached right now.
    is_connection_failure: Callable[[BaseException], bool] = field(default=_never)
    #: Start in follow mode (the live demo).
    follow: bool = False
    #: Full-text search over the store's side index (None: ``--no-index``).
    search: SearchService | None = None
    #: Open the search view on this query at start (``--search``).
    search_query: str | None = None
    #: Writes exports of the store (the ``e`` dialog); None: no export offered.
    exporter: ExportService | None = None
    #: Why no file may be written (``zett-browser serve``: the page is another person's
    #: reach into this machine); shown instead of the export dialog and the context's ``w``.
    #: None: both write files.
    no_writes: str | None = None
    #: Usage totals and cost from the side index (None: ``--no-index``).
    usage: UsageService | None = None
    #: Called once, when the first page has been laid out: the app paints the first screen
    #: then, and starts what must not delay it (see :meth:`ZettBrowserApp.first_page_shown`).
    after_first_page: Callable[[], object] | None = None
    #: Where a delegated session missing from this store is (zett-agent's default store,
    #: read-only; blocking, run on a thread); None: not looked for.
    elsewhere: Callable[[str], str | None] | None = None
    #: Pins, labels and notes kept in the notes file (None: not offered, e.g. when served).
    notes: NotesService | None = None
