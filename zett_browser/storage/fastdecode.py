"""Decodes a stored message envelope with the standard library only, for the first screen.

The reference decoder (:func:`zett_browser.storage.codec.decode_message_leniently`)
validates with pydantic: importing pydantic and building the message adapters costs more
than the whole start-up budget of the first screen. :func:`decode_fast` reads the same
envelope without them, but it is deliberately *strict*: it either returns exactly what the
reference returns (equal, and identical in what ``==`` ignores: ``unknown_fields``,
tuples, enum members, bytes, dict key order), or ``None``, meaning "not sure, ask the
reference decoder". It declines every input where pydantic's lax mode could coerce a value
(a bool or ``"true"`` for a bool field, bytes for a str, a string for bytes), every
damaged row (the reference explains those) and every union it cannot resolve exactly as
pydantic's smart-mode union does. Rows written by zett-agent never need the fallback.

Each message class has a field table below; a test compares the tables with the
dataclasses (names, required fields, annotations), so a model change cannot silently
make this decoder diverge.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from enum import Enum
from typing import Any, Final

from ..model.kinds import MESSAGE_TYPES
from ..model.messages import (
    AgentMessage,
    AnyMessage,
    AssistantMessage,
    CompactedMessage,
    ImageBytesSource,
    ImageContent,
    ImageDetail,
    ImageUrlSource,
    StopInfo,
    StopReason,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolMessage,
    UserMessage,
)

#: The key zett-agent writes bytes under (``storage.codec.BYTES_KEY``; a test keeps them equal).
BYTES_KEY: Final = "__kcs_bytes__"
_EXTRA: Final = "unknown_fields"

__all__ = ["BYTES_KEY", "decode_fast"]

#: Converts one JSON value to its field value, or raises :class:`_Decline`.
Reader = Callable[[Any], Any]
#: One dataclass field: name, reader, and whether the input must hold it.
FieldSpec = tuple[str, Reader, bool]


class _Decline(Exception):
    """The value is not one this decoder reads exactly as the reference does."""


def _bytes_hook(value: dict[str, Any]) -> object:
    """The reference's ``object_hook``: ``{"__kcs_bytes__": b64}`` becomes bytes."""
    if len(value) == 1 and BYTES_KEY in value:
        return base64.b64decode(value[BYTES_KEY], validate=True)
    return value


# A decoder built once (``json.loads`` with a hook builds one per call). Like ``json.loads``
# it rejects a leading BOM: its whitespace skipping does not match U+FEFF.
_parse: Final = json.JSONDecoder(object_hook=_bytes_hook).decode

#: Deepest container nesting accepted. The parse of a deeper payload may succeed here and
#: hit the recursion limit in the reference (or the reverse): it depends on the caller's stack.
MAX_DEPTH: Final = 100


