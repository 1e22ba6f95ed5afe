"""Provides the one cleaning path for untrusted text, free of any UI toolkit.

Message content, titles, ids, tool names, arguments, metadata, tags, store paths and
error messages come from models, tools, other programs or the user's file system.
Terminals act on ESC and C1 control characters, so every such string goes through
:func:`clean` (control characters become visible placeholders) before it is shown in
the app, printed by the CLI, or exported. The widgets wrap the result in Rich ``Text``
built from the plain string (``widgets/safe.py``), never parsed as markup.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def _placeholder(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code == 0x1B:
        return "␛"
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␀ ␁ ... ␟
    if code == 0x7F:
        return "␡"
    return f"\\u{code:04x}"


def clean(value: object) -> str:
    """A string with every control character (but newline and tab) made visible."""
    text = value if isinstance(value, str) else str(value)
    return _CONTROL.sub(_placeholder, text).replace("\t", "    ")


def one_line(value: object, limit: int = 80) -> str:
    """A cleaned single-line preview, cut to ``limit`` characters."""
    text = clean(value).replace("\n", " ⏎ ")
    return text if len(text) <= limit else text[: limit - 1] + "…"
