"""Provides ``zett-browser notes``: the pins, labels and notes written on a store's sessions.

``notes [STORE] [--json] [--notes-file FILE]`` lists what was written on the store's
sessions and messages (the ``*``, ``l`` and ``a`` keys of the app), one line each: the
session id, ``#N`` for a message or ``session``, ``★`` for a pin, the labels in brackets
and the note on one line. ``--json`` prints a JSON list of objects instead. Only the notes
file is read (the store is not opened); a missing notes file lists nothing. Errors are
one line on stderr and exit status 2.
"""

from __future__ import annotations

import json
import sqlite3
import sys

from ..model.notes import Annotation
from ..text import one_line
from .args import OneLineParser, add_notes_file, add_store, closed_pipe

#: Characters of a note the listing shows (``--json`` gives it whole).
PREVIEW = 120


def line(item: Annotation) -> str:
    """One annotation as one cleaned line."""
    where = "session" if item.seq is None else f"#{item.seq}"
    parts = [one_line(item.session_id, 80), where]
    if item.pinned:
        parts.append("★")
    if item.labels:
        parts.append("[" + ", ".join(one_line(label, 40) for label in item.labels) + "]")
    if item.note:
        parts.append(one_line(item.note, PREVIEW))
    return "  ".join(parts)


def as_json(item: Annotation) -> dict[str, object]:
    """One annotation as a JSON object (the note whole)."""
    return {
        "session_id": item.session_id,
        "seq": item.seq,
        "pinned": item.pinned,
        "labels": list(item.labels),
        "note": item.note,
        "updated_at": item.updated_at,
    }


def main_notes(argv: list[str]) -> int:
    """List the pins, labels and notes written on a store's sessions and messages."""
    parser = OneLineParser(prog="zett-browser notes", description=main_notes.__doc__)
    add_store(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON list of objects")
    add_notes_file(parser)
    args = parser.parse_args(argv)
    from ..notes import db as notes_db
    from ..notes.identity import of_argument
    from ..storage.errors import StoreError

    path = args.notes_file or notes_db.default_file()
    try:
        identity, store = of_argument(args.store)
        db = notes_db.open_file(path, store, create=False)
        try:
            items = notes_db.every(db, identity) if db is not None else []
        finally:
            if db is not None:
                db.close()
    except (StoreError, OSError, sqlite3.Error, ValueError) as error:
        print(f"zett-browser: {one_line(error, 300)}", file=sys.stderr)
        return 2
    try:
        if args.json:
            # ASCII on a terminal: controls and bidi marks in a note stay escaped.
            print(json.dumps([as_json(item) for item in items], ensure_ascii=True, indent=1))
        elif not items:
            print(f"no pins, labels or notes for this store in {one_line(str(path), 200)}")
        else:
            for item in items:
                print(line(item))
    except BrokenPipeError:
        return closed_pipe()
    return 0
