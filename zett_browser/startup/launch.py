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
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..model.store import BrowsingStore
from ..storage.sqlitefile import sqlite_path as sqlite_path  # where callers found it

if TYPE_CHECKING:
    from datetime import datetime

    from ..model.compaction import CurveColumn, LedgerFacts, RangeText, SnapshotMeta
    from ..model.context import ContextRow, PointRows
    from ..model.origins import Origin
    from ..model.records import Page, RawLogBounds, RawMessageRecord, SessionCursor, SessionNode, SnapshotInfo
    from ..model.steps import StepRow
    from ..model.timing import ChildSpan, TimingRow
    from ..storage import SQLSessionStorage
    from ..storage.quickstart import QuickStart

#: zett-agent's default store (the same as :data:`zett_browser.storage.target.DEFAULT_PATH`).
DEFAULT_STORE = Path("~/.zett-agent/sessions.sqlite3")

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
    the store still finds it to close (see :class:`~zett_browser.startup.lifecycle.StartupSignals`).
    """
    path = sqlite_path(store)
    if path is None:
        return None
    try:
        from ..storage.quickstart import QuickStart
    except ImportError:  # pragma: no cover - an installation without the start-up reader
        return None
    return QuickStart(path, session=session, seq=seq, page_size=page_size, roots_page=roots_page)


def lazy_store(store: str | os.PathLike[str] | None, quick: QuickStart) -> LazyStore:
    """The storage of ``store``, opened on first need with ``quick``'s record of the sidecars."""
    path = sqlite_path(store)
    assert path is not None

    def open_storage() -> SQLSessionStorage:
        from ..storage import open_store

        return open_store(path, sidecar_guard=quick.guard)

    from ..text import clean

    return LazyStore(open_storage, clean(path.resolve()), release=quick.guard.release)


