"""Provides the Raw Log pane: a virtual, line-API view of one page of records.

Only the page's records are held; they are rendered to wrapped lines once per width and
painted line by line (``render_line``). A new page wraps what the screen shows first and
the rest right after that frame, and huge bodies show bounded previews, so a page turn
costs what is on screen. The cursor moves record by record; the view announces what the user asks for
with messages and never reads the store itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.strip import Strip

from ..keymap import bindings
from ..model import RawMessageRecord
from ..views.requests import RequestContext, RequestTracker
from ..views.time_travel import Version, in_force
from .linestyle import LineView
from .pagefinish import FINISH_CHUNK, PageFinisher
from .pagelayout import PageLayout, RecordWraps
from .placement import Placement
from .rawlog_messages import CallJump, ChildRequested, ContextRequested, RecordOpened
from .textual_compat import set_virtual_size
from .typeahead import TypeAhead

_DIM, CURSOR, CURSOR_BLURRED = Style(dim=True), "rawlog--cursor", "rawlog--cursor-blurred"


class RawLogView(LineView, can_focus=True):
    """One page of Raw Log records, with compaction boundary markers."""

    # Not in the footer (``?`` and the command palette list them): a footer that changed
    # with focus would be rebuilt at every focus move, which costs more than a page turn.
    BINDINGS = bindings("rawlog")
    THEMES_ITS_LINES = True
    COMPONENT_CLASSES = {"rawlog--cursor", "rawlog--cursor-blurred"}

    DEFAULT_CSS = """
    RawLogView { background: $surface; overflow-x: hidden; scrollbar-gutter: stable; }
    RawLogView > .rawlog--cursor { background: $foreground 15%; }
    RawLogView > .rawlog--cursor-blurred { background: $foreground 7%; }
    """

    # Defined in .rawlog_messages (namespace "raw_log_view": handlers stay on_raw_log_view_…).
    RecordOpened: TypeAlias = RecordOpened
    CallJump: TypeAlias = CallJump
    ContextRequested: TypeAlias = ContextRequested
    ChildRequested: TypeAlias = ChildRequested

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.records: list[RawMessageRecord] = []
        self.boundaries: dict[int, str] = {}
        self.compacted_through = 0
        #: The session's snapshots: rows the one in force at the cursor covers are dimmed.
        self.snapshots: Sequence[Version] = ()
        self._covered: tuple[int, int] = (-1, 0)
        self.cursor = 0
        self.expanded: set[int] = set()
        self.empty_text = "Select a session in the tree."
        self.preface: list[Text] = []
        #: Already safe lines shown under a record (delegation cards), by sequence.
        self.cards: dict[int, list[Text]] = {}
        #: The page's lines, which record owns each, and how far it is wrapped (see :mod:`.pagelayout`).
        self._layout = PageLayout(self._record_lines)
        self._width = 0
        #: Wraps the rest of the page after its first frame (see :mod:`.pagefinish`).
        self._finisher = PageFinisher(
            self._layout, render_head=self._render_head, later=self.call_later, done=self._finished
        )
        #: Lines wrapped when the page was first painted (below them it showed blanks).
        self._painted = 0
        #: Where the cursor's message goes when the page is placed (see :mod:`.placement`).
        self._placement = Placement()
        #: Keys typed while another page is read wait for it (see :mod:`.typeahead`).
        self._typeahead = TypeAhead(self._replay, self.set_timer)
        #: Each record's wrapped lines while it is on the page (see :class:`.pagelayout.RecordWraps`).
        self._wraps = RecordWraps()
        #: What the rows around each record tell (request starts, repeated system rows…).
        self.tracker = RequestTracker()
        self.contexts: list[RequestContext] = []

    def show_page(
        self,
        records: Sequence[RawMessageRecord],
        *,
        boundaries: dict[int, str] | None = None,
        compacted_through: int = 0,
        select_sequence: int | None = None,
        empty_text: str = "No messages.",
        preface: Sequence[Text] = (),
        snapshots: Sequence[Version] = (),
        contiguous: bool = False,
        upper: bool = False,
        summary_first: bool = False,
    ) -> None:
        """Replace the page; put the cursor on ``select_sequence`` when it is on the page.

        ``upper``: the page was jumped to, its cursor's message shows a quarter down the view.
        ``summary_first`` (the model view opened): the preface shows at the top; the cursor
        stays on its message when that shows under it, else it goes to the last one that does.

        ``preface`` (already safe text) is shown above the first record, never selected:
        the model view's summary. ``contiguous``: the page holds every row of its range (the
        Raw Log, not the filtered model view), so repeated system rows can be counted.
        """
        self.records = list(records)
        self.contexts = self.tracker.contexts(self.records, contiguous=contiguous)
        self.preface = list(preface)
        self.cards = {}
        self.boundaries = dict(boundaries or {})
        self.compacted_through = compacted_through
        self.snapshots = snapshots
        self._covered = (-1, 0)
        self.empty_text = empty_text
        self.cursor = 0
        if select_sequence is not None:
            for index, record in enumerate(self.records):
                if record.sequence >= select_sequence:
                    self.cursor = index
                    break
            else:
                self.cursor = max(0, len(self.records) - 1)
        self._placement.land(upper=upper)
        self._rebuild()
        if summary_first and self.preface and self.cursor:
            under = self._layout.last_fitting(self.scrollable_content_region.height or self.size.height)
            if under < self.cursor:
                self.cursor = under
                self._rebuild()
        self._scroll_to_cursor(animate=False)
        if self.cursor:
            # Before the first layout the new virtual size is not applied yet and the
            # scroll above is clamped to the old one: scroll again once it is.
            self._placement.pending = True
            self.call_after_refresh(self._scroll_to_cursor_now_laid_out)
        else:
            self._placement.placed()

    def _scroll_to_cursor_now_laid_out(self) -> None:
        self._placement.pending = False
        self._scroll_to_cursor(animate=False)
        self._placement.placed()

    def expect_page(self) -> int:
        """Another page was asked for: keys typed until :meth:`page_done` wait for it.

        Returns the wait's token for :meth:`page_done`.
        """
        return self._typeahead.start()

    def page_done(self, token: int) -> None:
        """The page asked for with ``token`` is shown, or will not be: the keys typed
        meanwhile run now, in order (a newer page asked for keeps them waiting)."""
        self._typeahead.release(token)

    def _replay(self, event: events.Key) -> None:
        self.app.post_message(event)

    def on_key(self, event: events.Key) -> None:
        if self._typeahead.take(event):
            event.stop()
            event.prevent_default()

    @property
    def current(self) -> RawMessageRecord | None:
        """The record under the cursor."""
        return self.records[self.cursor] if self.records else None

    def _rebuild(self) -> None:
        """Lay the page out again (new page, width or reasoning toggle).

        Only the records from a screen or two above the cursor to two screens past it are
        wrapped now; the rest is wrapped right after that frame is painted, the records
        below first, then those above (until then each shows as a few blank lines). A page
        turn or a jump to the page's end therefore costs what is on screen, and the whole
        page is laid out a moment later.
        """
        width = max(20, self.scrollable_content_region.width or self.size.width or 80)
        self._width = width
        generation = self._finisher.restart()
        self._layout.reset(len(self.records))
        self._wraps.keep(self.records)
        self._layout.add_preface(self.preface, self.app.console, width)
        if not self.records:
            if not self.preface:
                self._layout.add_static(Strip([Segment(self.empty_text, Style(dim=True, italic=True))]))
        else:
            height = self.scrollable_content_region.height or self.size.height or 50
            self._layout.place_head(self._layout.head_above(self.cursor, 2 * height))
            self._render_through(self.cursor)
            layout = self._layout
            while layout.next < len(self.records) and len(layout.lines) < layout.starts[self.cursor] + 2 * height:
                self._render_through(layout.next)
            if layout.pending:
                self.call_after_refresh(self._finisher.step, generation)
        self._painted = len(self._layout.lines)
        self._update_virtual_size()
        self.refresh()

    def _record_lines(self, position: int) -> tuple[list[Strip], list[int]]:
        """The lines of record ``position`` (its boundary rule too) and who owns each."""
        record = self.records[position]
        return self._wraps.lines(
            record,
            position,
            self.app.console,
            width=self._width,
            expanded=record.sequence in self.expanded,
            compacted_through=self.compacted_through,
            cards=self.cards.get(record.sequence, ()),
            context=self.contexts[position] if position < len(self.contexts) else None,
            boundary=self.boundaries.get(record.sequence),
        )

    def _render_head(self, first: int) -> None:
        """Wrap the records from ``first`` up to the head (they showed blank lines so far);
        the lines below move by the difference, and so does the view when they are above it."""
        if first >= self._layout.head:
            return
        top, delta = self._layout.render_head(first)
        self._painted += delta
        if delta:
            self._update_virtual_size()
            if self.scroll_y > top:  # the lines the reader sees below them stay in place
                self.scroll_to(y=self.scroll_y + delta, animate=False, immediate=True)
        self.refresh()

    def _render_through(self, index: int) -> None:
        self._layout.render_through(index)

    def _finished(self) -> None:
        """The whole page is wrapped: its real height applies."""
        self._update_virtual_size()
        height = self.scrollable_content_region.height or self.size.height
        if self.scroll_y + height > self._painted:
            # The reader scrolled into lines that were still blank when painted.
            self.refresh()

    def hold(self) -> None:
        """Stop wrapping the rest of this page: another page was asked for (a key pressed
        right after a page turn no longer waits for the previous page's wrapping)."""
        self._finisher.restart()

    def resume(self) -> None:
        """Wrap the rest of this page after all (the page asked for could not be read)."""
        self._finisher.resume()

    def _update_virtual_size(self) -> None:
        # Records not wrapped yet count as a few lines each.
        set_virtual_size(self, Size(self._width, self._layout.height))

    def show_cards(self, cards: dict[int, list[Text]]) -> None:
        """Put cards under records of this page; what the reader sees stays where it is:
        the cursor's record if it is on screen, else the record at the top of the view.

        Cards that come before the page's first scroll to its cursor (the view still at
        the top) leave that scroll to happen: measured from there, the cursor would end
        up off screen (a page opened at ``--seq`` showed other records).
        """
        self.cards = cards
        if self._placement.pending or not self._layout.starts:
            self._rebuild()
            self._scroll_to_cursor(animate=False)
            return
        anchor = self._anchor()
        self._rebuild()
        self._keep_at(*anchor)
        self.call_after_refresh(self._keep_at, *anchor)  # once the new size applies

    def _anchor(self) -> tuple[int, float]:
        height = self.scrollable_content_region.height or self.size.height
        return self._layout.anchor(self.cursor, self.scroll_y, height)

    def _keep_at(self, position: int, offset: float) -> None:
        """Scroll so record ``position`` starts ``offset`` lines below the view's top."""
        if position < len(self._layout.starts):
            self.scroll_to(y=max(0, self._layout.starts[position] - offset), animate=False)

    def rendered_lines(self) -> list[Strip]:
        """Every line of the page, wrapping what is not wrapped yet."""
        self._finisher.now()
        return self._layout.lines

    def restyle(self) -> None:
        """Lay the page out again with the current styles (the app's theme changed)."""
        self._wraps.clear()
        self._rebuild()

    def on_resize(self) -> None:
        if self.scrollable_content_region.width != self._width:
            self._rebuild()
            if self.cursor:
                # Wrapped anew, the cursor's record moved: keep it on screen (a page shown
                # before the first layout, e.g. opened at --seq, was laid out at a guessed width).
                self._scroll_to_cursor(animate=False)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        if index >= len(self._layout.lines):
            return Strip.blank(self.size.width, self.line_style)
        strip = self._layout.lines[index]
        owner = self._layout.owner[index]
        if owner >= 0 and self.records[owner].sequence <= self.covered_floor():
            strip = strip.apply_style(_DIM)  # summarised in the context the cursor's step had
        if owner == self.cursor and self.records:
            strip = strip.apply_style(self.cursor_style(CURSOR if self.has_focus else CURSOR_BLURRED))
        return self.themed(strip).crop_extend(scroll_x, scroll_x + self.size.width, self.line_style)

    def covered_floor(self) -> int:
        """The boundary of the snapshot in force when the cursor's message began (0: none)."""
        if not self.snapshots or (step := self.current) is None:
            return 0
        if self._covered[0] != self.cursor:
            snapshot = in_force(self.snapshots, step.started_at, step.sequence)
            self._covered = (self.cursor, snapshot.compacted_through_sequence if snapshot else 0)
        return self._covered[1]

    def _scroll_to_cursor(self, *, animate: bool = True) -> None:
        if self.cursor < self._layout.head:  # moved up into records not wrapped yet
            self._render_head(max(0, self.cursor - FINISH_CHUNK))
        wrapped = self._layout.next
        self._render_through(self.cursor + 1)
        if self._layout.next != wrapped:
            self._update_virtual_size()  # the cursor's lines must be reachable before scrolling
        if not self._layout.starts:
            self.scroll_to(y=0, animate=False)
            return
        start, end = self._layout.span(self.cursor)
        height = self.scrollable_content_region.height or self.size.height
        target = self._placement.target(
            start, end, self.scroll_y, height, preface=bool(self.preface), first=self.cursor == 0
        )
        if target is not None:
            self.scroll_to(y=target[0], animate=animate and target[1])
        self.refresh()

    def select_sequence(self, sequence: int) -> bool:
        """Move the cursor to a sequence on this page, a quarter down the view (a jump);
        False when it is not here."""
        for index, record in enumerate(self.records):
            if record.sequence == sequence:
                self.cursor = index
                self._placement.upper = True
                self._scroll_to_cursor(animate=False)
                self._placement.upper = self._placement.pending  # still placed once laid out
                return True
        return False

    def action_cursor(self, step: int) -> None:
        if self.records:
            self.cursor = max(0, min(len(self.records) - 1, self.cursor + step))
            self._placement.placed()
            self._scroll_to_cursor()

    def action_toggle_reasoning(self) -> None:
        record = self.current
        if record is not None:
            self.expanded ^= {record.sequence}
            self._rebuild()
            self._scroll_to_cursor(animate=False)

    def action_open_record(self) -> None:
        if self.current is not None:
            self.post_message(self.RecordOpened(self.current))

    def action_jump_call(self) -> None:
        if self.current is not None:
            self.post_message(self.CallJump(self.current))

    def action_time_travel(self) -> None:
        if self.current is not None:
            self.post_message(self.ContextRequested(self.current))

    def action_open_child(self) -> None:
        if self.current is not None:
            self.post_message(self.ChildRequested(self.current))

    def on_click(self, event: object) -> None:
        y = getattr(event, "y", None)
        if isinstance(y, int):
            line = int(self.scroll_y) + y
            if 0 <= line < len(self._layout.owner) and self._layout.owner[line] >= 0:
                self.cursor = self._layout.owner[line]
                self.refresh()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
