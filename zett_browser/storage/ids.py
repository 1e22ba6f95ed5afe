"""Provides time-ordered UUIDv7 identifiers for stored rows (RFC 9562)."""

from __future__ import annotations

import os
import threading
import time
import uuid

_lock = threading.Lock()
_last = 0


def new_uuid7() -> str:
    """Return a UUIDv7 string; ids made in this process sort in creation order."""
    global _last
    with _lock:
        milliseconds = time.time_ns() // 1_000_000
        random_bits = int.from_bytes(os.urandom(10), "big")
        # 12 bits of rand_a and 62 bits of rand_b.
        value = (milliseconds << 80) | ((random_bits >> 62) & 0xFFF) << 64 | (random_bits & ((1 << 62) - 1))
        if value <= _last:
            value = _last + 1
        _last = value
    value = (value & ~(0xF << 76)) | (0x7 << 76)
    value = (value & ~(0x3 << 62)) | (0x2 << 62)
    return str(uuid.UUID(int=value))
