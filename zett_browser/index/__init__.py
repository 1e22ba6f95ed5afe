"""Provides the side index: full-text search over a store without ever writing to it.

:class:`SideIndex` keeps one SQLite file per store in the user's cache directory up to
date (:meth:`SideIndex.sync`, :meth:`SideIndex.steps` for progress); :func:`parse` turns
a line of the query language into a :class:`Query`; :class:`Searcher` pages its hits.
The same sync keeps usage totals and cost (:mod:`.totals`, read by :mod:`.usage`).
"""

from __future__ import annotations

from .db import ENV_DIR, default_dir, index_file, store_identity
from .files import index_stats
from .query import Query, QueryError, parse
from .search import Hit, Searcher, SearchPage
from .sync import Progress, SideIndex, SyncReport

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
