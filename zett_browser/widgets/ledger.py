"""Provides the ledger view's widgets: the context curve and the ledger's row text.

The curve is drawn from a :class:`~zett_browser.views.ledger.Curve` (computed from columns the
storage aggregated in SQL), one character a column, so its cost is the terminal's width,
not the session's length. Every string here is built from numbers; none comes from the store.
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from ..model.compaction import SnapshotMeta
from ..views.ledger import Curve, LedgerRow, layout, row_cells
from .render import style_of

#: Text rows of the plot, and the columns left of it for the axis labels.
PLOT_ROWS = 6
GUTTER = 9


def ledger_line(meta: SnapshotMeta, row: LedgerRow | None) -> Text:
    """One ledger line; before its facts are read, the version and boundary only."""
    if row is None:
        cells = [f"v{meta.version}", f"#{meta.compacted_through_sequence:,}"] + ["…"] * 7
        return Text(layout(cells), style="dim")
    text = Text(layout(row_cells(row)))
    text.stylize(style_of("boundary"), 0, len(f"v{row.version}"))
    if meta.problems or row.summary_tokens is None:
        text.append("  unreadable summary", style=style_of("problem"))
    return text


class CurveView(Widget):
    """Recorded input_tokens per assistant step, with the snapshot boundaries marked below."""

    DEFAULT_CSS = """
    CurveView { height: 10; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.curve: Curve | None = None
        self.first = 0
        self.last = 0
        self.note = ""

    def plot_width(self) -> int:
        """Columns available for the plot itself."""
        return max(10, (self.content_region.width or self.size.width or 80) - GUTTER)

    def show(self, curve: Curve | None, *, first: int, last: int, note: str = "") -> None:
        self.curve, self.first, self.last, self.note = curve, first, last, note
        self.refresh()

    def render(self) -> Text:
        curve = self.curve
        text = Text()
        text.append("Context curve", style="bold")
        text.append(" · recorded input_tokens per step (column peak) · │ boundary\n", style="dim")
        if curve is None or not curve.top:
            text.append(self.note or "No step of this session recorded input_tokens.", style="dim")
            return text
        for number, row in enumerate(curve.rows):
            bottom = f"{curve.base:,} ┤"  # 0, or where a curve of high peaks starts (said below)
            label = f"{curve.top:,} ┤" if number == 0 else (bottom if number == len(curve.rows) - 1 else "│")
            text.append(label.rjust(GUTTER - 1) + " ", style="dim")
            text.append(row, style=style_of("tool.result.ok"))
            text.append("\n")
        text.append(" " * GUTTER)
        text.append(curve.marks, style=style_of("boundary"))
        text.append("\n")
        width = len(curve.marks)
        left, right = f"#{self.first:,}", f"#{self.last:,}"
        text.append(" " * GUTTER + left + " " * max(1, width - len(left) - len(right)) + right, style="dim")
        if curve.base:
            text.append(f"\nThe axis starts at {curve.base:,} tokens, not 0: every peak is above it.", style="dim")
        if self.note:
            text.append(f"\n{self.note}", style="dim")
        return text
