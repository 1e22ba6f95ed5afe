"""Provides the command line's stdlib reader of a SQLite store: open, check, query, read nodes.

:class:`QuickReader` opens a store as the storage does (the ``mode=ro`` URI, the same
busy timeout, ``query_only``, lenient text, only regular files; the sidecar guard
recorded first), checks it has the schema the generated statements (:mod:`.contextsql`)
were written for, runs them, and reads session nodes. It defines no message type: naming
search hits (:mod:`.quicklabels`) needs nothing more, and pays no more imports.
:class:`.quickcontext.QuickContext` adds the time-travel context's reads.

Where it cannot be sure it raises :class:`Declined` and the caller takes the full path.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from ..model.nodes import SessionNode
from .contextsql import CALLS, NEEDS_COLUMNS, NOT_NULL, REQUIRED_COLUMNS, REQUIRED_TABLES
from .noderows import node_from_row
from .sidecars import SidecarGuard
from .sqlitefile import close_stdlib_reader, open_stdlib_reader
from .values import BadText, lenient_text, stored_time

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any, Self


class Declined(Exception):
    """The reader cannot answer exactly: take the full path."""


def _argument(value: Any, offset: int) -> Any:
    """An argument bound as the storage binds it; anything it binds in another form declines."""
    if isinstance(value, BadText) or type(value) not in (str, int):
        raise Declined("an argument the storage binds in another form")
    return value + offset if offset else value


class QuickReader:
    """One SQLite store read through the stdlib driver with the storage's generated statements.

    Use as a context manager: the store is opened on entry and closed, its sidecars
    released, on exit. Its read methods are coroutines of the storage's signatures that
    never suspend.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._guard: SidecarGuard | None = None
        self._connection: sqlite3.Connection | None = None

    def __enter__(self) -> Self:
        self._guard = SidecarGuard.record(self.path)  # before SQLite first looks at the file
        try:
            connection = self._connection = open_stdlib_reader(self.path, text_factory=lenient_text)
            self._check_schema(connection)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        connection, self._connection = self._connection, None
        guard, self._guard = self._guard, None
        close_stdlib_reader(connection, guard)

    @staticmethod
    def _check_schema(connection: sqlite3.Connection) -> None:
        """Decline unless the store has the schema the statements were generated for."""
        tables = {row[0] for row in connection.execute("SELECT name FROM main.sqlite_master WHERE type='table'")}
        if not set(REQUIRED_TABLES) <= tables:
            raise Declined("not the schema the statements were generated for")
        for table in {table for table, _ in (*REQUIRED_COLUMNS, *NOT_NULL, *NEEDS_COLUMNS)}:
            columns = {row[1]: row[3] for row in connection.execute(f'PRAGMA main.table_info("{table}")')}
            if any(t == table and c not in columns for t, c in (*REQUIRED_COLUMNS, *NEEDS_COLUMNS)):
                raise Declined("a required column is missing")  # the storage's check names it
            if any(t == table and columns.get(c) != 1 for t, c in NOT_NULL):
                raise Declined("a sort key that may be NULL")

    def _rows(self, call: str, number: int = 0, **args: Any) -> list[dict[str, Any]]:
        """Run statement ``number`` of a generated call; timestamp columns read as the storage reads them."""
        if self._connection is None:
            raise Declined("not open")
        sql, specs, names, times = CALLS[call][number]
        params = tuple(_argument(args[v], offset) if kind == "arg" else v for kind, v, offset in specs)
        cursor = self._connection.execute(sql, params)
        if tuple(column[0] for column in cursor.description or ()) != names:
            raise Declined("the result columns differ from the generated ones")
        rows = []
        for values in cursor.fetchall():
            row = dict(zip(names, values, strict=True))
            for index in times:
                row[names[index]] = stored_time(values[index])
            rows.append(row)
        return rows

    def query(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The rows of one read-only statement on the open store (for :mod:`.quicklabels`)."""
        if self._connection is None:
            raise Declined("not open")
        return self._connection.execute(sql, tuple(params)).fetchall()

    async def get_node(self, session_id: str) -> SessionNode | None:
        rows = self._rows("get_node", session=session_id)
        return node_from_row(rows[0]) if rows else None


__all__ = ["Declined", "QuickReader"]
