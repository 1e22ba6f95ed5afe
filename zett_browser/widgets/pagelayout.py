"""Provides the Raw Log's page layout: which line comes from which record, wrapped lazily.

:class:`PageLayout` holds a page's lines, the record that owns each line (-1: the summary,
a boundary rule, the empty text) and where each record starts. Records are wrapped by the
callable it is given (the view's, which knows widths, styles and cards); those not
wrapped yet show as :data:`ESTIMATED_LINES` blank lines, first above the cursor's screen
(``head``) and after what was wrapped (``next``). The view (:mod:`.rawlog`) decides when to
wrap more and scrolls; this module only keeps the lines consistent. :class:`Wrapped` is
one record's wrapped lines, cached by :class:`RecordWraps`; :func:`card_strips` wraps a delegation
card's line under its own bar.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text
from textual.strip import Strip

from ..model import RawMessageRecord
from ..views.requests import RequestContext
from .cards import BAR
from .render import RenderOptions, render_record, style_of

#: Lines a record not wrapped yet counts for (blank lines above the first screen).
ESTIMATED_LINES = 4
BLANK = Strip.blank(0)

#: Wraps record ``position``: its lines and the owner of each.
Wrap = Callable[[int], tuple[list[Strip], list[int]]]


def card_strips(text: Text, console: Console, width: int) -> list[Strip]:
    """A card line wrapped under its own bar: every continuation line keeps the ``┃``."""
    if not text.plain.startswith(BAR) or width <= len(BAR) + 8:
        return [
            Strip(segments) for segments in console.render_lines(text, console.options.update_width(width), pad=False)
        ]
    bar = text[: len(BAR)]
    bar_segments = list(bar.render(console))
    body = text[len(BAR) :]
    options = console.options.update_width(width - len(BAR))
    return [Strip([*bar_segments, *segments]) for segments in console.render_lines(body, options, pad=False)]


@dataclass(frozen=True, slots=True)
class Wrapped:
    """One record's wrapped lines and what they were wrapped from."""

    record: RawMessageRecord
    #: (width, reasoning shown, compacted) the lines were wrapped with.
    shape: tuple[int, bool, bool]
    cards: Sequence[Text]
    strips: tuple[Strip, ...]
    context: RequestContext | None = None

    def fits(
        self, record: RawMessageRecord, shape: tuple[int, bool, bool], cards: Sequence[Text], context: object
    ) -> bool:
        """The lines show ``record`` this way: the same row, shape, context and cards."""
        return (
            self.shape == shape
            and self.context == context
            and self.record == record
            and self.record.problems == record.problems
            and len(self.cards) == len(cards)
            and all(a == b and a.style == b.style for a, b in zip(self.cards, cards, strict=True))
        )


