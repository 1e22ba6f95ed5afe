"""Provides the side index: full-text search over a store without ever writing to it.

:class:`SideIndex` keeps one SQLite file per store in the user's cache directory up to
date (:meth:`SideIndex.sync`, :meth:`SideIndex.steps` for progress); :func:`parse` turns
a line of the query language into a :class:`Query`; :class:`Searcher` pages its hits.
The same sync keeps usage totals and cost (:mod:`.totals`, read by :mod:`.usage`).
Every name loads from its submodule at first use (PEP 562, ``_HOMES``): a subcommand
importing one submodule (``search``: the reader and the query language, no SQL storage)
pays for that one only.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from .db import ENV_DIR as ENV_DIR
    from .db import default_dir as default_dir
    from .db import index_file as index_file
    from .db import store_identity as store_identity
    from .files import index_stats as index_stats
    from .query import Query as Query
    from .query import QueryError as QueryError
    from .query import parse as parse
    from .search import Hit as Hit
    from .search import Searcher as Searcher
    from .search import SearchPage as SearchPage
    from .sync import Progress as Progress
    from .sync import SideIndex as SideIndex
    from .sync import SyncReport as SyncReport

#: Each public name -> the submodule defining it (the sync's load the SQL storage).
_HOMES = {
    "ENV_DIR": "db",
    "default_dir": "db",
    "index_file": "db",
    "store_identity": "db",
    "index_stats": "files",
    "Query": "query",
    "QueryError": "query",
    "parse": "query",
    "Hit": "search",
    "Searcher": "search",
    "SearchPage": "search",
    "Progress": "sync",
    "SideIndex": "sync",
    "SyncReport": "sync",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


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
