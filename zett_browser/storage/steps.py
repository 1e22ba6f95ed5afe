"""Provides ``compare``'s read: keyset pages of a Raw Log's messages, tokens and durations.

A page reads the ``(session_id, sequence)`` index and the narrow columns a step needs
(:class:`~zett_browser.model.steps.StepRow`): the message decoded with the storage's
decoder, the token counters, the measured duration and the start time; never the other
timestamps, metadata or tags; a system row's message (the request's prompt, stored again
with every request) is not decoded. A value that cannot be read is None (a message: an
:class:`~zett_browser.model.UnreadableMessage`), never a failed page.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.steps import StepRow
from .codec import decode_message_leniently
from .columns import raw_t, read_column
from .rawpages import raw_keyset, raw_position
from .reader import Reader

_NUMBERS = (
    "duration_ns",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)
_STEP_COLUMNS = [
    read_column(raw_t.c[name]) for name in ("id", "sequence", "role", "message_json", "started_at", *_NUMBERS)
]
#: zett-agent's role code of a system row: stored again with every request, never a step.
SYSTEM = 1


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def step_from_row(row: Mapping[str, Any]) -> StepRow:
    """A row's step columns; a bad number or time is None, a bad envelope an unreadable message,
    a system row's message None (not decoded)."""
    started = row["started_at"]
    payload = row["message_json"]
    message = None
    if row["role"] != SYSTEM:
        message = decode_message_leniently(payload if isinstance(payload, str) else str(payload))
    return StepRow(
        str(row["id"]),
        _int(row["sequence"]),
        message,
        started if isinstance(started, datetime) else None,
        *(_int(row[name]) for name in _NUMBERS),
    )


async def step_page(reader: Reader, session_id: str, *, after_id: str | None = None, limit: int = 500) -> list[StepRow]:
    """Up to ``limit`` rows after the row ``after_id`` (None: from the first), by (sequence, id)."""
    if limit < 1:
        raise ValueError("limit must be positive")

    async def work(connection: AsyncConnection) -> list[StepRow]:
        edge = await raw_position(connection, session_id, None, after_id) if after_id is not None else None
        rows = await raw_keyset(reader, connection, _STEP_COLUMNS, session_id, edge, descending=False, limit=limit)
        return [step_from_row(row) for row in rows]

    return await reader.run(work)


__all__ = ["SYSTEM", "step_from_row", "step_page"]
