"""Checks that the stdlib decoder's result is exactly the reference decoder's (shared by its tests).

``==`` on the message dataclasses ignores ``unknown_fields`` and sees a ``StrEnum`` member
equal to its string; :func:`difference` compares types, every field and key order.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from zett_browser.storage.codec import decode_reference
from zett_browser.storage.fastdecode import decode_fast


def difference(ours: Any, theirs: Any, where: str = "message") -> str | None:
    """Where two decoded values differ, comparing types and fields ``==`` skips; None if identical."""
    if type(ours) is not type(theirs):
        return f"{where}: {type(ours).__name__} vs {type(theirs).__name__}"
    if dataclasses.is_dataclass(ours):
        for item in dataclasses.fields(ours):
            found = difference(getattr(ours, item.name), getattr(theirs, item.name), f"{where}.{item.name}")
            if found:
                return found
        return None
    if isinstance(ours, dict):
        if list(ours) != list(theirs):
            return f"{where}: keys {list(ours)!r:.200} vs {list(theirs)!r:.200}"
        for key in ours:
            found = difference(ours[key], theirs[key], f"{where}[{key!r:.40}]")
            if found:
                return found
        return None
    if isinstance(ours, (list, tuple)):
        if len(ours) != len(theirs):
            return f"{where}: {len(ours)} vs {len(theirs)} items"
        for index, (mine, other) in enumerate(zip(ours, theirs, strict=True)):
            found = difference(mine, other, f"{where}[{index}]")
            if found:
                return found
        return None
    if isinstance(ours, float) and math.isnan(ours) and math.isnan(theirs):
        return None
    return None if ours == theirs else f"{where}: {ours!r:.200} vs {theirs!r:.200}"


def check_exact(payload: object) -> bool:
    """Assert decode_fast(payload) is None or identical to the reference; True if it decoded."""
    fast = decode_fast(payload)
    if fast is None:
        return False
    reference = decode_reference(payload)
    found = difference(fast, reference)
    assert found is None, f"{found}\npayload: {payload!r:.600}"
    assert fast == reference
    return True


def stored_payloads(path: Path) -> list[str]:
    """Every message_json of the Raw Log and of the snapshots, read with stdlib sqlite3.

    Only for stores the test made; a fixture is read through :func:`fixture_payloads`.
    """
    db = sqlite3.connect(path)
    try:
        rows = db.execute("select message_json from raw_messages union all select message_json from session_snapshots")
        return [payload for (payload,) in rows]
    finally:
        db.close()


def fixture_payloads(path: Path, directory: Path) -> list[str]:
    """The payloads of a committed fixture, read from a copy (reading a WAL store leaves files)."""
    copy = directory / path.name
    shutil.copyfile(path, copy)
    return stored_payloads(copy)
