"""Provides the JSON export: the stored rows, unchanged, nested as they were delegated.

The document::

    {"format": "zett-browser-export", "version": 1, "schema": "zett-agent 0.2.1",
     "session": {
        "row": {agent_sessions columns as stored},
        "snapshots": [{session_snapshots columns as stored}, ...],
        "messages": [
            {raw_messages columns as stored, message_json the envelope text zett-agent wrote},
            {"delegated_by": "call id" | null, "session": {...the same shape...}},
            ...]},
     "review": [{"session_id", "seq", "pinned", "labels", "note", "updated_at"}, ...],
     "redacted": N}

(``review`` only with ``--notes``: the pins, labels and notes on the sessions exported.)

Values are what the store holds: text (SQLite timestamps as their stored text), numbers,
null; a server's timestamps as ISO 8601 text; bytes (a damaged row) as
``{"$base64": ...}``. ``message_json``, ``metadata_json`` and ``tags_json`` stay the JSON
*text* zett-agent wrote, so :mod:`.restore` can write them back through the storage API
byte for byte. Written as it goes: one row at a time.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from json import JSONEncoder
from typing import Any, TextIO

from ..model.notes import Annotation
from ..text import safe_json
from .redact import Redactor
from .review import Review
from .walk import SessionHead

FORMAT = "zett-browser-export"
VERSION = 1
#: Columns holding a copy of other text (``content`` repeats the message's text): redacted, not counted twice.
_COPIES = frozenset({"content"})


def stored(value: Any) -> Any:
    """A stored value as JSON data (see the module docstring)."""
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$base64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, str):
        return str(value)  # a BadText (not UTF-8) becomes its U+FFFD reading
    return value


def _dumps(value: Any) -> str:
    # ASCII: the document may go to a terminal (stdout), where raw C1 and bidi controls act.
    return safe_json(value)


def _not_json(value: Any) -> Any:
    """What :func:`stored` makes of a value JSON has no form for (bytes, a server's datetime, Decimal)."""
    converted = stored(value)
    if converted is value:
        raise TypeError(f"a stored {type(value).__name__} has no JSON form")
    return converted


#: A stored row as :func:`safe_json` writes ``{name: stored(value)}``, in one C call: the
#: encoder turns text (a :class:`~..storage.values.BadText` as its U+FFFD reading, as
#: ``str()`` gives it), numbers and null itself and asks :func:`_not_json` for the rest.
#: Only without redaction (each text value then passes through the redactor first).
_ROW_JSON = JSONEncoder(ensure_ascii=True, default=_not_json).encode


class JsonWriter:
    """Writes one JSON document to ``out`` as the walk goes."""

    def __init__(self, out: TextIO, redactor: Redactor) -> None:
        self.out = out
        self.redact = redactor
        #: Per open session: whether its ``messages`` list has an item yet.
        self.nonempty: list[bool] = []
        #: Pins, labels and notes to carry (``--notes``), or None; the sessions exported.
        self.review: Review | None = None
        self.sessions: list[str] = []

    def _row(self, row: Mapping[str, Any]) -> str:
        if not self.redact.enabled:
            return _ROW_JSON(row if isinstance(row, dict) else dict(row))
        return self._row_by_value(row)

    def _row_by_value(self, row: Mapping[str, Any]) -> str:
        """``_row`` one value at a time: each text value through the redactor."""
        values = {}
        for name, value in row.items():
            value = stored(value)
            if isinstance(value, str):
                value = self.redact(value, counted=name not in _COPIES)
            values[name] = value
        return _dumps(values)

    def _item(self) -> None:
        if self.nonempty[-1]:
            self.out.write(",\n")
        else:
            self.out.write("\n")
            self.nonempty[-1] = True

    def start_session(self, head: SessionHead) -> None:
        self.sessions.append(str(head.row["id"]))
        if not self.nonempty:
            self.out.write(f'{{"format": "{FORMAT}", "version": {VERSION}, "schema": "zett-agent 0.2.1",\n"session": ')
        else:
            self._item()
            self.out.write(f'{{"delegated_by": {_dumps(head.call_id)}, "session": ')
        snapshots = ",\n".join(self._row(snapshot) for snapshot in head.snapshots)
        self.out.write(f'{{"row": {self._row(head.row)},\n"snapshots": [{snapshots}],\n"messages": [')
        self.nonempty.append(False)

    def message(self, row: Mapping[str, Any], head: SessionHead) -> None:
        self._item()
        self.out.write(self._row(row))

    def message_texts(self, texts: list[str], head: SessionHead) -> None:
        """Rows as their JSON text already (:mod:`zett_browser.storage.quickexport`), in one write."""
        if texts:
            self._item()
            self.out.write(",\n".join(texts))

    def end_session(self, head: SessionHead) -> None:
        self.nonempty.pop()
        self.out.write("]}")
        if self.nonempty:
            self.out.write("}")  # closes the {"delegated_by": ..., "session": ...} item

    def finish(self) -> None:
        if self.review is not None:
            marks = [self._mark(item) for item in self.review.within(self.sessions)]
            self.out.write(',\n"review": [' + ",\n".join(marks) + "]")
        self.out.write(f',\n"redacted": {self.redact.count}}}\n')

    def _mark(self, item: Annotation) -> str:
        """One pin, label set or note (``--notes``) as a JSON object, the note whole."""
        labels = [self.redact(label) for label in item.labels]
        note = self.redact(item.note) if item.note is not None else None
        mark = {"session_id": item.session_id, "seq": item.seq, "pinned": item.pinned, "labels": labels}
        return _dumps({**mark, "note": note, "updated_at": item.updated_at})
