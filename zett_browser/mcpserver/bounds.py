"""Provides the bounds of every answer of the MCP server: page sizes, text budgets, cursors.

An MCP client hands what a tool returns to a model, whose context is small and costly, so
no answer is unbounded: lists come in pages (``limit``, capped by :data:`MAX_LIMIT`) with
an opaque ``next_cursor`` token to continue, and text from the store is cut to a
per-message budget (:class:`Budget`) with a marker saying how much was left out.

Store text is data, never instructions: every string goes through
:func:`zett_browser.text.clean` (ESC, C0/C1 controls, bidi and invisible characters become
visible placeholders) before it is put in an answer; nothing is turned into markup.

Cursor tokens are URL-safe base64 of a small JSON object; what a client sends back is
checked field by field (:class:`CursorError` on anything else), and any value in it only
ever reaches the storage as a bound parameter.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..text import clean

#: Items per page when the caller does not say.
DEFAULT_LIMIT = 20
#: Most items per page.
MAX_LIMIT = 200
#: Characters of store text per message (or per listed item) when the caller does not say.
DEFAULT_MAX_CHARS = 4_000
#: Most characters of store text per message.
MAX_MAX_CHARS = 100_000
#: Fewest characters per message (room for the marker and a little text).
MIN_MAX_CHARS = 200
#: Longest cursor token accepted.
MAX_CURSOR = 4_096
#: Characters of a one-line field (ids, titles, labels, names, error lines).
LINE = 300


class CursorError(ValueError):
    """A cursor token that this server did not make (or made for another list)."""


def page_size(limit: int | None) -> int:
    """``limit`` held within 1 … :data:`MAX_LIMIT` (default :data:`DEFAULT_LIMIT`)."""
    if limit is None:
        return DEFAULT_LIMIT
    return max(1, min(int(limit), MAX_LIMIT))


def char_budget(max_chars: int | None) -> int:
    """``max_chars`` held within :data:`MIN_MAX_CHARS` … :data:`MAX_MAX_CHARS`."""
    if max_chars is None:
        return DEFAULT_MAX_CHARS
    return max(MIN_MAX_CHARS, min(int(max_chars), MAX_MAX_CHARS))


def marker(left_out: int) -> str:
    """What stands where text was cut."""
    return f" …[truncated: {left_out:,} more characters]"


def line(value: object, limit: int = LINE) -> str:
    """A short field (an id, a title, a name): cleaned, cut to ``limit`` with ``…``."""
    text = clean(value if isinstance(value, str) else str(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def reference(session_id: str) -> str | None:
    """How to name a session whose id :func:`line` changes (it holds controls): the id as an
    ASCII JSON string literal, which every tool's ``session`` and ``parent`` accept; else None."""
    if line(session_id, len(session_id) + 1) == session_id:
        return None
    return json.dumps(session_id, ensure_ascii=True)


def from_reference(typed: str) -> str:
    """A session argument as given, or the id a :func:`reference` literal stands for."""
    if len(typed) >= 2 and typed.startswith('"') and typed.endswith('"'):
        try:
            value = json.loads(typed)
        except ValueError:
            return typed
        if isinstance(value, str):
            return value
    return typed


def optional_line(value: object | None, limit: int = LINE) -> str | None:
    """:func:`line`, or None for None."""
    return None if value is None else line(value, limit)


@dataclass(slots=True)
class Budget:
    """Characters of store text one message may still use; each :meth:`take` spends some.

    ``truncated`` tells whether any text was cut. Raw text is cut before it is cleaned
    (cleaning only lengthens text), then the cleaned text is cut again to what is left.
    """

    left: int
    truncated: bool = False

    def take(self, text: str) -> str:
        """``text`` cleaned and cut to what is left of the budget, with a marker when cut."""
        if not text:
            return ""
        room = max(self.left, 0)
        if len(text) <= room:
            shown = clean(text)
            if len(shown) <= room:
                self.left -= len(shown)
                return shown
        else:
            shown = clean(text[:room])
        kept = shown[:room]
        self.truncated = True
        self.left = 0
        return kept + marker(len(text) - len(kept))


def _encode_value(value: Any) -> Any:
    """A keyset value as JSON: the storage's sort keys are text, numbers, times or bytes."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, bytes | bytearray | memoryview):
        return {"bytes": base64.b64encode(bytes(value)).decode("ascii")}
    raise CursorError(f"cannot page on a {type(value).__name__} value")


def _decode_value(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        ((kind, text),) = value.items()
        if kind == "datetime" and isinstance(text, str):
            return datetime.fromisoformat(text)
        if kind == "bytes" and isinstance(text, str):
            return base64.b64decode(text, validate=True)
    raise CursorError("not a cursor of this server")


def make_cursor(kind: str, **fields: Any) -> str:
    """An opaque token for the next page of list ``kind`` (its fields: JSON values, times, bytes)."""
    document = {"k": kind, **{name: _encode_value(value) for name, value in fields.items()}}
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=True)
    return base64.urlsafe_b64encode(text.encode("ascii")).decode("ascii").rstrip("=")


def read_cursor(token: str, kind: str, names: tuple[str, ...]) -> dict[str, Any]:
    """The fields of a token :func:`make_cursor` made for list ``kind``.

    Raises:
        CursorError: the token is too long, malformed, or made for another list.
    """
    if len(token) > MAX_CURSOR:
        raise CursorError("cursor too long: pass back the next_cursor of the previous page as it was")
    try:
        padded = token + "=" * (-len(token) % 4)
        document = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, UnicodeError, binascii.Error):
        raise CursorError("not a cursor of this server: pass back next_cursor as it was") from None
    if not isinstance(document, dict) or document.get("k") != kind or set(document) != {"k", *names}:
        raise CursorError(f"not a cursor of this list ({kind}): pass back its own next_cursor")
    try:
        return {name: _decode_value(document[name]) for name in names}
    except (ValueError, binascii.Error):
        raise CursorError("not a cursor of this server") from None


def cursor_int(fields: dict[str, Any], name: str, *, low: int = 0) -> int:
    """A whole-number field of a cursor (``low`` or more)."""
    value = fields[name]
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise CursorError("not a cursor of this server")
    return value


def cursor_text(fields: dict[str, Any], name: str) -> str:
    """A text field of a cursor."""
    value = fields[name]
    if not isinstance(value, str):
        raise CursorError("not a cursor of this server")
    return value


__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_MAX_CHARS",
    "LINE",
    "MAX_LIMIT",
    "MAX_MAX_CHARS",
    "Budget",
    "CursorError",
    "char_budget",
    "from_reference",
    "cursor_int",
    "cursor_text",
    "line",
    "make_cursor",
    "marker",
    "optional_line",
    "page_size",
    "read_cursor",
    "reference",
]
