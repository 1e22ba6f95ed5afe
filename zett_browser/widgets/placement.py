"""Provides where the Raw Log puts its cursor's message in the view.

A page just shown (:attr:`Placement.landing`) shows its summary above the cursor's message
when both fit; a page or message jumped to (:attr:`Placement.upper`) puts the message a
quarter down the view, with what came just before it above; otherwise the view scrolls
only as far as it must to keep the cursor's message in sight. :meth:`Placement.target`
is the rule, free of any widget.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Placement:
    """How the next scroll to the cursor places it."""

    #: The page was just shown and not placed yet: its summary (preface) shows when the
    #: cursor's message fits under it.
    landing: bool = False
    #: Else the cursor's message goes a quarter down the view (a jump), not to its bottom row.
    upper: bool = False
    #: The page was shown with its cursor down the page: the scroll to it waits for the
    #: page's first layout (before it, the new height is not applied yet).
    pending: bool = False

    def land(self, *, upper: bool) -> None:
        """A page was shown (``upper``: jumped to)."""
        self.landing, self.upper = True, upper

    def placed(self) -> None:
        """The cursor was placed: later scrolls only keep it in view."""
        self.landing = self.upper = False

    def target(
        self, start: int, end: int, top: float, height: int, *, preface: bool, first: bool
    ) -> tuple[float, bool] | None:
        """Where to scroll for a cursor's message on lines ``start`` to ``end`` (exclusive)
        in a view of ``height`` lines scrolled to ``top``, and whether a move may animate;
        None: it shows as it is.

        ``preface``: the page has a summary above its first record; ``first``: the cursor
        is on that record.
        """
        if self.landing and preface and (first or end <= height):
            return 0, False  # the summary and the cursor's message
        if self.upper:  # jumped to: a quarter down, what came just before above it
            return max(0, start - height // 4), False
        if start < top or end - start > height:
            return start, True
        if end > top + height:
            return end - height, True
        return None
