"""Keeps the names this module held before the storage was split by concern.

The storage lives in :mod:`.core` (connection life cycle, reads and writes),
:mod:`.validation`, :mod:`.writes` and :mod:`.api` (zett-agent's documented API), and
:mod:`.browse`/:mod:`.rawlog` (the browser's queries). Import from
:mod:`zett_browser.storage`; this module only re-exports for older callers (benchmarks).
"""

from __future__ import annotations

from .core import (
    BUSY_ATTEMPTS,
    BUSY_BACKOFF_S,
    RAW_COLUMNS,
    SNAPSHOT_COLUMNS,
    SessionStorageCore,
    raw_t,
    read_column,
    sessions_t,
    snapshots_t,
)
from .errors import StoreError
from .validation import encode_context

__all__ = [
    "BUSY_ATTEMPTS",
    "BUSY_BACKOFF_S",
    "RAW_COLUMNS",
    "SNAPSHOT_COLUMNS",
    "SessionStorageCore",
    "StoreError",
    "encode_context",
    "raw_t",
    "read_column",
    "sessions_t",
    "snapshots_t",
]
