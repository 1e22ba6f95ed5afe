"""Provides search over a side index: a parsed query becomes one parameterized SQL statement.

Free text reaches FTS5 only as quoted strings built by :func:`query.fts_string`, and
every qualifier value is a bound parameter, so no input can be an FTS or SQL syntax
error. Hits come newest-indexed first (descending document id, the order FTS5 walks
natively) and are keyset-paged on that id, so the first page of a common word costs
the page, not every match. Snippets are plain cleaned text with match spans, never
markup; a page says when the index is still partial.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from ..model.frozen import frozen
from ..text import clean
from .db import current_state, open_reader
from .query import Filter, Query, QueryError, Term, fts_string

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any

SNIPPET = 160
#: Sessions, and messages, a notes qualifier passes to SQL at most (bound parameters).
MAX_MARKED = 5000
_OPS = {">", "<", ">=", "<=", "="}


@frozen
class Hit:
    """One match: where it is and a snippet (plain text) with the matches' spans."""

    session_id: str
    label: str
    agent: str | None
    sequence: int
    kind: str
    time: datetime | None
    snippet: str
    spans: tuple[tuple[int, int], ...]
    #: The session has a title (its label needs nothing but the index).
    titled: bool = False
    #: The open store the hit comes from (set only when several are open).
    store: str | None = None


@frozen
class SearchPage:
    """A page of hits; ``next_cursor`` continues it; ``partial`` while the index is incomplete."""

    hits: list[Hit]
    next_cursor: int | None
    partial: bool


def _match_expression(query: Query) -> str | None:
    groups = ["(" + " OR ".join(fts_string(term) for term in group) + ")" for group in query.groups]
    if not groups:
        return None
    expression = " AND ".join(groups)
    if query.excluded:
        expression += " NOT (" + " OR ".join(fts_string(term) for term in query.excluded) + ")"
    return expression


def _name(column: str, value: str, params: list[Any]) -> str:
    if value.endswith("*"):
        escaped = value[:-1].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params.append(escaped + "%")
        return f"{column} LIKE ? ESCAPE '\\'"
    params.append(value)
    return f"{column} = ? COLLATE NOCASE"


def _json_path(key: str) -> str:
    return '$."' + key + '"'


def _condition(item: Filter, params: list[Any], session: str | None) -> str:
    """SQL for one qualifier over ``d`` (docs) and ``s`` (sessions); values are bound."""
    name, value = item.name, item.value
    if name == "kind":
        params.append(value)
        return "d.kind = ?"
    if name == "tool":
        text = str(value)
        params.append(" " + text.rstrip("*").lower() + ("" if text.endswith("*") else " "))
        return "instr(lower(d.tools), ?) > 0"
    if name in ("agent", "model", "session"):
        column = {"agent": "s.agent", "model": "d.model", "session": "d.session_id"}[name]
        return _name(column, str(value), params)
    if name == "type":
        params.append(value)
        return "s.session_type = ?"
    if name in ("tag", "meta"):
        pair: tuple[str, str | None] = value  # type: ignore[assignment]  # parse() made it so
        key, wanted = pair
        column = "d.tags" if name == "tag" else "d.meta"
        params.append(_json_path(key))
        if wanted is None:
            return f"json_type({column}, ?) IS NOT NULL"
        params.append(wanted)
        return f"CAST(json_extract({column}, ?) AS TEXT) = ?"
    if name == "error":
        return "d.error = 1" if value else "d.error = 0"
    if name == "stop":
        reasons = list(value)  # type: ignore[call-overload]
        params.extend(reasons)
        return f"d.stop IN ({','.join('?' * len(reasons))})"
    if name == "has":
        return {
            "reasoning": "d.reasoning = 1",
            "image": "d.image = 1",
            "snapshot": "EXISTS (SELECT 1 FROM snapshots x WHERE x.session_id = d.session_id)",
            "children": "EXISTS (SELECT 1 FROM sessions c WHERE c.parent_id = d.session_id)",
            "server_tools": "instr(d.flags, ' server_tools ') > 0",
        }[str(value)]
    if name == "is":
        params.append(f" {value} ")
        return "instr(d.flags, ?) > 0"
    if name == "outcome":
        params.append(value)
        return "d.outcome = ?"
    if name in ("since", "before"):
        params.append(value.timestamp())  # type: ignore[attr-defined]
        return "d.time >= ?" if name == "since" else "d.time < ?"
    if name == "marked":
        return _marked(value, params)
    if name in ("pinned", "label", "note"):
        raise QueryError(f"{name}: needs the notes file (resolve the query first: index/notes_filter.py)")
    if name in ("tokens", "dur"):
        bound: tuple[str, float] = value  # type: ignore[assignment]  # parse() made it so
        op, amount = bound
        assert op in _OPS
        params.append(amount)
        return f"{'d.tokens' if name == 'tokens' else 'd.duration'} {op} ?"
    return _within(str(value), params, session)


def _marked(value: object, params: list[Any]) -> str:
    """SQL for the documents of the sessions and messages a notes qualifier selected."""
    sessions = sorted(getattr(value, "sessions", ()))[:MAX_MARKED]
    messages = sorted(getattr(value, "messages", ()))[:MAX_MARKED]
    parts = []
    if sessions:
        params.extend(sessions)
        parts.append(f"d.session_id IN ({','.join('?' * len(sessions))})")
    if messages:
        for session_id, sequence in messages:
            params.extend((session_id, sequence))
        parts.append(f"(d.session_id, d.sequence) IN (VALUES {','.join(['(?, ?)'] * len(messages))})")
    return " OR ".join(parts) or "0"


