"""Provides the message types stored in a zett-agent Raw Log and in snapshots.

The classes mirror zett-agent 0.2.1's provider-neutral messages field for field and in
the same order, because the envelope codec serialises them in declaration order and the
stored JSON must be byte-identical to what zett-agent writes.

Every envelope class also carries ``unknown_fields``: keys a newer zett-agent wrote
that this version does not know. They are kept on read and written back in place, never
dropped. The field is excluded from equality and from the encoded field order.

They are declared as dataclasses are, but with :func:`~.record.record`: a command that
decodes messages in a fresh process does not import :mod:`dataclasses` (issue 29), while
the codec and pydantic still read them as dataclasses.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, ClassVar, TypeAlias

from .record import field, record


def _unknown() -> Any:
    return field(default_factory=dict, repr=False, compare=False, kw_only=True)


class MessageRole(StrEnum):
    """Roles of the provider-neutral agent protocol."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    AGENT = "agent"


class ImageDetail(StrEnum):
    """Image fidelity requested from a vision-capable model."""

    AUTO = "auto"
    LOW = "low"
    HIGH = "high"


class StopReason(StrEnum):
    """Provider-neutral reason a model step ended; only END_TURN and TOOL_USE are normal."""

    END_TURN = "end_turn"
    TOOL_USE = "tool_use"
    MAX_OUTPUT = "max_output"
    CONTEXT_FULL = "context_full"
    REFUSAL = "refusal"
    PAUSED = "paused"
    INTERRUPTED = "interrupted"
    OTHER = "other"


@record(frozen=True)
class StopInfo:
    """Why a model step stopped when it did not finish normally."""

    reason: StopReason
    raw: str | None = None
    category: str | None = None
    message: str | None = None
    recommended_model: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)
    unknown_fields: dict[str, Any] = _unknown()

    @property
    def ok(self) -> bool:
        """Whether the step ended normally: it finished, or it asked for tools."""
        return self.reason in (StopReason.END_TURN, StopReason.TOOL_USE)

    def describe(self) -> str:
        """Return one line such as ``refusal (cyber): declined``."""
        head = self.reason.value
        label = self.category or (self.raw if self.raw not in (None, head) else None)
        if label:
            head = f"{head} ({label})"
        return f"{head}: {self.message}" if self.message else head


@record(frozen=True)
class TextContent:
    """One text block of a multimodal message."""

    text: str
    unknown_fields: dict[str, Any] = _unknown()


@record(frozen=True)
class ImageUrlSource:
    """An image given by an HTTP(S) or ``data:image/`` URL."""

    url: str
    unknown_fields: dict[str, Any] = _unknown()

    def __post_init__(self) -> None:
        value = self.url.strip()
        if not value:
            raise ValueError("Image URL cannot be empty")
        if not value.startswith(("https://", "http://", "data:image/")):
            raise ValueError("Image URL must use HTTP, HTTPS, or an image data URL")


@record(frozen=True)
class ImageBytesSource:
    """Encoded image bytes and their MIME type."""

    data: bytes
    media_type: str
    unknown_fields: dict[str, Any] = _unknown()

    def __post_init__(self) -> None:
        if not self.data:
            raise ValueError("Image data cannot be empty")
        if not self.media_type.strip().lower().startswith("image/"):
            raise ValueError("Image media type must start with 'image/'")


ImageSource: TypeAlias = ImageUrlSource | ImageBytesSource


@record(frozen=True)
class ImageContent:
    """One image block of a multimodal message."""

    source: ImageSource
    detail: ImageDetail = ImageDetail.AUTO
    alt_text: str | None = None
    unknown_fields: dict[str, Any] = _unknown()


UserContentPart: TypeAlias = TextContent | ImageContent
UserContent: TypeAlias = str | list[UserContentPart]


def _parts_text(content: UserContent) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(part.text for part in content if isinstance(part, TextContent))


@record()
class ToolCall:
    """A complete model request to run a named tool."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    unknown_fields: dict[str, Any] = _unknown()


@record(kw_only=True)
class Message:
    """Common base of every stored message kind."""

    role: ClassVar[MessageRole]
    attributes: dict[str, Any] = field(default_factory=dict)
    persist: bool = True
    include_in_messages: bool = True
    unknown_fields: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@record(kw_only=True)
class SystemMessage(Message):
    """Application instructions; recorded, but not restored into context by default."""

    role: ClassVar[MessageRole] = MessageRole.SYSTEM
    content: str
    persist: bool = True
    include_in_messages: bool = False


@record(kw_only=True)
class UserMessage(Message):
    """User text, or ordered text and image parts."""

    role: ClassVar[MessageRole] = MessageRole.USER
    content: UserContent

    @property
    def parts(self) -> list[UserContentPart]:
        """The content as a list of parts."""
        return [TextContent(self.content)] if isinstance(self.content, str) else self.content

    @property
    def text(self) -> str:
        """The text parts joined by newlines, without image payloads."""
        return _parts_text(self.content)


@record(kw_only=True)
class AssistantMessage(Message):
    """Model output: answer text, reasoning, tool calls and why it stopped."""

    role: ClassVar[MessageRole] = MessageRole.ASSISTANT
    content: str = ""
    reasoning: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    provider: str | None = None
    model: str | None = None
    #: Opaque provider transport state; never shown as content.
    replay_blocks: tuple[Mapping[str, Any], ...] = ()
    stop: StopInfo | None = None


@record(kw_only=True)
class ToolMessage(Message):
    """One tool result returned to the model."""

    role: ClassVar[MessageRole] = MessageRole.TOOL
    tool_call_id: str
    name: str
    content: UserContent
    success: bool = True

    @property
    def text(self) -> str:
        """The text parts joined by newlines, without image payloads."""
        return _parts_text(self.content)


@record(kw_only=True)
class AgentMessage(Message):
    """An internal instruction from an extension, sent to providers as user."""

    role: ClassVar[MessageRole] = MessageRole.AGENT
    content: str


@record(kw_only=True)
class CompactedMessage(UserMessage):
    """A summary of older dialogue; stored only in snapshots, never in the Raw Log."""


@record(kw_only=True)
class UnreadableMessage:
    """A Raw Log or snapshot row whose envelope could not be decoded.

    It keeps what was stored so a reader can still show it: the kind code if one was
    found, the decoded ``data`` object when the JSON parsed, the raw text, and why it
    failed. It is never written back.
    """

    kind: int | None
    error: str
    raw_json: str
    data: Any = None
    include_in_messages: bool = False
    persist: bool = False

    @property
    def content(self) -> str:
        """Best-effort text of the row, for search and previews."""
        if isinstance(self.data, Mapping):
            value = self.data.get("content")
            if isinstance(value, str):
                return value
        return ""


AnyMessage: TypeAlias = SystemMessage | UserMessage | AssistantMessage | ToolMessage | AgentMessage
