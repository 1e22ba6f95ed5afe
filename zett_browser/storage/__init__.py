"""Provides zett-agent's session storage for zett-browser: the only package using SQL.

Everything a caller needs is importable from here under the names zett-agent uses:
the storage classes, the typed records, the message types and the envelope codec.
"""

from __future__ import annotations

from ..model.messages import (
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
from ..model.records import (
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
from . import narrow  # noqa: F401 - first: SQLAlchemy's asyncio engine without its ORM
from .browse import SQLiteSessionStorage, SQLSessionStorage, open_store
from .codec import MESSAGE_TYPES, MessageKind, decode_message_leniently, decode_messages, encode_messages
from .engine import DEFAULT_PATH, Target, parse_target
from .errors import (
    NotSQLiteError,
    NotZettStoreError,
    ReadOnlyStoreError,
    StoreConnectionError,
    StoreCorruptError,
    StoreError,
    StoreIsDirectoryError,
    StoreLockedError,
    StoreNotFoundError,
    StorePermissionError,
    StoreTimeoutError,
)
from .rows import StoreDataError
from .sync import SyncObject, SyncRuntime

__all__ = [
    "DEFAULT_PATH",
    "MESSAGE_TYPES",
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
    "MessageKind",
    "MessageRole",
    "MessageTiming",
    "ModelUsage",
    "NotSQLiteError",
    "NotZettStoreError",
    "Page",
    "RawLogBounds",
    "RawMessageRecord",
    "ReadOnlyStoreError",
    "SQLSessionStorage",
    "SQLiteSessionStorage",
    "SessionCursor",
    "SessionNode",
    "SessionSummary",
    "SessionTotals",
    "SessionView",
    "SnapshotInfo",
    "StopInfo",
    "StopReason",
    "StoreConnectionError",
    "StoreTimeoutError",
    "StoreCorruptError",
    "StoreDataError",
    "StoreError",
    "StoreIsDirectoryError",
    "StoreLockedError",
    "StoreNotFoundError",
    "StorePermissionError",
    "SyncObject",
    "SyncRuntime",
    "SystemMessage",
    "Target",
    "TextContent",
    "ToolCall",
    "ToolMessage",
    "UnreadableMessage",
    "UserMessage",
    "decode_message_leniently",
    "decode_messages",
    "encode_messages",
    "open_store",
    "parse_target",
]
