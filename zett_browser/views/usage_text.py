"""Provides how usage numbers read: compact tokens and cost for the tree, full lines for details.

Toolkit-free (the tree, the details panel and the delegation cards share it). Cost is
never guessed: a total whose steps could not all be priced says so (``$0.41+?``), one
with no priced step reads ``cost unknown``.
"""

from __future__ import annotations

from decimal import Decimal

from ..model.usage import SessionUsage, Totals, TreeSort
from .formatting import human_duration

#: Tool results that are neither ok nor failed (``model.outcomes``): a row each in the details
#: table when any was counted, never added to the failed ones.
OTHER_OUTCOMES = ("skipped", "cancelled", "interrupted", "aborted")

#: What ``S`` cycles through, and how the tree's title names each.
SORT_ORDER = (TreeSort.ACTIVITY, TreeSort.COST, TreeSort.TOKENS, TreeSort.TIME, TreeSort.FAILURES)
SORT_NAMES = {
    TreeSort.ACTIVITY: "activity",
    TreeSort.COST: "subtree cost",
    TreeSort.TOKENS: "subtree tokens",
    TreeSort.TIME: "time",
    TreeSort.FAILURES: "failures",
}


def next_sort(order: TreeSort) -> TreeSort:
    """The order after ``order`` in the cycle."""
    return SORT_ORDER[(SORT_ORDER.index(order) + 1) % len(SORT_ORDER)]


def compact_count(value: int) -> str:
    """``950``, ``12.3k``, ``4.1M``."""
    if value < 1000:
        return str(value)
    if value < 1_000_000:
        return f"{value / 1000:.1f}k"
    if value < 1_000_000_000:
        return f"{value / 1_000_000:.1f}M"
    return f"{value / 1_000_000_000:.1f}G"


def money(cost: Decimal | None, unpriced: int = 0) -> str:
    """``$0.41``; ``$0.41+?`` when some steps could not be priced; ``cost unknown`` for none."""
    if cost is None:
        return "cost unknown" if unpriced else "$0"
    if cost >= 100:
        text = f"${cost:,.0f}"
    elif cost >= Decimal("0.01") or cost == 0:
        text = f"${cost:.2f}"
    else:
        text = f"${cost:.4f}"
    return text + ("+?" if unpriced else "")


def compact(usage: SessionUsage) -> str:
    """The tree's suffix: subtree tokens and cost, e.g. ``12.3k tok $0.41``."""
    total = usage.subtree
    cost = money(total.cost, total.unpriced_steps)
    if cost == "cost unknown":
        cost = "$?"
    return f"{compact_count(total.tokens.total)} tok {cost}"


def seconds(value: float | None) -> str:
    """A wall span in seconds as ``3.2 s``, ``2 m 05 s``; ``—`` when unknown."""
    if value is None:
        return "—"
    return human_duration(int(value * 1e9)) or "0 s"


def totals_rows(own: Totals, subtree: Totals) -> list[tuple[str, str, str]]:
    """The details panel's table: (what, own, subtree)."""

    def both(read: object) -> tuple[str, str]:
        return read(own), read(subtree)  # type: ignore[operator]

    def rate(totals: Totals) -> str:
        hit = totals.tokens.cache_hit_rate
        return f"{hit:.0%}" if hit is not None else "—"

    def count(name: str) -> tuple[str, str]:
        return f"{getattr(own, name):,}", f"{getattr(subtree, name):,}"

    rows = [
        ("messages", *count("messages")),
        ("steps", *count("steps")),
        ("tool calls", *count("tool_calls")),
        ("failed tool results", *count("failed_tool_results")),
        *(
            (f"{outcome} tool results", *count(f"{outcome}_tool_results"))
            for outcome in OTHER_OUTCOMES
            if getattr(own, f"{outcome}_tool_results") or getattr(subtree, f"{outcome}_tool_results")
        ),
        ("refused steps", *count("refused_steps")),
        ("cut-off steps", *count("cut_off_steps")),
        ("compactions", *count("compactions")),
        ("delegated sessions", *count("children")),
        ("input tokens", *both(lambda t: f"{t.tokens.input:,}")),
        ("output tokens", *both(lambda t: f"{t.tokens.output:,}")),
        ("cache read", *both(lambda t: f"{t.tokens.cache_read:,}")),
        ("cache write", *both(lambda t: f"{t.tokens.cache_write:,}")),
        ("reasoning tokens", *both(lambda t: f"{t.tokens.reasoning:,}")),
        ("cache hit rate", *both(rate)),
        ("measured time", *both(lambda t: human_duration(t.measured_ns) or "0 s")),
        ("wall span", *both(lambda t: seconds(t.wall_seconds))),
        ("cost", *both(lambda t: money(t.cost, t.unpriced_steps))),
        ("rows with bad values", *count("problems")),
    ]
    return rows
