"""Provides the stores an MCP server reads: each opened read-only, with its side index.

``zett-browser mcp STORE…`` serves one or more stores (a parent's children may live in
another store: zett-agent's default subagent profiles write to
``~/.zett-agent/sessions.sqlite3``). Each is opened through the factory every command uses
(:func:`zett_browser.storage.open_store`: read-only, checked, never created or changed).

The side index lives in the user's cache directory (or ``--index-dir``), never beside
the store, as for the app and ``zett-browser search``: a search or usage call brings it up
to date first, as ``search`` does, skipping the sync when the standard-library check
(:func:`zett_browser.index.fresh.fresh_index`) finds a SQLite store's index current. A
sync another process holds is not waited for; answers then say ``index_partial``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..index.fresh import fresh_index
from ..index.search_service import IndexSearch
from ..index.usage import complete
from ..storage import SQLSessionStorage, open_store
from ..views.labels import UUID_PREFIX, unique_prefixes
from .bounds import from_reference, line


class ToolProblem(Exception):
    """What a tool call cannot do, as one line for the caller (no traceback, no store secrets)."""


@dataclass
class Store:
    """One opened store, its number in the server's list and its side index."""

    number: int
    storage: SQLSessionStorage
    index_dir: Path | None
    search: IndexSearch = field(init=False)
    _lock: asyncio.Lock = field(init=False, default_factory=asyncio.Lock)

    def __post_init__(self) -> None:
        self.search = IndexSearch(self.storage, self.index_dir)

    @property
    def name(self) -> str:
        """The store for people (its path, or its URL with secrets masked), cleaned."""
        return line(self.storage.display_name)

    async def synced_index(self) -> tuple[Path, bool]:
        """The index file, brought up to date first, and whether it is complete."""
        async with self._lock:
            local = self.storage.path
            fresh = await asyncio.to_thread(fresh_index, local, self.index_dir) if local is not None else None
            if fresh is None:
                async for _step in self.search.steps():
                    pass
            path = self.search.path
            return path, await asyncio.to_thread(complete, path)

    async def close(self) -> None:
        """Stop any sync, then release the store's connections (its ``-wal``/``-shm`` go)."""
        try:
            await self.search.close()
        finally:
            await self.storage.close()


class Stores:
    """The stores one server reads, numbered from 0 in the order given."""

    def __init__(self, stores: Sequence[Store]) -> None:
        if not stores:
            raise ValueError("no store to serve")
        self.items = list(stores)

    @classmethod
    def open(cls, targets: Sequence[str | None], index_dir: Path | None = None) -> Stores:
        """Open each target read-only (None: zett-agent's default store).

        Raises:
            StoreError: a store cannot be browsed (those opened before it are left to close).
        """
        opened: list[Store] = []
        for number, target in enumerate(targets):
            opened.append(Store(number, open_store(target), index_dir))
        return cls(opened)

    def pick(self, number: int | None) -> Store:
        """Store ``number`` (None: the first)."""
        if number is None:
            return self.items[0]
        if not 0 <= number < len(self.items):
            raise ToolProblem(f"no store {number}: this server has stores 0 to {len(self.items) - 1}")
        return self.items[number]

    async def find_session(self, typed: str, number: int | None = None) -> tuple[Store, str]:
        """The store holding the session ``typed`` names (a full id or a unique prefix) and its id.

        Looks in store ``number`` only when given, else in each store in turn.
        """
        if not typed.strip():
            raise ToolProblem("give a session id (or a prefix naming one session)")
        typed = from_reference(typed)
        shown = line(repr(typed), 80)
        candidates: list[tuple[Store, str]] = []
        more = False
        for store in [self.pick(number)] if number is not None else self.items:
            match = await store.storage.sessions_with_prefix(typed)
            if match.session_id is not None:
                return store, match.session_id
            candidates += [(store, candidate) for candidate in match.candidates]
            more = more or match.more
        if len(candidates) == 1 and not more:
            return candidates[0]
        if not candidates:
            raise ToolProblem(f"no session {shown} in {self._names(number)}")
        ids = [candidate for _store, candidate in candidates]
        prefixes = unique_prefixes(ids, minimum=max(UUID_PREFIX, len(typed) + 1))
        listed = ", ".join(prefixes[candidate] for candidate in ids[:10])
        raise ToolProblem(
            f"session {shown} is ambiguous: {len(ids)}{'+' if more else ''} sessions start with it: "
            f"{listed}{', …' if more or len(ids) > 10 else ''} (give more of the id)"
        )

    def _names(self, number: int | None) -> str:
        if number is not None:
            return self.pick(number).name
        return ", ".join(store.name for store in self.items)

    async def close(self) -> None:
        """Close every store (each even when another fails to)."""
        errors: list[BaseException] = []
        for store in self.items:
            try:
                await store.close()
            except Exception as error:  # noqa: BLE001 - the others still close
                errors.append(error)
        if errors:
            raise errors[0]


__all__ = ["Store", "Stores", "ToolProblem"]
