"""Provides the side index: full-text search over a store without ever writing to it.

:class:`SideIndex` keeps one SQLite file per store in the user's cache directory up to
date (:meth:`SideIndex.sync`, :meth:`SideIndex.steps` for progress); :func:`parse` turns
a line of the query language into a :class:`Query`; :class:`Searcher` pages its hits.
The same sync keeps usage totals and cost (:mod:`.totals`, read by :mod:`.usage`).
The sync's names load at first use (PEP 562), so reading an index needs no SQL storage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .db import ENV_DIR, default_dir, index_file, store_identity
from .files import index_stats
from .query import Query, QueryError, parse
from .search import Hit, Searcher, SearchPage

if TYPE_CHECKING:
    from .sync import Progress, SideIndex, SyncReport

#: Loaded at first use: the sync imports the SQL storage, which the subcommands' fast path
#: (:mod:`.fresh`: searching an index already up to date) does without.
_FROM_SYNC = ("Progress", "SideIndex", "SyncReport")


def __getattr__(name: str) -> object:
    if name in _FROM_SYNC:
        from . import sync

        return getattr(sync, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ENV_DIR",
    "Hit",
    "Progress",
    "Query",
    "QueryError",
    "SearchPage",
    "Searcher",
    "SideIndex",
    "SyncReport",
    "default_dir",
    "index_file",
    "index_stats",
    "parse",
    "store_identity",
]
