"""Provides the Textual app and its factory.

The app is given its store (a :class:`BrowsingStore`, opened by :func:`make_app` or by
the caller) and the browsing options; it builds the main screen with both and closes the
store when it exits. Screens never reach back into the app for data.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import App, SystemCommand
from textual.screen import Screen

from .keymap import bindings, keys
from .model.store import BrowsingStore
from .screens.main import MainScreen
from .screens.options import BrowserOptions
from .screens.watch import ROOTS_PAGE
from .startup.gcpace import PACE_S, CollectionPacer
from .startup.launch import LazyStore, begin, lazy_store, resume_collection, sqlite_path
from .startup.lifecycle import end_after_hangup, install_exit_signals
from .startup.warmstart import Warm, WarmStore
from .widgets.rawlog import RawLogView
from .widgets.render import use_theme
from .widgets.textual_compat import PromptOutput, hold_repaints, release_repaints

if TYPE_CHECKING:  # the live demo is imported only by ``zett-browser demo --live``
    from .demo.live import LiveDemo
    from .storage import SQLSessionStorage


def is_connection_failure(error: BaseException) -> bool:
    """True when ``error`` means the database server cannot be reached right now."""
    from .storage.errors import StoreConnectionError  # loaded: the storage raised ``error``

    return isinstance(error, StoreConnectionError)


class ZettBrowserApp(PromptOutput, App[None]):
    """Browse a zett-agent store: sessions, the Raw Log and compaction snapshots."""

    CSS_PATH = "app.tcss"
    TITLE = "zett-browser"
    #: Screens under 100 columns get ``-narrow``: app.tcss lays them out for 80×24.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    BINDINGS = bindings("app")
    #: Seconds between live-demo steps at speed 1.
    LIVE_STEP_SECONDS = 1.5
    #: Longest the first paint waits for the first page (then it shows what is there).
    FIRST_SCREEN_HOLD = 0.25

    def __init__(
        self,
        storage: BrowsingStore,
        options: BrowserOptions,
        *,
        live: LiveDemo | None = None,
        warm: Warm | None = None,
    ) -> None:
        super().__init__()
        #: The first screen's reads, already running on a thread (None: read on the loop).
        self.warm = warm
        #: The live compaction demo writing into the store, if any.
        self.live = live
        self.live_paused = False
        self.live_speed = 1.0
        self.storage = storage
        self.options = replace(options, follow=True) if live is not None else options
        self.options = replace(self.options, after_first_page=self.first_page_shown)
        #: True while the first paint waits for the first page (see :meth:`on_mount`).
        self.first_paint_held = False
        #: Full garbage collections between the app's steps, not inside them.
        self.pacer = CollectionPacer()

    def on_mount(self) -> None:
        install_exit_signals(self)  # SIGTERM/SIGHUP exit like q: storage closed, terminal restored
        self.pacer.start()
        self.set_interval(PACE_S, self.pacer.collect_if_due, name="gc-pacer")
        use_theme(self.get_css_variables())
        self.theme_changed_signal.subscribe(self, self._restyle)
        store = self.storage if self.warm is None else WarmStore(self.storage, self.warm)
        # The first screen paints whole: frames of empty panes, each a full-screen render,
        # would only delay the one with the sessions and the first page.
        self.first_paint_held = True
        hold_repaints(self)
        self.set_timer(self.FIRST_SCREEN_HOLD, self._end_hold)
        self.push_screen(MainScreen(store, self.options, frames_held=lambda: self.first_paint_held))
        if self.live is not None:
            for key in keys("live"):
                self.bind(key.keys, key.action, description=key.title)
            self.play_live()

    def first_page_shown(self) -> None:
        """The first page is laid out: paint now; then open the SQL storage if it waits."""
        self._end_hold()
        if isinstance(self.storage, LazyStore):
            self.call_after_refresh(self.storage.preload)

    def _end_hold(self) -> None:
        if self.first_paint_held:
            self.first_paint_held = False
            release_repaints(self)
            with contextlib.suppress(Exception):  # no screen: the app is exiting
                self.screen.refresh(layout=True)
            if not isinstance(self.storage, LazyStore):
                # (A LazyStore ends the command line's hold once the storage is imported.)
                self.call_after_refresh(resume_collection)

    def _restyle(self, _theme: object) -> None:
        """A new theme: resolve the text styles with its colours and repaint what uses them."""
        use_theme(self.get_css_variables())
        for view in self.screen.query(RawLogView):
            view.restyle()
        self.screen.refresh()

    async def on_unmount(self) -> None:
        self.pacer.stop()
        if self.warm is not None:
            self.warm.finish()  # its connections go before the store closes
        if self.options.search is not None:
            await self.options.search.close()  # the index sync reads the store: stop it first
        if self.live is not None:
            # Stop the writer before closing its storage: closed under a step that is still
            # appending, the connection's worker thread is gone and the step's clean-up
            # would wait for it forever (the event loop then never finishes closing).
            await self._stop_workers("live")
            await self.live.close()
        await self.storage.close()
        end_after_hangup()  # the terminal is gone: Textual's restore of it can hang forever

    async def _stop_workers(self, group: str) -> None:
        """Cancel the app's workers of ``group`` and wait until each has finished."""
        workers = [worker for worker in self.workers if worker.group == group and worker.node is self]
        for worker in workers:
            worker.cancel()
        for worker in workers:
            with contextlib.suppress(Exception):
                await worker.wait()

    @work(group="live", exit_on_error=False)
    async def play_live(self) -> None:
        """Write the live demo's next message at a readable pace, on this loop."""
        live = self.live
        assert live is not None
        while True:
            if not self.live_paused:
                what = await live.step()
                self._show_live(what)
            await asyncio.sleep(self.LIVE_STEP_SECONDS / self.live_speed)

    def _show_live(self, what: str = "") -> None:
        if self.live is None:
            return
        state = "paused" if self.live_paused else f"playing ×{self.live_speed:g}"
        self.screen.sub_title = f"{self.live.describe()} · {state}" + (f" · {what}" if what else "")

    def action_live_pause(self) -> None:
        self.live_paused = not self.live_paused
        self._show_live()

    def action_live_speed(self, factor: float) -> None:
        self.live_speed = max(0.25, min(16.0, self.live_speed * factor))
        self._show_live()

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        if self.options.no_writes is not None:
            self.notify(self.options.no_writes, severity="warning", markup=False, timeout=8)
            return None
        return super().deliver_screenshot(filename, path, time_format)

    async def on_event(self, event: events.Event) -> None:
        # Every key and wheel turn, on any screen (time travel, search, help...) and also one a
        # widget stops: background work (the side index's first build) waits for a pause.
        if isinstance(event, (events.Key, events.MouseScrollDown, events.MouseScrollUp)):
            for screen in self.screen_stack:
                if isinstance(screen, MainScreen):
                    screen.quiet.activity()
                    break
        await super().on_event(event)

    def action_help(self) -> None:
        screen = self.screen
        if isinstance(screen, MainScreen):
            screen.action_help()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title == "Screenshot" and self.options.no_writes is not None:
                continue  # it saves a file (or delivers one through the server)
            yield command
        if isinstance(screen, MainScreen):
            yield from screen.system_commands()


