"""Provides the screen over the main one that shows a whole message."""

from __future__ import annotations

import asyncio
from bisect import bisect_right
from collections.abc import Callable
from functools import partial

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static, TextArea
from textual.widgets.text_area import Selection

from ..keymap import bindings
from ..views.formatting import human_size
from ..widgets.safe import clean
from .outside import take_text
from .reads import Failed, attempt_call

#: Characters shown at once. Textual's TextArea lays out all of its text (10 KB of long
#: lines: ~2 ms; 220 KB: 60 ms; one 200 KB line: 200 ms, measured), so a 50 MB message
#: is shown one part at a time and every key stays answered in milliseconds.
PART = 50_000
#: Parts searched between two turns of the event loop (about 1 MB: a few milliseconds).
FIND_PARTS_PER_TICK = 20


def split_parts(text: str, size: int = PART) -> list[int]:
    """Where each part starts: at a line start when one is near, else at ``size``."""
    starts = [0]
    while starts[-1] + size < len(text):
        start = starts[-1]
        cut = text.rfind("\n", start + size // 2, start + size)
        starts.append(cut + 1 if cut >= 0 else start + size)
    return starts


class PartArea(TextArea):
    """A read-only text area whose home/end go to the whole text's top and bottom."""

    BINDINGS = [
        Binding("home", "screen.top", "Top", show=False),
        Binding("end", "screen.bottom", "Bottom", show=False),
    ]

    def action_cursor_page_down(self) -> None:
        screen = self.screen
        if self.cursor_location[0] >= self.document.line_count - 1 and isinstance(screen, MessageDetail):
            screen.action_next_part()  # on the last line: the next part's top
        else:
            super().action_cursor_page_down()

    def action_cursor_page_up(self) -> None:
        screen = self.screen
        if self.cursor_location[0] == 0 and isinstance(screen, MessageDetail):
            screen.action_previous_part(at_end=True)
        else:
            super().action_cursor_page_up()


class MessageDetail(ModalScreen[None]):
    """One record (or a summary) shown whole: a part at a time, with find, top and bottom.

    ``body`` is the text itself (cleaned here), or a function producing cleaned text
    (:mod:`zett_browser.views.formatting` does; formatting a 50 MB message cleans 50 MB): that
    runs in a thread so the screen shows at once, then each part is laid out only when it
    is shown.
    """

    BINDINGS = bindings("detail")

    DEFAULT_CSS = """
    MessageDetail #detail-status { width: 90%; padding: 0 1; background: $panel; color: $text-muted; }
    MessageDetail #detail-find { width: 90%; display: none; }
    MessageDetail #detail-find.shown { display: block; }
    """

    def __init__(self, title: str, body: str | Callable[[], str]) -> None:
        super().__init__()
        self.title_text = title
        self._source = body
        self.body = ""
        self.starts: list[int] = [0]
        self.part = 0
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Static(Text(clean(self.title_text), style="bold"), id="detail-title")
        yield PartArea("", read_only=True, soft_wrap=True, id="detail-body")
        yield Static(Text("Loading…", style="italic"), id="detail-status")
        yield Input(placeholder="find (enter: next match, escape: close)", id="detail-find")
        yield Footer()

    def on_mount(self) -> None:
        if callable(self._source):
            self._prepare()
        else:
            self._loaded(clean(self._source))

    # An explicit description: Textual's default one is the repr of the call's arguments,
    # which for a 50 MB message cost 600 ms on the UI thread before the thread started.
    @work(thread=True, exit_on_error=False, description="format the whole message")
    def _prepare(self) -> None:
        source = self._source
        text = attempt_call(source if callable(source) else partial(clean, source))
        if isinstance(text, Failed):  # shown on the screen, never a crash
            text = clean(f"This could not be shown: {text.error!r}")
        self.app.call_from_thread(self._loaded, text)

    def _loaded(self, text: str) -> None:
        self.body = text
        self.loaded = True
        self.starts = split_parts(text)
        self._show_part(0)
        self.query_one(PartArea).focus()

    def _part_text(self, index: int) -> str:
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.body)
        return self.body[self.starts[index] : end]

    def _show_part(self, index: int, *, at_end: bool = False) -> None:
        self.part = max(0, min(len(self.starts) - 1, index))
        area = self.query_one(PartArea)
        area.load_text(self._part_text(self.part))
        area.move_cursor(area.document.end if at_end else (0, 0))
        area.scroll_cursor_visible(center=False, animate=False)
        self._show_status()

    def _show_status(self, note: str = "") -> None:
        status = Text(human_size(len(self.body)))
        if len(self.starts) > 1:
            status.append(f" · part {self.part + 1:,} of {len(self.starts):,} (n/p, pagedown past the end)")
        status.append(" · / find · g/G top/bottom")
        if note:
            status.append(f" · {note}", style="bold")
        self.query_one("#detail-status", Static).update(status)

    @property
    def line_count(self) -> int:
        """Lines of the part on screen."""
        return self.query_one(PartArea).document.line_count

    def action_next_part(self) -> None:
        if self.part + 1 < len(self.starts):
            self._show_part(self.part + 1)

    def action_previous_part(self, at_end: bool = False) -> None:
        if self.part > 0:
            self._show_part(self.part - 1, at_end=at_end)

    def action_top(self) -> None:
        self._show_part(0)

    def action_bottom(self) -> None:
        self._show_part(len(self.starts) - 1, at_end=True)

    def action_take(self, how: str) -> None:
        """``Y`` ``v`` ``E``: the whole text (every part) to the clipboard, pager or editor."""
        if self.loaded:
            take_text(self, self.body, how, clean(self.title_text))
        else:
            self.notify("Still loading", markup=False)

    def action_find(self) -> None:
        field = self.query_one("#detail-find", Input)
        field.add_class("shown")
        field.focus()

    def action_close(self) -> None:
        field = self.query_one("#detail-find", Input)
        if field.has_class("shown"):
            field.remove_class("shown")
            self.query_one(PartArea).focus()
        else:
            self.dismiss()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.find(event.value)

    def _find_from(self) -> int:
        """Where the next find starts: just after the selected match's first character
        (a match right after it is found next), else at the cursor itself (a match at the
        very top is found from the top)."""
        selection = self.query_one(PartArea).selection
        if selection.start != selection.end:
            return self._offset(min(selection.start, selection.end)) + 1
        return self._offset(selection.end)

    def _offset(self, location: tuple[int, int]) -> int:
        """The character offset in the whole text of a (row, column) of the part shown."""
        row, column = location
        text = self._part_text(self.part)
        offset = 0
        for _ in range(row):
            offset = text.index("\n", offset) + 1
        return self.starts[self.part] + offset + column

    @work(exclusive=True, group="find", exit_on_error=False)
    async def find(self, query: str) -> bool:
        """Select the next match after the cursor (wrapping around); smart case.

        The text is searched a part at a time, yielding to the event loop every few
        parts, so keys stay answered while 50 MB are searched (a whole-text ``lower()``
        of 50 MB of non-ASCII text took 1.7 s on the UI thread).
        """
        if not query:
            return False
        fold = query == query.lower()
        start = self._find_from()
        first = max(0, bisect_right(self.starts, start) - 1)
        count = len(self.starts)
        for step, index in enumerate([*range(first, count), *range(0, first + 1)]):
            begin = self.starts[index]
            end = self.starts[index + 1] if index + 1 < count else len(self.body)
            chunk = self.body[begin : end + len(query) - 1]  # a match may cross into the next part
            if fold:
                folded = chunk.lower()
                chunk = folded if len(folded) == len(chunk) else chunk  # offsets must agree ("İ")
            since = start - begin if step == 0 else 0
            hit = chunk.find(query, max(0, since))
            if hit >= 0:
                self._select(begin + hit, len(query))
                return True
            if step % FIND_PARTS_PER_TICK == FIND_PARTS_PER_TICK - 1:
                await asyncio.sleep(0)
        self._show_status(f"no match for {clean(query)!r}")
        return False

    def _select(self, offset: int, length: int) -> None:
        part = bisect_right(self.starts, offset) - 1
        if part != self.part:
            self._show_part(part)
        text = self._part_text(part)
        local = offset - self.starts[part]
        row = text.count("\n", 0, local)
        column = local - (text.rfind("\n", 0, local) + 1)
        area = self.query_one(PartArea)
        area.selection = Selection((row, column), (row, column + length))
        area.scroll_cursor_visible(center=True, animate=False)
        self._show_status(f"match at character {offset:,}")
