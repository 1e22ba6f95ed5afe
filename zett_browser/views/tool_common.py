"""Provides what the structured-tool renderers share: bounded JSON decoding and short list items.

Toolkit-free helpers for :mod:`zett_browser.views.tool_asks`, :mod:`~.tool_todos` and
:mod:`~.tool_mcp`. Decoding gives up (``None``) rather than parse megabytes or raise, so the
caller falls back to the generic rendering, which previews huge text.
"""

from __future__ import annotations

import json
from typing import Any

from ..text import clean
from .blocks import Block, FormatOptions, block

#: A tool result longer than this is not decoded: the generic rendering previews it instead.
PARSE_LIMIT = 500_000
#: A list item (an option, a todo) shows this many characters unless "show all" is on.
ITEM_LIMIT = 500
#: A list shows this many items unless "show all" is on.
LIST_LIMIT = 100


def decoded(content: Any) -> Any:
    """A string result's JSON value; ``None`` for parts lists, non-JSON, or text past :data:`PARSE_LIMIT`."""
    if not isinstance(content, str) or len(content) > PARSE_LIMIT:
        return None
    stripped = content.lstrip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        return json.loads(content)
    except (ValueError, RecursionError):
        return None


def text_of(value: Any) -> str | None:
    """``value`` when it is a string, else ``None``."""
    return value if isinstance(value, str) else None


def item(text: str, options: FormatOptions) -> str:
    """One list item as cleaned text on one line: long items cut (with "…") unless show-all."""
    if not options.show_all and len(text) > ITEM_LIMIT:
        text = text[:ITEM_LIMIT] + "…"
    return clean(text.replace("\r\n", "\n").replace("\n", " ⏎ "))


def listed(lines: list[Block], options: FormatOptions, role: str) -> list[Block]:
    """``lines`` whole, or the first :data:`LIST_LIMIT` and a note of how many more."""
    if options.show_all or len(lines) <= LIST_LIMIT:
        return lines
    rest = len(lines) - LIST_LIMIT
    return [
        *lines[:LIST_LIMIT],
        block(f"… {rest:,} more — press enter to show all", "note" if role == "body" else role),
    ]


def compact_json(value: Any) -> str:
    """A value as one line of JSON (what an unexpected payload shows as)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)


def pretty_json(value: Any) -> str:
    """A value as indented JSON, as the generic rendering shows call arguments."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=repr)
