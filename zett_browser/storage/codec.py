"""Provides the message-envelope JSON codec shared with zett-agent.

A stored ``message_json`` is a JSON list of ``{"kind": K, "data": {...}}`` items. ``data``
holds the message dataclass fields in declaration order; ``bytes`` anywhere inside it are
written as ``{"__kcs_bytes__": "<base64>"}``. :func:`encode_messages` produces exactly the
bytes zett-agent 0.2.1 produces for the same messages, and re-emits any unknown fields a
newer writer left behind.

:func:`decode_messages` is strict (it raises on anything odd), as zett-agent's is.
:func:`decode_message_leniently` never raises: a row that cannot be read becomes an
:class:`~zett_browser.storage.messages.UnreadableMessage` saying why.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, Any

from ..model.kinds import MESSAGE_TYPES, MessageKind, kind_of
from ..model.messages import AnyMessage, CompactedMessage, UnreadableMessage
from .fastdecode import decode_fast

if TYPE_CHECKING:  # pydantic loads only when a message needs it (see decode_message_leniently)
    from pydantic import TypeAdapter

BYTES_KEY = "__kcs_bytes__"
_EXTRA = "unknown_fields"

__all__ = [
    "BYTES_KEY",
    "MESSAGE_TYPES",
    "MessageKind",
    "decode_message_leniently",
    "decode_messages",
    "decode_reference",
    "encode_messages",
    "kind_of",
]


@cache
def _adapter(kind: MessageKind) -> TypeAdapter[Any]:
    from pydantic import TypeAdapter

    return TypeAdapter(MESSAGE_TYPES[kind])


def _jsonable(value: Any) -> Any:
    """Convert a message tree to JSON-ready values, fields in declaration order."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for item in dataclasses.fields(value):
            if item.name != _EXTRA:
                out[item.name] = _jsonable(getattr(value, item.name))
        for key, extra in getattr(value, _EXTRA, {}).items():
            out.setdefault(key, _jsonable(extra))
        return out
    if isinstance(value, Enum):
        return value
    if isinstance(value, Mapping):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    return value


def _encode_bytes(value: object) -> object:
    if isinstance(value, bytes):
        return {BYTES_KEY: base64.b64encode(value).decode("ascii")}
    raise TypeError(f"Unsupported message value: {type(value).__name__}")


def encode_messages(messages: Sequence[Any]) -> str:
    """Encode typed messages into one envelope string, byte-compatible with zett-agent."""
    return json.dumps(
        [{"kind": int(kind_of(message)), "data": _jsonable(message)} for message in messages],
        default=_encode_bytes,
        ensure_ascii=False,
        allow_nan=False,
    )


def _decode_bytes(value: dict[str, Any]) -> object:
    if set(value) == {BYTES_KEY}:
        return base64.b64decode(value[BYTES_KEY], validate=True)
    return value


@cache
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(item.name for item in dataclasses.fields(cls))


def _attach_unknown(obj: Any, data: Any) -> None:
    """Record keys of ``data`` that the dataclass ``obj`` has no field for, recursively."""
    if not (dataclasses.is_dataclass(obj) and isinstance(data, Mapping)):
        if isinstance(obj, (list, tuple)) and isinstance(data, (list, tuple)):
            for child, child_data in zip(obj, data, strict=False):
                _attach_unknown(child, child_data)
        return
    names = _field_names(type(obj))  # type: ignore[arg-type]
    extras = {key: value for key, value in data.items() if key not in names}
    if extras and _EXTRA in names:
        object.__setattr__(obj, _EXTRA, extras)
    for name in names:
        if name in data and name != _EXTRA:
            _attach_unknown(getattr(obj, name), data[name])


def _decode_item(item: Any) -> Any:
    if not isinstance(item, Mapping) or "kind" not in item or "data" not in item:
        raise ValueError("Envelope item must be an object with 'kind' and 'data'")
    kind = MessageKind(item["kind"])
    data = item["data"]
    message = _adapter(kind).validate_python(data)
    _attach_unknown(message, data)
    return message