def _within(scope: str, params: list[Any], session: str | None) -> str:
    if session is None:
        raise QueryError(f"in:{scope} needs an open session")
    params.append(session)
    if scope == "session":
        return "d.session_id = ?"
    return (
        "d.session_id IN (WITH RECURSIVE tree(id) AS (SELECT ? UNION"
        " SELECT t.id FROM sessions t JOIN tree ON t.parent_id = tree.id) SELECT id FROM tree)"
    )


def _where(query: Query, params: list[Any], session: str | None) -> tuple[str, list[str], str]:
    """The FROM source, WHERE conditions and row key of ``query`` over ``docs d``."""
    where: list[str] = []
    expression = _match_expression(query)
    if expression is not None:
        source = "fts JOIN docs d ON d.id = fts.rowid"
        where.append("fts MATCH ?")
        params.append(expression)
        key = "fts.rowid"
    else:
        source = "docs d"
        key = "d.id"
        if query.excluded:
            where.append("d.id NOT IN (SELECT rowid FROM fts WHERE fts MATCH ?)")
            params.append(" OR ".join(fts_string(term) for term in query.excluded))
    for item in query.filters:
        condition = _condition(item, params, session)
        where.append(f"NOT coalesce(({condition}), 0)" if item.negated else f"({condition})")
    return source, where, key


def compile_query(query: Query, *, limit: int, after: int | None, session: str | None) -> tuple[str, list[Any]]:
    """The SQL statement and parameters of one page of ``query``."""
    params: list[Any] = []
    source, where, key = _where(query, params, session)
    if after is not None:
        where.append(f"{key} < ?")
        params.append(after)
    sql = (
        f"SELECT {key} AS id, d.session_id, d.sequence, d.kind, d.time, s.title, s.agent,"
        f" (SELECT body FROM fts b WHERE b.rowid = d.id) AS body"
        f" FROM {source} LEFT JOIN sessions s ON s.id = d.session_id"
        f" WHERE {' AND '.join(where) or '1'} ORDER BY {key} DESC LIMIT ?"
    )
    params.append(limit + 1)
    return sql, params


def _pattern(terms: list[Term]) -> re.Pattern[str] | None:
    words: list[str] = []
    for term in terms:
        tokens = re.findall(r"[^\W_]+", term.text)
        for index, token in enumerate(tokens):
            tail = r"[^\W_]*" if term.prefix and index == len(tokens) - 1 else ""
            words.append(re.escape(token) + tail)
    if not words:
        return None
    return re.compile(r"(?<![^\W_])(?:" + "|".join(sorted(words, key=len, reverse=True)) + r")(?![^\W_])", re.I)


def snippet(body: str, pattern: re.Pattern[str] | None) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A one-line cleaned excerpt around the first match, with the spans of matches in it."""
    first = pattern.search(body) if pattern is not None else None
    start = max(0, first.start() - SNIPPET // 3) if first is not None else 0
    window = body[start : start + SNIPPET * 2]
    text = clean(window).replace("\n", " ⏎ ")[:SNIPPET]
    if start > 0:
        text = "…" + text
    spans = tuple(match.span() for match in pattern.finditer(text)) if pattern is not None else ()
    return text, spans


def _hit(row: sqlite3.Row, pattern: re.Pattern[str] | None) -> Hit:
    text, spans = snippet(row["body"] or "", pattern)
    moment = datetime.fromtimestamp(row["time"], UTC) if isinstance(row["time"], float) else None
    label = row["title"] or row["agent"] or str(row["session_id"])[:13]
    return Hit(
        session_id=str(row["session_id"]),
        label=clean(label),
        titled=bool(row["title"]),
        agent=clean(row["agent"]) if row["agent"] else None,
        sequence=int(row["sequence"]),
        kind=str(row["kind"]),
        time=moment,
        snippet=text,
        spans=spans,
    )


class Searcher:
    """Runs queries against one index file (read-only; the file may not exist yet)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _connect(self) -> sqlite3.Connection | None:
        db = open_reader(self.path)  # never through a link (see db.open_reader)
        if db is None:
            return None
        db.row_factory = sqlite3.Row
        return db

    def search_now(
        self, query: Query, *, limit: int = 50, after: int | None = None, session: str | None = None
    ) -> SearchPage:
        """One page of hits, synchronously (see :meth:`search`)."""
        if limit < 1:
            raise ValueError("limit must be positive")
        sql, params = compile_query(query, limit=limit, after=after, session=session)
        db = self._connect()
        if db is None:
            return SearchPage([], None, partial=True)
        try:
            try:
                state = current_state(db)
            except sqlite3.Error:  # being rebuilt or not an index yet: nothing to search
                return SearchPage([], None, partial=True)
            if state is None:  # another version (stale until the next sync rebuilds it)
                return SearchPage([], None, partial=True)
            try:
                rows = db.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as error:
                if isinstance(error, sqlite3.OperationalError):
                    raise  # a bug in the compiled SQL: let the tests see it
                return SearchPage([], None, partial=True)  # a damaged file; the next sync rebuilds it
        finally:
            db.close()
        pattern = _pattern([term for group in query.groups for term in group])
        hits = [_hit(row, pattern) for row in rows[:limit]]
        cursor = int(rows[limit - 1]["id"]) if len(rows) > limit else None
        return SearchPage(hits, cursor, partial=state != "complete")

    async def search(
        self, query: Query, *, limit: int = 50, after: int | None = None, session: str | None = None
    ) -> SearchPage:
        """One page of hits, run in a worker thread.

        Raises:
            QueryError: ``in:session``/``in:subtree`` without an open ``session``.
        """
        import asyncio  # here: the search subcommand runs without an event loop

        return await asyncio.to_thread(self.search_now, query, limit=limit, after=after, session=session)
