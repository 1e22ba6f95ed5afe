"""Provides the narrow record ``compare`` reads: one Raw Log row's message, tokens and time.

Comparing two sessions of 100,000 messages reads every row of both; a whole
:class:`~.records.RawMessageRecord` (eight timestamps, metadata and tags decoded) costs
several times what the comparison needs. This record carries the decoded message, the
token counters, the measured duration and the start (for pricing), built straight from rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .messages import AnyMessage, UnreadableMessage


@dataclass(frozen=True, slots=True)
class StepRow:
    """One Raw Log row as ``compare`` reads it (a bad number is None; a system row's message is
    None: not decoded, it is no step)."""

    id: str
    sequence: int | None
    message: AnyMessage | UnreadableMessage | None
    started_at: datetime | None
    duration_ns: int | None
    input_tokens: int | None
    output_tokens: int | None
    cache_read_tokens: int | None
    cache_write_tokens: int | None
    reasoning_tokens: int | None


__all__ = ["StepRow"]