def decode_messages(payload: str) -> list[AnyMessage]:
    """Decode an envelope strictly, as zett-agent does.

    Raises:
        ValueError: The JSON, a kind code, or a message's fields are invalid.
    """
    items = json.loads(payload, object_hook=_decode_bytes)
    if not isinstance(items, list):
        raise ValueError("Message envelope must be a JSON list")
    return [_decode_item(item) for item in items]


def _short(error: Exception) -> str:
    pydantic = sys.modules.get("pydantic")  # not loaded: the error cannot be one of its
    if pydantic is not None and isinstance(error, pydantic.ValidationError):
        problems = error.errors()
        missing = [".".join(str(part) for part in item["loc"]) for item in problems if item["type"] == "missing"]
        if missing and len(missing) == len(problems):
            return f"missing field{'s' if len(missing) > 1 else ''}: {', '.join(missing)}"
        first = problems[0]
        where = ".".join(str(part) for part in first["loc"])
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        return f"invalid field {where or 'data'}: {first['msg']}{more}"
    return str(error) or type(error).__name__


def decode_message_leniently(payload: object) -> AnyMessage | CompactedMessage | UnreadableMessage:
    """Decode a single-message envelope, or explain why it cannot be read.

    Never raises. Unknown fields are kept; an unknown kind (written by a newer
    zett-agent), invalid JSON or missing fields give an ``UnreadableMessage`` that keeps
    the raw text and whatever data could be parsed.

    The standard-library decoder (:mod:`.fastdecode`) answers first: it gives exactly what
    :func:`decode_reference` gives, or declines. Rows zett-agent wrote never need pydantic,
    so reading a page neither imports it (~90 ms with the message models) nor pays its
    validation (3x slower).
    """
    message = decode_fast(payload)
    return message if message is not None else decode_reference(payload)


def decode_reference(payload: object) -> AnyMessage | CompactedMessage | UnreadableMessage:
    """:func:`decode_message_leniently` through pydantic's validation alone: the reference
    the fast decoder is tested against."""
    raw = payload if isinstance(payload, str) else repr(payload)
    if not isinstance(payload, str):
        return UnreadableMessage(kind=None, error="message_json is not text", raw_json=raw)
    try:
        items = json.loads(payload, object_hook=_decode_bytes)
    except (ValueError, binascii.Error, TypeError) as error:  # TypeError: {"__kcs_bytes__": 5}
        return UnreadableMessage(kind=None, error=f"message_json is not valid JSON: {error}", raw_json=raw)
    except RecursionError:
        return UnreadableMessage(kind=None, error="message_json is nested too deeply to read", raw_json=raw)
    if not isinstance(items, list) or len(items) != 1:
        count = len(items) if isinstance(items, list) else None
        what = f"{count} items" if count is not None else type(items).__name__
        return UnreadableMessage(
            kind=None, error=f"envelope must hold exactly one message, not {what}", raw_json=raw, data=items
        )
    item = items[0]
    kind = item.get("kind") if isinstance(item, Mapping) else None
    data = item.get("data") if isinstance(item, Mapping) else item
    known = {int(code) for code in MessageKind}
    if not isinstance(kind, int) or isinstance(kind, bool) or kind not in known:
        return UnreadableMessage(
            kind=kind if isinstance(kind, int) else None,
            error=f"unknown message kind {kind!r} (written by a newer zett-agent?)",
            raw_json=raw,
            data=data,
        )
    try:
        return _decode_item(item)  # type: ignore[no-any-return]
    except (ValueError, TypeError) as error:
        return UnreadableMessage(kind=kind, error=_short(error), raw_json=raw, data=data)
    except RecursionError:
        return UnreadableMessage(kind=kind, error="message data is nested too deeply to read", raw_json=raw)
