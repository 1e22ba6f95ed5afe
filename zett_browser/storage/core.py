"""Provides the storage facade's base: construction, life cycle and its :class:`~.reader.Reader`.

:class:`SessionStorageCore` parses the target and builds the store's reader (connections,
schema check, runs with retries: :mod:`.reader`); the documented API (:mod:`.documented`)
and the browser's reads (:mod:`.facade`) are thin facade classes over it, each method one
call into a query module (:mod:`.api`, :mod:`.writes`, :mod:`.tree`, :mod:`.rawlog`...)
that takes the reader, as :mod:`.scan` and :mod:`.export_rows` do. The SQL is
dialect-neutral Core, and SQLite's specifics stay in :mod:`.engine`.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Self

from sqlalchemy.engine import URL

from .columns import RAW_COLUMNS, SNAPSHOT_COLUMNS, raw_t, read_column, sessions_t, snapshots_t
from .engine import Target, parse_target
from .ids import new_uuid7
from .reader import BUSY_ATTEMPTS as BUSY_ATTEMPTS
from .reader import BUSY_BACKOFF_S as BUSY_BACKOFF_S
from .reader import Reader
from .sidecars import SidecarGuard
from .sync import SyncObject, SyncRuntime


class SessionStorageCore:
    """zett-agent's session storage API over SQLite, PostgreSQL or MySQL.

    Args:
        target: A SQLite path, a SQLAlchemy URL, or None for zett-agent's default store
            ``~/.zett-agent/sessions.sqlite3``.
        read_only: Browse without changing anything. The store must exist and be a
            zett-agent store; typed :class:`StoreError` subclasses say otherwise.
        clock: Returns the current UTC time for the rows' stamps (the demo replays a
            conversation at its own pace); defaults to the wall clock.
        ids: Returns the id of each new Raw Log row and snapshot (restoring an export
            keeps the original ids); defaults to a new UUIDv7.
        sidecar_guard: For a browsed SQLite store, the :class:`SidecarGuard` recorded before
            anything of this process opened it (``QuickStart.guard``); a guard of another
            file is ignored.

    Construction needs no event loop. Connections are opened by the first awaited call
    and belong to the loop that awaited it; each loop gets its own small pool, so one
    storage may serve an app's loop and a :meth:`sync` view's thread. Tests must pass a
    temporary path and never use the default store.
    """

    def __init__(
        self,
        target: str | os.PathLike[str] | URL | None = None,
        *,
        read_only: bool = False,
        clock: Callable[[], datetime] | None = None,
        ids: Callable[[], str] | None = None,
        sidecar_guard: SidecarGuard | None = None,
    ) -> None:
        self._clock: Callable[[], datetime] = clock or (lambda: datetime.now(UTC))
        self._new_id: Callable[[], str] = ids or new_uuid7
        self.target: Target = parse_target(target)
        self.read_only = read_only
        #: SQLite file of this storage, or None for a server store.
        self.path: Path | None = self.target.path
        #: The store's connections, schema facts and runs: what every query takes.
        self.reader = Reader(self.target, read_only=read_only, sidecar_guard=sidecar_guard)

    @classmethod
    def open_for_browsing(
        cls, target: str | os.PathLike[str] | URL | None = None, *, sidecar_guard: SidecarGuard | None = None
    ) -> Self:
        """Open a store read-only, checking at once that the file can be browsed."""
        return cls(target, read_only=True, sidecar_guard=sidecar_guard)

    @property
    def display_name(self) -> str:
        """The store for people: its path, or its URL with the password masked."""
        return self.target.display()

    async def release_loop(self) -> None:
        """Dispose of the running loop's pool (a helper thread calls it before its loop ends)."""
        await self.reader.release_loop()

    async def close(self) -> None:
        """Release the connection pool without deleting stored data."""
        await self.reader.close()

    def sync(self, *, runtime: SyncRuntime | None = None) -> SyncObject[Self]:
        """Return a context-managed synchronous view; optionally share a runtime.

        Without ``runtime`` the view starts a background thread with its own loop and
        stops it (after closing that loop's connections) on exit. With one, it reuses
        that runtime's loop and leaves its shutdown to the caller.
        """
        return SyncObject(self, runtime=runtime, on_close=self.reader.release_view)


__all__ = [
    "BUSY_ATTEMPTS",
    "BUSY_BACKOFF_S",
    "RAW_COLUMNS",
    "SNAPSHOT_COLUMNS",
    "SessionStorageCore",
    "raw_t",
    "read_column",
    "sessions_t",
    "snapshots_t",
]
