"""Provides what the side index's files hold (:func:`index_stats`) and how a failed write of
them is worded (:func:`write_failed`: a full disk or a read-only one says what to do)."""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from ..safefiles import UnsafePath, WriteFailed, describe_os_error, read_only
from . import db as index_db


def disk_full(error: BaseException) -> bool:
    """Whether ``error`` says the disk (or the file size limit) is full."""
    if isinstance(error, sqlite3.Error):
        return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)


def write_failed(error: BaseException, directory: Path) -> BaseException:
    """A :class:`WriteFailed` saying what to do about a full or read-only disk, else ``error``."""
    if isinstance(error, WriteFailed | UnsafePath):
        return error
    doing = "for the search index"
    if disk_full(error):
        return WriteFailed(f"no space left {doing} in {directory}: free some space or give another --index-dir")
    if read_only(directory):
        return WriteFailed(f"{directory} is on a read-only file system: give a writable --index-dir")
    if isinstance(error, OSError):
        advice = describe_os_error(error, directory, "to write the search index")
        if advice is not None:
            return WriteFailed(advice)
    return error


def index_stats(path: Path) -> Mapping[str, int]:
    """What an index file holds: sessions, messages, snapshots, problems, size in bytes."""
    db = index_db.open_reader(path)
    if db is None:
        raise UnsafePath(f"the index file {path} is missing, a link or not a regular file: run the index again")
    try:
        counts = dict(db.execute("SELECT kind, count(*) FROM docs GROUP BY kind").fetchall())
        problems = db.execute("SELECT value FROM meta WHERE key = 'problems'").fetchone()
        sessions = db.execute("SELECT count(*) FROM sessions").fetchone()[0]
    finally:
        db.close()
    size = sum(Path(f"{path}{suffix}").stat().st_size for suffix in ("", "-wal") if Path(f"{path}{suffix}").exists())
    messages = sum(count for kind, count in counts.items() if kind not in ("snapshot", "session"))
    return {
        "sessions": int(sessions),
        "messages": int(messages),
        "snapshots": int(counts.get("snapshot", 0)),
        "problems": int(problems[0]) if problems else 0,
        "bytes": size,
    }


__all__ = ["disk_full", "index_stats", "write_failed"]
