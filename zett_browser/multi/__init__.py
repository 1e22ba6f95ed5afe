"""Provides several stores browsed as one history (``zett-browser A.sqlite3 B.sqlite3 …``).

:class:`~.store.MultiStore` answers the browsing queries over every open store: lists merged
in their order, each session's reads sent to the store that holds it, and a delegated session
whose parent lives in another open store shown under that parent (zett-agent's default
subagent profiles write their children to ``~/.zett-agent/sessions.sqlite3`` whatever store
the parent uses). :mod:`.services` does the same for search, usage and export. Nothing here
imports the toolkit or the SQL storage: the members are any :class:`BrowsingStore`.
"""
