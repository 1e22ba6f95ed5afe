"""Provides the exports' Raw Log pages of a SQLite store through the stdlib driver, two ways.

:meth:`QuickExport.stored_page` gives the rows as stored, exactly the values the
SQLAlchemy path (:func:`.export_rows.stored_raw_page`) gives: the storage reads every
column raw (no result processing) through the same driver with the same lenient text
decoding, so only the driver's overhead and SQLAlchemy's rows go (~1 s of a
100,000-message export). :meth:`QuickExport.encoded_page` gives each row as the JSON
export writes it:

the JSON export writes each ``raw_messages`` row as ``json.dumps({column: value},
ensure_ascii=True)`` (:mod:`zett_browser.export.jsondoc`). Read through SQLAlchemy, each
value became a Python object first and then went through the encoder again: ~3.5× the
CPU of ``sqlite3 -json`` on the same rows (issue 29). The encoded page asks SQLite
for the row's JSON text instead (``printf`` of ``json_quote`` of every column, in the
storage's column order) over the stdlib ``sqlite3`` driver, and only finishes it in
Python: characters beyond ASCII become ``\\uXXXX`` escapes (surrogate pairs above
U+FFFF) and DEL ``\\u007f``, as Python's encoder writes them. ``message_json`` and the
other JSON columns are never decoded.

Exactness: a page is handed out only when every value of every row is one SQLite and
Python's encoder write alike: an integer, NULL, or text that is valid UTF-8 (``json_quote``
escapes ``"``, ``\\`` and C0 controls as Python does). A REAL (SQLite prints 15 digits,
Python the shortest repr), a BLOB (no JSON form: ``json_quote`` refuses it), text that is
not UTF-8 (the slow path shows U+FFFD), a keyset position that is not an integer sequence
and a text id, a schema whose ``sequence`` may be NULL, any SQLite error: the page
method returns None and the caller reads that page the usual way
(:func:`.export_rows.stored_raw_page`); a stored page declines only the last four. The
keyset statement is the value band of :mod:`.keyset` written out (the same bounds, order
and tie-break), so every path pages through the same rows.

The connection is opened like the start-up reader's (:mod:`.quickstart`): the ``mode=ro``
URI of the quoted path, the busy timeout, ``query_only``, only regular files, and a
:class:`~.sidecars.SidecarGuard` recorded before it opens, released after it closes, so
no ``-wal``/``-shm`` it created is left behind. It holds no transaction between pages.
"""

from __future__ import annotations

import codecs
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .columns import raw_t
from .convert import lenient_text
from .errors import StoreError
from .keyset import Position
from .sidecars import SidecarGuard
from .sqlitefile import close_stdlib_reader, open_stdlib_reader

#: ``role`` of an assistant message (the only rows that delegate).
_ASSISTANT = 3
#: Columns in the order the export writes them (the storage's ``raw_messages`` columns).
COLUMNS = tuple(column.name for column in raw_t.columns)
_TEMPLATE = "{" + ", ".join(f'"{name}": %s' for name in COLUMNS) + "}"
_JSON = f"printf('{_TEMPLATE}', {', '.join(f'json_quote({name})' for name in COLUMNS)})"
#: Values both encoders would not write alike (REAL; a BLOB makes ``json_quote`` fail).
_REALS = " + ".join(f"(typeof({name}) = 'real')" for name in COLUMNS)
#: An assistant row that may name a ``task``/``task_start`` call (checked again exactly in Python).
_DELEGATING = f"iif(role = {_ASSISTANT} AND instr(message_json, '\"task') > 0, message_json, NULL)"
_FROM = "FROM raw_messages WHERE session_id = ? AND sequence IS NOT NULL"
_AFTER = " AND sequence >= ? AND (sequence > ? OR sequence = ? AND id > ?)"
_ORDER = " ORDER BY sequence ASC, id ASC LIMIT ?"


def _statement(*, after: bool, delegations: bool) -> str:
    probe = _DELEGATING if delegations else "NULL"
    return f"SELECT sequence, id, {_REALS}, {probe}, {_JSON} {_FROM}{_AFTER if after else ''}{_ORDER}"


_STATEMENTS = {
    (after, probe): _statement(after=after, delegations=probe) for after in (False, True) for probe in (False, True)
}
_STORED = {after: f"SELECT {', '.join(COLUMNS)} {_FROM}{_AFTER if after else ''}{_ORDER}" for after in (False, True)}


