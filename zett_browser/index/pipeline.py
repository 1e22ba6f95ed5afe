"""Provides the walk of a full build over the Raw Log: batches read, turned into documents and
written, with the two cores kept busy.

The longest step of a build is SQLite putting a batch's texts into FTS5, which runs without
the GIL; everything else (reading rows into Python, decoding envelopes, the index's other
rows) needs it. So the next batch is read and prepared while the current one is written:

- a SQLite store is read through the stdlib driver (:mod:`.bulkread`) in the same worker
  thread that prepares the batch: two batches in flight, nothing on the event loop;
- another backend is read through the storage (its driver waits on the network), so three
  are in flight: one written, the next prepared, the one after read.

Each batch's texts are encoded for the FTS statement beside the write of the previous one
(:func:`.writer.encode_bodies`), and the writer puts them in first (:func:`.writer.write_docs`).

A transaction spans batches until :data:`COMMIT_ROWS` rows are in it: FTS5 writes its
pending terms as a new segment at every commit, and fewer, larger segments are fewer merges
(:data:`.db.FTS_SETTINGS`). Readers (WAL) see the build grow a commit at a time; a build
that stops in between loses what it had not committed, and is rebuilt anyway (its state
says ``building``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Mapping
from typing import Any

from ..storage import SQLSessionStorage, scan
from .bulkread import StoreWalk
from .extract import Doc
from .threads import all_of, in_thread
from .writer import encode_bodies, prepare_raw, write_docs

Prepared = tuple[list[Doc], str | None]
#: Rows read into one transaction of a full build before it commits.
COMMIT_ROWS = 20_000
#: Whether a SQLite store is walked through the stdlib driver (tests build both ways and compare).
WALK_SQLITE = True


def _prepared(rows: list[Mapping[str, Any]], limits: Mapping[str, int]) -> Prepared:
    """The documents of ``rows`` and their texts encoded for the FTS insert."""
    docs = prepare_raw(rows, limits)
    return docs, encode_bodies(docs)


def _after(rows: list[Mapping[str, Any]]) -> tuple[str, int]:
    """The keyset position after the last of ``rows``."""
    return str(rows[-1]["session_id"]), int(rows[-1]["sequence"])


def _walk_batch(
    walk: StoreWalk, after: tuple[str, int] | None, limits: Mapping[str, int], size: int
) -> tuple[int, tuple[str, int] | None, Prepared]:
    """Read the batch after ``after`` and prepare it: (rows read, the next position, documents)."""
    rows = walk.batch(after, size)
    if not rows:
        return 0, None, ([], None)
    return len(rows), _after(rows), _prepared(rows, limits)


async def raw_log_batches(
    storage: SQLSessionStorage, db: sqlite3.Connection, limits: Mapping[str, int], size: int
) -> AsyncIterator[tuple[int, int]]:
    """Walk the whole Raw Log into the index ``db``, yielding (rows written, rows read) per batch.

    ``limits`` caps each session at its last sequence listed before the walk (see
    :func:`.writer.prepare_raw`).
    """
    if storage.path is None or not WALK_SQLITE:
        async for item in _through_storage(storage, db, limits, size):
            yield item
        return
    walk = StoreWalk(storage.path, storage.reader.display_name)
    await in_thread(walk.open)
    commits = _Commits()
    try:
        count, after, prepared = await in_thread(_walk_batch, walk, None, limits, size)
        while count:
            written, (following_count, after, following) = await all_of(
                in_thread(write_docs, db, *prepared, commit=commits.due(count)),
                in_thread(_walk_batch, walk, after, limits, size),
            )
            yield written, count
            count, prepared = following_count, following
        await in_thread(_commit, db)
    finally:
        await in_thread(walk.close)


async def _through_storage(
    storage: SQLSessionStorage, db: sqlite3.Connection, limits: Mapping[str, int], size: int
) -> AsyncIterator[tuple[int, int]]:
    """The walk for a backend other than SQLite: read through the storage, three batches in flight."""

    async def read(rows: list[Mapping[str, Any]] | None) -> list[Mapping[str, Any]]:
        if rows is not None and not rows:
            return []
        return await scan.raw_scan(storage.reader, _after(rows) if rows else None, size)

    async def prepare(rows: list[Mapping[str, Any]]) -> Prepared:
        return await in_thread(_prepared, rows, limits) if rows else ([], None)

    first = await read(None)
    prepared, upcoming = await all_of(prepare(first), read(first))
    count = len(first)
    commits = _Commits()
    while count:
        written, following_prepared, following = await all_of(
            in_thread(write_docs, db, *prepared, commit=commits.due(count)), prepare(upcoming), read(upcoming)
        )
        yield written, count
        prepared, count, upcoming = following_prepared, len(upcoming), following
    await in_thread(_commit, db)


class _Commits:
    """Counts the rows of the open transaction: a commit is due at :data:`COMMIT_ROWS`."""

    def __init__(self) -> None:
        self.pending = 0

    def due(self, rows: int) -> bool:
        """``rows`` more are written: whether this write commits."""
        self.pending += rows
        if self.pending < COMMIT_ROWS:
            return False
        self.pending = 0
        return True


def _commit(db: sqlite3.Connection) -> None:
    """Commit what the last batches of the walk left open."""
    if db.in_transaction:
        db.execute("COMMIT")