def make_app(
    store: str | os.PathLike[str] | BrowsingStore | None,
    *,
    session: str | None = None,
    seq: int | None = None,
    page_size: int = 50,
    clock: Callable[[], datetime] | None = None,
    poll_interval: float = 0.5,
    live: LiveDemo | None = None,
    index: bool = False,
    index_dir: Path | None = None,
    search: str | None = None,
    warm: Warm | None = None,
    no_writes: str | None = None,
    notes_file: Path | None = None,
) -> ZettBrowserApp:
    """Build the app on a store: an open one, or a path or URL opened read-only here.

    ``index``: keep the store's side index up to date in the background and offer search
    (``index_dir``: where index files live; default ``$ZETT_BROWSER_INDEX_DIR`` or the
    user cache). ``search``: open the search view on this query. ``warm``: the first screen's
    reads, already started (the start-up reader; for a SQLite path it starts here). ``no_writes``: the app writes no
    file anywhere (``zett-browser serve``): the export dialog, the context's ``w`` and the
    screenshot command say this instead, and pins, labels and notes are not offered.
    ``notes_file``: where pins, labels and notes are kept (default ``$ZETT_BROWSER_NOTES``
    or the user data directory).

    Raises:
        StoreError: The store cannot be browsed (missing, not SQLite, not zett-agent's...).
        ValueError: The page size is not positive.
    """
    if page_size < 1:
        raise ValueError("page size must be positive")
    if isinstance(store, str | os.PathLike) or store is None:
        if warm is None and live is None and sqlite_path(store) is not None:
            # A SQLite file: the first screen is read now, on a thread, without SQLAlchemy;
            # the storage itself opens after the first paint (see zett_browser.startup.launch).
            quick = begin(store, session=session, seq=seq, page_size=page_size, roots_page=ROOTS_PAGE)
            if quick is not None:
                storage: BrowsingStore = lazy_store(store, quick)
                warm = quick
        if warm is None:
            from .storage import open_store

            storage = open_store(store)
    else:
        storage = store
    options = BrowserOptions(
        session=session,
        seq=seq,
        page_size=page_size,
        poll_interval=poll_interval,
        is_connection_failure=is_connection_failure,
    )
    if clock is not None:
        options = replace(options, clock=clock)
    if no_writes is not None:
        options = replace(options, no_writes=no_writes)
    if _is_multi(storage):
        return ZettBrowserApp(storage, _multi_services(storage, options, index, index_dir, search), live=live)
    sql = storage if isinstance(storage, LazyStore) else _sql_storage(storage)
    if sql is not None and no_writes is None:  # not when served: another person's reach into this machine
        options = replace(options, elsewhere=_default_store_holding)
    if sql is not None and no_writes is None:
        from .startup.lazysearch import LazyExporter, lazy_notes

        notes_file = notes_file or _default_notes_file()
        options = replace(options, notes=lazy_notes(sql, notes_file), exporter=LazyExporter(sql, notes_file))
    if index and sql is not None:
        from .startup.lazysearch import LazySearch, LazyUsage  # the index itself is imported at its first use

        searching = LazySearch(sql, index_dir, notes_file)
        options = replace(options, search=searching, search_query=search, usage=LazyUsage(searching))
    return ZettBrowserApp(storage, options, live=live, warm=warm)


