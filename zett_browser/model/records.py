"""Provides the typed records that cross the storage boundary.

The documented records (``RawMessageRecord``, ``MessageTiming``, ``ModelUsage`` here;
``SessionSummary``, ``ContextSnapshot``, ``SessionView`` in :mod:`.documented`, which
imports pydantic and this module) mirror zett-agent 0.2.1's, with the
same names and fields, so code written against zett-agent's storage reads naturally.
The browser records (``RawLogBounds``, ``SessionTotals``, ``SnapshotInfo``, ``Page``;
``SessionNode`` in :mod:`.nodes`, re-exported) serve the browser queries; they are plain
frozen dataclasses built straight from rows. Message types appear in annotations only:
importing this module defines no message class.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .nodes import AskedLabel as AskedLabel  # defined there: the command line's labels need no records
from .nodes import SessionNode as SessionNode
from .nodes import asked_at as asked_at
from .record import field, record

if TYPE_CHECKING:
    from .messages import AnyMessage, CompactedMessage, UnreadableMessage

T = TypeVar("T")


@record(frozen=True)
class MessageTiming:
    """When one message's work happened (UTC) and how long it took (monotonic ns)."""

    started_at: datetime
    completed_at: datetime
    duration_ns: int
    reasoning_started_at: datetime | None = None
    reasoning_completed_at: datetime | None = None
    reasoning_duration_ns: int | None = None
    content_started_at: datetime | None = None
    content_completed_at: datetime | None = None
    content_duration_ns: int | None = None

    def __post_init__(self) -> None:
        if self.duration_ns < 0:
            raise ValueError("duration_ns cannot be negative")
        for name in ("reasoning", "content"):
            values = (
                getattr(self, f"{name}_started_at"),
                getattr(self, f"{name}_completed_at"),
                getattr(self, f"{name}_duration_ns"),
            )
            if any(value is None for value in values) and any(value is not None for value in values):
                raise ValueError(f"{name} timing fields must be supplied together")
            if values[2] is not None and values[2] < 0:
                raise ValueError(f"{name}_duration_ns cannot be negative")

    @classmethod
    def instant(cls) -> MessageTiming:
        """Timing of a message that needed no measured processing."""
        now = datetime.now(UTC)
        return cls(started_at=now, completed_at=now, duration_ns=0)


@record(frozen=True)
class ModelUsage:
    """Normalised provider token counters for one assistant response."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cache_reported: bool = True
    reasoning_tokens: int = 0

    def __post_init__(self) -> None:
        counters = (
            self.input_tokens,
            self.output_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
            self.reasoning_tokens,
        )
        if any(value < 0 for value in counters):
            raise ValueError("Model usage counters cannot be negative")
        if self.cache_read_tokens > self.input_tokens:
            raise ValueError("cache_read_tokens cannot exceed input_tokens")
        if self.cache_write_tokens > self.input_tokens:
            raise ValueError("cache_write_tokens cannot exceed input_tokens")
        if self.reasoning_tokens > self.output_tokens:
            raise ValueError("reasoning_tokens cannot exceed output_tokens")

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    @property
    def cache_hit_rate(self) -> float | None:
        """Cached share of the input, or None when unknown."""
        if self.input_tokens == 0 or not self.cache_reported:
            return None
        return self.cache_read_tokens / self.input_tokens


@record(frozen=True)
class RawMessageRecord:
    """One immutable original message of a session's Raw Log.

    ``problems`` is empty for a healthy row. When a column could not be read (corrupt
    JSON, an unknown kind, a malformed timestamp) it says what and the record still
    keeps its sequence; ``message`` is then an ``UnreadableMessage`` holding the raw
    text if the envelope itself was the problem.
    """

    id: str
    session_id: str
    request_id: str
    sequence: int
    message: AnyMessage | UnreadableMessage
    metadata: dict[str, Any]
    tags: dict[str, Any]
    started_at: datetime
    completed_at: datetime
    duration_ns: int
    reasoning_started_at: datetime | None
    reasoning_completed_at: datetime | None
    reasoning_duration_ns: int | None
    content_started_at: datetime | None
    content_completed_at: datetime | None
    content_duration_ns: int | None
    input_tokens: int | None
    output_tokens: int | None
    cache_read_tokens: int | None
    cache_write_tokens: int | None
    reasoning_tokens: int | None
    created_at: datetime
    updated_at: datetime
    problems: tuple[str, ...] = field(default=(), compare=False)

    @property
    def total_tokens(self) -> int | None:
        """Input plus output tokens when usage was recorded."""
        if self.input_tokens is None or self.output_tokens is None:
            return None
        return self.input_tokens + self.output_tokens

    @property
    def cache_hit_rate(self) -> float | None:
        """Cached share of the input (0 to 1), or None without input usage."""
        if not self.input_tokens or self.cache_read_tokens is None:
            return None
        return self.cache_read_tokens / self.input_tokens

    @property
    def readable(self) -> bool:
        """Whether every column of the row was read without a problem."""
        return not self.problems


# ---------------------------------------------------------------------------
# Browser records


@record(frozen=True)
class SessionCursor:
    """Keyset position after the last item of a page.

    ``at`` is the sort key as read; ``key`` is the value as stored (set by the storage,
    opaque to callers): a page boundary is compared on it, so a key that is no
    timestamp (garbage text, NULL: then ``null_key``) still orders every row exactly once.
    """

    at: datetime
    session_id: str
    key: Any = field(default=None, compare=False)
    null_key: bool = field(default=False, compare=False)


@record(frozen=True)
class Page(Generic[T]):
    """One page of a keyset-paged list; ``next_cursor`` is None on the last page."""

    items: Sequence[T]
    next_cursor: SessionCursor | None


@record(frozen=True)
class RawLogBounds:
    """First and last sequence of a session's Raw Log and how many rows it has."""

    first_sequence: int | None
    last_sequence: int | None
    count: int


@record(frozen=True)
class SnapshotInfo:
    """One snapshot version as stored; ``message`` may be unreadable."""

    id: str
    session_id: str
    version: int
    compacted_through_sequence: int
    message: CompactedMessage | UnreadableMessage
    created_at: datetime | None
    updated_at: datetime | None
    problems: tuple[str, ...] = ()

    @property
    def summary_text(self) -> str:
        """The summary's text parts, or the raw JSON when unreadable."""
        from .messages import CompactedMessage  # here: records define no message class

        if isinstance(self.message, CompactedMessage):
            return self.message.text
        return self.message.raw_json


@record(frozen=True)
class SessionTotals:
    """Aggregates over one session's Raw Log."""

    messages: int
    by_kind: dict[int, int]
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int
    duration_ns: int
    reasoning_duration_ns: int
    content_duration_ns: int
    first_started_at: datetime | None
    last_completed_at: datetime | None

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens over the session."""
        return self.input_tokens + self.output_tokens