class PageLayout:
    """The lines of one page and how far its records are wrapped.

    Args:
        wrap: Wraps one record (by its position on the page).
    """

    def __init__(self, wrap: Wrap) -> None:
        self._wrap = wrap
        self.lines: list[Strip] = []
        self.owner: list[int] = []
        self.starts: list[int] = []
        #: Records on the page.
        self.count = 0
        #: The first record not wrapped yet (after those wrapped around the cursor).
        self.next = 0
        #: Records before this one are not wrapped yet either: each shows ESTIMATED_LINES
        #: blank lines (a page laid out with its cursor far down, e.g. at its end).
        self.head = 0

    def reset(self, count: int) -> None:
        """A new layout of ``count`` records, nothing wrapped."""
        self.lines, self.owner, self.starts = [], [], []
        self.count, self.next, self.head = count, 0, 0

    def add_static(self, strip: Strip) -> None:
        """A line no record owns (the summary above the records, the empty text)."""
        self.lines.append(strip)
        self.owner.append(-1)

    def add_preface(self, texts: Sequence[Text], console: Console, width: int) -> None:
        """The summary above the records (already safe text), and a blank line under it."""
        options = console.options.update_width(width - 1)
        for text in texts:
            for segments in console.render_lines(text, options, pad=False):
                self.add_static(Strip(segments))
        if texts:
            self.add_static(BLANK)

    def wrap(self, position: int) -> list[Strip]:
        """Record ``position``'s lines (the wrapper caches them), without laying them out."""
        return self._wrap(position)[0]

    def last_fitting(self, height: int) -> int:
        """The last record that shows whole under what comes before the first record (the
        summary) in a view of ``height`` lines (0: none does)."""
        line = self.starts[0] if self.starts else 0
        for position in range(self.count):
            line += len(self.wrap(position))
            if line > height:
                return max(0, position - 1)
        return self.count - 1

    @property
    def pending(self) -> bool:
        """Some records are not wrapped yet."""
        return self.next < self.count or self.head > 0

    def place_head(self, head: int) -> None:
        """The records before ``head`` show as blank lines until they are wrapped."""
        for position in range(head):
            self.starts.append(len(self.lines))
            self.lines.extend([BLANK] * ESTIMATED_LINES)
            self.owner.extend([position] * ESTIMATED_LINES)
        self.head = self.next = head

    def span(self, position: int) -> tuple[int, int]:
        """The first line of record ``position`` and the line after its last (it must be laid out)."""
        starts = self.starts
        return starts[position], starts[position + 1] if position + 1 < len(starts) else len(self.lines)

    def anchor(self, cursor: int, top: float, height: int) -> tuple[int, float]:
        """The record to keep in place when the page is laid out again and its first line's
        offset from the view's top: the cursor's if any of its lines shows, else the first
        record shown."""
        if cursor < len(self.starts):
            start, end = self.span(cursor)
            if start < top + height and end > top:
                return cursor, start - top
        shown = max(0, bisect.bisect_right(self.starts, top) - 1)
        return shown, self.starts[shown] - top

    @property
    def height(self) -> int:
        """The page's lines, records not wrapped yet counted as a few lines each."""
        return len(self.lines) + (self.count - self.next) * ESTIMATED_LINES

    def head_above(self, index: int, lines: int) -> int:
        """The first record to wrap at once so ``lines`` lines above ``index`` are real."""
        head, above = index, 0
        while head > 0 and above < lines:
            head -= 1
            above += len(self._wrap(head)[0])
        return head

    def render_through(self, index: int) -> None:
        """Wrap records up to ``index`` (inclusive) that are not wrapped yet."""
        if index < self.next:
            return
        lines, owner, starts = self.lines, self.owner, self.starts
        for position in range(self.next, min(index + 1, self.count)):
            starts.append(len(lines))
            record_lines, record_owner = self._wrap(position)
            lines.extend(record_lines)
            owner.extend(record_owner)
            self.next = position + 1

    def render_head(self, first: int) -> tuple[int, int]:
        """Wrap the records from ``first`` up to the head (they showed blank lines so far).

        Returns the first line that changed and by how many lines what follows moved.
        """
        head = self.head
        if first >= head:
            return 0, 0
        lines: list[Strip] = []
        owner: list[int] = []
        starts: list[int] = []
        top = self.starts[first]
        for position in range(first, head):
            starts.append(top + len(lines))
            record_lines, record_owner = self._wrap(position)
            lines.extend(record_lines)
            owner.extend(record_owner)
        end = self.starts[head]
        delta = len(lines) - (end - top)
        self.lines[top:end] = lines
        self.owner[top:end] = owner
        self.starts[first:head] = starts
        for position in range(head, len(self.starts)):
            self.starts[position] += delta
        self.head = first
        return top, delta


class RecordWraps:
    """Each record's wrapped lines, by (session, sequence), kept while the record is on the
    page: a page shown again (a followed session's new rows, cards added) wraps only the
    records that are new or changed."""

    def __init__(self) -> None:
        self._wrapped: dict[tuple[str, int], Wrapped] = {}

    def keep(self, records: Sequence[RawMessageRecord]) -> None:
        """Forget the records no longer on the page."""
        on_page = {(record.session_id, record.sequence) for record in records}
        self._wrapped = {key: wrapped for key, wrapped in self._wrapped.items() if key in on_page}

    def clear(self) -> None:
        """Forget every record (the styles changed)."""
        self._wrapped.clear()

    def lines(
        self,
        record: RawMessageRecord,
        position: int,
        console: Console,
        *,
        width: int,
        expanded: bool,
        compacted_through: int,
        cards: Sequence[Text],
        context: RequestContext | None,
        boundary: str | None,
    ) -> tuple[list[Strip], list[int]]:
        """The lines of ``record`` at ``position`` (its boundary rule too) and who owns each."""
        shape = (width, expanded, record.sequence <= compacted_through)
        key = (record.session_id, record.sequence)
        wrapped = self._wrapped.get(key)
        if wrapped is None or not wrapped.fits(record, shape, cards, context):
            options = console.options.update_width(width - 1)
            render = RenderOptions(show_reasoning=expanded, show_all=False, compacted_through=compacted_through)
            strips = tuple(
                Strip(segments)
                for text in render_record(record, render, context)
                for segments in console.render_lines(text, options, pad=False)
            ) + tuple(strip for text in cards for strip in card_strips(text, console, width - 1))
            wrapped = self._wrapped[key] = Wrapped(record, shape, tuple(cards), strips, context)
        lines = [*wrapped.strips, BLANK]
        owner = [position] * len(lines)
        if boundary:
            rule = Text(f"── {boundary} ".ljust(width - 1, "─"), style=style_of("boundary"))
            lines += [Strip(list(rule.render(console))), BLANK]
            owner += [-1, -1]
        return lines, owner


__all__ = ["BLANK", "ESTIMATED_LINES", "PageLayout", "RecordWraps", "Wrapped", "card_strips"]
