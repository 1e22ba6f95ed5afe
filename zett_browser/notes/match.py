"""Provides what the search's ``pinned:``, ``label:`` and ``note:`` qualifiers select in the notes file.

The side index knows nothing of notes: before a query runs, each of these qualifiers is
resolved here to the sessions marked as a whole and the messages marked one by one, and
the search then keeps the documents of those sessions and those messages
(:func:`zett_browser.index.notes_filter.resolve`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .db import open_file

#: The qualifiers answered by the notes file.
NOTE_QUALIFIERS = ("pinned", "label", "note")


@dataclass(frozen=True, slots=True)
class Marked:
    """The sessions (as a whole) and the messages (session id, sequence) a qualifier selects."""

    sessions: frozenset[str] = frozenset()
    messages: frozenset[tuple[str, int]] = frozenset()


def _like(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped


def marked(db: sqlite3.Connection, identity: str, name: str, value: object) -> Marked:
    """What ``name:value`` selects in an open notes file (``pinned:true`` → every pin)."""
    if name == "pinned":
        sql, params = "SELECT session_id, seq FROM pins WHERE store_identity = ?", [identity]
    elif name == "label":
        text = str(value)
        if text.endswith("*"):
            sql = "SELECT session_id, seq FROM labels WHERE store_identity = ? AND label LIKE ? ESCAPE '\\'"
            params = [identity, _like(text[:-1]) + "%"]
        else:
            sql = "SELECT session_id, seq FROM labels WHERE store_identity = ? AND label = ? COLLATE NOCASE"
            params = [identity, text]
    else:
        sql = "SELECT session_id, seq FROM notes WHERE store_identity = ? AND text LIKE ? ESCAPE '\\'"
        params = [identity, "%" + _like(str(value)) + "%"]
    sessions: set[str] = set()
    messages: set[tuple[str, int]] = set()
    for session_id, seq in db.execute(sql, params):
        if seq is None:
            sessions.add(str(session_id))
        else:
            messages.add((str(session_id), int(seq)))
    return Marked(frozenset(sessions), frozenset(messages))


def lookup(path: Path, identity: str, store: Path | None, name: str, value: object) -> Marked:
    """:func:`marked` in the notes file at ``path`` (nothing when there is no notes file yet)."""
    db = open_file(path, store, create=False)
    if db is None:
        return Marked()
    try:
        return marked(db, identity, name, value)
    finally:
        db.close()


__all__ = ["NOTE_QUALIFIERS", "Marked", "lookup", "marked"]
