"""Provides the search's ``pinned:``, ``label:`` and ``note:`` qualifiers, resolved from the notes file.

The side index holds no notes (they are the person's, kept in the notes file and keyed
by the same store identity as the index). Before a query with such a qualifier runs,
:func:`resolve` replaces each with a ``marked`` filter naming the sessions marked as a
whole and the messages marked one by one; the compiled SQL keeps every document of
those sessions and those messages. ``pinned:false`` is ``-pinned:true``.
"""

from __future__ import annotations

from pathlib import Path

from ..model.frozen import replace
from .query import Filter, Query

#: The qualifiers the notes file answers (``notes.match.NOTE_QUALIFIERS``, checked by a test;
#: that module loads the notes file's records, which a search without them never needs).
NOTE_QUALIFIERS = ("pinned", "label", "note")


def needs_notes(query: Query) -> bool:
    """Whether ``query`` has a qualifier the notes file answers."""
    return any(item.name in NOTE_QUALIFIERS for item in query.filters)


def resolve(query: Query, notes_file: Path, identity: str, store: Path | None) -> Query:
    """``query`` with its notes qualifiers replaced by what they select (blocking: run on a thread).

    Raises:
        UnsafePath: the notes file is the store, beside it, or a link.
        sqlite3.Error: the notes file is not a database.
    """
    if not needs_notes(query):
        return query
    from ..notes.match import lookup

    filters: list[Filter] = []
    for item in query.filters:
        if item.name not in NOTE_QUALIFIERS:
            filters.append(item)
            continue
        negated = item.negated
        value = item.value
        if item.name == "pinned" and value is False:
            negated, value = not negated, True
        filters.append(Filter("marked", lookup(notes_file, identity, store, item.name, value), negated))
    return replace(query, filters=tuple(filters))


__all__ = ["needs_notes", "resolve"]
