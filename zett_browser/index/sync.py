"""Provides the sync of a store into its side index, as an async stream of progress.

A sync reads only what is new. The Raw Log is append-only with per-session sequences
and every append moves its session's ``updated_at``; so an incremental sync lists the
sessions active since the recorded high-water mark (minus a margin, for writers whose
commits land out of stamp order), and reads each one's rows after its indexed
sequence by keyset. Snapshots are immutable and indexed once by id. A first build walks
the whole Raw Log once by the ``(session_id, sequence)`` index.

The index is rebuilt from scratch when it cannot be trusted: asked to, never finished,
another store file at the same path (device/inode), a store replaced in place (``cp
backup store``: the SQLite header's change counter went back, or a Raw Log row the index
recorded as its anchor, the lowest and highest id, is gone or moved; WAL commits do not
move the counter, so the anchors decide), fewer sessions than indexed, or a session
whose last sequence shrank. A build that runs out of disk space removes its partial
index (the next run starts clean) and ends in one line saying what to do. All index
work (decoding and writing) runs in a worker thread in batches, so the event loop stays
free while a build runs.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..safefiles import WriteFailed
from ..storage import SQLSessionStorage, scan
from . import db as index_db
from . import pricing
from .files import disk_full, write_failed
from .pipeline import raw_log_batches
from .threads import in_thread as _thread
from .writer import set_meta, write_raw, write_sessions, write_snapshots

#: Rows read from the store and written to the index per batch.
BATCH = 2000
#: Sessions written to the index per transaction of a full build (at most: never more than the batch).
SESSION_BATCH = 500
#: Sessions active this long before the high-water mark are looked at again.
MARGIN = timedelta(seconds=60)


@dataclass
class SyncReport:
    """What one sync did."""

    rebuilt: bool = False
    reason: str | None = None
    messages: int = 0
    snapshots: int = 0
    sessions: int = 0
    problems: int = 0
    skipped: bool = False
    seconds: float = 0.0


@dataclass
class Progress:
    """How far a sync is: ``done`` of ``total`` rows; ``report`` is set on the last one."""

    done: int
    total: int
    started: float
    phase: str
    report: SyncReport | None = None
    now: float = field(default_factory=time.monotonic)

    @property
    def rate(self) -> float:
        """Rows per second so far."""
        return self.done / max(self.now - self.started, 1e-6)

    @property
    def eta(self) -> float | None:
        """Seconds left at the current rate, or None before anything was done."""
        return (self.total - self.done) / self.rate if self.done else None


class SideIndex:
    """The side index of one store: ``sync`` keeps it up to date, :mod:`.search` reads it.

    Args:
        storage: The store, opened read-only (any backend).
        directory: Where index files live (default :func:`index_db.default_dir`).
        batch: Rows per batch (one transaction, one progress step). A build in the
            background of an app takes smaller ones: a key pressed while a batch is
            prepared and written waits for the GIL that batch holds (see
            :data:`.search_service.BACKGROUND_BATCH`).
    """

    def __init__(self, storage: SQLSessionStorage, directory: Path | None = None, *, batch: int = BATCH) -> None:
        self.storage = storage
        self.batch = batch
        self.identity = index_db.store_identity(storage.path, storage.target.url)
        self.path = index_db.index_file(self.identity, directory or index_db.default_dir())

    async def sync(self, *, rebuild: bool = False) -> SyncReport:
        """Bring the index up to date and return what was done."""
        report = SyncReport()
        async for progress in self.steps(rebuild=rebuild):
            if progress.report is not None:
                report = progress.report
        return report

    def _prepare(self) -> None:
        """Check where the index goes and make its directory (one line on what is wrong)."""
        index_db.check_place(self.path, self.storage.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise WriteFailed(
                f"the index directory {self.path.parent} cannot be made: a file is in its way; give a directory"
            ) from None

    async def steps(self, *, rebuild: bool = False) -> AsyncIterator[Progress]:
        """Sync, yielding progress after each batch; the last item carries the report.

        Raises:
            UnsafePath: the index would be written onto or beside the store, or through a link.
            WriteFailed: the disk is full (the partial index is removed) or read-only.
        """
        started = time.monotonic()
        directory = self.path.parent
        try:
            await _thread(self._prepare)
            lock = index_db.SyncLock(self.path, self.storage.path)
            if not await _thread(lock.acquire):
                yield Progress(0, 0, started, "skipped", SyncReport(skipped=True, reason="another process is syncing"))
                return
        except OSError as error:
            raise write_failed(error, directory) from None
        try:
            async for progress in self._locked(started, rebuild=rebuild):
                yield progress
        except (sqlite3.Error, OSError) as error:
            failed = write_failed(error, directory)
            if failed is error:
                raise
            if disk_full(error):  # the partial index would keep the disk full for every later run
                await _thread(index_db.remove, self.path)
            raise failed from None
        finally:
            lock.release()

    async def _locked(self, started: float, *, rebuild: bool) -> AsyncIterator[Progress]:
        """The sync itself, with the lock held."""
        db = await _thread(index_db.open_checked, self.path, self.identity, self.storage.path)
        try:
            report = SyncReport()
            reason = "rebuild asked for" if rebuild else await self._distrust(db)
            if reason is None:
                async for progress in self._incremental(db, report, started):
                    yield progress
                reason = report.reason if report.rebuilt else None
            if reason is not None:
                await _thread(db.close)  # may checkpoint a killed build's WAL
                await _thread(index_db.remove, self.path)
                db = await _thread(index_db.open_checked, self.path, self.identity, self.storage.path)
                report = SyncReport(rebuilt=True, reason=reason)
                async for progress in self._full(db, report, started):
                    yield progress
            report.seconds = time.monotonic() - started
            yield Progress(report.messages, report.messages, started, "done", report)
        finally:
            await _thread(db.close)  # closing may checkpoint: not on the event loop

    async def _distrust(self, db: sqlite3.Connection) -> str | None:
        """Why the index cannot be updated incrementally, or None."""
        meta = await _thread(index_db.read_meta, db)
        if meta.get("state") != "complete":
            if "state" not in meta and meta.get("reason"):  # open_checked replaced the file
                return meta["reason"]
            return "first build" if not meta else "an earlier build did not finish"
        if meta.get("fingerprint") != index_db.store_fingerprint(self.storage.path):
            return "the store file was replaced"
        counter = await _thread(index_db.store_counter, self.storage.path)
        if counter is not None and counter < _int(_json(meta.get("counter"))):
            return "the store was replaced in place by an older copy"
        anchors = [tuple(map(str, item)) for item in _json(meta.get("anchors")) or [] if isinstance(item, list)]
        if anchors:
            found = await scan.raw_rows_by_id(self.storage.reader, [anchor[0] for anchor in anchors])
            if sorted(found) != sorted(anchors):
                return "the store was replaced in place (rows the index holds are gone)"
        if meta.get("prices") != pricing.table_version():
            return "the price table changed"  # costs are computed when rows are indexed
        census = await scan.census(self.storage.reader)
        indexed = await _thread(lambda: int(db.execute("SELECT count(*) FROM sessions").fetchone()[0]))
        if census.sessions < indexed:
            return "sessions vanished from the store"
        return None

    async def _full(self, db: sqlite3.Connection, report: SyncReport, started: float) -> AsyncIterator[Progress]:
        fingerprint = index_db.store_fingerprint(self.storage.path)
        # A full build writes a file nobody can have trusted yet (state "building" makes any
        # crash rebuild it), so it skips the fsyncs and checkpoints less often (FTS merges
        # rewrite the same pages many times); _finish restores both.
        for pragma in ("synchronous=OFF", "wal_autocheckpoint=8000", "cache_size=-32768"):
            await _thread(db.execute, f"PRAGMA {pragma}")
        await _thread(index_db.tune_fts, db)  # fewer FTS5 merges (kept for later syncs)
        await _thread(
            set_meta,
            db,
            {"schema": index_db.SCHEMA_VERSION, "identity": self.identity, "state": "building", "problems": "0"}
            | await _thread(pricing.table_meta),
        )
        sessions = await scan.active_sessions(self.storage.reader, None)
        limits = {str(row["id"]): _int(row["last_sequence"]) for row in sessions}
        total = sum(limits.values()) + await scan.all_snapshot_count(self.storage.reader)
        chunk = min(SESSION_BATCH, self.batch)
        for start in range(0, len(sessions), chunk):
            await _thread(write_sessions, db, sessions[start : start + chunk])
            yield Progress(0, total, started, "sessions")
        report.sessions = len(sessions)
        done = 0
        async for written, read in raw_log_batches(self.storage, db, limits, self.batch):
            report.messages += written
            done += read
            yield Progress(done, max(total, done), started, "messages")
        snapshot_after: str | None = None
        while True:
            snapshots = await scan.snapshot_scan(self.storage.reader, snapshot_after, self.batch)
            if not snapshots:
                break
            snapshot_after = str(snapshots[-1]["id"])
            report.snapshots += await _thread(write_snapshots, db, snapshots)
            done += len(snapshots)
            yield Progress(done, max(total, done), started, "snapshots")
        latest = max((row["updated_at"] for row in sessions if isinstance(row["updated_at"], datetime)), default=None)
        await self._finish(db, report, latest, fingerprint)

    async def _finish(
        self, db: sqlite3.Connection, report: SyncReport, latest: datetime | None, fingerprint: str
    ) -> None:
        # The checkpoint runs here, in a worker thread: left to close(), on the event loop,
        # copying up to 8,000 WAL pages back held the loop for 200+ ms after a full build.
        for pragma in ("synchronous=NORMAL", "wal_autocheckpoint=1000", "wal_checkpoint(PASSIVE)"):
            await _thread(lambda statement: db.execute(statement).fetchall(), f"PRAGMA {pragma}")
        anchors = await scan.raw_anchors(self.storage.reader)
        counter = await _thread(index_db.store_counter, self.storage.path)
        values = {"state": "complete", "fingerprint": fingerprint, "anchors": json.dumps(anchors)}
        values["counter"] = json.dumps(counter)
        if latest is not None:
            values["high_water"] = latest.isoformat()
        await _thread(set_meta, db, values)
        meta = await _thread(index_db.read_meta, db)
        report.problems = int(meta.get("problems", "0") or 0)

    async def _incremental(self, db: sqlite3.Connection, report: SyncReport, started: float) -> AsyncIterator[Progress]:
        meta = await _thread(index_db.read_meta, db)
        since = _parse_time(meta.get("high_water"))
        active = await scan.active_sessions(self.storage.reader, since - MARGIN if since is not None else None)
        known = await _thread(index_db.indexed_sessions, db, [str(row["id"]) for row in active])
        indexed = {session_id: last for session_id, (last, _) in known.items()}
        moved = []
        for row in active:
            session_id = str(row["id"])
            if _int(row["last_sequence"]) < indexed.get(session_id, 0):
                report.rebuilt, report.reason = True, f"session {session_id[:40]!r} lost messages"
                return
            updated = row["updated_at"].timestamp() if isinstance(row["updated_at"], datetime) else None
            if (
                session_id not in known
                or _int(row["last_sequence"]) > indexed[session_id]
                or updated != known[session_id][1]
            ):
                moved.append(row)  # new rows, or a new title/agent name (update_session)
        await self._new_snapshots(db, report)
        if not moved:
            if report.snapshots or "anchors" not in meta:  # an index made before anchors gets them now
                await self._finish(db, report, since, index_db.store_fingerprint(self.storage.path))
            return
        await _thread(write_sessions, db, moved)
        total = sum(_int(row["last_sequence"]) - indexed.get(str(row["id"]), 0) for row in moved)
        for row in moved:
            session_id = str(row["id"])
            after = indexed.get(session_id, 0)
            while True:
                rows = await scan.raw_after(self.storage.reader, session_id, after, self.batch)
                if not rows:
                    break
                after = int(rows[-1]["sequence"])
                report.messages += await _thread(write_raw, db, rows, None)
                yield Progress(report.messages, max(total, report.messages), started, "messages")
        report.sessions = len(moved)
        latest = max((row["updated_at"] for row in active if isinstance(row["updated_at"], datetime)), default=since)
        await self._finish(db, report, latest, index_db.store_fingerprint(self.storage.path))

    async def _new_snapshots(self, db: sqlite3.Connection, report: SyncReport) -> None:
        """Index snapshots after the highest indexed id; if counts still differ, diff all ids.

        A snapshot does not move its session's activity, so they are followed by id
        (time-ordered UUID7s); the count check catches ids that arrived out of order.
        """
        last = await _thread(lambda: db.execute("SELECT max(id) FROM snapshots").fetchone()[0])
        after = str(last) if last is not None else None
        while rows := await scan.snapshot_scan(self.storage.reader, after, self.batch):
            after = str(rows[-1]["id"])
            report.snapshots += await _thread(write_snapshots, db, rows)
        stored = await scan.all_snapshot_count(self.storage.reader)
        indexed = await _thread(lambda: int(db.execute("SELECT count(*) FROM snapshots").fetchone()[0]))
        if stored == indexed:
            return
        after = None
        while rows := await scan.snapshot_scan(self.storage.reader, after, self.batch):
            after = str(rows[-1]["id"])
            report.snapshots += await _thread(write_snapshots, db, rows)


def _json(text: str | None) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _parse_time(value: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(value).astimezone(UTC) if value else None
    except ValueError:
        return None
