"""Provides the comparison of two sessions: both read a page at a time, aligned as they are read.

:class:`Comparison` ties a :class:`~.compare_steps.StepReader` per run to one
:class:`~.compare_align.Aligner`; :meth:`Comparison.pages` hands out the aligned rows in
order, a window at a time, and the totals of both runs grow as they are read (final once
the last page is out). The screen and ``zett-browser compare`` both use it; nothing here
holds more than two windows of steps.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from decimal import Decimal

from ..model.store import BrowsingStore
from .compare_align import FIRST_WINDOW, WINDOW, Aligner, Row
from .compare_steps import PAGE, StepReader
from .compare_totals import RunTotals
from .formatting import human_duration
from .usage_text import money


@dataclass(frozen=True, slots=True)
class Delta:
    """One line of the deltas: what, each run's value as read, and which run did better."""

    what: str
    left: str
    right: str
    change: str
    better: str  # "A", "B" or "" (equal, or no better side)


class Comparison:
    """Two sessions of one store, aligned step by step as their pages are read."""

    def __init__(
        self,
        store: BrowsingStore,
        left_id: str,
        right_id: str,
        *,
        page: int = PAGE,
        window: int = WINDOW,
        first_window: int = FIRST_WINDOW,
    ) -> None:
        self.left_id = left_id
        self.right_id = right_id
        self.left = StepReader(store, left_id, page=page)
        self.right = StepReader(store, right_id, page=page)
        self.aligner = Aligner(window=window, first_window=first_window)
        self.complete = False

    async def pages(self) -> AsyncIterator[list[Row]]:
        """The aligned rows in order, a window at a time; :attr:`complete` once all are out."""
        async for rows in self.aligner.align(self.left.pages(), self.right.pages()):
            yield rows
        self.complete = True

    def price(self) -> None:
        """Price both runs' steps read so far (loads the price table: run it off the event loop)."""
        self.left.totals.price()
        self.right.totals.price()

    @property
    def first(self) -> Row | None:
        """The first row where the runs differ (None: none yet, or they never do)."""
        return self.aligner.first

    def deltas(self) -> list[Delta]:
        """The deltas that decide which run was better (as far as read and priced, :meth:`price`)."""
        return deltas(self.left.totals, self.right.totals)


def _count(value: int) -> str:
    return f"{value:,}"


def _cost(picos: int, unpriced: int) -> str:
    cost = Decimal(picos).scaleb(-12) if picos or not unpriced else None
    return money(cost, unpriced)


def _duration(ns: int) -> str:
    return human_duration(ns) or "0 s"


def _change(left: int, right: int, show: str) -> str:
    if left == right:
        return "="
    sign = "+" if right > left else "−"
    return f"{sign}{show}"


def _line(what: str, left: int, right: int, shown: tuple[str, str, str], lower_is_better: bool = True) -> Delta:
    better = ""
    if left != right and lower_is_better:
        better = "A" if left < right else "B"
    return Delta(what, shown[0], shown[1], _change(left, right, shown[2]), better)


def deltas(a: RunTotals, b: RunTotals) -> list[Delta]:
    """Each measure of two runs (B against A); lower is better for all but user turns,
    skipped/cancelled calls and compactions (neither side is better for those)."""

    def counted(what: str, left: int, right: int, *, judged: bool = True) -> Delta:
        return _line(what, left, right, (_count(left), _count(right), _count(abs(right - left))), judged)

    tokens = ("input", "output", "cache read", "cache write", "reasoning")
    rows = [
        counted("user turns", a.user_turns, b.user_turns, judged=False),
        counted("model steps", a.steps, b.steps),
        counted("tool calls", a.tool_calls, b.tool_calls),
        counted("failed tool calls", a.failures, b.failures),
        counted("skipped/cancelled calls", a.other_outcomes, b.other_outcomes, judged=False),
        counted("abnormal stops", a.stops, b.stops),
    ]
    rows += [counted(f"{name} tokens", a.tokens[i], b.tokens[i]) for i, name in enumerate(tokens)]
    cost_a, cost_b = _cost(a.cost_picos, a.unpriced), _cost(b.cost_picos, b.unpriced)
    cost_change = _cost(abs(b.cost_picos - a.cost_picos), 0)
    priced = not a.unpriced and not b.unpriced
    rows.append(_line("cost", a.cost_picos, b.cost_picos, (cost_a, cost_b, cost_change), priced))
    time = (_duration(a.duration_ns), _duration(b.duration_ns), _duration(abs(b.duration_ns - a.duration_ns)))
    rows.append(_line("measured time", a.duration_ns, b.duration_ns, time))
    rows.append(counted("compactions", a.compactions, b.compactions, judged=False))
    rows.append(counted("peak context", a.peak_context, b.peak_context))
    return rows


__all__ = ["Comparison", "Delta", "deltas"]