class LazyStore:
    """The SQLAlchemy storage, imported and opened on a thread, at first need.

    A :class:`BrowsingStore` written out call by call (mypy checks it against the
    protocol below, so a query added there must be added here): each query awaits the
    storage without blocking the loop. Code that needs the storage's internals (the index,
    the exporter) asks for the storage itself, :meth:`loaded` or :meth:`ready`.
    ``display_name`` is known from the start.
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
        real = self._real
        if real is not None:
            return real
        self.preload()
        if not self._done.is_set():
            await asyncio.to_thread(self._done.wait)
        return self.loaded()

    # ------------------------------------------------------------------ BrowsingStore

    async def list_roots(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        return await (await self.ready()).list_roots(limit=limit, cursor=cursor)

    async def list_children(
        self, session_id: str, *, limit: int = 100, cursor: SessionCursor | None = None
    ) -> Page[SessionNode]:
        return await (await self.ready()).list_children(session_id, limit=limit, cursor=cursor)

    async def tree_refresh(
        self, session_ids: Sequence[str], *, roots_limit: int = 100, children_limit: int = 100
    ) -> tuple[Page[SessionNode], dict[str, Page[SessionNode]]]:
        return await (await self.ready()).tree_refresh(
            session_ids, roots_limit=roots_limit, children_limit=children_limit
        )

    async def list_orphans(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        return await (await self.ready()).list_orphans(limit=limit, cursor=cursor)

    async def get_node(self, session_id: str) -> SessionNode | None:
        return await (await self.ready()).get_node(session_id)

    async def ancestors(self, session_id: str) -> list[SessionNode]:
        return await (await self.ready()).ancestors(session_id)

    async def snapshot_mark(self, session_id: str) -> tuple[int, str | None]:
        return await (await self.ready()).snapshot_mark(session_id)

    async def raw_page(
        self, session_id: str, *, after_sequence: int | None = 0, after_id: str | None = None, limit: int = 50
    ) -> list[RawMessageRecord]:
        return await (await self.ready()).raw_page(
            session_id, after_sequence=after_sequence, after_id=after_id, limit=limit
        )

    async def raw_page_before(
        self, session_id: str, *, before_sequence: int | None = None, before_id: str | None = None, limit: int = 50
    ) -> list[RawMessageRecord]:
        return await (await self.ready()).raw_page_before(
            session_id, before_sequence=before_sequence, before_id=before_id, limit=limit
        )

    async def snapshot_origins(self, session_id: str, versions: Sequence[SnapshotMeta]) -> dict[int, Origin]:
        return await (await self.ready()).snapshot_origins(session_id, versions)

    async def request_system_rows(
        self, session_id: str, request_id: str, *, before_sequence: int | None = None
    ) -> list[RawMessageRecord]:
        return await (await self.ready()).request_system_rows(session_id, request_id, before_sequence=before_sequence)

    async def last_rows(self, session_ids: Sequence[str]) -> dict[str, list[RawMessageRecord]]:
        return await (await self.ready()).last_rows(session_ids)

    async def child_labels(self, parent_id: str | None, nodes: Sequence[SessionNode]) -> dict[str, str]:
        return await (await self.ready()).child_labels(parent_id, nodes)

    async def raw_bounds(self, session_id: str) -> RawLogBounds:
        return await (await self.ready()).raw_bounds(session_id)

    async def text_size(self, session_id: str, *, through_sequence: int | None = None) -> int:
        return await (await self.ready()).text_size(session_id, through_sequence=through_sequence)

    async def context_page(
        self,
        session_id: str,
        *,
        after_sequence: int,
        before_sequence: int,
        after_id: str | None = None,
        limit: int = 200,
    ) -> list[ContextRow]:
        return await (await self.ready()).context_page(
            session_id, after_sequence=after_sequence, before_sequence=before_sequence, after_id=after_id, limit=limit
        )

    async def snapshot_envelope(self, session_id: str, version: int) -> str | None:
        return await (await self.ready()).snapshot_envelope(session_id, version)

    async def snapshot_versions(
        self, session_id: str, *, after_version: int | None = None, limit: int = 1_000
    ) -> list[SnapshotMeta]:
        return await (await self.ready()).snapshot_versions(session_id, after_version=after_version, limit=limit)

    async def all_snapshot_versions(self, session_id: str, *, page: int = 1_000) -> list[SnapshotMeta]:
        return await (await self.ready()).all_snapshot_versions(session_id, page=page)

    async def version_in_force(
        self, session_id: str, when: datetime | None, *, before_sequence: int | None = None
    ) -> tuple[int | None, int]:
        return await (await self.ready()).version_in_force(session_id, when, before_sequence=before_sequence)

    async def snapshot_version(self, session_id: str, version: int | None = None) -> SnapshotInfo | None:
        return await (await self.ready()).snapshot_version(session_id, version)

    async def point_rows(self, session_id: str, at: int | None) -> PointRows:
        return await (await self.ready()).point_rows(session_id, at)

    async def ledger_facts(
        self, session_id: str, versions: Sequence[SnapshotMeta], *, previous_boundary: int = 0
    ) -> list[LedgerFacts]:
        return await (await self.ready()).ledger_facts(session_id, versions, previous_boundary=previous_boundary)

    async def input_curve(self, session_id: str, *, columns: int, first: int, last: int) -> list[CurveColumn]:
        return await (await self.ready()).input_curve(session_id, columns=columns, first=first, last=last)

    async def range_text(self, session_id: str, *, after_sequence: int, through_sequence: int) -> RangeText:
        return await (await self.ready()).range_text(
            session_id, after_sequence=after_sequence, through_sequence=through_sequence
        )

    async def step_page(self, session_id: str, *, after_id: str | None = None, limit: int = 500) -> list[StepRow]:
        return await (await self.ready()).step_page(session_id, after_id=after_id, limit=limit)

    async def timing_page(
        self,
        session_id: str,
        *,
        after_id: str | None = None,
        before_id: str | None = None,
        from_end: bool = False,
        limit: int = 500,
    ) -> list[TimingRow]:
        return await (await self.ready()).timing_page(
            session_id, after_id=after_id, before_id=before_id, from_end=from_end, limit=limit
        )

    async def child_spans(
        self, session_id: str, *, since: datetime | None = None, until: datetime | None = None
    ) -> list[ChildSpan]:
        return await (await self.ready()).child_spans(session_id, since=since, until=until)

    async def change_token(self) -> tuple[object, ...]:
        return await (await self.ready()).change_token()

    async def warm_up(self, *, page_size: int = 50, children_page: int = 200) -> None:
        await (await self.ready()).warm_up(page_size=page_size, children_page=children_page)

    async def release_loop(self) -> None:
        """The storage's ``release_loop`` (a helper thread's loop is ending)."""
        await (await self.ready()).release_loop()

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


if TYPE_CHECKING:
    # mypy checks the stand-in against the protocol: a query added there fails here until written above.
    def _conforms(store: LazyStore) -> BrowsingStore:
        return store


async def resolve(store: SQLSessionStorage | LazyStore) -> SQLSessionStorage:
    """The real storage behind ``store`` (itself unless it is a :class:`LazyStore`)."""
    return await store.ready() if isinstance(store, LazyStore) else store
