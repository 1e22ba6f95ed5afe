"""Builds Raw Log records in memory for tests that need no store (formatting, the Raw Log view)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from zett_browser.model import RawMessageRecord

AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def raw_record(message: Any, sequence: int = 7, **fields: Any) -> RawMessageRecord:
    """A healthy record of ``message`` at ``sequence``; ``fields`` override any column."""
    values: dict[str, Any] = dict(
        id="r1",
        session_id="s1",
        request_id="q1",
        sequence=sequence,
        message=message,
        metadata={},
        tags={},
        started_at=AT,
        completed_at=AT,
        duration_ns=0,
        reasoning_started_at=None,
        reasoning_completed_at=None,
        reasoning_duration_ns=None,
        content_started_at=None,
        content_completed_at=None,
        content_duration_ns=None,
        input_tokens=None,
        output_tokens=None,
        cache_read_tokens=None,
        cache_write_tokens=None,
        reasoning_tokens=None,
        created_at=AT,
        updated_at=AT,
    )
    values.update(fields)
    return RawMessageRecord(**values)
