"""Provides the short name of a record's message kind (``assistant``, ``tool``, …).

Kept apart from :mod:`.formatting` (which re-exports it) so that ``zett-browser context``'s
fast path names kinds without importing the record formatting.
"""

from __future__ import annotations

from ..model import (
    AgentMessage,
    AssistantMessage,
    RawMessageRecord,
    SystemMessage,
    ToolMessage,
    UnreadableMessage,
    UserMessage,
)

#: Kind names, most specific class first (a compacted message is a user message).
KINDS: tuple[tuple[type, str], ...] = (
    (UnreadableMessage, "unreadable"),
    (SystemMessage, "system"),
    (AgentMessage, "agent"),
    (AssistantMessage, "assistant"),
    (ToolMessage, "tool"),
    (UserMessage, "user"),
)


def kind_name(record: RawMessageRecord) -> str:
    """A short name for the record's message kind."""
    for cls, name in KINDS:
        if isinstance(record.message, cls):
            return name
    return "unknown"


__all__ = ["KINDS", "kind_name"]
