"""Provides session filters for the tree: which sessions a query matches, and their ancestors.

The tree shows matching sessions under their ancestors, so a filter needs two sets: the
sessions that match and every session on the way up to their roots (a recursive CTE over
``sessions.parent_id``; cycles end because ``UNION`` drops rows already seen).

A query made only of session-level qualifiers (``agent:``, ``type:``, ``session:``,
``has:snapshot``, ``has:children``, ``since:``/``before:``) is answered from the
``sessions`` table alone: ``since:`` keeps sessions active at or after the time,
``before:`` sessions created before it, so a date range keeps the sessions active in it.
Anything else (words, ``error:true``, ``kind:``, ``tool:``, ``outcome:``, ``is:goal``,
``has:server_tools``...) matches a session when one of its documents matches the whole
query, as a search would find it: ``is:goal`` keeps the goal-mode sessions.
"""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .db import current_state, open_reader
from .query import Filter, Query
from .search import _name, _where

#: Qualifiers a session row answers by itself.
_SESSION_LEVEL = {"agent", "type", "session", "since", "before"}
_HAS = {
    "snapshot": "EXISTS (SELECT 1 FROM snapshots x WHERE x.session_id = s.id)",
    "children": "EXISTS (SELECT 1 FROM sessions c WHERE c.parent_id = s.id)",
}


@dataclass(frozen=True)
class SessionMatch:
    """The sessions a query matches, those plus their ancestors, and whether the index is partial."""

    matching: frozenset[str]
    visible: frozenset[str]
    partial: bool


def _session_level(item: Filter) -> bool:
    return item.name in _SESSION_LEVEL or (item.name == "has" and item.value in _HAS)


def _session_condition(item: Filter, params: list[Any]) -> str:
    """SQL for one session-level qualifier over ``s`` (sessions); values are bound."""
    if item.name == "has":
        return _HAS[str(item.value)]
    if item.name == "type":
        params.append(item.value)
        return "s.session_type = ?"
    if item.name in ("since", "before"):
        params.append(item.value.timestamp())  # type: ignore[attr-defined]
        return "coalesce(s.updated, s.created) >= ?" if item.name == "since" else "s.created < ?"
    column = {"agent": "s.agent", "session": "s.id"}[item.name]
    return _name(column, str(item.value), params)


def compile_matching(query: Query, *, session: str | None = None) -> tuple[str, list[Any]]:
    """SQL selecting the ids of the sessions ``query`` matches (one column, ``id``).

    Raises:
        QueryError: ``in:session``/``in:subtree`` without an open ``session``.
    """
    params: list[Any] = []
    if not query.groups and not query.excluded and all(_session_level(item) for item in query.filters):
        where = []
        for item in query.filters:
            condition = _session_condition(item, params)
            where.append(f"NOT coalesce(({condition}), 0)" if item.negated else f"({condition})")
        return f"SELECT s.id AS id FROM sessions s WHERE {' AND '.join(where) or '1'}", params
    source, where, _ = _where(query, params, session)
    sql = (
        f"SELECT DISTINCT d.session_id AS id FROM {source} LEFT JOIN sessions s ON s.id = d.session_id"
        f" WHERE {' AND '.join(where) or '1'}"
    )
    return sql, params


def matching_sessions(path: Path, query: Query, *, session: str | None = None) -> SessionMatch:
    """The sessions of the index at ``path`` that ``query`` matches, and their ancestors.

    A missing, unreadable or damaged index gives empty sets marked partial (the next sync
    rebuilds it), never an error.

    Raises:
        QueryError: ``in:session``/``in:subtree`` without an open ``session``.
    """
    sql, params = compile_matching(query, session=session)
    walk = (
        f"WITH RECURSIVE m(id) AS ({sql}),"
        " up(id, hit) AS (SELECT id, 1 FROM m UNION"
        " SELECT s.parent_id, 0 FROM sessions s JOIN up ON s.id = up.id WHERE s.parent_id IS NOT NULL)"
        " SELECT id, max(hit) FROM up GROUP BY id"
    )
    empty = SessionMatch(frozenset(), frozenset(), partial=True)
    db = open_reader(path)  # never through a link
    if db is None:
        return empty
    try:
        try:
            state = current_state(db)
            if state is None:
                return empty  # another version: stale until the next sync rebuilds it
            rows = db.execute(walk, params).fetchall()
        except sqlite3.OperationalError as error:
            if "no such table" in str(error):
                return empty  # not an index yet
            raise  # a bug in the compiled SQL: let the tests see it
        except sqlite3.DatabaseError:
            return empty  # a damaged file; the next sync rebuilds it
    finally:
        db.close()
    matching = frozenset(str(session_id) for session_id, hit in rows if hit)
    visible = frozenset(str(session_id) for session_id, _ in rows)
    return SessionMatch(matching, visible, partial=state != "complete")


async def find_sessions(path: Path, query: Query, *, session: str | None = None) -> SessionMatch:
    """:func:`matching_sessions` in a worker thread (for the app)."""
    return await asyncio.to_thread(matching_sessions, path, query, session=session)