def _default_store_holding(session_id: str) -> str | None:
    """Whether zett-agent's default store holds a child missing from the open one (read-only)."""
    from .storage.elsewhere import default_store_holding  # stdlib sqlite3 only, loaded at first use

    return default_store_holding(session_id)


def _default_notes_file() -> Path:
    from .notes.db import default_file

    return default_file()


def _sql_storage(store: BrowsingStore) -> SQLSessionStorage | None:
    """``store`` when it is the SQL storage (whose module is then loaded already), else None."""
    from .storage import SQLSessionStorage

    return store if isinstance(store, SQLSessionStorage) else None


def _is_multi(store: BrowsingStore) -> bool:
    """Whether ``store`` joins several stores (its module is then loaded already)."""
    from .multi.store import MultiStore

    return isinstance(store, MultiStore)


def _multi_services(
    store: BrowsingStore, options: BrowserOptions, index: bool, index_dir: Path | None, search: str | None
) -> BrowserOptions:
    """The options with search, usage and export over every member of a joined store, each
    member keeping its own side index (as when it is opened alone)."""
    from .multi.services import MultiSearch, MultiUsage
    from .multi.store import MultiStore
    from .startup.lazysearch import LazyJoinedExporter, LazySearch, LazyUsage

    assert isinstance(store, MultiStore)
    members = [member.store for member in store.members]
    sql = [_sql_storage(member) for member in members]
    if any(member is None for member in sql):
        return options
    stores = [member for member in sql if member is not None]
    if options.no_writes is None:
        options = replace(
            options,
            exporter=LazyJoinedExporter(store, store.home_of, stores),
            elsewhere=_default_store_holding,
        )
    if index:
        searches = [LazySearch(member, index_dir) for member in stores]
        options = replace(
            options,
            search=MultiSearch(store, searches),
            search_query=search,
            usage=MultiUsage(store, [LazyUsage(searching) for searching in searches]),
        )
    return options
