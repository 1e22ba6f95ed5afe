"""Provides the head of the context view: where the context is taken and its size.

The lines come from :mod:`zett_browser.views.time_travel_text` (plain, cleaned strings) and are
shown as ``Text`` built from them, never parsed as markup. The size table is laid out
across (one column per category) so it fits 80 columns in four lines.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..views.offered import Offered
from ..views.time_travel import CATEGORIES, ContextPoint, Estimate
from ..views.time_travel_text import HOW_ESTIMATED, heading, measured_line, offered_line, range_line, snapshot_line
from .render import style_of
from .safe import clean, one_line

#: Characters of each system row shown above the context (``enter`` is not offered: it is no record).
PROMPT_PREVIEW = 500
#: Tools listed above the context.
TOOLS_LISTED = 60

#: Short column titles of the categories (the CLI's table spells them out).
SHORT = {
    "system prompt": "prompt",
    "tools offered": "tools",
    "summary": "summ.",
    "assistant": "asst.",
    "tool results": "result",
    "reasoning": "reason",
}


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
    # Nine categories and the total in 78 columns (80 less the padding): 7 a cell, titles of 6 at most.
    return [f"{label:<8}" + "".join(f"{cell:>7}" for cell in cells) for label, cells in rows]


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
        text.append(offered_line(point) + "\n", style="dim")
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


def offered_items(offered: Offered | None) -> list[Text]:
    """The first page's preface: the step's system prompt rows and its offered tools (cleaned)."""
    if offered is None:
        return []
    items: list[Text] = []
    which = "the last request's" if offered.from_last_request else "this request's"
    for sequence, text in offered.system:
        title = f"System prompt #{sequence} ({which} system row: sent, not a message)"
        items.append(Text(title, style=style_of("kind.system")))
        more = len(text) > PROMPT_PREVIEW
        items.append(Text(clean(text[:PROMPT_PREVIEW]) + ("…" if more else ""), style="dim"))
    if offered.traced:
        title = f"Tools offered: {len(offered.tools)} (model_request_trace of #{offered.trace_sequence})"
        lines = Text(title, style=style_of("kind.system"))
        for tool in offered.tools[:TOOLS_LISTED]:
            lines.append("\n")
            lines.append(one_line(tool.name, 60), style="bold")
            if tool.server:
                lines.append("  server tool", style="dim")
            if tool.description:
                lines.append("  " + one_line(tool.description, 100), style="dim")
            lines.append(f"  {tool.chars:,} chars", style="dim")
        if len(offered.tools) > TOOLS_LISTED:
            lines.append(f"\n… {len(offered.tools) - TOOLS_LISTED} more", style="dim")
        items.append(lines)
    return items
