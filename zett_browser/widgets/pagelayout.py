"""Provides the Raw Log's page layout: which line comes from which record, wrapped lazily.

:class:`PageLayout` holds a page's lines, the record that owns each line (-1: the summary,
a boundary rule, the empty text) and where each record starts. Records are wrapped by the
callable it is given (the view's, which knows widths, styles and cards); those not
wrapped yet show as :data:`ESTIMATED_LINES` blank lines, first above the cursor's screen
(``head``) and after what was wrapped (``next``). The view (:mod:`.rawlog`) decides when to
wrap more and scrolls; this module only keeps the lines consistent. :class:`Wrapped` is
one record's wrapped lines as cached by the view; :func:`card_strips` wraps a delegation
card's line under its own bar.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text
from textual.strip import Strip

from ..model import RawMessageRecord
from ..views.requests import RequestContext
from .cards import BAR

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


__all__ = ["BLANK", "ESTIMATED_LINES", "PageLayout", "Wrapped", "card_strips"]
