"""Provides the list of search hits: a virtual, line-API view that reads more as it scrolls.

Each hit is two lines (where it is; the snippet) painted on demand by ``render_line``, so
thousands of hits scroll at the cost of what is on screen. When the lines near the end
are painted, the list asks for the next page (:class:`HitList.MoreWanted`) once. The
snippet is plain cleaned text; the matches are styled at their spans, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from ..keymap import bindings
from ..model.search import SearchHit
from .linestyle import LineView
from .render import style_of
from .safe import clean, one_line

LINES_PER_HIT = 2
#: Ask for the next page when a line this many hits before the end is painted.
MORE_AHEAD = 20
MATCH_STYLE = "bold black on yellow"


def hit_head(hit: SearchHit) -> Text:
    """Where a hit is: session label, agent, ``#seq``, kind and time."""
    head = Text(no_wrap=True)
    head.append(one_line(hit.label, 60), style="bold")
    if hit.agent:
        head.append(f"  {one_line(hit.agent, 30)}", style="cyan")
    head.append(f"  #{hit.sequence}", style="green")
    head.append(f"  {one_line(hit.kind, 20)}", style="magenta")
    if hit.time is not None:
        head.append(f"  {hit.time.strftime('%Y-%m-%d %H:%M')}", style="dim")
    if hit.store:  # several stores open: the one it comes from
        head.append(f"  @{one_line(hit.store, 60)}", style=style_of("store"))
    return head


def hit_snippet(hit: SearchHit) -> Text:
    """The snippet with each match styled at its span (spans dropped if cleaning moved text)."""
    text = clean(hit.snippet)
    snippet = Text("  " + text, no_wrap=True)
    if text == hit.snippet:
        for start, end in hit.spans:
            if 0 <= start < end <= len(text):
                snippet.stylize(MATCH_STYLE, start + 2, end + 2)
    return snippet


class HitList(LineView, can_focus=True):
    """Pages of hits, one cursor, and the next page asked for near the end."""

    BINDINGS = bindings("hits")
    COMPONENT_CLASSES = {"hits--cursor", "hits--cursor-blurred"}
    DEFAULT_CSS = """
    HitList { background: $surface; overflow-x: hidden; scrollbar-gutter: stable; }
    HitList > .hits--cursor { background: $accent 30%; }
    HitList > .hits--cursor-blurred { background: $foreground 7%; }
    """

    class MoreWanted(Message):
        """The reader is near the end of the loaded hits and more exist."""

        def __init__(self, cursor: int) -> None:
            super().__init__()
            self.cursor = cursor

    class Chosen(Message):
        """The user chose a hit (enter or a click)."""

        def __init__(self, hit: SearchHit) -> None:
            super().__init__()
            self.hit = hit

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.hits: list[SearchHit] = []
        self.next_cursor: int | None = None
        self.cursor = 0
        self.empty_text = ""
        self._asked: int | None = None
        self._cache: dict[int, tuple[Strip, Strip]] = {}
        self._width = 0

    def show(self, hits: Sequence[SearchHit], next_cursor: int | None, *, empty_text: str = "No hits.") -> None:
        """Replace the hits (a new query)."""
        self.hits = list(hits)
        self.next_cursor = next_cursor
        self.empty_text = empty_text
        self.cursor = 0
        self._asked = None
        self._cache.clear()
        self._resize()
        self.scroll_to(y=0, animate=False)
        self.refresh()

    def extend(self, hits: Sequence[SearchHit], next_cursor: int | None) -> None:
        """Append the next page."""
        self.hits.extend(hits)
        self.next_cursor = next_cursor
        self._resize()
        self.refresh()

    @property
    def current(self) -> SearchHit | None:
        return self.hits[self.cursor] if self.hits else None

    def _resize(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width or 80, max(1, len(self.hits) * LINES_PER_HIT))

    def on_resize(self) -> None:
        self._cache.clear()
        self._resize()

    def _strips(self, index: int, width: int) -> tuple[Strip, Strip]:
        if width != self._width:
            self._cache.clear()
            self._width = width
        cached = self._cache.get(index)
        if cached is None:
            hit = self.hits[index]
            console = self.app.console
            lines = []
            for text in (hit_head(hit), hit_snippet(hit)):
                text.truncate(width, overflow="ellipsis")
                lines.append(Strip(list(text.render(console, end=""))))
            cached = (lines[0], lines[1])
            self._cache[index] = cached
        return cached

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        line = scroll_y + y
        width = self.scrollable_content_region.width or self.size.width
        if not self.hits:
            if line == 0 and self.empty_text:
                return Strip([Segment(self.empty_text, Style(dim=True, italic=True))]).crop_extend(
                    0, width, self.line_style
                )
            return Strip.blank(width, self.line_style)
        index = line // LINES_PER_HIT
        if index >= len(self.hits):
            return Strip.blank(width, self.line_style)
        self._want_more(index)
        strip = self._strips(index, width)[line % LINES_PER_HIT]
        fill = self.line_style
        if index == self.cursor:  # the whole width of both lines, so the cursor reads as one block
            part = "hits--cursor" if self.has_focus else "hits--cursor-blurred"
            cursor = self.cursor_style(part)
            strip, fill = strip.apply_style(cursor), fill + cursor
        return strip.crop_extend(scroll_x, scroll_x + width, fill)

    def _want_more(self, index: int) -> None:
        cursor = self.next_cursor
        if cursor is not None and index >= len(self.hits) - MORE_AHEAD and self._asked != cursor:
            self._asked = cursor
            self.post_message(self.MoreWanted(cursor))

    def _move(self, index: int) -> None:
        if not self.hits:
            return
        self.cursor = max(0, min(len(self.hits) - 1, index))
        top = self.cursor * LINES_PER_HIT
        height = self.scrollable_content_region.height or self.size.height
        if top < self.scroll_y:
            self.scroll_to(y=top, animate=False)
        elif top + LINES_PER_HIT > self.scroll_y + height:
            self.scroll_to(y=top + LINES_PER_HIT - height, animate=False)
        self._want_more(self.cursor)
        self.refresh()

    def action_cursor(self, step: int) -> None:
        self._move(self.cursor + step)

    def action_page(self, direction: int) -> None:
        height = self.scrollable_content_region.height or self.size.height
        self._move(self.cursor + direction * max(1, height // LINES_PER_HIT))

    def action_edge(self, direction: int) -> None:
        self._move(0 if direction < 0 else len(self.hits) - 1)

    def action_choose(self) -> None:
        if self.current is not None:
            self.post_message(self.Chosen(self.current))

    def on_click(self, event: object) -> None:
        y = getattr(event, "y", None)
        if isinstance(y, int) and self.hits:
            index = (int(self.scroll_y) + y) // LINES_PER_HIT
            if index < len(self.hits):
                self._move(index)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
