"""Provides the typed records and message types shared by storage and UI.

Pure data (dataclasses, and pydantic models loaded at first use): importing it loads no
database driver, no pydantic and no UI toolkit, so widgets can use these types while never importing the storage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
    MessageTiming,
    ModelUsage,
    Page,
    RawLogBounds,
    RawMessageRecord,
    SessionCursor,
    SessionNode,
    SessionTotals,
    SnapshotInfo,
)

if TYPE_CHECKING:
    from .documented import ContextSnapshot as ContextSnapshot
    from .documented import SessionSummary as SessionSummary
    from .documented import SessionView as SessionView

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


def __getattr__(name: str) -> Any:
    if name in ("ContextSnapshot", "SessionSummary", "SessionView"):
        from . import documented  # pydantic: only when first asked for

        return getattr(documented, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
