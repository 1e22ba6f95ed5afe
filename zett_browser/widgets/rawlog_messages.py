"""Provides the messages the Raw Log pane sends (:class:`~.rawlog.RawLogView` names them too).

Each carries the record it is about; the namespace keeps their handlers named as when they
were defined inside the view (``on_raw_log_view_record_opened``…).
"""

from __future__ import annotations

from textual.message import Message

from ..model import RawMessageRecord


class RecordOpened(Message, namespace="raw_log_view"):
    """The user asked to see a record whole."""

    def __init__(self, record: RawMessageRecord) -> None:
        super().__init__()
        self.record = record


class CallJump(Message, namespace="raw_log_view"):
    """The user asked to jump between a tool call and its result."""

    def __init__(self, record: RawMessageRecord) -> None:
        super().__init__()
        self.record = record


class ContextRequested(Message, namespace="raw_log_view"):
    """The user asked for the model's context at a record (time travel)."""

    def __init__(self, record: RawMessageRecord) -> None:
        super().__init__()
        self.record = record


class ChildRequested(Message, namespace="raw_log_view"):
    """The user asked to open the delegated session this record names."""

    def __init__(self, record: RawMessageRecord) -> None:
        super().__init__()
        self.record = record


__all__ = ["CallJump", "ChildRequested", "ContextRequested", "RecordOpened"]
