"""Provides the one read helper every screen is handed, and the read of a Raw Log window.

:class:`ReadHelper` is the one place a failed read becomes a notice (or, for a read that is
only decoration, a log line): screens and their controllers pass it storage calls and
never write their own ``except``. It also keeps the server's state: a lost connection is
announced once and the screen's subtitle says so until the server answers again. Work
that is not a store read but may fail the same way (a search of the side index, an
export, the index sync, formatting a whole message) takes the same shape without a
screen's state: :func:`attempt` (awaited) and :func:`attempt_call` (in a thread) return
the value or :class:`Failed`, and the view words the failure in place.
``tests/unit/test_screen_failures.py`` fails when a screen module catches
``Exception`` itself.

A page continues after (or before) an exact row (``after_id`` / ``before_id``), and the
first page starts at the very first row (``after_sequence=None``), so paging is total over
damaged sequences (duplicates, NULL, <= 0).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from textual.worker import Worker

from ..model import RawMessageRecord
from ..model.store import BrowsingStore
from ..views.paging import PageRequest
from ..widgets.safe import clean

T = TypeVar("T")

#: ``notify`` of a screen or app (message, title=, severity=, markup=, timeout=).
Notify = Callable[..., Any]
#: Starts a Textual worker on the screen (``Screen.run_worker``).
RunWorker = Callable[..., Worker[Any]]


class Failed:
    """What :meth:`ReadHelper.fetch` returns when the read failed (already reported)."""

    def __init__(self, error: Exception) -> None:
        self.error = error


async def attempt(call: Awaitable[T]) -> T | Failed:
    """Await ``call``: its value, or :class:`Failed` with the error for the caller to word."""
    try:
        return await call
    except Exception as error:  # noqa: BLE001 - the caller shows it, never a crash
        return Failed(error)


def attempt_call(work: Callable[[], T]) -> T | Failed:
    """Run ``work`` (in a worker thread): its value, or :class:`Failed` for the caller to word."""
    try:
        return work()
    except Exception as error:  # noqa: BLE001 - the caller shows it, never a crash
        return Failed(error)


class ReadHelper:
    """Runs storage reads for a screen and reports their failures.

    Args:
        notify: Shows a notice (a screen's ``notify``).
        warn: Writes a line to the log (a background read that failed quietly).
        is_connection_failure: True when an error means the server cannot be reached.
        show_offline: Called with why the server is gone, or None once it is back.
    """

    def __init__(
        self,
        notify: Notify,
        warn: Callable[[str], object],
        is_connection_failure: Callable[[BaseException], bool],
        show_offline: Callable[[str | None], object] | None = None,
    ) -> None:
        self._notify = notify
        self._warn = warn
        self._is_connection_failure = is_connection_failure
        self._show_offline = show_offline
        #: Why the server cannot be reached, while it cannot (None: connected).
        self.offline: str | None = None

    async def fetch(self, call: Awaitable[T], failure: str | None = None) -> T | Failed:
        """Run one storage read; report a failure and return :class:`Failed` instead.

        ``failure`` names what failed for the user; None keeps it quiet (a background
        re-read retried at the next tick), except that a lost server is announced once.
        """
        try:
            return await call
        except Exception as error:  # noqa: BLE001 - shown to the user, never a crash
            lost = self._is_connection_failure(error)
            if failure is None:
                self._warn(f"background read failed: {error!r}")
                if lost:
                    self.disconnected(error)
            else:
                if lost:
                    self.disconnected(error, announce=False)  # the notification below says it
                self._notify(f"{failure}: {clean(error)}", severity="error", markup=False, timeout=8)
            return Failed(error)

    async def attempt(self, call: Awaitable[T]) -> T | Failed:
        """Run a read whose failure the view itself shows in place (an error line of its
        own, not a notice): the value, or :class:`Failed` with the error to word."""
        return await attempt(call)

    async def quietly(self, call: Awaitable[T], default: T, what: str = "read") -> T:
        """Run a read that is only decoration: a failure is a log line and ``default``."""
        try:
            return await call
        except Exception as error:  # noqa: BLE001 - decoration: what shows stays as it is
            self._warn(f"{what} failed: {error!r}")
            return default

    def disconnected(self, error: Exception, *, announce: bool = True) -> None:
        """Say once that the server is gone; the subtitle keeps saying it until it is back."""
        if announce and self.offline is None:
            self._notify(
                f"{clean(error)}\nBrowsing resumes by itself once the server answers again.",
                title="Connection lost",
                severity="error",
                markup=False,
                timeout=10,
            )
        self.offline = clean(error)
        if self._show_offline is not None:
            self._show_offline(self.offline)

    def connected(self) -> None:
        """A read answered: say so once if the server was gone."""
        if self.offline is not None:
            self.offline = None
            if self._show_offline is not None:
                self._show_offline(None)
            self._notify("Reconnected to the store", markup=False, timeout=4)


@dataclass(frozen=True)
class Services:
    """What a screen hands each of its controllers: the store, the read helper, and the
    screen's ways to start a worker (so a stale one is cancelled by the next of its
    group), show a notice and open a screen."""

    store: BrowsingStore
    reader: ReadHelper
    run_worker: RunWorker
    notify: Notify
    push_screen: Callable[..., Any]
    #: Where a session missing from the store is (``BrowserOptions.elsewhere``), if looked for.
    elsewhere: Callable[[str], str | None] | None = None


async def read_window(store: BrowsingStore, session_id: str, request: PageRequest, size: int) -> list[RawMessageRecord]:
    """The records ``request`` names, ascending, at most ``size`` of them."""
    if request.start:
        return await store.raw_page(session_id, after_sequence=None, limit=size)
    if request.after is not None:
        return await store.raw_page(session_id, after_sequence=request.after, after_id=request.after_id, limit=size)
    return await store.raw_page_before(
        session_id, before_sequence=request.before, before_id=request.before_id, limit=size
    )
