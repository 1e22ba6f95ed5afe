"""Provides where an export reads: one store, or several opened together.

An export reads stored rows through a store's SQL :class:`~zett_browser.storage.reader.Reader`
and asks the browsing queries (a session's children, labels, snapshot origins) of a
:class:`BrowsingStore`. With several stores open (``zett-browser A B …``) a subtree may cross
them: zett-agent's default subagent profiles write the children to another store than their
parent's. :class:`Source` answers both kinds of question for any session: the browsing ones
through the joined store (which lists a child under its parent whatever store holds it), the
rows through the reader of the store holding that session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from ..model.store import BrowsingStore
from ..storage import SQLSessionStorage
from ..storage.reader import Reader


class Source:
    """The store(s) an export reads.

    Args:
        storages: The SQL stores (one, or each store opened together, in order).
        browse: The browsing queries over all of them (default: the one store).
        locate: Which of ``storages`` holds a session (None: none; default: the first).
    """

    def __init__(
        self,
        storages: Sequence[SQLSessionStorage],
        browse: BrowsingStore | None = None,
        locate: Callable[[str], Awaitable[int | None]] | None = None,
    ) -> None:
        if not storages:
            raise ValueError("an export reads at least one store")
        self.storages = list(storages)
        self.browse: BrowsingStore = browse if browse is not None else storages[0]
        self._locate = locate

    @property
    def display_name(self) -> str:
        return self.browse.display_name

    @property
    def paths(self) -> list[Path]:
        """The SQLite files read (an export never writes onto any of them)."""
        return [storage.path for storage in self.storages if storage.path is not None]

    async def reader_for(self, session_id: str) -> Reader:
        """The reader of the store holding ``session_id`` (the first store's when none does:
        its reads then find nothing, as for a missing session)."""
        if self._locate is None or len(self.storages) == 1:
            return self.storages[0].reader
        where = await self._locate(session_id)
        return self.storages[where if where is not None else 0].reader

    async def release_loop(self) -> None:
        """Release every store's connections of the running event loop (a worker's)."""
        for storage in self.storages:
            await storage.release_loop()


def source_of(store: SQLSessionStorage | Source) -> Source:
    """``store`` as a :class:`Source` (one SQL store is a source of one)."""
    return store if isinstance(store, Source) else Source([store])
