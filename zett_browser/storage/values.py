"""Provides how stored values are read without failing: text that is not UTF-8
(:func:`lenient_text`, SQLite's ``text_factory``) and timestamps (:func:`stored_time`).

Standard library only: the start-up reader, the subcommands' fast path
(:mod:`zett_browser.index.fresh`) and the storage (through :mod:`.convert`) read values the
same way.
"""

from __future__ import annotations

from datetime import UTC, datetime

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any


class BadText(str):
    """A text value that was not valid UTF-8: shown with U+FFFD, the stored bytes in ``raw``."""

    raw: bytes


def lenient_text(data: bytes) -> str:
    """SQLite ``text_factory``: decode UTF-8, or keep the value as :class:`BadText`."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        text = BadText(data.decode("utf-8", "replace"))
        text.raw = data
        return text


def stored_time(value: Any) -> Any:
    """A stored datetime, aware in UTC; anything unreadable comes back unchanged.

    zett-agent stores naive UTC datetimes (SQLite text ``YYYY-MM-DD HH:MM:SS.ffffff``);
    the converter reports a value that is still no ``datetime``.
    """
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
            return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
        except (ValueError, OverflowError):  # garbage, or year 1 with an offset east of UTC
            return value
    return value


__all__ = ["BadText", "lenient_text", "stored_time"]
