"""Provides the index writes: short ``BEGIN IMMEDIATE`` transactions, run in a worker thread.

Each call converts one batch of store rows into documents and writes them in one
transaction, so a background build never holds the event loop or the index lock for
long, and a reader (WAL) always sees a consistent index. Rows at or below a session's
indexed ``last_seq`` are skipped inside the transaction, so a batch written twice
(another process, a retried sync) never duplicates a message.

Text decoded from a message's JSON can hold a lone surrogate (``"\\ud800"``), which has no
UTF-8 form: sqlite3 refused the whole batch, and one such message stopped the index of
the whole store. Such characters are written as U+FFFD (what the app shows for them).
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from . import totals
from .extract import Doc, doc_from_row, doc_from_session, doc_from_snapshot
from .facts import mark_steering
from .row_usage import row_usage

_DOC_COLUMNS = 18
_DOC_SQL = (
    "INSERT INTO docs (id, session_id, sequence, kind, time, model, tools, tokens, duration, error, stop,"
    " reasoning, image, meta, tags, problem, outcome, flags) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
#: One statement per batch: SQLite then indexes the whole batch without taking the GIL
#: back after each row (an ``executemany`` does, and waits for it while the extractor runs).
_FTS_SQL = "INSERT INTO fts(rowid, body) SELECT ? + key, value FROM json_each(?)"
_SESSION_SQL = (
    "INSERT INTO sessions (id, parent_id, session_type, title, agent, created, updated) VALUES (?,?,?,?,?,?,?)"
    " ON CONFLICT(id) DO UPDATE SET parent_id=excluded.parent_id, session_type=excluded.session_type,"
    " title=excluded.title, agent=excluded.agent, created=excluded.created, updated=excluded.updated"
)


def _rollback(db: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already (it does on a full disk:
    a ROLLBACK then fails with "cannot rollback" and hides the real error)."""
    if db.in_transaction:
        db.execute("ROLLBACK")


def _epoch(value: object) -> float | None:
    return value.timestamp() if isinstance(value, datetime) else None


def encode_bodies(docs: list[Doc]) -> str | None:
    """The bodies of ``docs`` as the one JSON argument of the FTS insert (None: a body holds
    NUL, which SQLite's JSON reader takes as the end of the string; such a batch goes in row
    by row). Pure Python: the build makes it beside the write of the previous batch."""
    bodies = [_utf8(doc.body) for doc in docs]
    if any("\x00" in body for body in bodies if body):
        return None
    return json.dumps(bodies, ensure_ascii=False)


