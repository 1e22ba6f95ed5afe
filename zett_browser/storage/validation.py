"""Provides the checks and encodings the documented write API applies to its arguments.

They mirror zett-agent 0.2.1's validation so the same calls fail with the same
``ValueError`` messages, and store values byte-compatible with zett-agent's
(naive UTC datetimes, key-sorted JSON objects).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any


def utc_naive(value: datetime) -> datetime:
    """A datetime as zett-agent stores it: UTC wall time without tzinfo."""
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
    return value.replace(tzinfo=None)


def display_value(value: str | None, name: str, limit: int, *, strip: bool) -> str | None:
    """A title or agent name, stripped; None stays None.

    Raises:
        ValueError: The value is blank or longer than ``limit``.
    """
    if value is None:
        return None
    normalized = value.strip() if strip else value
    if not normalized.strip() or len(normalized) > limit:
        raise ValueError(f"{name} must contain between 1 and {limit} characters")
    return normalized


def session_type_code(value: object) -> int:
    """A session type code: a non-negative int (a bool is refused, as zett-agent does)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("session_type must be an integer code")
    if value < 0:
        raise ValueError("session_type cannot be negative")
    return int(value)


def _check_json(value: object) -> None:
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        return
    if isinstance(value, list):
        for item in value:
            _check_json(item)
        return
    if isinstance(value, dict):
        if any(not isinstance(key, str) for key in value):
            raise ValueError("JSON object keys must be strings")
        for item in value.values():
            _check_json(item)
        return
    raise ValueError("Value must contain only JSON-compatible types")


def encode_context(value: Mapping[str, Any] | None, *, field_name: str, nonempty_keys: bool = False) -> str:
    """Validate request metadata or tags and encode them as zett-agent does."""
    result = dict(value or {})
    if any(not isinstance(key, str) or (nonempty_keys and not key.strip()) for key in result):
        qualifier = "non-empty string" if nonempty_keys else "string"
        raise ValueError(f"{field_name} keys must be {qualifier}s")
    try:
        _check_json(result)
    except ValueError as error:
        raise ValueError(f"{field_name} must be JSON serializable") from error
    return json.dumps(result, ensure_ascii=False, sort_keys=True, allow_nan=False)


def check_display_values(title: str | None, agent_name: str | None) -> None:
    """Reject an empty or too long title (200) or agent name (64), as ``append`` does."""
    if title is not None and (not title.strip() or len(title) > 200):
        raise ValueError("Session title must contain between 1 and 200 characters")
    if agent_name is not None and (not agent_name.strip() or len(agent_name) > 64):
        raise ValueError("Agent name must contain between 1 and 64 characters")


__all__ = ["check_display_values", "display_value", "encode_context", "session_type_code", "utc_naive"]
