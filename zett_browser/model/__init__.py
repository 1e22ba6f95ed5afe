"""Provides the typed records and message types shared by storage and UI.

Pure data (dataclasses, and pydantic models loaded at first use): importing it loads no
database driver, no pydantic and no UI toolkit, so widgets can use these types while never importing the storage.
Each name is imported from its submodule when first asked for (``_HOMES``), so a command
that needs one submodule (``usage``: ``model.usage``) does not define every record.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any

    from .documented import ContextSnapshot as ContextSnapshot
    from .documented import SessionSummary as SessionSummary
    from .documented import SessionView as SessionView
    from .kinds import KIND_LABELS as KIND_LABELS
    from .kinds import MESSAGE_TYPES as MESSAGE_TYPES
    from .kinds import MessageKind as MessageKind
    from .kinds import kind_label as kind_label
    from .kinds import kind_of as kind_of
    from .messages import AgentMessage as AgentMessage
    from .messages import AnyMessage as AnyMessage
    from .messages import AssistantMessage as AssistantMessage
    from .messages import CompactedMessage as CompactedMessage
    from .messages import ImageBytesSource as ImageBytesSource
    from .messages import ImageContent as ImageContent
    from .messages import ImageDetail as ImageDetail
    from .messages import ImageUrlSource as ImageUrlSource
    from .messages import Message as Message
    from .messages import MessageRole as MessageRole
    from .messages import StopInfo as StopInfo
    from .messages import StopReason as StopReason
    from .messages import SystemMessage as SystemMessage
    from .messages import TextContent as TextContent
    from .messages import ToolCall as ToolCall
    from .messages import ToolMessage as ToolMessage
    from .messages import UnreadableMessage as UnreadableMessage
    from .messages import UserMessage as UserMessage
    from .nodes import SessionNode as SessionNode
    from .records import MessageTiming as MessageTiming
    from .records import ModelUsage as ModelUsage
    from .records import Page as Page
    from .records import RawLogBounds as RawLogBounds
    from .records import RawMessageRecord as RawMessageRecord
    from .records import SessionCursor as SessionCursor
    from .records import SessionTotals as SessionTotals
    from .records import SnapshotInfo as SnapshotInfo

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


#: Where each name lives: a submodule is imported when one of its names is first asked for
#: (defining their dataclasses costs ~30 ms; ``usage`` and the notes need none of them).
_HOMES = {
    "KIND_LABELS": "kinds",
    "MESSAGE_TYPES": "kinds",
    "MessageKind": "kinds",
    "kind_label": "kinds",
    "kind_of": "kinds",
    "AgentMessage": "messages",
    "AnyMessage": "messages",
    "AssistantMessage": "messages",
    "CompactedMessage": "messages",
    "ImageBytesSource": "messages",
    "ImageContent": "messages",
    "ImageDetail": "messages",
    "ImageUrlSource": "messages",
    "Message": "messages",
    "MessageRole": "messages",
    "StopInfo": "messages",
    "StopReason": "messages",
    "SystemMessage": "messages",
    "TextContent": "messages",
    "ToolCall": "messages",
    "ToolMessage": "messages",
    "UnreadableMessage": "messages",
    "UserMessage": "messages",
    "MessageTiming": "records",
    "ModelUsage": "records",
    "Page": "records",
    "RawLogBounds": "records",
    "RawMessageRecord": "records",
    "SessionCursor": "records",
    "SessionNode": "nodes",
    "SessionTotals": "records",
    "SnapshotInfo": "records",
    "ContextSnapshot": "documented",  # pydantic: only when first asked for
    "SessionSummary": "documented",
    "SessionView": "documented",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value  # asked once
    return value
