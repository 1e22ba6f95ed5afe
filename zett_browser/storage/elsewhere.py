"""Provides where a delegated session missing from the open store is: zett-agent's default store.

zett-agent's default subagent profiles persist their children with
``SQLiteSessionExtension()`` and no path, i.e. in ``~/.zett-agent/sessions.sqlite3``
(``Path.home()``), whatever store the parent writes to. A card or ``o`` that cannot find a
child here asks :func:`default_store_holding` whether that file holds it, so it can say
where the child is instead of failing.

Stdlib ``sqlite3`` only (no SQLAlchemy at this point), opened like every browse: the
file is checked first (a missing default store is never created), ``mode=ro`` +
``query_only``, and the ``-wal``/``-shm`` files a read-only connection may create are
removed afterwards by the same :class:`~.sidecars.SidecarGuard` as the storage's.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from .errors import StoreError
from .sidecars import SidecarGuard
from .sqlitefile import READER_BUSY_TIMEOUT_MS, browse_mode, check_sqlite_file, sqlite_uri

#: zett-agent's default store, as people type it.
SHOWN = "~/.zett-agent/sessions.sqlite3"
#: One check at a time: a guard removes the sidecars only when no other connection of this
#: process uses them, so two overlapping checks (the cards and ``o``) would leave them behind.
_ONE_AT_A_TIME = threading.Lock()


def default_store() -> Path:
    """``~/.zett-agent/sessions.sqlite3`` under the current ``Path.home()``."""
    return Path.home() / ".zett-agent" / "sessions.sqlite3"


def holds_session(path: Path, session_id: str) -> bool:
    """Whether the SQLite store at ``path`` has session ``session_id``; False when unreadable."""
    with _ONE_AT_A_TIME:
        return _holds(path, session_id)


def _holds(path: Path, session_id: str) -> bool:
    if not path.is_file():
        return False  # never created: no zett-agent default store here
    guard = SidecarGuard.record(path)  # before the header check, which SQLite itself reads
    try:
        check_sqlite_file(path)
        connection = sqlite3.connect(
            sqlite_uri(path, browse_mode(path)), uri=True, timeout=READER_BUSY_TIMEOUT_MS / 1000
        )
        try:
            connection.execute("PRAGMA query_only=ON")
            row = connection.execute("SELECT 1 FROM agent_sessions WHERE id = ?", (session_id,)).fetchone()
        finally:
            connection.close()
    except (StoreError, OSError, sqlite3.Error):
        return False
    finally:
        guard.release()
    return row is not None


def default_store_holding(session_id: str) -> str | None:
    """:data:`SHOWN` when zett-agent's default store holds the session, else None."""
    return SHOWN if holds_session(default_store(), session_id) else None


__all__ = ["SHOWN", "default_store", "default_store_holding", "holds_session"]
