"""Provides the compare view's pane: two runs' aligned steps side by side, painted with the line API.

The screen appends the rows as the alignment streams them (:meth:`CompareView.add_rows`),
kept as their two sides' text only (:class:`~zett_browser.views.compare_text.ShownRow`); each
is one terminal line — run A's step, a mark, run B's step — rendered to a strip only
when painted (kept per width), so the pane costs the screen's height whatever the runs'
length. The first divergence is highlighted; ``n``/``N`` move to the next/previous row
where a stretch of differences starts.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from ..keymap import bindings
from ..views.compare_align import Row, RowStatus
from ..views.compare_text import MARKS, ShownRow, shown
from .linestyle import LineView
from .render import style_of

#: The role (render.py) each status is drawn with, and the mark's.
ROLES = {
    RowStatus.SAME: "kind.assistant",
    RowStatus.CHANGED: "problem",
    RowStatus.LEFT: "kind.tool",
    RowStatus.RIGHT: "kind.tool",
}


def row_text(row: ShownRow, width: int, *, first: bool) -> Text:
    """A row in ``width`` cells: A's step | mark | B's step (every string already cleaned)."""
    half = max(8, (width - 3) // 2)
    text = Text(no_wrap=True, overflow="ellipsis")
    dim = row.status is RowStatus.SAME
    for number, side in enumerate((row.left, row.right)):
        cell = Text(side or "·", style="dim" if dim or not side else "")
        cell.truncate(half, overflow="ellipsis", pad=True)
        text.append_text(cell)
        if number == 0:
            mark = MARKS[row.status.value]
            role = style_of(ROLES[row.status])
            text.append(f" {mark} ", style=role if dim else f"{role} bold".strip())
    if first:
        text.stylize(Style(reverse=True))
    return text


class CompareView(LineView, can_focus=True):
    """The aligned rows of two runs, one per line, with a cursor."""

    class ChildrenChosen(Message):
        """The user asked to compare the two sessions a row's calls delegated to."""

        def __init__(self, left: str, right: str) -> None:
            super().__init__()
            self.left = left
            self.right = right

    BINDINGS = bindings("compareview")
    COMPONENT_CLASSES = {"compare--cursor"}
    DEFAULT_CSS = """
    CompareView { background: $surface; overflow-x: hidden; height: 1fr; }
    CompareView > .compare--cursor { background: $foreground 15%; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        #: The rows as shown (their text, not their steps: bounded per row).
        self.rows: list[ShownRow] = []
        #: Rows where a stretch of differences starts, in order.
        self.starts: list[int] = []
        self.first: int | None = None
        self.cursor = 0
        self.empty_text = "Aligning the two runs…"
        self._strips: dict[int, Strip] = {}
        self._width = 0
        self._diverged = False

    def add_rows(self, rows: list[Row]) -> None:
        """Append rows as the alignment hands them out."""
        for row in rows:
            if row.diverges and not self._diverged:
                self.starts.append(row.index)
                if self.first is None:
                    self.first = row.index
            self._diverged = row.diverges
        self.rows.extend(map(shown, rows))
        self.virtual_size = Size(self.size.width, max(1, len(self.rows)))
        self.refresh()

    def finish(self, empty_text: str) -> None:
        """The alignment is over: say so when it had no rows."""
        self.empty_text = empty_text
        self.refresh()

    @property
    def current(self) -> ShownRow | None:
        return self.rows[self.cursor] if self.rows else None

    def render_line(self, y: int) -> Strip:
        index = int(self.scroll_y) + y
        width = self.size.width
        if width != self._width:
            self._strips.clear()
            self._width = width
        if not self.rows:
            if index == 0:
                return Strip([Segment(self.empty_text, Style(dim=True, italic=True))]).crop_extend(0, width, None)
            return Strip.blank(width, self.line_style)
        if index >= len(self.rows):
            return Strip.blank(width, self.line_style)
        strip = self._strips.get(index)
        if strip is None:
            text = row_text(self.rows[index], width, first=index == self.first)
            text.truncate(width, overflow="ellipsis")
            strip = Strip(list(text.render(self.app.console))).apply_style(self.line_style)
            self._strips[index] = strip
        if index == self.cursor:
            strip = strip.apply_style(self.cursor_style("compare--cursor"))
        return strip.crop_extend(0, width, self.line_style)

    def move_to(self, index: int, *, centre: bool = False) -> None:
        """Put the cursor on row ``index`` and scroll it into view (``centre``: a third down)."""
        if not self.rows:
            return
        self.cursor = max(0, min(len(self.rows) - 1, index))
        height = self.scrollable_content_region.height or self.size.height
        if centre:
            self.scroll_to(y=max(0, self.cursor - height // 3), animate=False)
        elif self.cursor < self.scroll_y:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= self.scroll_y + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False)
        self.refresh()

    def action_cursor(self, step: int) -> None:
        self.move_to(self.cursor + step)

    def action_page(self, step: int) -> None:
        height = self.scrollable_content_region.height or self.size.height
        self.move_to(self.cursor + step * max(1, height - 1))

    def action_edge(self, step: int) -> None:
        self.move_to(0 if step < 0 else len(self.rows) - 1)

    def action_divergence(self, step: int) -> None:
        """``n``/``N``: the next/previous row where a stretch of differences starts."""
        if not self.starts:
            self.notify("The runs do not diverge (so far)", markup=False, timeout=2)
            return
        if step > 0:
            place = bisect_right(self.starts, self.cursor)
            target = self.starts[place] if place < len(self.starts) else None
        else:
            place = bisect_left(self.starts, self.cursor) - 1
            target = self.starts[place] if place >= 0 else None
        if target is None:
            self.notify("No more divergences that way", markup=False, timeout=2)
            return
        self.move_to(target, centre=True)

    def action_children(self) -> None:
        """``enter``: compare the sessions both sides of this row delegated to."""
        row = self.current
        if row is None or None in row.children:
            self.notify("Enter compares two delegated sessions: on a row where both runs delegated", markup=False)
            return
        left, right = row.children
        self.post_message(self.ChildrenChosen(left or "", right or ""))
