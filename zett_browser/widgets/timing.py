"""Provides the timing view's pane: one line per step, child and stall, painted with the line API.

The screen hands it the laid-out lines of one page (:mod:`zett_browser.views.timing`); each is
one terminal line, rendered to a strip only when it is painted (a dict per width), so a
page of thousands of steps opens at the cost of the screen's height. The cursor picks a
line: ``enter`` on a step shows it in the Raw Log, on a child opens that session.
"""

from __future__ import annotations

from datetime import datetime

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from ..keymap import bindings
from ..views.formatting import human_duration
from ..views.timing import Child, Line, Stall, Step, bar_cells, split_cells
from .linestyle import LineView
from .render import style_of
from .safe import one_line

#: How each part of a step's bar is drawn: a character (legible without colour) and a role.
PARTS = (("▓", "kind.system"), ("█", "kind.assistant"), ("░", "timestamp"), ("▒", "kind.tool"))
PART_NAMES = ("thinking", "writing", "waiting", "tools")
#: The rest of a bar's track (the scale's unused part).
TRACK = "·"
#: Columns before the bar: ``#sequence`` and the start time.
LEFT = 18


def bar_width(width: int) -> int:
    """The bar's cells at a pane width: a third of it, 10 to 48."""
    return max(10, min(48, width // 3))


def legend() -> Text:
    """What the bar characters mean (the screen shows it above the pane)."""
    text = Text()
    for (char, role), name in zip(PARTS, PART_NAMES, strict=True):
        text.append(char * 2, style=style_of(role))
        text.append(f" {name}  ")
    text.append("↳ child  ‖ stall ≥ 60 s  · log scale, full bar = 10 m · times UTC", style="dim")
    return text


def _time(moment: datetime | None) -> str:
    return moment.strftime("%H:%M:%S") if moment is not None else "--:--:--"


def _step_text(step: Step, width: int) -> Text:
    bars = bar_width(width)
    text = Text(f"#{step.sequence if step.sequence is not None else '?':<6} {_time(step.started_at)}  ", style="bold")
    parts = [step.think_ns, step.write_ns, step.wait_ns, step.tool_ns]
    cells = split_cells(parts, bar_cells(step.total_ns, bars))
    for (char, role), count in zip(PARTS, cells, strict=True):
        text.append(char * count, style=style_of(role))
    text.append(TRACK * (bars - sum(cells)), style="dim")
    text.append(f" {human_duration(step.total_ns) or '0 ms':>8} ", style="bold")
    named = zip(PART_NAMES[:3], parts[:3], strict=True)
    details = [f"{name} {human_duration(value)}" for name, value in named if value]
    if step.tools:
        names = one_line(", ".join(step.tool_names), 40)
        ended = ", ".join(f"{count} {outcome}" for outcome, count in step.outcomes)
        line = f"tools {human_duration(step.tool_ns) or '0 ms'} ×{step.tools} {names}".rstrip()
        details.append(f"{line} ({ended})" if ended else line)
    text.append(" · ".join(details), style="dim")
    if step.problems:
        text.append(f"  ⚠ {one_line(step.problems[0], 60)}", style=style_of("problem"))
    return text


def _child_text(child: Child, width: int, labels: dict[str, str]) -> Text:
    bars = bar_width(width)
    span = child.span
    text = Text("  ↳ child".ljust(LEFT), style=style_of("agent"))
    cells = bar_cells(child.wall_ns, bars)
    text.append("━" * cells, style=style_of("agent"))
    text.append(TRACK * (bars - cells), style="dim")
    text.append(f" {human_duration(child.wall_ns) or '0 ms':>8} ", style="bold")
    label = labels.get(span.session_id) or span.title or span.agent_name or ""
    text.append(one_line(span.session_id[:8], 8), style=style_of("id"))
    if label:
        text.append("  ")
        text.append(one_line(label, 80))
    return text


def _stall_text(stall: Stall) -> Text:
    where = f" before #{stall.before_sequence}" if stall.before_sequence is not None else ""
    return Text(f"  ‖ stall: idle {human_duration(stall.gap_ns)}{where}", style=style_of("problem"))


def line_text(line: Line, width: int, labels: dict[str, str]) -> Text:
    """One line of the pane as Text (every string from the store cleaned)."""
    if isinstance(line, Step):
        return _step_text(line, width)
    if isinstance(line, Child):
        return _child_text(line, width, labels)
    return _stall_text(line)


class TimingView(LineView, can_focus=True):
    """The steps of one page of a session, with nested children and stalls."""

    BINDINGS = bindings("timingview")
    COMPONENT_CLASSES = {"timing--cursor"}
    DEFAULT_CSS = """
    TimingView { background: $surface; overflow-x: hidden; height: 1fr; }
    TimingView > .timing--cursor { background: $foreground 15%; }
    """

    class StepChosen(Message):
        """The user asked to see a step in the Raw Log."""

        def __init__(self, sequence: int) -> None:
            super().__init__()
            self.sequence = sequence

    class ChildChosen(Message):
        """The user asked to open a delegated session."""

        def __init__(self, session_id: str) -> None:
            super().__init__()
            self.session_id = session_id

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.lines: list[Line] = []
        self.labels: dict[str, str] = {}
        self.cursor = 0
        self.empty_text = "Reading the timing…"
        self._strips: dict[int, Strip] = {}
        self._width = 0

    def show_lines(self, lines: list[Line], labels: dict[str, str] | None = None, *, empty_text: str = "") -> None:
        """Replace the page's lines; the cursor goes to the top."""
        self.lines = lines
        self.labels = dict(labels or {})
        self.empty_text = empty_text or "No assistant steps here."
        self.cursor = 0
        self._strips.clear()
        self.virtual_size = Size(self.size.width, max(1, len(lines)))
        self.scroll_to(y=0, animate=False)
        self.refresh()

    @property
    def current(self) -> Line | None:
        return self.lines[self.cursor] if self.lines else None

    def render_line(self, y: int) -> Strip:
        index = int(self.scroll_y) + y
        width = self.size.width
        if width != self._width:
            self._strips.clear()
            self._width = width
        if not self.lines:
            if index == 0:
                return Strip([Segment(self.empty_text, Style(dim=True, italic=True))]).crop_extend(0, width, None)
            return Strip.blank(width, self.line_style)
        if index >= len(self.lines):
            return Strip.blank(width, self.line_style)
        strip = self._strips.get(index)
        if strip is None:
            text = line_text(self.lines[index], width, self.labels)
            text.no_wrap = True
            text.overflow = "ellipsis"
            text.truncate(width, overflow="ellipsis")
            strip = Strip(list(text.render(self.app.console))).apply_style(self.line_style)
            self._strips[index] = strip
        if index == self.cursor:
            strip = strip.apply_style(self.cursor_style("timing--cursor"))
        return strip.crop_extend(0, width, self.line_style)

    def action_cursor(self, step: int) -> None:
        if not self.lines:
            return
        self.cursor = max(0, min(len(self.lines) - 1, self.cursor + step))
        height = self.scrollable_content_region.height or self.size.height
        if self.cursor < self.scroll_y:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= self.scroll_y + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False)
        self.refresh()

    def action_choose(self) -> None:
        line = self.current
        if isinstance(line, Step) and line.sequence is not None:
            self.post_message(self.StepChosen(line.sequence))
        elif isinstance(line, Child):
            self.post_message(self.ChildChosen(line.span.session_id))
