"""Provides a store's key in the notes file: the same identity its side index is named by.

The side index names a store by its resolved path (or its URL without password and
secret query values; :func:`zett_browser.index.db.store_identity`). Notes use that very
identity, so they follow the store wherever it is opened from and survive the index
being deleted or rebuilt.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..index.db import store_identity

if TYPE_CHECKING:
    from ..storage import SQLSessionStorage
    from ..storage.target import Target

Identity = tuple[str, Path | None]


def of_target(target: Target) -> Identity:
    """The identity of a parsed store target, and its SQLite path (None for a server)."""
    return store_identity(target.path, target.url), target.path


def of_storage(storage: SQLSessionStorage) -> Identity:
    """The identity of an opened storage, and its SQLite path (None for a server)."""
    return of_target(storage.target)


def of_argument(store: str | None) -> Identity:
    """The identity of the ``STORE`` a command was given (None: zett-agent's default store).

    Raises:
        StoreError: the URL names no backend the storage can use.
    """
    from ..storage.target import parse_target

    return of_target(parse_target(store))


__all__ = ["Identity", "of_argument", "of_storage", "of_target"]
