"""Provides ``zett-browser mcp``: a read-only Model Context Protocol server over the stores.

:mod:`.server` registers the tools with the official SDK (imported only when it runs);
:mod:`.sessions`, :mod:`.reads` and :mod:`.usage` are the tools, plain coroutines over
:class:`~.stores.Stores` (each store opened read-only by the factory every command uses,
its side index in the user's cache directory); :mod:`.shapes` turns typed records into
JSON and :mod:`.bounds` bounds every answer (pages, cursors, text budgets). Nothing here
writes to a store.
"""
