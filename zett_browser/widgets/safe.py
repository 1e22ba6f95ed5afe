"""Provides the one way untrusted text reaches the screen: as plain, control-free Text.

Message content, titles, tool names, arguments, metadata and tags come from models and
tools. Textual and Rich interpret markup in plain strings and pass ESC and C1 control
characters through to the terminal, so every such string goes through :func:`clean`
(control characters become visible placeholders) and is wrapped in a ``rich.text.Text``
built from the plain string, never parsed as markup.
"""

from __future__ import annotations

import re

from rich.text import Text

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


def plain(value: object, style: str = "") -> Text:
    """Untrusted text as a ``Text``: never markup, never escapes, never links."""
    return Text(clean(value), style=style, no_wrap=False)


def one_line(value: object, limit: int = 80) -> str:
    """A cleaned single-line preview, cut to ``limit`` characters."""
    text = clean(value).replace("\n", " ⏎ ")
    return text if len(text) <= limit else text[: limit - 1] + "…"
