"""Provides the message-kind codes and the message class each code names.

zett-agent stores a message's kind as a small integer (``raw_messages.role`` and each
envelope item's ``kind``). They live in the model, not the storage, so the UI and an
exporter can name kinds (``MessageKind.TOOL``, :data:`KIND_LABELS`) without importing
the storage package.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from .messages import AgentMessage, AssistantMessage, CompactedMessage, SystemMessage, ToolMessage, UserMessage


class MessageKind(IntEnum):
    """Numeric kind codes stored in ``raw_messages.role`` and in each envelope item."""

    SYSTEM = 1
    USER = 2
    ASSISTANT = 3
    TOOL = 4
    CHECKPOINT = 5
    AGENT = 6


#: The message class of each kind, in the order zett-agent's codec tries them.
MESSAGE_TYPES: dict[MessageKind, type[Any]] = {
    MessageKind.AGENT: AgentMessage,
    MessageKind.SYSTEM: SystemMessage,
    MessageKind.USER: UserMessage,
    MessageKind.ASSISTANT: AssistantMessage,
    MessageKind.TOOL: ToolMessage,
    MessageKind.CHECKPOINT: CompactedMessage,
}

#: A short lower-case name of each kind, for people (totals, labels, exports).
KIND_LABELS: dict[MessageKind, str] = {
    MessageKind.SYSTEM: "system",
    MessageKind.USER: "user",
    MessageKind.ASSISTANT: "assistant",
    MessageKind.TOOL: "tool",
    MessageKind.CHECKPOINT: "checkpoint",
    MessageKind.AGENT: "agent",
}


def kind_of(message: object) -> MessageKind:
    """Return the kind code of a message by its exact class.

    Raises:
        TypeError: The object is not one of the stored message classes.
    """
    for kind, cls in MESSAGE_TYPES.items():
        if type(message) is cls:
            return kind
    raise TypeError(f"Not a storable message: {type(message).__name__}")


def kind_label(code: int) -> str:
    """The name of a stored kind code; an unknown code (a newer writer's) as ``kind N``."""
    try:
        return KIND_LABELS[MessageKind(code)]
    except ValueError:
        return f"kind {code}"
