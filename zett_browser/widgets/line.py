"""Provides a one-line text widget that repaints without laying the screen out.

``Static.update`` asks for a layout of the whole screen each time (its content may
change its size). The breadcrumb and the page status are one line whose size never
depends on their text, and they change at every page turn, so they only repaint.
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget


class TextLine(Widget):
    """One line of (already safe) rich Text, cut with an ellipsis when too long."""

    DEFAULT_CSS = """
    TextLine { height: 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._text = Text()

    def show(self, text: Text) -> None:
        """Replace the line's text and repaint it."""
        self._text = text
        self.refresh()

    @property
    def cells(self) -> int:
        """The cells the line's text takes, uncut."""
        return self._text.cell_len

    def render(self) -> Text:
        line = self._text.copy()
        line.no_wrap = True
        line.overflow = "ellipsis"
        return line
