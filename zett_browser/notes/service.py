"""Provides the app's notes service: the notes file, read and written on a thread.

:class:`NotesBook` implements :class:`zett_browser.model.notes.NotesService` for one store.
The store's identity is asked for once, at the first call (the app's storage may still be
opening then); every read and write runs in a worker thread, one at a time, on a
connection opened for it. Reads of a missing notes file find nothing and create nothing:
the file is made at the first pin, label or note.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..model.notes import Annotation
from . import db as notes_db

if TYPE_CHECKING:
    from .identity import Identity

T = TypeVar("T")
#: What a read finds when there is no notes file yet (never changed).
NONE: list[Annotation] = []


class NotesBook:
    """Pins, labels and notes of one store in the notes file at ``path``.

    Args:
        path: The notes file.
        identity: Awaited once, at the first call: the store's identity and SQLite path.
    """

    def __init__(self, path: Path, identity: Callable[[], Awaitable[Identity]]) -> None:
        self.path = path
        self._identity = identity
        self._known: Identity | None = None
        self._lock = asyncio.Lock()

    @property
    def location(self) -> str:
        return str(self.path)

    async def _run(self, work: Callable[[sqlite3.Connection, str], T], empty: T, *, write: bool = False) -> T:
        async with self._lock:
            if self._known is None:
                self._known = await self._identity()
            identity, store = self._known
            return await asyncio.to_thread(self._in_file, work, empty, identity, store, write)

    def _in_file(
        self, work: Callable[[sqlite3.Connection, str], T], empty: T, identity: str, store: Path | None, write: bool
    ) -> T:
        db = notes_db.open_file(self.path, store, create=write)
        if db is None:
            return empty
        try:
            return work(db, identity)
        finally:
            db.close()

    async def identity(self) -> str:
        """The store's identity (the key of its rows in the notes file)."""
        async with self._lock:
            if self._known is None:
                self._known = await self._identity()
            return self._known[0]

    async def sessions(self, session_ids: Sequence[str]) -> dict[str, Annotation]:
        ids = list(session_ids)
        found = await self._run(lambda db, key: notes_db.of_sessions(db, key, ids), NONE)
        return {item.session_id: item for item in found}

    async def messages(self, session_id: str) -> dict[int, Annotation]:
        found = await self._run(lambda db, key: notes_db.of_session(db, key, session_id), NONE)
        return {item.seq: item for item in found if item.seq is not None}

    async def marked_sessions(self) -> frozenset[str]:
        found = await self._run(notes_db.every, NONE)
        return frozenset(item.session_id for item in found)

    async def toggle_pin(self, session_id: str, seq: int | None) -> Annotation:
        def work(db: sqlite3.Connection, key: str) -> Annotation:
            notes_db.toggle_pin(db, key, session_id, seq)
            return notes_db.one(db, key, session_id, seq)

        return await self._run(work, Annotation(session_id, seq), write=True)

    async def set_labels(self, session_id: str, seq: int | None, labels: Sequence[str]) -> Annotation:
        def work(db: sqlite3.Connection, key: str) -> Annotation:
            notes_db.set_labels(db, key, session_id, seq, labels)
            return notes_db.one(db, key, session_id, seq)

        return await self._run(work, Annotation(session_id, seq), write=True)

    async def set_note(self, session_id: str, seq: int | None, text: str) -> Annotation:
        def work(db: sqlite3.Connection, key: str) -> Annotation:
            notes_db.set_note(db, key, session_id, seq, text)
            return notes_db.one(db, key, session_id, seq)

        return await self._run(work, Annotation(session_id, seq), write=True)

    async def every(self) -> list[Annotation]:
        return list(await self._run(notes_db.every, NONE))


__all__ = ["NotesBook"]
