"""Provides the typed records and message types shared by storage and UI.

Pure data (dataclasses and pydantic models): importing it loads no database driver and
no UI toolkit, so widgets can use these types while never importing the storage.
"""

from __future__ import annotations

from .kinds import KIND_LABELS, MESSAGE_TYPES, MessageKind, kind_label, kind_of
from .messages import (
    AgentMessage,
    AnyMessage,
    AssistantMessage,
    CompactedMessage,
    ImageBytesSource,
    ImageContent,
    ImageDetail,
    ImageUrlSource,
    Message,
    MessageRole,
    StopInfo,
    StopReason,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolMessage,
    UnreadableMessage,
    UserMessage,
)
from .records import (
    ContextSnapshot,
    MessageTiming,
    ModelUsage,
    Page,
    RawLogBounds,
    RawMessageRecord,
    SessionCursor,
    SessionNode,
    SessionSummary,
    SessionTotals,
    SessionView,
    SnapshotInfo,
)

__all__ = [
    "KIND_LABELS",
    "MESSAGE_TYPES",
    "MessageKind",
    "kind_label",
    "kind_of",
    "AgentMessage",
    "AnyMessage",
    "AssistantMessage",
    "CompactedMessage",
    "ContextSnapshot",
    "ImageBytesSource",
    "ImageContent",
    "ImageDetail",
    "ImageUrlSource",
    "Message",
    "MessageRole",
    "MessageTiming",
    "ModelUsage",
    "Page",
    "RawLogBounds",
    "RawMessageRecord",
    "SessionCursor",
    "SessionNode",
    "SessionSummary",
    "SessionTotals",
    "SessionView",
    "SnapshotInfo",
    "StopInfo",
    "StopReason",
    "SystemMessage",
    "TextContent",
    "ToolCall",
    "ToolMessage",
    "UnreadableMessage",
    "UserMessage",
]
