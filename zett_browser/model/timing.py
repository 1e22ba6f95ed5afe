"""Provides the narrow records the timing view reads: one row's timing columns, one child's span.

The timing view lays out a session of 100,000 messages a page at a time; decoding whole
messages for it would move every tool output through the loop. These records carry only
the columns a bar needs (kind, times and measured durations), built straight from rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True, slots=True)
class TimingRow:
    """The timing columns of one Raw Log row (None: missing or unreadable, see ``problems``)."""

    id: str
    sequence: int | None
    kind: int | None  # zett-agent's role code: 3 assistant, 4 tool result
    tool_name: str | None
    started_at: datetime | None
    completed_at: datetime | None
    duration_ns: int | None
    reasoning_ns: int | None
    content_ns: int | None
    problems: tuple[str, ...] = field(default=(), compare=False)
    #: Tool results: skipped / cancelled / interrupted / aborted (``model.outcomes``) when the
    #: runtime answered the call itself; None otherwise (the tool ran: ok or failed).
    outcome: str | None = None


@dataclass(frozen=True, slots=True)
class ChildSpan:
    """A delegated session as the timing view nests it: when it ran."""

    session_id: str
    title: str | None
    agent_name: str | None
    created_at: datetime | None
    updated_at: datetime | None
