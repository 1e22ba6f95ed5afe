"""Provides the full build's reader of a SQLite store: the Raw Log walk through the stdlib driver.

A first build reads every row of the store once. Through the storage (SQLAlchemy over
aiosqlite) each batch of 2,000 rows cost ~25 ms of Python on the event loop, on top of
the driver's thread, and competed for the GIL with the extractor and the writer (issue
29). :class:`StoreWalk` runs the very statement :func:`..storage.scan.raw_scan` runs,
compiled once for SQLite, on a stdlib connection opened as every read-only reader opens
the store (``mode=ro``, busy timeout, ``query_only``, lenient text, its sidecars guarded),
and returns the same mappings: the same columns, timestamps through the same lenient
reader. It is called from worker threads, one call at a time; it never touches the loop.
Other backends keep the storage's path.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, select, tuple_
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.exc import DBAPIError

from ..storage.columns import raw_t
from ..storage.engine import translate_error
from ..storage.errors import StoreError, StoreLockedError
from ..storage.reader import BUSY_ATTEMPTS, BUSY_BACKOFF_S
from ..storage.rows import StoredDateTime
from ..storage.scan import SCAN_COLUMNS
from ..storage.sidecars import SidecarGuard
from ..storage.sqlitefile import close_stdlib_reader, open_stdlib_reader
from ..storage.values import lenient_text, stored_time

_NAMES = [column.name for column in SCAN_COLUMNS]
#: Positions of the timestamp columns, read through :func:`stored_time` as the storage reads them.
_TIMES = [number for number, column in enumerate(SCAN_COLUMNS) if isinstance(column.type, StoredDateTime)]


def _compiled(after: bool) -> tuple[str, list[str], dict[str, Any]]:
    """The SQL of ``scan.raw_scan``'s statement for SQLite, the order of its parameters and
    the values of those it sets itself (SQLite's dialect adds ``OFFSET 0`` to a bound limit)."""
    statement = select(*SCAN_COLUMNS).order_by(raw_t.c.session_id, raw_t.c.sequence).limit(bindparam("limit"))
    if after:
        statement = statement.where(
            tuple_(raw_t.c.session_id, raw_t.c.sequence) > tuple_(bindparam("after_id"), bindparam("after_seq"))
        )
    compiled = statement.compile(dialect=sqlite_dialect.dialect())
    return str(compiled), list(compiled.positiontup or []), dict(compiled.params)


_FIRST = _compiled(after=False)
_NEXT = _compiled(after=True)


class StoreWalk:
    """The Raw Log of the SQLite store at ``path``, read in keyset batches (open, batches, close).

    The store is opened by :meth:`open` (in a worker thread: it touches the file system)
    and must be closed by :meth:`close`; in between, :meth:`batch` may be called from any
    thread, one call at a time.
    """

    def __init__(self, path: Path, display_name: str) -> None:
        self.path = path
        self.display_name = display_name
        self._guard: SidecarGuard | None = None
        self._connection: sqlite3.Connection | None = None

    def open(self) -> None:
        """Open the store read-only (the storage has it open already: the sidecar record is shared)."""
        self._guard = SidecarGuard.record(self.path)
        try:
            self._connection = open_stdlib_reader(self.path, text_factory=lenient_text, check_same_thread=False)
        except sqlite3.Error as error:
            self._guard.release()
            self._guard = None
            raise self._translated(error) from None
        except BaseException:
            self._guard.release()
            self._guard = None
            raise

    def close(self) -> None:
        """Close the connection and release its sidecar guard."""
        connection, guard = self._connection, self._guard
        self._connection = self._guard = None
        close_stdlib_reader(connection, guard)

    def batch(self, after: tuple[str, int] | None, limit: int) -> list[Mapping[str, Any]]:
        """Up to ``limit`` rows after ``(session_id, sequence)``, as ``scan.raw_scan`` returns them."""
        assert self._connection is not None, "open() first"
        sql, order, defaults = _NEXT if after is not None else _FIRST
        values = defaults | {"limit": limit}
        if after is not None:
            values |= {"after_id": after[0], "after_seq": after[1]}
        parameters = [values[name] for name in order]
        delay = BUSY_BACKOFF_S
        for attempt in range(BUSY_ATTEMPTS):  # as the storage's reader retries a locked store
            try:
                rows = self._connection.execute(sql, parameters).fetchall()
                break
            except sqlite3.Error as error:
                translated = self._translated(error)
                if not isinstance(translated, StoreLockedError) or attempt + 1 == BUSY_ATTEMPTS:
                    raise translated from None
            time.sleep(delay)
            delay *= 2
        out: list[Mapping[str, Any]] = []
        for row in rows:
            if _TIMES:
                row = list(row)
                for number in _TIMES:
                    row[number] = stored_time(row[number])
            out.append(dict(zip(_NAMES, row, strict=True)))
        return out

    def _translated(self, error: sqlite3.Error) -> StoreError:
        """The storage's typed error for a driver error (a damaged page, a locked store...)."""
        return translate_error(DBAPIError(None, None, error), self.display_name)