def _escape_beyond_ascii(error: UnicodeError) -> tuple[str, int]:
    """What ``json.dumps(ensure_ascii=True)`` writes for the characters beyond ASCII."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    escaped = []
    for character in error.object[error.start : error.end]:
        point = ord(character)
        if point > 0xFFFF:
            point -= 0x10000
            escaped.append(f"\\u{0xD800 | (point >> 10):04x}\\u{0xDC00 | (point & 0x3FF):04x}")
        else:
            escaped.append(f"\\u{point:04x}")
    return "".join(escaped), error.end


_ERRORS = "zett-browser-json-ascii"
codecs.register_error(_ERRORS, _escape_beyond_ascii)


def ascii_json(data: bytes) -> str | None:
    """SQLite's JSON text of a row (raw UTF-8 beyond ASCII) as Python's ASCII encoder writes it;
    None when it is not valid UTF-8."""
    if data.isascii():
        text = data.decode("ascii")
    else:
        try:
            text = data.decode("utf-8").encode("ascii", _ERRORS).decode("ascii")
        except UnicodeDecodeError:
            return None
    if "\x7f" in text:  # only inside strings (keys, numbers and null are printable ASCII)
        text = text.replace("\x7f", "\\u007f")
    return text


def _parameters(session_id: str, after: Position | None) -> tuple[Any, ...] | None:
    """The keyset statement's parameters but the limit (None: they would not bind as the storage's do)."""
    if type(session_id) is not str:
        return None
    if after is None:
        return (session_id,)
    if after.null_key or type(after.key) is not int or type(after.id) is not str:
        return None
    return (session_id, after.key, after.key, after.key, after.id)


@dataclass(frozen=True, slots=True)
class EncodedRow:
    """One ``raw_messages`` row as its JSON text, with what the walk needs besides."""

    #: The row as the JSON export writes it.
    json: str
    #: The stored sequence and id (as SQLite gives them: an integer and text in a healthy row).
    sequence: Any
    id: Any
    #: ``message_json`` of an assistant row that may delegate (asked for), else None.
    delegating: str | None = None

    @property
    def position(self) -> Position:
        """The keyset position just after this row."""
        return Position(key=self.sequence, null_key=False, id=self.id)

    def get(self, name: str, default: Any = None) -> Any:
        """The few stored values the walk looks at (``role`` and ``message_json`` of a delegating row)."""
        if self.delegating is None:
            return default
        return {"role": _ASSISTANT, "message_json": self.delegating}.get(name, default)


class EncodedPage(list[EncodedRow]):
    """A page of :class:`EncodedRow` (a list: told apart from a page of stored rows)."""


class QuickExport:
    """A read-only stdlib connection to one SQLite store handing out Raw Log pages.

    Use as a context manager; its page methods may be called any number of times in between.
    Opening it never fails: a store it cannot open answers every page with None.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._guard: SidecarGuard | None = None
        self._connection: sqlite3.Connection | None = None
        #: Pages handed out, and pages declined (read the usual way).
        self.pages = 0
        self.declined = 0

    def __enter__(self) -> QuickExport:
        self._guard = SidecarGuard.record(self.path)  # before SQLite first looks at the file
        try:
            self._connection = open_stdlib_reader(self.path)
        except (OSError, ValueError, sqlite3.Error, StoreError):
            self.__exit__()  # every page is then read the usual way (which reports the problem)
        return self

    def __exit__(self, *_: object) -> None:
        connection, self._connection = self._connection, None
        guard, self._guard = self._guard, None
        close_stdlib_reader(connection, guard)

    def stored_page(self, session_id: str, after: Position | None, limit: int) -> list[dict[str, Any]] | None:
        """Up to ``limit`` rows of ``session_id`` after ``after`` in (sequence, id) order, as
        stored (as :func:`.export_rows.stored_raw_page` gives them); None: read it that way."""
        parameters = _parameters(session_id, after)
        if self._connection is None or parameters is None:
            self.declined += 1
            return None
        found = None
        # The C decoder first; a page holding text that is not UTF-8 fails it (OperationalError)
        # and is read again with the storage's lenient decoder (a Python call per text value).
        for decode in (str, lenient_text):
            try:
                self._connection.text_factory = decode
                found = self._connection.execute(_STORED[after is not None], (*parameters, limit)).fetchall()
                break
            except sqlite3.Error:
                continue
        if found is None:
            self.declined += 1
            return None
        self.pages += 1
        return [dict(zip(COLUMNS, row, strict=True)) for row in found]

    def encoded_page(
        self, session_id: str, after: Position | None, limit: int, *, delegations: bool = False
    ) -> EncodedPage | None:
        """Up to ``limit`` rows of ``session_id`` after ``after`` in (sequence, id) order, as
        JSON text; None when this page must be read the usual way (see the module docstring).

        ``delegations``: also carry the ``message_json`` of assistant rows that may name a
        ``task`` call (for :func:`zett_browser.export.plan.task_call_ids`).
        """
        rows = self._read(session_id, after, limit, delegations)
        if rows is None:
            self.declined += 1
        else:
            self.pages += 1
        return rows

    def _read(self, session_id: str, after: Position | None, limit: int, delegations: bool) -> EncodedPage | None:
        parameters = _parameters(session_id, after)
        if self._connection is None or parameters is None:
            return None
        try:
            self._connection.text_factory = bytes
            statement = _STATEMENTS[after is not None, delegations]
            found = self._connection.execute(statement, (*parameters, limit)).fetchall()
        except sqlite3.Error:
            return None
        rows = EncodedPage()
        try:
            for sequence, row_id, reals, probe, data in found:
                text = None if reals else ascii_json(data)
                if text is None:
                    return None
                if type(row_id) is bytes:  # valid UTF-8: it is part of the text just decoded
                    row_id = row_id.decode("utf-8")
                rows.append(EncodedRow(text, sequence, row_id, probe.decode("utf-8") if probe is not None else None))
        except UnicodeDecodeError:
            return None
        if rows and (type(rows[-1].sequence) is not int or type(rows[-1].id) is not str):
            return None  # the next page would start from a position this reader does not bind
        return rows


__all__ = ["COLUMNS", "EncodedPage", "EncodedRow", "QuickExport", "ascii_json"]
