"""Provides :class:`LineView`: a line-API scroll view whose styles are read once per render pass,
and whose lines carry the widget's own colours under whatever the segments do not set.

``Widget.rich_style`` walks every ancestor's styles each time it is read, and the line
views read it (and a component's style for the cursor) for every line they paint: on a
160x45 screen that was 80-100 µs a line, a third of a followed Raw Log's frame. Within
one ``render_lines`` call the styles cannot change, so they are read once per call.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from textual.geometry import Region
from textual.scroll_view import ScrollView
from textual.strip import Strip


class LineView(ScrollView):
    """A scroll view painted line by line (``render_line``): :attr:`line_style` and
    :meth:`cursor_style` are read once per ``render_lines`` call (outside one, fresh).

    A base class rather than a mixin: Textual takes a widget's default CSS from its
    first base only, so a mixin listed first would drop ScrollView's.
    """

    _pass: dict[str, Style] | None = None
    #: The view puts its colours under its lines itself (:meth:`themed`, on the strips it
    #: keeps, so the work is cached with them) instead of on every line of every frame.
    THEMES_ITS_LINES = False

    def render_lines(self, crop: Region) -> list[Strip]:
        self._pass = {}
        try:
            lines = super().render_lines(crop)
            if self.THEMES_ITS_LINES:
                return lines
            # The widget's colour and background under every segment that sets none: left
            # unset, a terminal paints its own default colours there (dark text boxes on a
            # light theme such as catppuccin-latte).
            base = self.line_style
            return [strip.apply_style(base) for strip in lines]
        finally:
            self._pass = None

    def themed(self, strip: Strip) -> Strip:
        """``strip`` with the widget's colours under what its segments leave unset; cached on
        ``strip`` (a kept line costs this once per theme, not once per frame)."""
        return strip.apply_style(self.line_style)

    @property
    def line_style(self) -> Style:
        """The widget's own rich style (background and colour)."""
        return self._read("", lambda: self.rich_style)

    def cursor_style(self, part: str) -> Style:
        """A background-only style of the component class ``part`` (a cursor's row)."""
        return self._read(part, lambda: Style(bgcolor=self.get_component_rich_style(part).bgcolor))

    def _read(self, key: str, make: Callable[[], Style]) -> Style:
        cache = self._pass
        if cache is None:
            return make()
        style = cache.get(key)
        if style is None:
            style = cache[key] = make()
        return style
