"""Provides the one way untrusted text reaches the screen: as plain, control-free Text.

Textual and Rich interpret markup in plain strings and pass ESC and C1 control
characters through to the terminal, so every string from the store is cleaned by
:mod:`zett_browser.text` and wrapped in a ``rich.text.Text`` built from the plain
string, never parsed as markup.
"""

from __future__ import annotations

from rich.text import Text

from ..text import clean, one_line

__all__ = ["clean", "one_line", "plain"]


def plain(value: object, style: str = "") -> Text:
    """Untrusted text as a ``Text``: never markup, never escapes, never links."""
    return Text(clean(value), style=style, no_wrap=False)
