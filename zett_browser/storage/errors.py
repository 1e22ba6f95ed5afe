"""Provides the typed errors the storage raises when a store cannot be used.

Every error is a :class:`StoreError`, whose message is one sentence fit to show a user.
Validation errors of the documented API stay ``ValueError``, as in zett-agent.
"""

from __future__ import annotations

DEFAULT_STORE_HINT = "zett-agent keeps its default store at ~/.zett-agent/sessions.sqlite3"


class StoreError(Exception):
    """A store could not be opened or read."""


class StoreNotFoundError(StoreError, FileNotFoundError):
    """The store path does not exist (nothing is created in its place)."""


class StoreIsDirectoryError(StoreError, IsADirectoryError):
    """The store path names a directory."""


class StorePermissionError(StoreError, PermissionError):
    """The user may not read the store."""


class NotSQLiteError(StoreError):
    """The file is not a SQLite database."""


class NotZettStoreError(StoreError):
    """The SQLite database lacks zett-agent's tables."""


class StoreCorruptError(StoreError):
    """SQLite reports the database file as malformed."""


class StoreLockedError(StoreError):
    """The store stayed locked by a writer past the retry budget."""


class ReadOnlyStoreError(StoreError):
    """A write was attempted through a read-only (browsing) storage."""


class StoreConnectionError(StoreError):
    """The database server could not be reached or the connection was lost."""


class StoreTimeoutError(StoreError):
    """The database server did not answer a statement within the browsing timeout."""


class NotAFileError(StoreError):
    """The path names a FIFO, socket or device: refused before anything opens it."""
