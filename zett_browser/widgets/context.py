"""Provides the head of the context view: where the context is taken and its size.

The lines come from :mod:`zett_browser.views.time_travel_text` (plain, cleaned strings) and are
shown as ``Text`` built from them, never parsed as markup. The size table is laid out
across (one column per category) so it fits 80 columns in four lines.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..views.time_travel import CATEGORIES, ContextPoint, Estimate
from ..views.time_travel_text import HOW_ESTIMATED, heading, measured_line, range_line, snapshot_line
from .render import style_of

#: Short column titles of the categories (the CLI's table spells them out).
SHORT = {"assistant": "assist.", "tool results": "tools", "reasoning": "reason."}


def compact(value: int) -> str:
    """A count in at most seven characters: ``9,999``, ``123.4k``, ``12.3M``."""
    if value < 100_000:
        return f"{value:,}"
    if value < 10_000_000:
        return f"{value / 1000:.1f}k"
    return f"{value / 1_000_000:.1f}M"


def across(estimate: Estimate) -> list[str]:
    """The table with a column per category and the total: messages, chars, ~tokens."""
    names = [SHORT.get(name, name) for name in CATEGORIES] + ["total"]
    rows = [
        ("size", names),
        ("messages", [compact(estimate.messages[c]) for c in CATEGORIES] + [compact(estimate.rows)]),
        ("chars", [compact(estimate.chars[c]) for c in CATEGORIES] + [compact(estimate.total_chars)]),
        ("~tokens", [compact(estimate.tokens(c)) for c in CATEGORIES] + [compact(estimate.total_tokens)]),
    ]
    return [f"{label:<9}" + "".join(f"{cell:>8}" for cell in cells) for label, cells in rows]


class ContextHead(Static):
    """Heading, snapshot in force, range, the size table and the measured check."""

    DEFAULT_CSS = """
    ContextHead { height: auto; padding: 0 1; background: $panel; }
    """

    def show(self, point: ContextPoint, estimate: Estimate | None, *, progress: int = 0) -> None:
        """Show a context; ``estimate`` None while it is still being counted."""
        text = Text()
        text.append(heading(point) + "\n", style="bold")
        text.append(snapshot_line(point) + "\n", style=style_of("boundary") if point.snapshot else "")
        if estimate is None:
            text.append(f"counting the context… {progress:,} rows read", style="dim italic")
        else:
            text.append(range_line(point, estimate) + "\n")
            table = across(estimate)
            text.append(table[0] + "\n", style="bold")
            text.append("\n".join(table[1:]) + "\n")
            text.append(HOW_ESTIMATED + "\n", style="dim")
            text.append(measured_line(point, estimate), style="bold")
        self.update(text)