def _next_id(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT coalesce(max(id), 0) FROM docs").fetchone()[0]) + 1


def _insert_bodies(db: sqlite3.Connection, start: int, docs: list[Doc], encoded: str | None) -> None:
    """Put the bodies of ``docs`` into the FTS table at rowids ``start``, ``start + 1``...

    ``encoded`` is :func:`encode_bodies` of ``docs`` when the caller made it already. One
    statement: SQLite tokenizes the whole batch without the GIL (the longest step of a
    build), so the next batch is extracted meanwhile.
    """
    if not docs:
        return
    if encoded is None:
        encoded = encode_bodies(docs)
    if encoded is None:
        db.executemany(
            "INSERT INTO fts(rowid, body) VALUES (?, ?)",
            [(start + number, _utf8(doc.body)) for number, doc in enumerate(docs)],
        )
    else:
        db.execute(_FTS_SQL, (start, encoded))


@functools.lru_cache(maxsize=8)
def _docs_sql(rows: int) -> str:
    """One ``INSERT`` of ``rows`` rows into ``docs``."""
    marks = "(" + ",".join("?" * _DOC_COLUMNS) + ")"
    return _DOC_SQL.split(" VALUES ")[0] + " VALUES " + ",".join([marks] * rows)


def _insert_rows(db: sqlite3.Connection, start: int, docs: list[Doc]) -> None:
    """Insert the ``docs`` rows of ``docs`` with ids ``start``, ``start + 1``...

    As few statements as SQLite's limit on parameters allows (one per batch): an
    ``executemany`` gives the GIL back at every row and waits to take it again while the
    next batch is prepared in another thread (up to the 5 ms switch interval each time).
    """
    values = [
        (
            number,
            doc.session_id,
            doc.sequence,
            doc.kind,
            doc.time,
            _utf8(doc.model),
            _utf8(f" {doc.tools} ") if doc.tools else None,
            doc.tokens,
            doc.duration_s,
            int(doc.error),
            _utf8(doc.stop),
            int(doc.reasoning),
            int(doc.image),
            _utf8(doc.meta),
            _utf8(doc.tags),
            _utf8(doc.problem),
            doc.outcome,
            f" {doc.flags} " if doc.flags else None,
        )
        for number, doc in enumerate(docs, start)
    ]
    per = max(1, min(len(values), db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // _DOC_COLUMNS))
    for first in range(0, len(values), per):
        chunk = values[first : first + per]
        db.execute(_docs_sql(len(chunk)), [value for row in chunk for value in row])


def _insert(db: sqlite3.Connection, docs: list[Doc]) -> list[int]:
    """Insert documents with consecutive ids (their texts, then their rows)."""
    start = _next_id(db)
    _insert_bodies(db, start, docs, None)
    _insert_rows(db, start, docs)
    return list(range(start, start + len(docs)))


def _bump_problems(db: sqlite3.Connection, count: int) -> None:
    if count:
        db.execute(
            "INSERT INTO meta(key, value) VALUES ('problems', ?) ON CONFLICT(key)"
            " DO UPDATE SET value = CAST(value AS INTEGER) + excluded.value",
            (str(count),),
        )


_SURROGATE = re.compile("[\ud800-\udfff]")


def _utf8(value: str | None) -> str | None:
    """``value`` with any lone surrogate as U+FFFD, so it can be written (ASCII: as it is)."""
    if value is None or value.isascii():
        return value
    return _SURROGATE.sub("\ufffd", value)


def write_sessions(db: sqlite3.Connection, rows: Iterable[Mapping[str, Any]]) -> None:
    """Upsert sessions and replace each one's title/agent document."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for row in rows:
            before = db.execute("SELECT parent_id FROM sessions WHERE id = ?", (str(row["id"]),)).fetchone()
            values = (
                str(row["id"]),
                row.get("parent_session_id"),
                row.get("session_type") if isinstance(row.get("session_type"), int) else 0,
                row.get("title") if isinstance(row.get("title"), str) else None,
                row.get("agent_name") if isinstance(row.get("agent_name"), str) else None,
                _epoch(row.get("created_at")),
                _epoch(row.get("updated_at")),
            )
            db.execute(_SESSION_SQL, values)
            if before is None:
                totals.session_appeared(db, values[0])
            elif before[0] != values[1]:
                totals.parent_changed(db, values[0], before[0])
            old = db.execute("SELECT session_doc FROM sessions WHERE id = ?", (values[0],)).fetchone()
            if old is not None and old[0] is not None:
                db.execute("DELETE FROM docs WHERE id = ?", (old[0],))
                db.execute("DELETE FROM fts WHERE rowid = ?", (old[0],))
            (number,) = _insert(db, [doc_from_session(row)])
            db.execute("UPDATE sessions SET session_doc = ? WHERE id = ?", (number, values[0]))
        db.execute("COMMIT")
    except BaseException:
        _rollback(db)
        raise


def prepare_raw(rows: list[Mapping[str, Any]], limits: Mapping[str, int] | None) -> list[Doc]:
    """The documents of Raw Log rows (no index access: runs beside a write of the previous batch).

    ``limits`` (full build) caps each session at the last sequence listed before the
    scan and skips sessions that were not listed; the next sync picks those up.
    """
    docs: list[Doc] = []
    for row in rows:
        sequence = row["sequence"]
        if not isinstance(sequence, int):
            continue
        if limits is not None and sequence > limits.get(str(row["session_id"]), 0):
            continue
        doc = doc_from_row(row)
        facts = {
            "provider": doc.provider,
            "model": doc.model,
            "calls": doc.calls,
            "stop": doc.stop,
            "error": doc.error,
            "outcome": doc.outcome,
        }
        doc.usage = row_usage(row, doc.kind, facts)
        docs.append(doc)
    return docs


def write_docs(db: sqlite3.Connection, docs: list[Doc], encoded: str | None = None, *, commit: bool = True) -> int:
    """Write prepared Raw Log documents not yet indexed; return how many were written.

    Documents at or below a session's indexed ``last_seq``, or of a session not in
    the index, are skipped inside the transaction. ``encoded`` is :func:`encode_bodies` of
    ``docs``, when the caller made it beforehand (used only if no document is skipped).
    The texts go in first: that statement runs without the GIL, and what follows (rows,
    totals) is short; done the other way round, every row of the ``docs`` insert waited
    for the GIL while the next batch was extracted, and the texts went in only after it.
    The write joins a transaction a previous one left open; ``commit`` False leaves it
    open for the next (a full build: see :data:`.pipeline.COMMIT_ROWS`). On an error the
    whole transaction rolls back.
    """
    if not db.in_transaction:
        db.execute("BEGIN IMMEDIATE")
    try:
        known = _last_sequences(db, {doc.session_id for doc in docs})
        kept = [doc for doc in docs if doc.session_id in known and doc.sequence > known[doc.session_id]]
        start = _next_id(db)
        _insert_bodies(db, start, kept, encoded if len(kept) == len(docs) else None)
        mark_steering(db, kept)
        _insert_rows(db, start, kept)
        totals.add_rows(db, [(doc.session_id, doc.usage) for doc in kept if doc.usage is not None])
        last: dict[str, int] = {}
        for doc in kept:
            last[doc.session_id] = max(last.get(doc.session_id, 0), doc.sequence)
        db.executemany("UPDATE sessions SET last_seq = ? WHERE id = ?", [(seq, sid) for sid, seq in last.items()])
        _bump_problems(db, sum(1 for doc in kept if doc.problem))
        if commit:
            db.execute("COMMIT")
    except BaseException:
        _rollback(db)
        raise
    return len(kept)


def write_raw(db: sqlite3.Connection, rows: list[Mapping[str, Any]], limits: Mapping[str, int] | None) -> int:
    """Index Raw Log rows not yet indexed (:func:`prepare_raw` then :func:`write_docs`)."""
    return write_docs(db, prepare_raw(rows, limits))


def _last_sequences(db: sqlite3.Connection, session_ids: set[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    ids = list(session_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(db.execute(f"SELECT id, last_seq FROM sessions WHERE id IN ({marks})", chunk).fetchall())
    return found


def write_snapshots(db: sqlite3.Connection, rows: list[Mapping[str, Any]]) -> int:
    """Index snapshots whose id is not indexed yet; return how many were written."""
    db.execute("BEGIN IMMEDIATE")
    try:
        fresh = [
            row for row in rows if db.execute("SELECT 1 FROM snapshots WHERE id = ?", (row["id"],)).fetchone() is None
        ]
        docs = [doc_from_snapshot(row) for row in fresh]
        _insert(db, docs)
        db.executemany(
            "INSERT INTO snapshots(id, session_id) VALUES (?, ?)",
            [(row["id"], str(row["session_id"])) for row in fresh],
        )
        totals.add_compactions(db, [str(row["session_id"]) for row in fresh])
        _bump_problems(db, sum(1 for doc in docs if doc.problem))
        db.execute("COMMIT")
    except BaseException:
        _rollback(db)
        raise
    return len(docs)


def set_meta(db: sqlite3.Connection, values: dict[str, str]) -> None:
    """Set meta values in their own short transaction."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", list(values.items()))
        db.execute("COMMIT")
    except BaseException:
        _rollback(db)
        raise
