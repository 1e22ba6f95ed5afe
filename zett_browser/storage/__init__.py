"""Provides zett-agent's session storage for zett-browser: the only package using SQL.

Everything a caller needs is importable from here under the names zett-agent uses:
the storage classes, the typed records, the message types and the envelope codec.

The names resolve at first use (PEP 562): importing a light submodule (``errors``,
``sidecars``, ``sqlitefile``, ``convert``, ``quickstart``...) loads neither SQLAlchemy
nor aiosqlite nor pydantic, so the start-up reader can run before they are imported.
:mod:`.narrow` is loaded before the first storage name, so SQLAlchemy's asyncio engine
comes without its ORM.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any

    from ..model.documented import ContextSnapshot, SessionSummary, SessionView
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
    from .browse import SQLiteSessionStorage, SQLSessionStorage, open_store
    from .codec import MESSAGE_TYPES, MessageKind, decode_message_leniently, decode_messages, encode_messages
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
    from .target import DEFAULT_PATH, Target, parse_target

#: Each public name and the module (relative to this package) that defines it.
_WHERE = {
    "AgentMessage": "..model.messages",
    "AnyMessage": "..model.messages",
    "AssistantMessage": "..model.messages",
    "CompactedMessage": "..model.messages",
    "ImageBytesSource": "..model.messages",
    "ImageContent": "..model.messages",
    "ImageDetail": "..model.messages",
    "ImageUrlSource": "..model.messages",
    "Message": "..model.messages",
    "MessageRole": "..model.messages",
    "StopInfo": "..model.messages",
    "StopReason": "..model.messages",
    "SystemMessage": "..model.messages",
    "TextContent": "..model.messages",
    "ToolCall": "..model.messages",
    "ToolMessage": "..model.messages",
    "UnreadableMessage": "..model.messages",
    "UserMessage": "..model.messages",
    "ContextSnapshot": "..model.documented",
    "MessageTiming": "..model.records",
    "ModelUsage": "..model.records",
    "Page": "..model.records",
    "RawLogBounds": "..model.records",
    "RawMessageRecord": "..model.records",
    "SessionCursor": "..model.records",
    "SessionNode": "..model.records",
    "SessionSummary": "..model.documented",
    "SessionTotals": "..model.records",
    "SessionView": "..model.documented",
    "SnapshotInfo": "..model.records",
    "SQLiteSessionStorage": ".browse",
    "SQLSessionStorage": ".browse",
    "open_store": ".browse",
    "MESSAGE_TYPES": ".codec",
    "MessageKind": ".codec",
    "decode_message_leniently": ".codec",
    "decode_messages": ".codec",
    "encode_messages": ".codec",
    "DEFAULT_PATH": ".target",
    "Target": ".target",
    "parse_target": ".target",
    "NotSQLiteError": ".errors",
    "NotZettStoreError": ".errors",
    "ReadOnlyStoreError": ".errors",
    "StoreConnectionError": ".errors",
    "StoreCorruptError": ".errors",
    "StoreError": ".errors",
    "StoreIsDirectoryError": ".errors",
    "StoreLockedError": ".errors",
    "StoreNotFoundError": ".errors",
    "StorePermissionError": ".errors",
    "StoreTimeoutError": ".errors",
    "StoreDataError": ".rows",
    "SyncObject": ".sync",
    "SyncRuntime": ".sync",
}

#: Modules that do not import SQLAlchemy (``.narrow`` need not come first); all but
#: ``..model.documented`` (pydantic) import neither SQLAlchemy nor pydantic.
_LIGHT = frozenset({"..model.messages", "..model.records", "..model.documented", ".errors"})


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if module not in _LIGHT:
        importlib.import_module(".narrow", __name__)  # before anything imports sqlalchemy.ext.asyncio
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