def _too_deep(value: Any) -> bool:
    """Whether containers nest deeper than :data:`MAX_DEPTH` (a loop, not recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        children = item.values() if type(item) is dict else item
        stack.extend((child, depth + 1) for child in children if type(child) is dict or type(child) is list)
    return False


# Scalar readers. JSON yields exact builtin types, so ``type(x) is T`` is the strict test:
# a bool is not accepted for an int or a str, nor bytes for a str (pydantic would coerce).


def _str(value: Any) -> str:
    if type(value) is str:
        return value
    raise _Decline


def _opt_str(value: Any) -> str | None:
    if value is None or type(value) is str:
        return value
    raise _Decline


def _bool(value: Any) -> bool:
    if type(value) is bool:
        return value
    raise _Decline


def _bytes(value: Any) -> bytes:
    if type(value) is bytes:  # only from the {"__kcs_bytes__": ...} form
        return value
    raise _Decline


def _dict_any(value: Any) -> dict[str, Any]:
    """``dict[str, Any]`` and ``Mapping[str, Any]``: pydantic returns a new dict, values as parsed."""
    if type(value) is dict:
        return dict(value)
    raise _Decline


def _enum_reader(enum: type[Enum]) -> Reader:
    members = {member.value: member for member in enum}

    def read(value: Any) -> Any:
        if type(value) is str:
            member = members.get(value)
            if member is not None:
                return member
        raise _Decline

    return read


_stop_reason: Final = _enum_reader(StopReason)
_image_detail: Final = _enum_reader(ImageDetail)


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _dataclass_reader(cls: type[Any], fields: tuple[FieldSpec, ...]) -> Reader:
    """A reader of one dataclass from a JSON object, keeping unknown keys as the reference does."""
    names = frozenset(name for name, _, _ in fields)

    def read(value: Any) -> Any:
        # An input ``unknown_fields`` key is validated as the field itself by the
        # reference; too rare to mirror, so it is declined.
        if type(value) is not dict or _EXTRA in value:
            raise _Decline
        kwargs: dict[str, Any] = {}
        for name, reader, required in fields:
            if name in value:
                kwargs[name] = reader(value[name])
            elif required:
                raise _Decline
        try:
            obj = cls(**kwargs)  # runs __post_init__ checks, as pydantic does
        except (ValueError, TypeError) as error:
            raise _Decline from error
        if len(value) > len(kwargs):
            extras = {key: item for key, item in value.items() if key not in names}
            if any(_SURROGATE.search(key) for key in extras if not key.isascii()):
                raise _Decline  # pydantic rejects such a key of a dataclass's input (not of a dict field)
            object.__setattr__(obj, _EXTRA, extras)
        return obj

    return read


def _optional(reader: Reader) -> Reader:
    def read(value: Any) -> Any:
        return None if value is None else reader(value)

    return read


def _tuple_of(reader: Reader) -> Reader:
    def read(value: Any) -> tuple[Any, ...]:
        if type(value) is list:
            return tuple([reader(item) for item in value])
        raise _Decline

    return read


TEXT_FIELDS: Final[tuple[FieldSpec, ...]] = (("text", _str, True),)
URL_SOURCE_FIELDS: Final[tuple[FieldSpec, ...]] = (("url", _str, True),)
BYTES_SOURCE_FIELDS: Final[tuple[FieldSpec, ...]] = (("data", _bytes, True), ("media_type", _str, True))

_text_content: Final = _dataclass_reader(TextContent, TEXT_FIELDS)
_url_source: Final = _dataclass_reader(ImageUrlSource, URL_SOURCE_FIELDS)
_bytes_source: Final = _dataclass_reader(ImageBytesSource, BYTES_SOURCE_FIELDS)


def _image_source(value: Any) -> ImageUrlSource | ImageBytesSource:
    """``ImageUrlSource | ImageBytesSource``, only where exactly one member can validate.

    Each member lacks the other's required key (``url`` / ``data``), so an object holding
    one and not the other has a single candidate; pydantic's smart union then takes it.
    """
    if type(value) is dict:
        if "url" in value and "data" not in value:
            return _url_source(value)  # type: ignore[no-any-return]
        if "data" in value and "url" not in value:
            return _bytes_source(value)  # type: ignore[no-any-return]
    raise _Decline


IMAGE_FIELDS: Final[tuple[FieldSpec, ...]] = (
    ("source", _image_source, True),
    ("detail", _image_detail, False),
    ("alt_text", _opt_str, False),
)
_image_content: Final = _dataclass_reader(ImageContent, IMAGE_FIELDS)


def _content_part(value: Any) -> TextContent | ImageContent:
    """``TextContent | ImageContent``, decided by the required key only one of them has."""
    if type(value) is dict:
        if "text" in value and "source" not in value:
            return _text_content(value)  # type: ignore[no-any-return]
        if "source" in value and "text" not in value:
            return _image_content(value)  # type: ignore[no-any-return]
    raise _Decline  # both keys: pydantic's pick depends on how each validates


def _user_content(value: Any) -> str | list[TextContent | ImageContent]:
    """``str | list[UserContentPart]``: a str stays a str, a list becomes a list of parts."""
    if type(value) is str:
        return value
    if type(value) is list:
        return [_content_part(item) for item in value]
    raise _Decline


STOP_FIELDS: Final[tuple[FieldSpec, ...]] = (
    ("reason", _stop_reason, True),
    ("raw", _opt_str, False),
    ("category", _opt_str, False),
    ("message", _opt_str, False),
    ("recommended_model", _opt_str, False),
    ("detail", _dict_any, False),
)
TOOL_CALL_FIELDS: Final[tuple[FieldSpec, ...]] = (
    ("id", _str, True),
    ("name", _str, True),
    ("arguments", _dict_any, False),
    ("error", _opt_str, False),
)
_stop: Final = _optional(_dataclass_reader(StopInfo, STOP_FIELDS))
_tool_calls: Final = _tuple_of(_dataclass_reader(ToolCall, TOOL_CALL_FIELDS))
_replay_blocks: Final = _tuple_of(_dict_any)

#: Fields every message kind has (``Message``), before its own.
_BASE: Final[tuple[FieldSpec, ...]] = (
    ("attributes", _dict_any, False),
    ("persist", _bool, False),
    ("include_in_messages", _bool, False),
)

#: The field table of each message class; a test checks them against the dataclasses.
MESSAGE_FIELDS: Final[dict[type[Any], tuple[FieldSpec, ...]]] = {
    SystemMessage: (*_BASE, ("content", _str, True)),
    UserMessage: (*_BASE, ("content", _user_content, True)),
    CompactedMessage: (*_BASE, ("content", _user_content, True)),
    AgentMessage: (*_BASE, ("content", _str, True)),
    AssistantMessage: (
        *_BASE,
        ("content", _str, False),
        ("reasoning", _opt_str, False),
        ("tool_calls", _tool_calls, False),
        ("provider", _opt_str, False),
        ("model", _opt_str, False),
        ("replay_blocks", _replay_blocks, False),
        ("stop", _stop, False),
    ),
    ToolMessage: (
        *_BASE,
        ("tool_call_id", _str, True),
        ("name", _str, True),
        ("content", _user_content, True),
        ("success", _bool, False),
    ),
}

#: Nested dataclasses and their tables, for the same test.
NESTED_FIELDS: Final[dict[type[Any], tuple[FieldSpec, ...]]] = {
    TextContent: TEXT_FIELDS,
    ImageUrlSource: URL_SOURCE_FIELDS,
    ImageBytesSource: BYTES_SOURCE_FIELDS,
    ImageContent: IMAGE_FIELDS,
    StopInfo: STOP_FIELDS,
    ToolCall: TOOL_CALL_FIELDS,
}

#: Kind codes to readers; plain int keys, so a lookup builds no enum member.
_READERS: Final[dict[int, Reader]] = {
    int(code): _dataclass_reader(cls, MESSAGE_FIELDS[cls]) for code, cls in MESSAGE_TYPES.items()
}


def decode_fast(payload: object) -> AnyMessage | CompactedMessage | None:
    """Decode a single-message envelope exactly as the reference decoder, or return ``None``.

    ``None`` means "cannot be sure": the caller uses
    :func:`~zett_browser.storage.codec.decode_message_leniently`, which also explains a
    damaged row. Never raises and never returns an ``UnreadableMessage``.
    """
    if not isinstance(payload, str):
        return None
    try:
        items = _parse(payload)
        if type(items) is not list or len(items) != 1:
            return None
        if payload.count("[") + payload.count("{") > MAX_DEPTH and _too_deep(items):
            return None
        item = items[0]
        if type(item) is not dict or "data" not in item:
            return None
        kind = item.get("kind")
        reader = _READERS.get(kind) if type(kind) is int else None
        return None if reader is None else reader(item["data"])  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - anything odd (bad JSON, depth, base64, a decline) defers to the reference
        return None
