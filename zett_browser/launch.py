"""Provides the fast start of a SQLite store: first screen first, SQLAlchemy after the first paint.

A bare Textual app paints in ~200 ms; importing SQLAlchemy, aiosqlite and pydantic costs
about as much again, and the storage's first reads ~75 ms more, all on one GIL. So for a
SQLite file the command line (and anything else that wants the same start) calls
:func:`begin` before it imports Textual: a
:class:`~zett_browser.storage.quickstart.QuickStart` reads the first screen with the
standard ``sqlite3`` driver on a thread (SQLite's work runs outside the GIL, beside
Textual's import), with SQL compiled from the storage's own statements and results equal
to the storage's (or declined, when it cannot be sure).

Everything else goes to the SQLAlchemy storage, which :class:`LazyStore` imports and
opens on a thread once the first page is painted (:meth:`LazyStore.preload`), or at the
first call that needs it. It shares the start-up reader's record of the ``-wal``/``-shm``
files that existed before we opened the store, so whatever the browse created is removed
at close as before. This module imports neither Textual, SQLAlchemy nor pydantic.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .model.store import BrowsingStore

if TYPE_CHECKING:
    from .storage import SQLSessionStorage
    from .storage.quickstart import QuickStart

#: zett-agent's default store (the same as :data:`zett_browser.storage.target.DEFAULT_PATH`).
DEFAULT_STORE = Path("~/.zett-agent/sessions.sqlite3")

#: The store calls that are coroutines: a :class:`LazyStore` awaits the storage for these
#: instead of blocking the event loop on its import.
ASYNC_CALLS = frozenset(
    name
    for name in dir(BrowsingStore)
    if not name.startswith("_") and inspect.iscoroutinefunction(getattr(BrowsingStore, name, None))
) | {"release_loop"}


#: True while :func:`pause_collection` holds the cyclic garbage collector off.
_collection_paused = False


def pause_collection() -> None:
    """Hold the cyclic garbage collector off while the app starts.

    Start-up allocates hundreds of thousands of long-lived objects (modules, classes,
    styles, the first screen) and next to no garbage, yet the collector walks them again
    and again as they are made: ~40 ms of a ~400 ms first paint, in full collections of
    10-15 ms that land in the middle of the first frame. :func:`resume_collection` ends
    the hold once the first screen is up and the storage is imported.
    """
    global _collection_paused
    if gc.isenabled():
        gc.disable()
        _collection_paused = True


def resume_collection() -> None:
    """End :func:`pause_collection`'s hold (once; a no-op without one).

    What start-up made is moved to the permanent generation first (``gc.freeze``): it
    lives as long as the app, and walking it in every full collection would pause the app
    for ~100 ms in the middle of a key press.
    """
    global _collection_paused
    if _collection_paused:
        _collection_paused = False
        gc.freeze()
        gc.enable()


def sqlite_path(store: str | os.PathLike[str] | None) -> Path | None:
    """The SQLite file a STORE argument names, as the storage resolves it; None for a URL."""
    if store is None:
        return DEFAULT_STORE.expanduser()
    text = os.fspath(store)
    if "://" in text:
        return None  # a server (or sqlite://) URL: the storage parses it
    return Path(text).expanduser().absolute()


def begin(
    store: str | os.PathLike[str] | None, *, session: str | None, seq: int | None, page_size: int, roots_page: int = 100
) -> QuickStart | None:
    """Start reading the first screen of a SQLite store now, on a thread (None: no fast start)."""
    quick = reader(store, session=session, seq=seq, page_size=page_size, roots_page=roots_page)
    return None if quick is None else quick.start()


def reader(
    store: str | os.PathLike[str] | None, *, session: str | None, seq: int | None, page_size: int, roots_page: int = 100
) -> QuickStart | None:
    """The start-up reader of a SQLite store, not started yet (None: no fast start).

    The command line keeps it before starting it, so that a signal arriving as it opens
    the store still finds it to close (see :class:`~zett_browser.lifecycle.StartupSignals`).
    """
    path = sqlite_path(store)
    if path is None:
        return None
    try:
        from .storage.quickstart import QuickStart
    except ImportError:  # pragma: no cover - an installation without the start-up reader
        return None
    return QuickStart(path, session=session, seq=seq, page_size=page_size, roots_page=roots_page)


def lazy_store(store: str | os.PathLike[str] | None, quick: QuickStart) -> LazyStore:
    """The storage of ``store``, opened on first need with ``quick``'s record of the sidecars."""
    path = sqlite_path(store)
    assert path is not None

    def open_storage() -> SQLSessionStorage:
        from .storage import open_store

        return open_store(path, sidecar_guard=quick.guard)

    from .text import clean

    return LazyStore(open_storage, clean(path.resolve()), release=quick.guard.release)


class LazyStore:
    """The SQLAlchemy storage, imported and opened on a thread, at first need.

    Coroutine calls (the :class:`BrowsingStore` queries) await the storage without
    blocking the loop; any other attribute (the index and the exporter use the storage's
    internals) waits for it where it is asked. ``display_name`` is known from the start.
    """

    def __init__(
        self, opener: Callable[[], SQLSessionStorage], display_name: str, *, release: Callable[[], object]
    ) -> None:
        self.display_name = display_name
        self._opener = opener
        self._release = release
        self._real: SQLSessionStorage | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def preload(self) -> None:
        """Start importing and opening the storage on a thread (once)."""
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._load, name="zett-browser storage import", daemon=True)
            self._thread.start()

    def _load(self) -> None:
        try:
            self._real = self._opener()
        except BaseException as error:  # noqa: BLE001 - raised again where the storage is needed
            self._error = error
        finally:
            self._done.set()
            resume_collection()  # the last of start-up's imports is done

    def loaded(self) -> SQLSessionStorage:
        """The storage, waiting here for it if it is still being opened."""
        self.preload()
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._real is not None
        return self._real

    async def ready(self) -> SQLSessionStorage:
        """The storage, awaited without blocking the event loop."""
        self.preload()
        if not self._done.is_set():
            await asyncio.to_thread(self._done.wait)
        return self.loaded()

    def __getattr__(self, name: str) -> Any:
        real = self._real
        if real is not None:
            return getattr(real, name)
        if name in ASYNC_CALLS:

            async def call(*args: Any, **kwargs: Any) -> Any:
                return await getattr(await self.ready(), name)(*args, **kwargs)

            return call
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.loaded(), name)

    async def close(self) -> None:
        """Close the storage; never opened, only remove the sidecars the start-up reader left."""
        if self._thread is None:
            self._release()
            return
        await asyncio.to_thread(self._done.wait)
        if self._real is not None:
            await self._real.close()
        else:
            self._release()


async def resolve(store: Any) -> Any:
    """The real storage behind ``store`` (itself unless it is a :class:`LazyStore`)."""
    return await store.ready() if isinstance(store, LazyStore) else store
